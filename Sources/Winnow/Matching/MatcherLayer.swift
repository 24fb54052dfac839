/// The lists of a ``Matcher`` that share one set of normalization rules, compiled. Internal.
final class MatcherLayer: Sendable {
  /// An entry with what the scan needs beside it.
  struct CompiledEntry: Sendable {
    let entry: Entry
    let origin: WordList.Origin
    let list: String
  }

  let normalizer: Normalizer
  let entries: [CompiledEntry]
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
  let patternEntries: [Int32]
  /// By pattern: the word boundaries a candidate must meet (``checksStart``, ``checksEnd``),
  /// read on every automaton hit, so kept apart from the entries.
  let patternChecks: [UInt8]
  /// By pattern: the minimum repeat count of each scalar (a variant's own, see
  /// ``joinedVariant``, or its entry's), empty when every count is 1.
  let patternRuns: [[UInt16]]
  private static let checksStart: UInt8 = 1
  private static let checksEnd: UInt8 = 2
  /// The candidate must not make a lexicon word with the scalars beside it (`word:` entries).
  private static let checksLexicon: UInt8 = 4
  /// The candidate, all Han characters, must not be cut from more likely words by the
  /// segmentation of its context (see ``Segmentation``): whole-word entries of two or more
  /// Han characters.
  private static let checksSegmentation: UInt8 = 8
  /// The candidate's first (last) scalar is an Arabic-script letter of a whole-word entry: the
  /// letters before (after) it in its word must be a clitic (see ``ArabicWordEdges``).
  private static let checksArabicStart: UInt8 = 16
  private static let checksArabicEnd: UInt8 = 32
  /// With ``checksArabicEnd``: the entry is spelled as Persian, so its word ends in a Persian
  /// suffix only (``ArabicWordEdges/persianSuffixes``).
  private static let checksPersianEnd: UInt8 = 64
  /// The lexicon words of the layer's lists and of the lists compiled with or under it, as
  /// written (`入住 3.9`: the word, and its Zipf frequency when the line gives one; see
  /// ``Entry/Action/lexicon``).
  let lexiconWords: [String]
  /// The lexicon words of one to three scalars, normalized, as ``lexiconKey(_:)``,
  /// ``lexiconKey(_:_:)`` and ``lexiconKey(_:_:_:)`` pack them, each with its Zipf frequency in
  /// tenths (30 when its line gives none); empty when no entry of the layer reads it.
  let lexicon: [UInt64: UInt8]
  /// The regex entries: entry index, program, and whether the automaton holds a literal that
  /// every match requires (then the regex runs only where the walk found it).
  let regexes: [(entry: Int, program: RegexProgram, prefiltered: Bool)]
  /// Indices in `regexes` of the regexes without a prefilter, which run on every text. A scan
  /// visits these and the triggered ones only, not all regexes.
  private let unfilteredRegexes: [Int32]
  /// Indices in `regexes` of the `raw:` regexes, which run on the original text of every text
  /// (``collectRaw(in:layer:scratch:into:warnings:)``), not on the normalized one.
  let rawRegexes: [Int32]
  /// Which of ``rawRegexes`` a text can match, from literals their matches must contain.
  let rawPrefilter: RawPrefilter
  /// Whether every pattern that starts with an ASCII letter or digit checks its start
  /// (``checksStart``: a whole-word entry, as every Latin entry of the global list is). A walk
  /// then need not look for matches that start inside a word, which would all be rejected
  /// (see ``AhoCorasick/forEachMatchByStart(in:skippingInsideWords:_:)``).
  let skipsInsideWords: Bool

  /// Compiles `lists`; `lexiconWords` are the lexicon words of every list the matcher holds
  /// (lexicon words of any list serve the `word:` entries of every list, as allow entries do).
  /// `donor`, the layer compiled under this one, may lend its normalized lexicon (see
  /// ``checksAndLexicon(entries:normalizedEntries:patternEntries:variantRuns:normalizer:lexiconWords:donor:)``).
  /// `compact` builds the automaton with hashed codes and no start filter: a few KiB for a
  /// list of a few hundred words instead of ~280 KiB, for servers holding thousands of apps'
  /// lists; such a layer scans at about half the speed.
  convenience init(
    lists: [WordList], rules: Normalization, lexiconWords: [String] = [], donor: MatcherLayer? = nil,
    compact: Bool = false
  ) throws(WordListErrors) {
    let normalizer = Normalizer(rules: rules)
    var entries: [CompiledEntry] = []
    // The normalized form of each literal entry (nil for a regex), which the checks are read from.
    var normalizedEntries: [NormalizedEntry?] = []
    var patterns: [[UInt32]] = []
    var patternEntries: [Int32] = []
    var variantRuns: [Int: [UInt16]] = [:]
    var regexes: [(entry: Int, program: RegexProgram, prefiltered: Bool)] = []
    var errors: [WordListError] = []
    // Normalizing the literal entries and deriving their variants is most of a build, and each
    // entry's work is its own: it runs on every core, then patterns are numbered in list order.
    let literals = lists.flatMap { list in
      list.entries.lazy.filter { $0.kind == .literal && $0.action != .lexicon }.map(\.text)
    }
    let prepared = concurrentMap(count: literals.count, workspace: NormalizedText()) { workspace, index in
      // Too long to prepare in reasonable time and memory: reported below, never prepared.
      literals[index].utf8.count > Entry.maximumLength
        ? PreparedLiteral(normalized: nil)
        : Self.prepare(literals[index], normalizer: normalizer, workspace: &workspace)
    }
    var nextLiteral = 0
    for list in lists {
      for (position, entry) in list.entries.enumerated() {
        let location = entry.source ?? SourceLocation(file: list.name, line: position + 1)
        if entry.action == .lexicon { continue }  // gathered by the matcher into `lexiconWords`
        // Lists read from files never hold one (parsing refuses it); entries made in code may.
        guard entry.longestPart <= Entry.maximumLength else {
          errors.append(WordListError(.tooLong(entry.longestPart), at: location))
          if entry.kind == .literal { nextLiteral += 1 }
          continue
        }
        switch entry.kind {
        case .literal:
          let literal = prepared[nextLiteral]
          nextLiteral += 1
          guard let normalized = literal.normalized else {
            errors.append(WordListError(.normalizesToNothing(entry.text), at: location))
            continue
          }
          patterns.append(normalized.scalars)
          patternEntries.append(Int32(entries.count))
          for variant in literal.variants {
            if let runs = variant.runs { variantRuns[patterns.count] = runs }
            patterns.append(variant.scalars)
            patternEntries.append(Int32(entries.count))
          }
          entries.append(CompiledEntry(entry: entry, origin: list.origin, list: list.name))
          normalizedEntries.append(normalized)
        case .regex, .rawRegex:
          do {
            let program = try RegexProgram(pattern: entry.text, caseless: rules.contains(.caseFolding))
            let trigger = -Int32(regexes.count) - 1
            // A raw regex reads the original text, which the automaton never sees.
            let literals =
              entry.kind == .regex ? Self.prefilterLiterals(for: entry.text, normalizer: normalizer) : []
            for literal in literals {
              patterns.append(literal)
              patternEntries.append(trigger)
            }
            regexes.append((entries.count, program, !literals.isEmpty))
            entries.append(CompiledEntry(entry: entry, origin: list.origin, list: list.name))
            normalizedEntries.append(nil)
          } catch {
            errors.append(WordListError(error.kind, at: location))
          }
        }
      }
    }
    guard errors.isEmpty else { throw WordListErrors(errors) }
    // The automaton (most of what is left of a build) on one core, the per-pattern checks and
    // the lexicon on another: neither reads the other.
    let (automaton, tables) = concurrently(
      { [patterns] in
        // Patterns are never empty here: empty entries were rejected above.
        patterns.isEmpty
          ? nil
          : try! AhoCorasick(scalarPatterns: patterns, filters: compact ? .none : .scalars, hashedCodes: compact)
      },
      { [entries, normalizedEntries, patternEntries, variantRuns] in
        Self.checksAndLexicon(
          entries: entries, normalizedEntries: normalizedEntries, patternEntries: patternEntries,
          variantRuns: variantRuns, normalizer: normalizer,
          lexiconWords: lexiconWords, donor: donor)
      })
    // A regex's required literal checks nothing, so a Latin one turns the skip off.
    let skipsInsideWords = patterns.indices.allSatisfy { pattern in
      ScalarStartFilter.isASCIIWordScalar(patterns[pattern][0]) == 0 || tables.checks[pattern] & Self.checksStart != 0
    }
    self.init(
      normalizer: normalizer, entries: entries, automaton: automaton, patternEntries: patternEntries,
      patternChecks: tables.checks, patternRuns: tables.runs, lexiconWords: lexiconWords, lexicon: tables.lexicon,
      regexes: regexes, skipsInsideWords: skipsInsideWords)
  }

  /// A layer from its parts: what ``init(lists:rules:lexiconWords:donor:)`` computes, or what
  /// a compiled matcher holds (see `Matcher+Compiled.swift`).
  init(
    normalizer: Normalizer, entries: [CompiledEntry], automaton: AhoCorasick?, patternEntries: [Int32],
    patternChecks: [UInt8], patternRuns: [[UInt16]], lexiconWords: [String], lexicon: [UInt64: UInt8],
    regexes: [(entry: Int, program: RegexProgram, prefiltered: Bool)], skipsInsideWords: Bool
  ) {
    self.normalizer = normalizer
    self.entries = entries
    entryActions = entries.map { ActionCode($0.entry.action) }
    hasAllowEntries = entryActions.contains(.allow)
    entryLanguages = entries.map { compiled in
      guard let language = compiled.entry.language else { return -1 }
      return LanguageEvidence.codes.firstIndex(of: language).map { Int16($0) } ?? Int16.max
    }
    entryAlsoWordOf = entries.map { LanguageEvidence.mask(of: $0.entry.alsoWordOf) }
    hasLanguageEntries = entryLanguages.contains { $0 >= 0 }
    hasNameEntries = entries.contains { $0.entry.isAlsoName && $0.entry.action == .block }
    hasInsultEntries = entries.contains { $0.entry.isInsult && $0.entry.action == .review }
    self.automaton = automaton
    self.patternEntries = patternEntries
    self.patternChecks = patternChecks
    self.patternRuns = patternRuns
    self.lexiconWords = lexiconWords
    self.lexicon = lexicon
    self.regexes = regexes
    let isRaw = regexes.map { entries[$0.entry].entry.kind == .rawRegex }
    self.unfilteredRegexes = regexes.indices.filter { !regexes[$0].prefiltered && !isRaw[$0] }.map { Int32($0) }
    self.rawRegexes = regexes.indices.filter { isRaw[$0] }.map { Int32($0) }
    self.rawPrefilter = RawPrefilter(
      patterns: rawRegexes.map { entries[regexes[Int($0)].entry].entry.text },
      caseless: normalizer.rules.contains(.caseFolding))
    self.skipsInsideWords = skipsInsideWords
  }

  /// A literal entry normalized, with the variants the rules add, in pattern order; a variant's
  /// `runs` is nil when it repeats as its entry does.
  struct PreparedLiteral: Sendable {
    var normalized: NormalizedEntry?
    var variants: [(scalars: [UInt32], runs: [UInt16]?)] = []
  }

  static func prepare(_ text: String, normalizer: Normalizer, workspace: inout NormalizedText) -> PreparedLiteral {
    guard let normalized = normalizer.normalizeEntry(text, workspace: &workspace) else {
      return PreparedLiteral(normalized: nil)
    }
    let rules = normalizer.rules
    var prepared = PreparedLiteral(normalized: normalized)
    if rules.contains(.separators), let variant = joinedVariant(of: normalized) {
      prepared.variants.append((variant.scalars, variant.runs))
    }
    if rules.contains(.interleavedLetters) {
      for variant in unmergedDoubles(of: normalized) { prepared.variants.append((variant.scalars, variant.runs)) }
    }
    if rules.contains(.lookalikes) {
      for variant in iOrLVariants(of: normalized.scalars) { prepared.variants.append((variant, nil)) }
      for variant in halfWrittenDoubles(of: normalized) { prepared.variants.append((variant.scalars, variant.runs)) }
      if let variant = digitVariant(of: normalized) { prepared.variants.append((variant.scalars, variant.runs)) }
    }
    return prepared
  }

  /// The automaton patterns that stand for a regex's required literal (see
  /// ``RegexProgram/requiredLiteral(of:)``): the literal and its `1`-for-`i` variants. Empty
  /// (no prefilter: the regex runs on every text) unless normalizing the literal leaves it as
  /// it is, so that the walk sees exactly the scalars the regex's subject holds.
  ///
  /// Repeated letters merge in the text (`qq` is one unit), so a literal with a doubled
  /// character is looked for by its longest piece without one (`售qq` → `售q`): every piece of a
  /// required literal is required too.
  static func prefilterLiterals(for pattern: String, normalizer: Normalizer) -> [[UInt32]] {
    guard let literal = RegexProgram.requiredLiteral(of: pattern) else { return [] }
    let written = (normalizer.rules.contains(.caseFolding) ? literal.lowercased() : literal).unicodeScalars.map(\.value)
    var pieces: [ArraySlice<UInt32>] = []
    var pieceStart = 0
    let merges = normalizer.rules.contains(.repeatedLetters)
    for index in written.indices.dropFirst() where merges && written[index] == written[index - 1] {
      pieces.append(written[pieceStart..<index])
      pieceStart = index
    }
    pieces.append(written[pieceStart...])
    for piece in pieces.sorted(by: { $0.count > $1.count }) {
      var text = String.UnicodeScalarView()
      for value in piece { text.append(Unicode.Scalar(value)!) }
      guard let normalized = normalizer.normalizeEntry(String(text)),
        normalized.scalars.elementsEqual(piece), normalized.runs.isEmpty
      else { continue }
      // The regex reads a text's `1` inside a word as `i`; the walk sees the `1`-for-`i` code.
      return [normalized.scalars] + iOrLVariants(of: normalized.scalars)
    }
    return []
  }

  /// The entry with some of its `i` and `l` written as the text's `1` (``UnicodeTables/iOrL``),
  /// so that `1ick` finds `lick` and `sh1t` finds `shit`: every combination for up to three such
  /// letters, else each one alone and all of them together.
  static func iOrLVariants(of scalars: [UInt32]) -> [[UInt32]] {
    let positions = scalars.indices.filter { scalars[$0] == 0x69 || scalars[$0] == 0x6C }
    guard !positions.isEmpty else { return [] }
    let subsets: [[Int]]
    if positions.count <= 3 {
      subsets = (1..<(1 << positions.count)).map { mask in
        positions.indices.filter { mask & (1 << $0) != 0 }.map { positions[$0] }
      }
    } else {
      subsets = positions.map { [$0] } + [positions]
    }
    return subsets.map { subset in
      var variant = scalars
      for position in subset { variant[position] = UnicodeTables.iOrL }
      return variant
    }
  }

  /// For an entry with a doubled CJK character (`幼幼极品`: one unit counted twice), the entry
  /// with that double as separate characters: a letter between them (`幼0幼极品`) is optional
  /// and left out of the walk, but it kept the two from merging into one unit.
  static func unmergedDoubles(of normalized: NormalizedEntry) -> [(scalars: [UInt32], runs: [UInt16])] {
    guard !normalized.runs.isEmpty else { return [] }
    var variants: [(scalars: [UInt32], runs: [UInt16])] = []
    for (index, scalar) in normalized.scalars.enumerated()
    where normalized.runs[index] >= 2 && ScalarClass.of(scalar) == .unspaced {
      let count = Int(normalized.runs[index])
      var scalars = normalized.scalars
      var runs = normalized.runs
      scalars.replaceSubrange(index...index, with: repeatElement(scalar, count: count))
      runs.replaceSubrange(index...index, with: repeatElement(1, count: count))
      variants.append((scalars, runs.allSatisfy { $0 == 1 } ? [] : runs))
    }
    return variants
  }

  /// For an entry with a doubled `i` or `l` (`ballsack`, `kill`: one unit counted twice), the
  /// entry with that double written half as the text's `1` (``UnicodeTables/iOrL``), which does
  /// not merge with the letter: `ba1ls@ck`, `ki1l`, `kil1`. One variant per side per double.
  static func halfWrittenDoubles(of normalized: NormalizedEntry) -> [(scalars: [UInt32], runs: [UInt16])] {
    guard !normalized.runs.isEmpty else { return [] }
    var variants: [(scalars: [UInt32], runs: [UInt16])] = []
    for (index, scalar) in normalized.scalars.enumerated()
    where (scalar == 0x69 || scalar == 0x6C) && normalized.runs[index] >= 2 {
      let rest = normalized.runs[index] - 1
      for (pair, runs) in [([UnicodeTables.iOrL, scalar], [1, rest]), ([scalar, UnicodeTables.iOrL], [rest, 1])] {
        var scalars = normalized.scalars
        var allRuns = normalized.runs
        scalars.replaceSubrange(index...index, with: pair)
        allRuns.replaceSubrange(index...index, with: runs)
        variants.append((scalars, allRuns))
      }
    }
    return variants
  }

  /// For an entry that mixes CJK characters and Latin letters (`操b`, `木村茜bt`), the entry
  /// with every letter written as the digit that imitates it (`操8`, `木村茜87`): next to CJK
  /// characters a digit token has no letter to be read by, so it stays a digit in the text.
  /// Nil unless the entry has both scripts and every letter has such a digit, and nil for one
  /// CJK character after letters (`a片`): a digit there is a count (`4片`, four slices).
  static func digitVariant(of normalized: NormalizedEntry) -> (scalars: [UInt32], runs: [UInt16])? {
    let scalars = normalized.scalars
    let cjk = scalars.indices.filter { ScalarClass.of(scalars[$0]) == .unspaced }
    guard let firstCJK = cjk.first else { return nil }
    let letterBeforeCJK = scalars[..<firstCJK].contains { ScalarClass.of($0) == .letter }
    guard cjk.count >= 2 || !letterBeforeCJK else { return nil }
    // Repeated letters merge in the text and digits do not: `bb` (one unit, counted twice)
    // becomes `8`, `8`.
    var variant: [UInt32] = []
    var runs: [UInt16] = []
    var replaced = false
    for (index, scalar) in scalars.enumerated() {
      let run = normalized.runs.isEmpty ? 1 : normalized.runs[index]
      guard ScalarClass.of(scalar) == .letter else {
        variant.append(scalar)
        runs.append(run)
        continue
      }
      guard let digit = UnicodeTables.lookalikeDigit(forLetter: scalar) else { return nil }
      variant += repeatElement(digit, count: Int(run))
      runs += repeatElement(1, count: Int(run))
      replaced = true
    }
    return replaced ? (variant, runs.allSatisfy { $0 == 1 } ? [] : runs) : nil
  }

  /// For an entry of several Latin-script words (`brown shower`), the words without their
  /// spaces: spelled out letter by letter (`b_r_o_w_n _s_h_o_w_e_r`), the text's letters are
  /// joined into one token, spaces included, so only this form can match it.
  static func joinedVariant(of normalized: NormalizedEntry) -> (scalars: [UInt32], runs: [UInt16])? {
    guard normalized.scalars.contains(0x20),
      normalized.scalars.allSatisfy({ $0 == 0x20 || ScalarClass.of($0).isWordCharacter })
    else { return nil }
    // Letters that meet once the spaces go merge, as the text's repeated letters do
    // (`leather restraint` → `leathe` `r`×2 `estraint`).
    var scalars: [UInt32] = []
    var runs: [UInt16] = []
    for index in normalized.scalars.indices where normalized.scalars[index] != 0x20 {
      let scalar = normalized.scalars[index]
      let run = normalized.runs.isEmpty ? 1 : normalized.runs[index]
      if scalar == scalars.last, ScalarClass.of(scalar) == .letter {
        runs[runs.count - 1] = runs[runs.count - 1] &+ run
      } else {
        scalars.append(scalar)
        runs.append(run)
      }
    }
    return (scalars, runs.allSatisfy { $0 == 1 } ? [] : runs)
  }

  /// Per pattern, the checks around a candidate (``checksStart``, ``checksEnd``,
  /// ``checksLexicon``) and the minimum repeat counts; and the normalized lexicon, empty when
  /// no pattern checks it, lent by `donor` when its lexicon words and rules are the same: an
  /// app's custom list with a `word:` entry then does not normalize the global list's lexicon
  /// words again for every app.
  private static func checksAndLexicon(
    entries: [CompiledEntry], normalizedEntries: [NormalizedEntry?], patternEntries: [Int32],
    variantRuns: [Int: [UInt16]], normalizer: Normalizer,
    lexiconWords: [String], donor: MatcherLayer?
  ) -> (checks: [UInt8], runs: [[UInt16]], lexicon: [UInt64: UInt8]) {
    var patternChecks = [UInt8](repeating: 0, count: patternEntries.count)
    var patternRuns = [[UInt16]](repeating: [], count: patternEntries.count)
    for (pattern, entryIndex) in patternEntries.enumerated() where entryIndex >= 0 {
      let compiled = entries[Int(entryIndex)]
      guard let normalized = normalizedEntries[Int(entryIndex)] else { continue }
      if compiled.entry.boundary != .substring {
        // Between two letters spelled one by one (`g b i t c h`) any position may be a boundary.
        if normalized.firstClass.isWordCharacter { patternChecks[pattern] |= checksStart }
        if normalized.lastClass.isWordCharacter { patternChecks[pattern] |= checksEnd }
        if normalized.firstClass == .arabicLetter { patternChecks[pattern] |= checksArabicStart }
        if normalized.lastClass == .arabicLetter {
          patternChecks[pattern] |= checksArabicEnd
          if ArabicWordEdges.isPersianSpelling(compiled.entry.text) { patternChecks[pattern] |= checksPersianEnd }
        }
      }
      if compiled.entry.boundary == .dictionaryWord && compiled.entry.action != .allow {
        patternChecks[pattern] |= checksLexicon
      }
      if compiled.entry.boundary == .word, compiled.entry.action != .allow, normalized.scalars.count >= 2,
        normalized.scalars.allSatisfy(Self.isHan)
      {
        patternChecks[pattern] |= checksSegmentation
      }
      patternRuns[pattern] = variantRuns[pattern] ?? normalized.runs
    }
    // Only a layer with `word:` or Han entries reads the lexicon: an app's custom layer without
    // any does not normalize the global list's lexicon again.
    guard patternChecks.contains(where: { $0 & (checksLexicon | checksSegmentation) != 0 }) else {
      return (patternChecks, patternRuns, [:])
    }
    if let donor, !donor.lexicon.isEmpty, donor.normalizer.rules == normalizer.rules,
      donor.lexiconWords.count == lexiconWords.count
    {
      // The matcher builds `lexiconWords` as the donor's words followed by the new lists' own:
      // the same count means the same words.
      return (patternChecks, patternRuns, donor.lexicon)
    }
    let lexiconKeys = concurrentMap(count: lexiconWords.count, workspace: NormalizedText()) {
      workspace, index -> (UInt64, UInt8)? in
      let (word, weight) = Entry.lexiconWordAndWeight(lexiconWords[index])
      guard let scalars = normalizer.normalizeEntry(word, workspace: &workspace)?.scalars else { return nil }
      switch scalars.count {
      case 1: return (lexiconKey(scalars[0]), weight)
      case 2: return (lexiconKey(scalars[0], scalars[1]), weight)
      case 3: return (lexiconKey(scalars[0], scalars[1], scalars[2]), weight)
      default: return nil
      }
    }
    // A word listed twice (a custom list's lexicon over the global one) keeps its larger weight.
    return (patternChecks, patternRuns, Dictionary(lexiconKeys.compactMap { $0 }, uniquingKeysWith: max))
  }

  var memoryFootprint: Int {
    let entryBytes = entries.reduce(0) { total, compiled in
      total + 96 + compiled.entry.text.utf8.count
    }
    return (automaton?.memoryFootprint ?? 0) + patternEntries.capacity * 5 + patternRuns.capacity * 8 + entryBytes
      + regexes.count * 512 + lexicon.capacity * 10
  }

  /// Adds this layer's candidate matches in `text` to `candidates`.
  func collect(
    in text: NormalizedUnits, layer: Int, into candidates: inout [Candidate], warnings: inout [MatchWarning],
    rejected: inout [(Candidate, Rejection)]?
  ) {
    // Regexes whose required literal the (primary) walk found; the others need no run.
    var triggered: [Int32]? = []  // allocates only when a literal is found
    if !text.hasOptionalUnits {
      let scalars = text.scalars
      walk(scalars, units: nil, in: text, layer: layer, into: &candidates, triggered: &triggered, rejected: &rejected)
      if !regexes.isEmpty {
        matchRegexes(
          scalars, units: nil, in: text, layer: layer, triggered: triggered ?? [], into: &candidates,
          warnings: &warnings)
      }
      return
    }
    // Primary walk without optional units, then a second walk with them (`反v动`, `售k粉`).
    let primaryUnits = text.scalars.indices.filter { !text[$0].isOptional }.map { Int32($0) }
    let primary = primaryUnits.map { text.scalars[Int($0)] }
    primary.withUnsafeBufferPointer { scalars in
      walk(
        scalars, units: primaryUnits, in: text, layer: layer, into: &candidates, triggered: &triggered,
        rejected: &rejected)
      if !regexes.isEmpty {
        matchRegexes(
          scalars, units: primaryUnits, in: text, layer: layer, triggered: triggered ?? [], into: &candidates,
          warnings: &warnings)
      }
    }
    var secondWalk: [Int32]? = nil  // regexes ran on the primary walk; their triggers here are moot
    walk(
      text.scalars, units: nil, in: text, layer: layer, into: &candidates, triggered: &secondWalk, rejected: &rejected)
  }

  /// Runs the automaton over `scalars` (units `units[k]` of `text`, or unit `k` when nil),
  /// adding to `triggered` (unless it is nil) the regexes whose literal it finds.
  private func walk(
    _ scalars: UnsafeBufferPointer<UInt32>, units: [Int32]?, in text: NormalizedUnits, layer: Int,
    into candidates: inout [Candidate], triggered: inout [Int32]?, rejected: inout [(Candidate, Rejection)]?
  ) {
    guard self.automaton != nil else { return }
    // Matches starting inside a word would be rejected (unless two spelled letters meet there,
    // `g b i t c h`), and only `explain` asks for rejections. Walk positions are units only
    // when `units` is nil.
    let skipsInsideWords = skipsInsideWords && units == nil && rejected == nil && !text.hasSpelledUnits
    // The closure captures the layer and the automaton as unmanaged references and reads them
    // as guaranteed ones, which neither retains them nor the arrays read through them. Captured
    // strongly, each was retained and released per walk: on shared objects, which both cores
    // of a two-job scan touch for almost every line. Captured unowned(unsafe), every read of
    // the layer's arrays in the closure retained and released the array, per match. Bound with
    // `guard let`, the automaton was retained for the walk. (Counted with uprobes on
    // swift_retain.)
    // SAFETY: the caller holds the layer, and the layer its automaton, for the whole walk.
    let layerReference = Unmanaged.passUnretained(self)
    let automatonReference = Unmanaged.passUnretained(self.automaton.unsafelyUnwrapped)
    automatonReference._withUnsafeGuaranteedRef { walked in
      walked.forEachMatchByStart(in: scalars, skippingInsideWords: skipsInsideWords) { pattern, end in
        layerReference._withUnsafeGuaranteedRef { layerObject in
          automatonReference._withUnsafeGuaranteedRef { automaton in
            let entryIndex = Int(layerObject.patternEntries[pattern])
            if entryIndex < 0 {
              triggered?.append(Int32(-entryIndex - 1))
              return
            }
            let start = end - Int(automaton.patternLengths[pattern])
            let rejection = layerObject.check(
              pattern: pattern, from: start, to: end, scalars: scalars, units: units, in: text)
            guard rejection == .none || rejected != nil else { return }
            let first = units.map { Int($0[start]) } ?? start
            let last = units.map { Int($0[end - 1]) } ?? end - 1
            let candidate = Candidate(
              layer: layer, entry: entryIndex, start: Int(text[first].start), end: Int(text[last].end))
            if rejection == .none {
              candidates.append(candidate)
            } else {
              rejected?.append((candidate, rejection))
            }
          }
        }
      }
    }
  }

  /// Why a literal's candidate is not a match (``none``: it is one).
  enum Rejection: UInt8, Sendable {
    case none
    /// A `word:` entry cut from two neighbouring words of the lexicon (`日入` in `18日入住`).
    case crossesLexiconWord
    /// A whole-word entry preceded by a word character (`ass` in `class`), or by Arabic
    /// letters that are not a proclitic (`لعق` in `العقل`).
    case startInsideWord
    /// A whole-word entry followed by a word character (`ass` in `assess`), or by Arabic
    /// letters that are not an enclitic (`مص` in `مصر`).
    case endInsideWord
    /// Fewer repeated letters than the entry writes (`xx` against a single `x`).
    case tooFewRepeats
  }

  /// Whether a candidate of a literal's `pattern` over walk positions `start..<end` meets its
  /// entry's word boundaries and repeat counts, and if not, why.
  @inline(__always)
  private func check(
    pattern: Int, from start: Int, to end: Int, scalars: UnsafeBufferPointer<UInt32>, units: [Int32]?,
    in text: NormalizedUnits
  ) -> Rejection {
    @inline(__always) func unit(_ position: Int) -> Int { units.map { Int($0[position]) } ?? position }
    let count = scalars.count
    let checks = patternChecks[pattern]
    if checks & Self.checksLexicon != 0, !lexicon.isEmpty, straddlesLexiconWord(start, end, scalars) {
      return .crossesLexiconWord
    }
    if checks & Self.checksSegmentation != 0, !lexicon.isEmpty, isCutFromLikelierWords(start, end, scalars) {
      return .crossesLexiconWord
    }
    // Between two letters spelled one by one (`g b i t c h`) any position may be a boundary.
    if checks & Self.checksStart != 0, start > 0, text[unit(start - 1)].scalarClass.isWordCharacter,
      !(text[unit(start - 1)].isSpelled && text[unit(start)].isSpelled)
    {
      return .startInsideWord
    }
    if checks & Self.checksEnd != 0, end < count, text[unit(end)].scalarClass.isWordCharacter,
      !(text[unit(end - 1)].isSpelled && text[unit(end)].isSpelled)
    {
      return .endInsideWord
    }
    let runs = patternRuns[pattern]
    if checks & (Self.checksArabicStart | Self.checksArabicEnd) != 0 {
      // Copies of an edge letter beyond the entry's own may belong to the clitic (`اللعق`).
      func extra(_ offset: Int) -> Int {
        max(0, Int(text[unit(start + offset)].run) - Int(runs.isEmpty ? 1 : runs[offset]))
      }
      if checks & Self.checksArabicStart != 0, !ArabicWordEdges.beginsWord(at: start, in: scalars, extra: extra(0)) {
        return .startInsideWord
      }
      if checks & Self.checksArabicEnd != 0,
        !ArabicWordEdges.endsWord(
          at: end, in: scalars, extra: extra(end - start - 1), persian: checks & Self.checksPersianEnd != 0)
      {
        return .endInsideWord
      }
    }
    for offset in runs.indices where text[unit(start + offset)].run < runs[offset] { return .tooFewRepeats }
    return .none
  }

  /// Whether the first scalar of walk positions `start..<end` ends a lexicon word that begins
  /// before it, or the last one begins a lexicon word that ends after it: the candidate is then
  /// cut from two neighbouring words (`日入` from `18日入住`), not a word of its own.
  @inline(__always)
  private func straddlesLexiconWord(_ start: Int, _ end: Int, _ scalars: UnsafeBufferPointer<UInt32>) -> Bool {
    if start >= 1 {
      if lexicon[Self.lexiconKey(scalars[start - 1], scalars[start])] != nil { return true }
      if start >= 2, lexicon[Self.lexiconKey(scalars[start - 2], scalars[start - 1], scalars[start])] != nil {
        return true
      }
    }
    if end < scalars.count {
      if lexicon[Self.lexiconKey(scalars[end - 1], scalars[end])] != nil { return true }
      if end + 1 < scalars.count, lexicon[Self.lexiconKey(scalars[end - 1], scalars[end], scalars[end + 1])] != nil {
        return true
      }
    }
    return false
  }

  /// Whether the Han characters around walk positions `start..<end` (up to
  /// ``Segmentation/context`` on each side) are more likely read with a word across one of its
  /// edges than with the candidate as a word (see ``Segmentation``).
  private func isCutFromLikelierWords(_ start: Int, _ end: Int, _ scalars: UnsafeBufferPointer<UInt32>) -> Bool {
    var left = start
    while left > 0, start - left < Segmentation.context, Self.isHan(scalars[left - 1]) { left -= 1 }
    var right = end
    while right < scalars.count, right - end < Segmentation.context, Self.isHan(scalars[right]) { right += 1 }
    guard left < start || right > end else { return false }
    return Segmentation.isCut(count: right - left, entry: (start - left)..<(end - left)) { offset, length in
      let at = left + offset
      let key =
        switch length {
        case 1: Self.lexiconKey(scalars[at])
        case 2: Self.lexiconKey(scalars[at], scalars[at + 1])
        default: Self.lexiconKey(scalars[at], scalars[at + 1], scalars[at + 2])
        }
      return lexicon[key].map { Int($0) }
    }
  }

  /// Whether a scalar is a Han character (the CJK Unified Ideographs and their extensions).
  @inline(__always)
  static func isHan(_ scalar: UInt32) -> Bool {
    switch scalar {
    case 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF, 0x20000...0x323AF: true
    default: false
    }
  }

  /// A one-scalar lexicon word as one number (below 2^21, so never a two- or three-scalar key).
  @inline(__always)
  static func lexiconKey(_ scalar: UInt32) -> UInt64 { UInt64(scalar) }

  /// A two-scalar lexicon word as one number (scalars fit in 21 bits and are never 0, so two-
  /// and three-scalar keys never collide).
  @inline(__always)
  static func lexiconKey(_ first: UInt32, _ second: UInt32) -> UInt64 {
    UInt64(first) << 21 | UInt64(second)
  }

  /// A three-scalar lexicon word as one number.
  @inline(__always)
  static func lexiconKey(_ first: UInt32, _ second: UInt32, _ third: UInt32) -> UInt64 {
    UInt64(first) << 42 | UInt64(second) << 21 | UInt64(third)
  }

  /// Adds the matches of this layer's `raw:` regexes in the original text's UTF-8 `bytes` to
  /// `candidates`: their ranges are the original's already. `scratch` is the thread's.
  func collectRaw(
    in bytes: UnsafeBufferPointer<UInt8>, layer: Int, scratch: inout RegexScratch, into candidates: inout [Candidate],
    warnings: inout [MatchWarning]
  ) {
    // A regex whose required literals the text lacks, or that needs more digits than the text
    // has, cannot match it.
    let (found, digits) = rawPrefilter.isUseful ? rawPrefilter.scan(bytes) : (0, 0)
    for (position, index) in rawRegexes.enumerated() {
      let needed = rawPrefilter.needed[position]
      guard found & needed == needed, digits >= rawPrefilter.digitsNeeded[position] else { continue }
      let (entryIndex, program, _) = regexes[Int(index)]
      let outcome = program.forEachMatch(in: bytes, scratch: &scratch) { range in
        candidates.append(Candidate(layer: layer, entry: entryIndex, start: range.lowerBound, end: range.upperBound))
      }
      if outcome != .completed {
        warnings.append(
          MatchWarning(
            entry: entries[entryIndex].entry, message: RegexProgram.describe(outcome),
            origin: entries[entryIndex].origin))
      }
    }
  }

  /// Runs the regexes that need to run (no prefilter, or in `triggered`) over the UTF-8 form of
  /// `scalars` and maps byte ranges back to units.
  private func matchRegexes(
    _ scalars: UnsafeBufferPointer<UInt32>, units: [Int32]?, in text: NormalizedUnits, layer: Int,
    triggered: [Int32], into candidates: inout [Candidate], warnings: inout [MatchWarning]
  ) {
    guard !unfilteredRegexes.isEmpty || !triggered.isEmpty else { return }
    // In list order, each once (a literal may be found several times).
    var toRun = triggered.isEmpty ? unfilteredRegexes : unfilteredRegexes + triggered
    if !triggered.isEmpty {
      toRun.sort()
      toRun = toRun.enumerated().filter { $0.offset == 0 || toRun[$0.offset - 1] != $0.element }.map(\.element)
    }
    var subject: [UInt8] = []
    var positionOfByte: [Int32] = []
    subject.reserveCapacity(scalars.count * 2)
    for (position, value) in scalars.enumerated() {
      let before = subject.count
      // Regexes read a `1` inside a word as `i`, as entries do.
      UTF8Decoding.append(UnicodeTables.plainLetter(value), to: &subject)
      for _ in before..<subject.count { positionOfByte.append(Int32(position)) }
    }
    var scratch = RegexScratch()
    subject.withUnsafeBufferPointer { subject in
      for index in toRun {
        let (entryIndex, program, _) = regexes[Int(index)]
        let outcome = program.forEachMatch(in: subject, scratch: &scratch) { range in
          let first = Int(positionOfByte[range.lowerBound])
          let last = Int(positionOfByte[range.upperBound - 1])
          let firstUnit = units.map { Int($0[first]) } ?? first
          let lastUnit = units.map { Int($0[last]) } ?? last
          candidates.append(
            Candidate(
              layer: layer, entry: entryIndex, start: Int(text[firstUnit].start), end: Int(text[lastUnit].end)))
        }
        if outcome != .completed {
          warnings.append(
            MatchWarning(
              entry: entries[entryIndex].entry, message: RegexProgram.describe(outcome),
              origin: entries[entryIndex].origin))
        }
      }
    }
  }
}
