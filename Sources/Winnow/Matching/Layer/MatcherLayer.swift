/// The lists of a ``Matcher`` that share one set of normalization rules, compiled. Internal.
///
/// Split by concern: this file holds the layer's parts; `MatcherLayer+Build.swift` compiles
/// lists into them; `MatcherLayer+Scan.swift` finds candidates in a text. Where a whole-word
/// entry's word may begin and end is one rule per script in `WordEdges/` (``LatinWordEdges``,
/// ``HanWordEdges``, ``ArabicWordEdges``), each owning its ``PatternCheck`` bits: a new
/// script's rule is a file there, a line in ``checksAndLexicon`` and a line in ``check``.
final class MatcherLayer: Sendable {
  /// An entry with what the scan needs beside it.
  struct CompiledEntry: Sendable {
    let entry: Entry
    let origin: WordList.Origin
  }

  /// The entries of one list: from entry `start` to the next run's start. A layer's entries are
  /// appended list by list, so a list's name is kept once, not with each of its entries (16
  /// bytes an entry, 40 MB over ten thousand apps' lists).
  struct ListRun: Sendable {
    let start: Int
    let name: String
  }

  let normalizer: Normalizer
  let entries: [CompiledEntry]
  /// Which list each entry is of, in entry order (the first run starts at 0).
  let listRuns: [ListRun]
  /// By entry, its action as one byte: what choosing among a text's candidates reads, where
  /// reading it from `entries` copied the action out of a large record.
  let entryActions: [ActionCode]
  /// Whether the layer has allow entries, whose candidates hide others.
  let hasAllowEntries: Bool
  /// By entry, its ``Entry/language`` as an index in ``LanguageEvidence/codes``: -1 for an
  /// entry of any language, `Int16.max` for a language the evidence cannot see (the entry then
  /// never matches).
  let entryLanguages: [Int16]
  /// By entry, the languages of its ``Entry/alsoWordOf`` as bits of indices in
  /// ``LanguageEvidence/codes``; 0 for an entry without (any other language then counts).
  let entryAlsoWordOf: [UInt64]
  /// Whether any entry has a language.
  let hasLanguageEntries: Bool
  /// Whether any block entry's word is also a name (``Entry/isAlsoName``).
  let hasNameEntries: Bool
  /// Whether any review entry is an insult that blocks where aimed (``Entry/isInsult``).
  let hasInsultEntries: Bool

  /// An entry's ``Entry/Action`` without its replacement text.
  enum ActionCode: UInt8, Sendable {
    case block, replace, allow, lexicon, review

    init(_ action: Entry.Action) {
      switch action {
      case .block: self = .block
      case .review: self = .review
      case .replace: self = .replace
      case .allow: self = .allow
      case .lexicon: self = .lexicon
      }
    }
  }
  /// The automaton of the literal entries, if any; pattern `i` is entry `patternEntries[i]`,
  /// or, when that is negative, the required literal of regex `-patternEntries[i] - 1`.
  let automaton: AhoCorasick?
  /// By pattern, what a walk's hit reads of it, in one word (``PatternRecord``): its entry, its
  /// checks, its length and most patterns' repeat counts. Kept as four arrays (with the
  /// automaton's lengths), a hit read four words in four places, each a cache miss in a large
  /// list's, and a pattern's counts through an array of arrays, two more.
  let patternRecords: [UInt64]
  /// By pattern: the minimum repeat count of each scalar (a variant's own, see
  /// ``joinedVariant``, or its entry's), empty when every count is 1.
  let patternRuns: [[UInt16]]
  /// The lexicon words of the layer's lists and of the lists compiled with or under it, as
  /// written (`入住 3.9`: the word, and its Zipf frequency when the line gives one; see
  /// ``Entry/Action/lexicon``).
  let lexiconWords: LexiconWords
  /// The lexicon words of one to three scalars, normalized, as ``HanWordEdges/lexiconKey(_:)``,
  /// ``HanWordEdges/lexiconKey(_:_:)`` and ``HanWordEdges/lexiconKey(_:_:_:)`` pack them, each with its Zipf frequency in
  /// tenths (30 when its line gives none); empty when no entry of the layer reads it.
  let lexicon: LexiconTable
  /// The regex entries: entry index, program, and whether the automaton holds a literal that
  /// every match requires (then the regex runs only where the walk found it).
  let regexes: [(entry: Int, program: RegexProgram, prefiltered: Bool)]
  /// Indices in `regexes` of the regexes without a prefilter, which run on every text. A scan
  /// visits these and the triggered ones only, not all regexes.
  let unfilteredRegexes: [Int32]
  /// Indices in `regexes` of the `raw:` regexes, which run on the original text of every text
  /// (``collectRaw(in:layer:scratch:into:warnings:)``), not on the normalized one.
  let rawRegexes: [Int32]
  /// Which of ``rawRegexes`` a text can match, from literals their matches must contain.
  let rawPrefilter: RawPrefilter
  /// Whether every pattern that starts with an ASCII letter or digit checks its start
  /// (``PatternCheck/start``: a whole-word entry, as every Latin entry of the global list is). A walk
  /// then need not look for matches that start inside a word, which would all be rejected
  /// (see ``AhoCorasick/forEachMatchByStart(in:skippingInsideWords:_:)``).
  let skipsInsideWords: Bool
  /// The characters of a text that can become a scalar of the layer's patterns, for a scan to
  /// leave a text with none unnormalized (see ``AlphabetFilter``); nil when every text needs
  /// its walk or its regexes.
  let alphabetFilter: AlphabetFilter?

  /// A layer from its parts: what ``init(lists:rules:lexiconWords:donor:)`` computes, or what
  /// a compiled matcher holds (see `Matcher+Compiled.swift`).
  init(
    normalizer: Normalizer, entries: [CompiledEntry], listRuns: [ListRun], automaton: AhoCorasick?,
    patternEntries: [Int32],
    patternChecks: [UInt8], patternRuns: [[UInt16]], lexiconWords: LexiconWords, lexicon: LexiconTable,
    regexes: [(entry: Int, program: RegexProgram, prefiltered: Bool)], skipsInsideWords: Bool
  ) {
    self.normalizer = normalizer
    // Arrays grown by appending hold up to twice their count: for ten thousand apps' layers
    // that slack was a fifth of the server's memory.
    self.entries = entries.trimmed()
    self.listRuns = listRuns
    // One pass, each entry's fields read where it is: a pass each (`map`, `contains`) copied
    // every entry, retaining and releasing its strings, a tenth of reading a list back.
    var actions: [ActionCode] = []
    var languages: [Int16] = []
    var alsoWordOf: [UInt64] = []
    actions.reserveCapacity(entries.count)
    languages.reserveCapacity(entries.count)
    alsoWordOf.reserveCapacity(entries.count)
    var (hasNames, hasInsults) = (false, false)
    entries.withUnsafeBufferPointer { entries in
      for index in entries.indices {
        let action = ActionCode(entries[index].entry.action)
        actions.append(action)
        languages.append(
          entries[index].entry.language.map { language in
            LanguageEvidence.codes.firstIndex(of: language).map { Int16($0) } ?? Int16.max
          } ?? -1)
        alsoWordOf.append(
          entries[index].entry.alsoWordOf.isEmpty ? 0 : LanguageEvidence.mask(of: entries[index].entry.alsoWordOf))
        hasNames = hasNames || (entries[index].entry.isAlsoName && action == .block)
        hasInsults = hasInsults || (entries[index].entry.isInsult && action == .review)
      }
    }
    entryActions = actions
    hasAllowEntries = actions.contains(.allow)
    entryLanguages = languages
    entryAlsoWordOf = alsoWordOf
    hasLanguageEntries = languages.contains { $0 >= 0 }
    hasNameEntries = hasNames
    hasInsultEntries = hasInsults
    self.automaton = automaton
    var records: [UInt64] = []
    records.reserveCapacity(patternEntries.count)
    for pattern in patternEntries.indices {
      records.append(
        PatternRecord.make(
          entry: patternEntries[pattern], checks: patternChecks[pattern], runs: patternRuns[pattern],
          length: automaton?.patternLengths[pattern] ?? 0))
    }
    self.patternRecords = records
    self.patternRuns = patternRuns
    self.lexiconWords = lexiconWords
    self.lexicon = lexicon
    self.regexes = regexes
    let isRaw = regexes.map { entries[$0.entry].entry.kind == .rawRegex }
    let unfilteredRegexes = regexes.indices.filter { !regexes[$0].prefiltered && !isRaw[$0] }.map { Int32($0) }
    self.unfilteredRegexes = unfilteredRegexes
    self.alphabetFilter = AlphabetFilter(
      automaton: automaton, normalizer: normalizer, runsOnEveryText: !unfilteredRegexes.isEmpty)
    self.rawRegexes = regexes.indices.filter { isRaw[$0] }.map { Int32($0) }
    self.rawPrefilter = RawPrefilter(
      patterns: rawRegexes.map { entries[regexes[Int($0)].entry].entry.text },
      caseless: normalizer.rules.contains(.caseFolding))
    self.skipsInsideWords = skipsInsideWords
  }

  /// The name of the list entry `index` is of.
  func list(ofEntry index: Int) -> String {
    // The last run that starts at or before the entry.
    var low = 0
    var high = listRuns.count
    while high - low > 1 {
      let middle = (low + high) / 2
      if listRuns[middle].start <= index { low = middle } else { high = middle }
    }
    return listRuns.isEmpty ? "" : listRuns[low].name
  }

  var memoryFootprint: Int {
    let entryBytes = entries.reduce(0) { total, compiled in
      total + 96 + compiled.entry.text.utf8.count
    }
    return (automaton?.memoryFootprint ?? 0) + patternRecords.capacity * 8 + patternRuns.capacity * 8 + entryBytes
      + regexes.count * 512 + lexicon.capacity * 10 + (alphabetFilter == nil ? 0 : AlphabetFilter.memoryFootprint)
  }
}

extension MatcherLayer {
  /// By pattern: its entry, or, when that is negative, the required literal of regex
  /// `-entry - 1` (what compiled lists store).
  var patternEntries: [Int32] { patternRecords.map { PatternRecord.entry($0) } }
  /// By pattern: the checks a candidate must pass (``PatternCheck`` bits, set and read by the
  /// word-edge rules).
  var patternChecks: [UInt8] { patternRecords.map { PatternRecord.checks($0) } }
}

/// What a walk's hit of a literal's pattern reads, packed in one `UInt64` per pattern
/// (``MatcherLayer/patternRecords``), built when a layer is made from the arrays compiled lists
/// store (not a format of its own):
///
/// - bits 0–31: the entry (an `Int32`, see ``MatcherLayer/patternEntries``);
/// - bits 32–39: the ``PatternCheck`` bits;
/// - bits 40–41: where its repeat counts are (``Runs``);
/// - bits 42–47: its length in scalars, or ``longLength`` for one that does not fit (then read
///   from the automaton);
/// - bits 48–63: with ``Runs/inline``, bit `48 + k` set when scalar `k` must be written at least
///   twice (every count 1 or 2, the pattern at most 16 scalars long: `ass`, `pussy`).
///
/// A hit reads nothing else unless the pattern's counts are longer or larger (its runs then
/// read from ``MatcherLayer/patternRuns``, two more reads), or it is very long.
enum PatternRecord {
  /// Where a pattern's minimum repeat counts are.
  enum Runs: UInt64 {
    /// Every count is 1.
    case none = 0
    /// In the record's top bits.
    case inline = 1
    /// In ``MatcherLayer/patternRuns``.
    case array = 2
  }
  private static let runsShift: UInt64 = 40
  private static let lengthShift: UInt64 = 42
  private static let maskShift: UInt64 = 48
  /// The length field of a pattern of this many scalars or more.
  static let longLength: UInt64 = 63

  static func make(entry: Int32, checks: UInt8, runs: [UInt16], length: UInt32) -> UInt64 {
    var record =
      UInt64(UInt32(bitPattern: entry)) | UInt64(checks) << 32 | min(UInt64(length), longLength) << lengthShift
    if runs.contains(where: { $0 > 1 }) {
      if runs.count <= 16 && runs.allSatisfy({ $0 <= 2 }) {
        var mask: UInt64 = 0
        for (offset, run) in runs.enumerated() where run == 2 { mask |= 1 << UInt64(offset) }
        record |= Runs.inline.rawValue << runsShift | mask << maskShift
      } else {
        record |= Runs.array.rawValue << runsShift
      }
    }
    return record
  }

  @inline(__always) static func entry(_ record: UInt64) -> Int32 { Int32(truncatingIfNeeded: record) }
  @inline(__always) static func checks(_ record: UInt64) -> UInt8 { UInt8(truncatingIfNeeded: record >> 32) }
  /// The ``Runs`` field's raw value.
  @inline(__always) static func runs(_ record: UInt64) -> UInt64 { record >> runsShift & 3 }
  /// With ``Runs/inline``: bit `k` set when scalar `k` must be written at least twice.
  @inline(__always) static func twiceMask(_ record: UInt64) -> UInt64 { record >> maskShift }
  /// The length field: the pattern's length, or ``longLength`` when it does not fit.
  @inline(__always) static func length(_ record: UInt64) -> UInt64 { record >> lengthShift & 63 }
}

/// The checks a literal's pattern asks of a candidate, one bit each: set when a list is
/// compiled by the word-edge rule that owns them, read by the same rule on every automaton
/// hit. Compiled lists store them (`Matcher+Compiled.swift`): changing a value changes the
/// format.
enum PatternCheck {
  /// ``LatinWordEdges``: no word character right before the candidate.
  static let start: UInt8 = 1
  /// ``LatinWordEdges``: no word character right after the candidate.
  static let end: UInt8 = 2
  /// ``HanWordEdges``: the candidate must not make a lexicon word with the scalars beside it
  /// (`word:` entries).
  static let lexicon: UInt8 = 4
  /// ``HanWordEdges``: the candidate, all Han characters, must not be cut from more likely
  /// words by the segmentation of its context (whole-word entries of two or more Han
  /// characters).
  static let segmentation: UInt8 = 8
  /// ``ArabicWordEdges``: the letters before the candidate's first (Arabic-script) letter in
  /// its word must be a proclitic.
  static let arabicStart: UInt8 = 16
  /// ``ArabicWordEdges``: the letters after the candidate's last letter must be an enclitic.
  static let arabicEnd: UInt8 = 32
  /// ``ArabicWordEdges``, with ``arabicEnd``: the entry is spelled as Persian, so its word
  /// ends in a Persian suffix only.
  static let persianEnd: UInt8 = 64
  /// ``SyllableWordEdges``: the candidate, syllables written apart, must not be cut from more
  /// likely words by the segmentation of the syllables around it.
  static let syllables: UInt8 = 128
  /// The bits whose rules read the lexicon.
  static let readsLexicon = HanWordEdges.readsLexicon | SyllableWordEdges.owned
}

/// A candidate of a literal's pattern as the word-edge rules see it: walk positions
/// `start..<end` of `scalars`, which are units `units[k]` of `text` (unit `k` when `units` is
/// nil).
struct EdgeCandidate {
  let start: Int
  let end: Int
  let scalars: UnsafeBufferPointer<UInt32>
  let units: [Int32]?
  let text: NormalizedUnits

  /// The unit of walk position `position`.
  @inline(__always) func unit(_ position: Int) -> Int { units.map { Int($0[position]) } ?? position }
}

extension Array {
  /// The array in storage of about its own size: a copy when appends left more than a
  /// sixteenth to spare. The room an allocator rounds up to is kept: copying a compiled list's
  /// entries to drop it, each entry's strings retained and released, was a twentieth of reading
  /// the list back.
  func trimmed() -> [Element] {
    capacity - count <= count / 16 ? self : withUnsafeBufferPointer { Array($0) }
  }
}
