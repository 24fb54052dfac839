import CWinnowFilter

/// Normalizes text (and word-list entries) by a set of ``Normalization`` rules, keeping a map
/// from every normalized unit back to the original UTF-8 bytes.
///
/// ```swift
/// let normalizer = Normalizer()                 // every rule
/// normalizer.normalize("ｓ h 1 t").string       // "shit"
/// normalizer.normalize("反v动").string          // "反动" (the `v` is an optional unit)
/// ```
///
/// It works in two steps over the UTF-8 bytes, both allocation-free once the buffers of the
/// ``NormalizedText`` have grown:
///
/// 1. *Fold*: each scalar is decoded and looked up in a ``FoldTable`` (compatibility, case,
///    Traditional → Simplified, invisible characters, look-alike letters); each folded scalar
///    keeps the byte range of the character it came from.
/// 2. *Words*: apostrophes and `@ $ !` are resolved by their neighbours, letters spelled one by
///    one are joined, digits and symbols inside words become the letters they imitate, single
///    letters between CJK characters are marked optional, separator runs collapse to one space
///    (or vanish next to CJK), and repeated letters merge into one unit that counts them.
///
/// For most text both happen in one pass (``SinglePassShaper``), each final unit written as its
/// scalar is folded; a text where a rule needs more than that (`s.h.1.t`, `sh!t`, `@`) is
/// folded again and shaped by ``WordShaper``'s passes, with the same result.
///
/// It deliberately does not segment Chinese into words, transliterate between scripts, or
/// guess at spelling: every rule is local, so a match can always be mapped back exactly.
///
/// `Normalizer` is an immutable `Sendable` value.
@_spi(Tools) public struct Normalizer: Sendable {
  /// The rules this normalizer applies.
  public let rules: Normalization
  private let table: FoldTable
  private let foldsScalars: Bool
  private let shapesWords: Bool
  /// Whether every lowercase ASCII letter folds to itself as a letter (true of every rule set:
  /// checked, not assumed), so that ``SinglePassShaper/takeASCIIWords(_:from:asciiFolding:vectorSetup:)``
  /// may skip folding them.
  let lowercaseIsPlain: Bool
  /// What else that loop may take without folding, by what the fold table does with uppercase
  /// ASCII letters and the space (checked, not assumed).
  let asciiFolding: SinglePassShaper.ASCIIFolding

  /// What that loop's vector step (`winnow_ascii_words`) reads of the rules; nil where it does
  /// not run (another processor, a unit's record not laid out as it writes them).
  let asciiWordsSetup: ASCIIWordsSetup?

  /// Creates a normalizer for a set of rules (every rule by default).
  public init(rules: Normalization = .default) {
    self.init(rules: rules, vectorizesASCIIWords: true)
  }

  /// A normalizer whose ASCII word loop may take 32 bytes at a time, or never does (to
  /// compare the two).
  init(rules: Normalization, vectorizesASCIIWords: Bool) {
    let table = FoldTable.shared(for: rules)
    let foldsScalars = !rules.isDisjoint(with: FoldTable.perScalarRules)
    self.rules = rules
    self.table = table
    self.foldsScalars = foldsScalars
    self.shapesWords = !rules.isDisjoint(with: [.separators, .interleavedLetters, .repeatedLetters, .lookalikes])
    // Whether the table folds `value` to one unit, `scalar` of class `scalarClass`.
    let folds = { (value: UInt32, scalar: UInt32, scalarClass: ScalarClass) in
      table.withBMPEntries { entries in
        FoldTable.singleFold(entries[Int(value)]).map { $0.scalar == scalar && $0.scalarClass == scalarClass } ?? false
      }
    }
    // Without folding, a scalar is itself with its own class, a letter's a letter.
    self.lowercaseIsPlain = !foldsScalars || (UInt32(0x61)...0x7A).allSatisfy { folds($0, $0, .letter) }
    self.asciiFolding = SinglePassShaper.ASCIIFolding(
      foldsUppercase: foldsScalars && (UInt32(0x41)...0x5A).allSatisfy { folds($0, $0 | 0x20, .letter) },
      spaceIsSeparator: foldsScalars ? folds(0x20, 0x20, .separator) : ScalarClass.of(0x20) == .separator)
    typealias Info = NormalizedText.UnitInfo
    let laidOut =
      MemoryLayout<Info>.stride == 12 && MemoryLayout<Info>.offset(of: \.start) == 0
      && MemoryLayout<Info>.offset(of: \.end) == 4 && MemoryLayout<Info>.offset(of: \.run) == 8
      && MemoryLayout<Info>.offset(of: \.flags) == 10
    if vectorizesASCIIWords && laidOut && ASCIIWordsSetup.runs {
      // A separator to the vector step is an ASCII character that `feed` takes as one.
      let isSeparator = { (value: UInt32) -> Bool in
        guard foldsScalars else { return ScalarClass.of(value) == .separator }
        return table.withBMPEntries { FoldTable.singleFold($0[Int(value)])?.scalarClass == .separator }
      }
      asciiWordsSetup = ASCIIWordsSetup(
        separators: (0..<128).map { isSeparator(UInt32($0)) }, foldsUppercase: asciiFolding.foldsUppercase,
        merges: rules.contains(.repeatedLetters), collapses: rules.contains(.separators))
    } else {
      asciiWordsSetup = nil
    }
  }

  /// Normalizes a string.
  public func normalize(_ text: String) -> NormalizedText {
    var result = NormalizedText()
    normalize(text, into: &result)
    return result
  }

  /// Normalizes a string into `result`, reusing its storage.
  public func normalize(_ text: String, into result: inout NormalizedText) {
    var text = text
    text.withUTF8 { normalize(utf8: $0, into: &result) }
  }

  /// Normalizes UTF-8 bytes into `result`, reusing its storage. Invalid bytes read as U+FFFD.
  public func normalize(utf8 bytes: UnsafeBufferPointer<UInt8>, into result: inout NormalizedText) {
    result.removeAll()
    if !shapesWords {
      result.reserveCapacity(bytes.count)
      fold(bytes) { scalar, scalarClass, start, end in
        result.append(scalar, scalarClass.rawValue, start: start, end: end)
      }
      return
    }
    if normalizeInOnePass(bytes, into: &result) { return }
    normalizeByPasses(bytes, into: &result)
  }

  /// The word rules by ``WordShaper``'s passes over the loaded units: what
  /// ``normalize(utf8:into:)`` does where ``SinglePassShaper`` gives up, and the reference it is
  /// tested against.
  func normalizeByPasses(_ bytes: UnsafeBufferPointer<UInt8>, into result: inout NormalizedText) {
    result.removeAll()
    // Almost always one unit per scalar, so at most one per byte.
    result.shaper.load(expected: bytes.count) { write in fold(bytes, write) }
    result.mayHaveWords = true
    (result.count, result.hasOptionalUnits, result.hasSpelledUnits) = result.shaper.shape(
      rules: rules, scalars: &result.scalarStorage, infos: &result.infoStorage)
    if !result.shaper.isWorthKeeping { result.shaper = WordShaper() }
  }

  /// The word rules applied while folding (``SinglePassShaper``), the units written straight
  /// into `result`; false, with `result` to be normalized again, where that shaper gives up.
  func normalizeInOnePass(_ bytes: UnsafeBufferPointer<UInt8>, into result: inout NormalizedText) -> Bool {
    // Almost always one unit per scalar, so at most one per byte; a text with more gives up.
    // 32 more: the ASCII word loop may write 32 units at a time wherever it starts.
    result.reserveCapacity(bytes.count + 32)
    let vectorSetup = asciiWordsSetup?.pointer
    let shaped: (Int, Bool, Bool, Bool)? = result.scalarStorage.withUnsafeMutableBufferPointer { scalars in
      result.infoStorage.withUnsafeMutableBufferPointer { infos in
        // SAFETY: both buffers hold at least 16 units (reserved above), so neither base address
        // is nil; the shaper writes only below the smaller count, inside these closures.
        var shaper = SinglePassShaper(
          rules: rules, scalars: scalars.baseAddress!, infos: infos.baseAddress!,
          capacity: min(scalars.count, infos.count))
        let stopsInvalidUnspacedRuns = table.stopsInvalidUnspacedRuns
        let folded = table.withBMPEntries { entries in
          var index = 0
          while index < bytes.count {
            let (value, length) = UTF8Decoding.decode(bytes, at: index)
            let start = Int32(truncatingIfNeeded: index)
            let end = Int32(truncatingIfNeeded: index + length)
            // The shaper's step inlined once, for a BMP scalar that folds to one scalar; the rest
            // out of line. With a call site per fold case, `feed` was not inlined at all (a tenth
            // of a scan in the call alone).
            if foldsScalars, value < 0x10000, let (scalar, scalarClass) = FoldTable.singleFold(entries[Int(value)]) {
              shaper.feed(scalar, scalarClass, start, end)
              // After a CJK character, the rest of its run at once (where the table stops
              // the run at an invalid sequence, as the default tables do).
              if scalarClass == .unspaced && stopsInvalidUnspacedRuns {
                if shaper.gaveUp { return false }
                index = shaper.takeUnspacedRun(bytes, from: index &+ length, entries: entries)
                if shaper.gaveUp { return false }
                continue
              }
              // After a letter or another word character beyond ASCII, the rest of its run.
              if value >= 0x80 && scalarClass.continuesWordRuns {
                if shaper.gaveUp { return false }
                index = shaper.takeWordRun(
                  bytes, from: index &+ length, of: scalarClass, entries: entries, table: table,
                  asciiFolding: asciiFolding)
                if shaper.gaveUp { return false }
                continue
              }
            } else {
              // (Less the length added below: after a scalar of plane 1, the rest of its run.)
              index = feedFolded(value, start, end, to: &shaper, runFrom: bytes) &- length
            }
            if shaper.gaveUp { return false }
            index &+= length
            // After a letter, the rest of its run of ASCII letters and the words after it at once.
            if lowercaseIsPlain && value &- 0x41 < 58 {
              index = shaper.takeASCIIWords(
                bytes, from: index, asciiFolding: asciiFolding, vectorSetup: vectorSetup)
              if shaper.gaveUp { return false }
            }
          }
          return true
        }
        guard folded, let count = shaper.finish() else { return nil }
        return (count, shaper.sawToken, shaper.hasOptionalUnits, shaper.hasSpelledUnits)
      }
    }
    guard let (count, sawToken, hasOptionalUnits, hasSpelledUnits) = shaped else { return false }
    result.count = count
    result.hasOptionalUnits = hasOptionalUnits
    result.hasSpelledUnits = hasSpelledUnits
    result.mayHaveWords = sawToken
    return true
  }

  /// Feeds `shaper` what `value` folds to, for ``normalizeInOnePass(_:into:)``: scalars that
  /// fold to several or to none, scalars outside the BMP, and every scalar under rules that
  /// fold none. Returns the index in `bytes` where the caller goes on: the byte after the
  /// scalar's (`end`), or, after a scalar of plane 1 that folds to itself and begins a word
  /// run (a Shavian letter, an emoji: see ``FoldTable/planeOneClass(ofUnfolded:)``), the first
  /// byte the rest of its run does not take
  /// (``SinglePassShaper/takeWordRun(_:from:of:entries:table:asciiFolding:)``). The run is
  /// taken here rather than in the caller's step: any more code there, and the step's `feed`
  /// was no longer inlined into it.
  @inline(never)
  private func feedFolded(
    _ value: UInt32, _ start: Int32, _ end: Int32, to shaper: inout SinglePassShaper,
    runFrom bytes: UnsafeBufferPointer<UInt8>
  ) -> Int {
    guard foldsScalars else {
      shaper.feed(value, ScalarClass.of(value), start, end)
      return Int(end)
    }
    table.forEachFolded(value) { shaper.feed($0, $1, start, end) }
    guard !shaper.gaveUp, let runClass = table.planeOneClass(ofUnfolded: value), runClass.continuesWordRuns else {
      return Int(end)
    }
    return table.withBMPEntries { entries in
      shaper.takeWordRun(
        bytes, from: Int(end), of: runClass, entries: entries, table: table, asciiFolding: asciiFolding)
    }
  }

  /// The folded scalars of `bytes`, each with its class and original byte range.
  @inline(__always)
  private func fold(
    _ bytes: UnsafeBufferPointer<UInt8>,
    _ body: (UInt32, ScalarClass, Int32, Int32) -> Void
  ) {
    var index = 0
    while index < bytes.count {
      let (value, length) = UTF8Decoding.decode(bytes, at: index)
      let start = Int32(truncatingIfNeeded: index)
      let end = Int32(truncatingIfNeeded: index + length)
      if foldsScalars {
        table.forEachFolded(value) { body($0, $1, start, end) }
      } else {
        body(value, ScalarClass.of(value), start, end)
      }
      index += length
    }
  }
}

extension Normalizer {
  /// Calls `body(unit, value)` for every character `value` that may become a unit of another
  /// scalar, `unit`, in a normalized text: what the fold table makes of it, and, under
  /// ``Normalization/lookalikes``, the letter that a digit or symbol it folds to imitates inside
  /// a word (`０` is `o` in `g００d`). Every other unit is the scalar of the character it comes
  /// from, or a space for a run of separators. (Read by ``AlphabetFilter``.)
  func forEachOtherSource(_ body: (_ unit: UInt32, _ value: UInt32) -> Void) {
    let imitates = rules.contains(.lookalikes)
    @inline(__always) func produced(_ folded: UInt32, from value: UInt32) {
      if folded != value { body(folded, value) }
      if imitates, let letter = UnicodeTables.lookalikeLetter(forSymbol: folded) { body(letter, value) }
    }
    guard foldsScalars else {
      if imitates { for value in UInt32(0)..<0x80 { produced(value, from: value) } }
      return
    }
    for value in UInt32(0)..<0x10000 { table.forEachFolded(value) { folded, _ in produced(folded, from: value) } }
    table.forEachSupplementaryChange { value, folded in
      for scalar in folded { produced(scalar, from: value) }
    }
  }
}

/// An entry's text after normalization: the scalars the automaton looks for, with what the
/// matcher needs to check around a candidate match.
struct NormalizedEntry: Hashable, Sendable {
  var scalars: [UInt32]
  /// Minimum repeat count per scalar, or empty when every count is 1.
  var runs: [UInt16]
  var firstClass: ScalarClass
  var lastClass: ScalarClass
}

extension Normalizer {
  /// Normalizes a word-list entry: the primary form (optional units left out), separators
  /// trimmed from both ends under ``Normalization/separators``. Nil when nothing is left
  /// (`...`, `!!!`, invisible characters).
  func normalizeEntry(_ text: String) -> NormalizedEntry? {
    var workspace = NormalizedText()
    return normalizeEntry(text, workspace: &workspace)
  }

  /// ``normalizeEntry(_:)`` normalizing into `workspace`, whose buffers a build reuses from one
  /// entry to the next.
  func normalizeEntry(_ text: String, workspace normalized: inout NormalizedText) -> NormalizedEntry? {
    normalize(text, into: &normalized)
    // The units kept: optional ones left out, and separators at either end under the rule
    // (without it, punctuation is matched as written: `.s` must not match `s`).
    let trims = rules.contains(.separators)
    var lower = 0
    var upper = normalized.count
    while lower < upper, normalized.isOptional(lower) || trims && normalized.scalarClass(lower) == .separator {
      lower += 1
    }
    while upper > lower,
      normalized.isOptional(upper - 1) || trims && normalized.scalarClass(upper - 1) == .separator
    {
      upper -= 1
    }
    guard lower < upper else { return nil }
    var scalars: [UInt32] = []
    var runs: [UInt16] = []
    scalars.reserveCapacity(upper - lower)
    for index in lower..<upper where !normalized.isOptional(index) {
      // An entry's `1` is an `i` (`sh1t` is `shit`); variants give the text's `1` both readings.
      scalars.append(UnicodeTables.plainLetter(normalized.scalarStorage[index]))
      let run = normalized.run(index)
      if run != 1 && runs.isEmpty { runs = Array(repeating: 1, count: scalars.count - 1) }
      if !runs.isEmpty || run != 1 { runs.append(run) }
    }
    return NormalizedEntry(
      scalars: scalars,
      runs: runs,
      firstClass: normalized.scalarClass(lower),
      lastClass: normalized.scalarClass(upper - 1)
    )
  }
}

/// The rules as the vector step of ``SinglePassShaper/takeASCIIWords(_:from:asciiFolding:vectorSetup:)``
/// reads them (`winnow_ascii_words_setup`), kept where its address stays put.
final class ASCIIWordsSetup: @unchecked Sendable {
  // SAFETY (`@unchecked Sendable`): written once, in `init`, and only read after.
  let pointer: UnsafePointer<winnow_ascii_words_setup>

  /// Whether the vector step runs on this processor (asked once).
  static let runs = winnow_ascii_words_available() == 1

  /// The setup for these rules: `separators` says, for each ASCII character, whether the
  /// one-pass normalizer takes it as one separator unit.
  init(separators: [Bool], foldsUppercase: Bool, merges: Bool, collapses: Bool) {
    let setup = UnsafeMutablePointer<winnow_ascii_words_setup>.allocate(capacity: 1)
    setup.initialize(to: winnow_ascii_words_setup())
    withUnsafeMutableBytes(of: &setup.pointee.separators) { table in
      for (index, isSeparator) in separators.enumerated() where index < table.count {
        table[index] = isSeparator ? 1 : 0
      }
    }
    setup.pointee.case_bit = foldsUppercase ? 0x20 : 0
    setup.pointee.merges = merges ? 1 : 0
    setup.pointee.collapses = collapses ? 1 : 0
    setup.pointee.letter = ScalarClass.letter.rawValue
    setup.pointee.separator = ScalarClass.separator.rawValue
    pointer = UnsafePointer(setup)
  }

  deinit { pointer.deallocate() }
}
