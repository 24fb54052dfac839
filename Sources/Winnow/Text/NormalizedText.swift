/// Text after normalization: a sequence of units, each a folded scalar that remembers the
/// UTF-8 byte range of the original text it came from.
///
/// ```swift
/// let text = Normalizer().normalize("Ｆ.u.c.k 傻 逼")
/// text.string                        // "fuck 傻逼"
/// text.originalRange(ofUnits: 0..<4) // 0..<9: the bytes of "Ｆ.u.c.k"
/// ```
///
/// A unit may stand for several original characters (a run of repeated letters, a separator
/// run), and several units may share one original character (`㎏` → `k`, `g`). Units flagged
/// *optional* (a single Latin letter between CJK characters) are skipped by the primary walk
/// and kept by a second one. `NormalizedText` is `Sendable`; a value can be reused across calls
/// to ``Normalizer/normalize(_:into:)`` to keep its storage.
@_spi(Tools) public struct NormalizedText: Sendable {
  /// What a unit keeps besides its scalar: where it came from, how many repeated letters it
  /// stands for, and its class with flags. One record per unit, so that writing a unit is
  /// two appends rather than one per field.
  struct UnitInfo: Sendable, Equatable {
    /// Original UTF-8 byte offset where the unit starts.
    var start: Int32
    /// Original UTF-8 byte offset where the unit ends.
    var end: Int32
    /// How many repeated letters the unit stands for (1 unless ``Normalization/repeatedLetters``).
    var run: UInt16
    /// ``ScalarClass`` raw value, with ``optionalFlag`` and ``spelledFlag``.
    var flags: UInt8

    /// What unused storage holds.
    static let blank = UnitInfo(start: 0, end: 0, run: 0, flags: 0)

    @inline(__always) var isOptional: Bool { flags & NormalizedText.optionalFlag != 0 }
    @inline(__always) var isSpelled: Bool { flags & NormalizedText.spelledFlag != 0 }
    @inline(__always) var scalarClass: ScalarClass { ScalarClass(rawValue: flags & NormalizedText.classMask)! }
  }

  /// Folded scalars, one per unit: what the automaton walks. The first ``count`` are the
  /// text's; the rest is room kept from earlier texts, so that the normalizer writes units in
  /// place, with no per-text clearing, growing or copying.
  var scalarStorage: [UInt32] = []
  /// The rest of each unit, in step with `scalarStorage`.
  var infoStorage: [UnitInfo] = []
  /// The number of units.
  public internal(set) var count = 0
  /// Whether any unit is optional, so that a second walk is needed.
  var hasOptionalUnits = false
  /// Whether any unit is spelled (``spelledFlag``): a word boundary may then fall between two
  /// word characters.
  var hasSpelledUnits = false
  /// Whether any unit may be a letter or digit of a word (false only where the one-pass
  /// normalizer saw none, as in most Chinese text): without one, no position is inside a word,
  /// and a walk does not build the start filter's masks of word scalars.
  var mayHaveWords = true
  /// The normalizer's workspace, kept with the value so that reusing it reuses the workspace.
  var shaper = WordShaper()

  /// Set on optional units (a single letter between CJK characters, see ``Normalization/interleavedLetters``).
  static let optionalFlag: UInt8 = 0x80
  /// A unit that was a token of one character joined with its neighbours (`f.u.c.k`). Between
  /// two such units the text's own word boundaries are lost, so any position may be one.
  static let spelledFlag: UInt8 = 0x40
  static let classMask: UInt8 = 0x3F

  /// Creates an empty value, to pass to ``Normalizer/normalize(_:into:)``.
  public init() {}

  /// The folded scalars of the units.
  var scalars: [UInt32] { Array(scalarStorage[..<count]) }
  /// The rest of each unit, in step with ``scalars``.
  var units: [UnitInfo] { Array(infoStorage[..<count]) }

  /// The normalized text, optional units left out.
  public var string: String {
    var result = String.UnicodeScalarView()
    for index in 0..<count where !isOptional(index) {
      // A `1` read as a letter shows as `i`, as entries read it.
      let value = UnicodeTables.plainLetter(scalarStorage[index])
      result.append(Unicode.Scalar(value) ?? "\u{FFFD}")
    }
    return String(result)
  }

  /// The UTF-8 byte range of the original text that a range of units came from.
  public func originalRange(ofUnits units: Range<Int>) -> Range<Int> {
    precondition(!units.isEmpty && units.upperBound <= count, "unit range out of bounds")
    return Int(infoStorage[units.lowerBound].start)..<Int(infoStorage[units.upperBound - 1].end)
  }

  /// Original UTF-8 byte offset where each unit starts.
  var starts: [Int32] { units.map(\.start) }
  /// How many repeated letters each unit stands for.
  var runs: [UInt16] { units.map(\.run) }

  @inline(__always) func run(_ index: Int) -> UInt16 { infoStorage[index].run }
  @inline(__always) func isOptional(_ index: Int) -> Bool { infoStorage[index].isOptional }
  @inline(__always) func scalarClass(_ index: Int) -> ScalarClass { infoStorage[index].scalarClass }

  /// Whether the storage is small enough to keep for reuse (see ``WordShaper/keptCapacity``).
  var isWorthKeeping: Bool { scalarStorage.count <= WordShaper.keptCapacity && shaper.isWorthKeeping }

  /// Empties the text, keeping its storage.
  mutating func removeAll() {
    count = 0
    hasOptionalUnits = false
    hasSpelledUnits = false
    mayHaveWords = true
  }

  /// Makes room for `capacity` units.
  mutating func reserveCapacity(_ capacity: Int) {
    Self.grow(&scalarStorage, to: capacity, with: 0)
    Self.grow(&infoStorage, to: capacity, with: .blank)
  }

  /// Grows `storage` to at least `count` elements, filling new room with `blank`.
  @inline(__always)
  static func grow<Element>(_ storage: inout [Element], to count: Int, with blank: Element) {
    if storage.count < count { storage.append(contentsOf: repeatElement(blank, count: count - storage.count)) }
  }

  /// Adds a unit that stands for one character.
  @inline(__always)
  mutating func append(_ scalar: UInt32, _ scalarClass: UInt8, start: Int32, end: Int32) {
    let unit = UnitInfo(start: start, end: end, run: 1, flags: scalarClass)
    if count < scalarStorage.count {
      scalarStorage[count] = scalar
      infoStorage[count] = unit
    } else {
      scalarStorage.append(scalar)
      infoStorage.append(unit)
    }
    count += 1
  }

  /// Calls `body` with a view of the units that holds no references, for the walks of a scan.
  @inline(__always)
  func withUnits<Result>(_ body: (NormalizedUnits) -> Result) -> Result {
    scalarStorage.withUnsafeBufferPointer { scalars in
      infoStorage.withUnsafeBufferPointer { infos in
        body(
          NormalizedUnits(
            scalars: UnsafeBufferPointer(rebasing: scalars[..<count]),
            infos: UnsafeBufferPointer(rebasing: infos[..<count]), hasOptionalUnits: hasOptionalUnits,
            hasSpelledUnits: hasSpelledUnits, mayHaveWords: mayHaveWords))
      }
    }
  }
}

/// The units of a ``NormalizedText`` as two buffer pointers, valid inside
/// ``NormalizedText/withUnits(_:)``. A scan hands this to its walks and checks instead of the
/// text: copying a `NormalizedText` retains and releases its six arrays, and the optimizer made
/// two such copies per scan (a twelfth of a per-message scan, in reference counting alone).
struct NormalizedUnits {
  /// Folded scalars, one per unit.
  let scalars: UnsafeBufferPointer<UInt32>
  /// The rest of each unit, in step with `scalars`.
  let infos: UnsafeBufferPointer<NormalizedText.UnitInfo>
  /// Whether any unit is optional, so that a second walk is needed.
  let hasOptionalUnits: Bool
  /// Whether any unit is spelled, see ``NormalizedText/hasSpelledUnits``.
  let hasSpelledUnits: Bool
  /// Whether any unit may be a letter or digit of a word, see ``NormalizedText/mayHaveWords``.
  let mayHaveWords: Bool

  /// Unit `index`'s record (its scalar is `scalars[index]`).
  @inline(__always) subscript(index: Int) -> NormalizedText.UnitInfo { infos[index] }
}
