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
public struct NormalizedText: Sendable {
  /// Folded scalars, one per unit.
  var scalars: [UInt32] = []
  /// ``ScalarClass`` raw values, with ``optionalFlag`` set on optional units and
  /// ``spelledFlag`` on letters that were spelled one by one (`f u c k`).
  var classes: [UInt8] = []
  /// Original UTF-8 byte offset where each unit starts.
  var starts: [Int32] = []
  /// Original UTF-8 byte offset where each unit ends.
  var ends: [Int32] = []
  /// How many repeated letters each unit stands for (1 unless ``Normalization/repeatedLetters``).
  var runs: [UInt16] = []
  /// Whether any unit is optional, so that a second walk is needed.
  var hasOptionalUnits = false
  /// The normalizer's workspace, kept with the value so that reusing it reuses the workspace.
  var shaper = WordShaper()

  static let optionalFlag: UInt8 = 0x80
  /// A unit that was a token of one character joined with its neighbours (`f.u.c.k`). Between
  /// two such units the text's own word boundaries are lost, so any position may be one.
  static let spelledFlag: UInt8 = 0x40
  private static let classMask: UInt8 = 0x3F

  /// Creates an empty value, to pass to ``Normalizer/normalize(_:into:)``.
  public init() {}

  /// The number of units.
  public var count: Int { scalars.count }

  /// The normalized text, optional units left out.
  public var string: String {
    var result = String.UnicodeScalarView()
    for index in scalars.indices where !isOptional(index) {
      // A `1` read as a letter shows as `i`, as entries read it.
      let value = UnicodeTables.plainLetter(scalars[index])
      result.append(Unicode.Scalar(value) ?? "\u{FFFD}")
    }
    return String(result)
  }

  /// The UTF-8 byte range of the original text that a range of units came from.
  public func originalRange(ofUnits units: Range<Int>) -> Range<Int> {
    precondition(!units.isEmpty && units.upperBound <= count, "unit range out of bounds")
    return Int(starts[units.lowerBound])..<Int(ends[units.upperBound - 1])
  }

  @inline(__always) func isOptional(_ index: Int) -> Bool { classes[index] & Self.optionalFlag != 0 }
  @inline(__always) func isSpelled(_ index: Int) -> Bool { classes[index] & Self.spelledFlag != 0 }
  @inline(__always) func scalarClass(_ index: Int) -> ScalarClass {
    ScalarClass(rawValue: classes[index] & Self.classMask)!
  }

  mutating func removeAll() {
    scalars.removeAll(keepingCapacity: true)
    classes.removeAll(keepingCapacity: true)
    starts.removeAll(keepingCapacity: true)
    ends.removeAll(keepingCapacity: true)
    runs.removeAll(keepingCapacity: true)
    hasOptionalUnits = false
  }

  mutating func reserveCapacity(_ capacity: Int) {
    scalars.reserveCapacity(capacity)
    classes.reserveCapacity(capacity)
    starts.reserveCapacity(capacity)
    ends.reserveCapacity(capacity)
    runs.reserveCapacity(capacity)
  }

  /// Extends the last unit over one more repeated character ending at `end`.
  @inline(__always)
  mutating func extendLast(to end: Int32) {
    let last = count - 1
    ends[last] = end
    if runs[last] < .max { runs[last] += 1 }
  }

  @inline(__always)
  mutating func append(_ scalar: UInt32, _ scalarClass: UInt8, start: Int32, end: Int32) {
    scalars.append(scalar)
    classes.append(scalarClass)
    starts.append(start)
    ends.append(end)
    runs.append(1)
  }
}
