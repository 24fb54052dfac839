extension MatcherLayer {
  /// Compiles `lists`; `lexiconWords` are the lexicon words of every list the matcher holds
  /// (lexicon words of any list serve the `word:` entries of every list, as allow entries do).
  /// `donor`, the layer compiled under this one, may lend its normalized lexicon (see
  /// ``checksAndLexicon(entries:normalizedEntries:patternEntries:variantRuns:normalizer:lexiconWords:donor:)``).
  /// `compact` builds the automaton with hashed codes and no start filter: a few KiB for a
  /// list of a few hundred words instead of ~280 KiB, for servers holding thousands of apps'
  /// lists; such a layer scans at about half the speed.
  convenience init(
    lists: [WordList], rules: Normalization, lexiconWords: LexiconWords = LexiconWords(), donor: MatcherLayer? = nil,
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
    var listRuns: [ListRun] = []
    for list in lists {
      let start = entries.count
      defer { if entries.count > start { listRuns.append(ListRun(start: start, name: list.name)) } }
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
          entries.append(CompiledEntry(entry: entry, origin: list.origin))
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
            entries.append(CompiledEntry(entry: entry, origin: list.origin))
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
    let (built, (tables, skipsInsideWords, asciiFilter)) = concurrently(
      { [patterns] in
        // Patterns are never empty here: empty entries were rejected above.
        patterns.isEmpty
          ? nil
          : try! AhoCorasick(scalarPatterns: patterns, filters: compact ? .none : .scalars, hashedCodes: compact)
      },
      { [entries, normalizedEntries, patternEntries, variantRuns, patterns] in
        let tables = Self.checksAndLexicon(
          entries: entries, normalizedEntries: normalizedEntries, patternEntries: patternEntries,
          variantRuns: variantRuns, normalizer: normalizer,
          lexiconWords: lexiconWords, donor: donor)
        // A regex's required literal checks nothing, so a Latin one turns the skip off.
        let skipsInsideWords = patterns.indices.allSatisfy { pattern in
          ScalarStartFilter.isASCIIWordScalar(patterns[pattern][0]) == 0
            || tables.checks[pattern] & PatternCheck.start != 0
        }
        // Texts of ASCII scalars take the raw filter of the ASCII patterns (see
        // ``ASCIIWalkFilter``), past whose prefix table, where the walk skips positions inside
        // words (the built-in lists), only a word's first position goes. The small lists of
        // apps (`compact`) have no start filter, for memory.
        let asciiFilter = compact ? nil : ASCIIWalkFilter(patterns: patterns, runs: tables.runs)
        return (tables, skipsInsideWords, asciiFilter)
      })
    let automaton = built.map { asciiFilter == nil ? $0 : AhoCorasick($0, asciiFilter: asciiFilter) }
    self.init(
      normalizer: normalizer, entries: entries, listRuns: listRuns, automaton: automaton,
      patternEntries: patternEntries,
      patternChecks: tables.checks, patternRuns: tables.runs, lexiconWords: lexiconWords, lexicon: tables.lexicon,
      regexes: regexes, skipsInsideWords: skipsInsideWords)
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

  /// Per pattern, the checks around a candidate (``PatternCheck`` bits, each word-edge rule's
  /// own) and the minimum repeat counts; and the normalized lexicon, empty when
  /// no pattern checks it, lent by `donor` when its lexicon words and rules are the same: an
  /// app's custom list with a `word:` entry then does not normalize the global list's lexicon
  /// words again for every app.
  static func checksAndLexicon(
    entries: [CompiledEntry], normalizedEntries: [NormalizedEntry?], patternEntries: [Int32],
    variantRuns: [Int: [UInt16]], normalizer: Normalizer,
    lexiconWords: LexiconWords, donor: MatcherLayer?
  ) -> (checks: [UInt8], runs: [[UInt16]], lexicon: LexiconTable) {
    var patternChecks = [UInt8](repeating: 0, count: patternEntries.count)
    var patternRuns = [[UInt16]](repeating: [], count: patternEntries.count)
    for (pattern, entryIndex) in patternEntries.enumerated() where entryIndex >= 0 {
      let compiled = entries[Int(entryIndex)]
      guard let normalized = normalizedEntries[Int(entryIndex)] else { continue }
      patternChecks[pattern] =
        LatinWordEdges.checks(of: compiled.entry, normalized) | HanWordEdges.checks(of: compiled.entry, normalized)
        | ArabicWordEdges.checks(of: compiled.entry, normalized)
        | SyllableWordEdges.checks(of: compiled.entry, normalized)
      patternRuns[pattern] = variantRuns[pattern] ?? normalized.runs
    }
    // Only a layer with `word:`, Han or spaced Latin entries reads the lexicon: an app's custom
    // layer without any does not normalize the global list's lexicon again.
    guard patternChecks.contains(where: { $0 & PatternCheck.readsLexicon != 0 }) else {
      return (patternChecks, patternRuns, LexiconTable())
    }
    if let donor, !donor.lexicon.isEmpty, donor.normalizer.rules == normalizer.rules,
      donor.lexiconWords.count == lexiconWords.count
    {
      // The matcher builds `lexiconWords` as the donor's words followed by the new lists' own:
      // the same count means the same words.
      return (patternChecks, patternRuns, donor.lexicon)
    }
    return (patternChecks, patternRuns, HanWordEdges.lexicon(of: lexiconWords.strings, normalizer: normalizer))
  }
}
