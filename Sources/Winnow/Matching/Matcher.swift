import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The compiled form of a set of word lists: finds their entries in text, whatever evasions
/// the normalization rules undo, and reports every match on the original characters.
///
/// ```swift
/// let global = try WordList.load(directory: "wordlists/global", origin: .global)
/// let matcher = try Matcher(lists: global)
/// for match in matcher.matches(in: "ｆ.u.c.k you, 傻 逼") {
///   print(match.text, match.range, match.entry.source!)   // "ｆ.u.c.k" 0..<9 en.txt:120
/// }
/// let app = try Matcher(lists: [custom], over: matcher)    // shares the compiled global list
/// ```
///
/// Lists with the same normalization rules are compiled into one *layer*: one Aho-Corasick
/// automaton for all literal entries and a PCRE2 program per regex entry. A scan normalizes the
/// text once per distinct rule set (unless none of its characters can become a character of
/// those layers' entries: a text in a script no list writes), walks each automaton over the
/// normalized scalars (twice when the text has optional units, see
/// ``Normalization/interleavedLetters``), checks each candidate's word boundaries and repeat
/// counts, runs the regexes, removes matches inside allowed spans, and finally chooses matches
/// by ``MatchKind``.
///
/// A `Matcher` is immutable and `Sendable`: build it once, share it across threads, and build
/// a new one to change lists. Errors in the lists surface when it is built; a scan never fails.
public final class Matcher: Sendable {
  let layers: [MatcherLayer]
  /// Whether any layer has allow entries, whose candidates hide others.
  private let hasAllowEntries: Bool
  /// Whether any layer has entries of one language (``Entry/language``).
  private let hasLanguageEntries: Bool
  /// Whether any layer has block entries whose words are also names (``Entry/isAlsoName``).
  private let hasNameEntries: Bool
  /// Whether any layer has review entries that are insults (``Entry/isInsult``).
  private let hasInsultEntries: Bool
  /// Whether an allow entry of a custom list may hide a match of a global entry (see
  /// ``init(lists:over:customAllowsGlobal:)``).
  private let customAllowsGlobal: Bool
  /// Where a scan leaves its text normalized by the default rules (``Normalization/default``,
  /// those a ``Scorer`` reads): the index of the thread's ``ScanWorkspace/texts`` that holds it
  /// until the thread's next scan; nil when no layer normalizes by them.
  let defaultRulesSlot: Int?
  /// For each layer, the index of its text among those a scan normalizes (see
  /// ``slot(of:in:)``).
  private let textSlots: [Int]
  /// For each of those texts, the characters that can become a scalar of its layers' patterns
  /// (``AlphabetFilter``): a text with none is not normalized for them, nor walked.
  private let slotFilters: AlphabetFilters
  /// A number no other matcher of this process has: a report the in-place check of a dump
  /// line hands to the full screen (``FoundText``) is never taken for another matcher's, as an
  /// address could be once the first matcher is freed.
  let serial = Matcher.serials.add(1, ordering: .relaxed).newValue
  private static let serials = Atomic<UInt64>(0)
  /// Up to this many candidates, duplicates are found by comparing rather than hashing.
  static let linearDeduplicationLimit = 32

  /// Compiles word lists.
  /// - Parameter customAllowsGlobal: whether `allow:` entries of custom lists may hide matches
  ///   of global entries (see ``init(lists:over:customAllowsGlobal:)``).
  /// - Throws: ``WordListErrors`` listing every entry that cannot be compiled (empty after
  ///   normalization, invalid regex), each with its file and line.
  public convenience init(lists: [WordList], customAllowsGlobal: Bool = false) throws(WordListErrors) {
    try self.init(lists: lists, sharing: [], customAllowsGlobal: customAllowsGlobal)
  }

  /// Compiles word lists on top of an already compiled matcher, whose layers are shared, not
  /// compiled again: one global matcher, and per app a cheap matcher for its custom lists.
  ///
  /// An app's list cannot weaken the built-in one: by default an `allow:` entry of a custom
  /// list hides matches of custom entries only, as the platform's custom lists add to its
  /// global list and never take from it. `customAllowsGlobal` lets it hide global matches too
  /// (an operator's choice, `--custom-allow-global` on the command line). Allow entries of a
  /// global list hide matches of every list.
  public convenience init(lists: [WordList], over base: Matcher, customAllowsGlobal: Bool = false)
    throws(WordListErrors)
  {
    try self.init(lists: lists, sharing: base.layers, customAllowsGlobal: customAllowsGlobal)
  }

  /// Compiles lists over `base` in their compact form (``MatcherLayer``'s `compact`): for a
  /// server holding thousands of apps' lists, where memory counts more than scan speed.
  convenience init(compactLists lists: [WordList], over base: Matcher, customAllowsGlobal: Bool)
    throws(WordListErrors)
  {
    try self.init(lists: lists, sharing: base.layers, customAllowsGlobal: customAllowsGlobal, compact: true)
  }

  private init(lists: [WordList], sharing base: [MatcherLayer], customAllowsGlobal: Bool, compact: Bool = false)
    throws(WordListErrors)
  {
    var groups: [(rules: Normalization, lists: [WordList])] = []
    for list in lists {
      if let index = groups.firstIndex(where: { $0.rules == list.normalization }) {
        groups[index].lists.append(list)
      } else {
        groups.append((list.normalization, [list]))
      }
    }
    var layers = base
    var errors: [WordListError] = []
    // Lexicon words of any list serve `word:` entries of every list, base lists included.
    var lexiconWords = base.last?.lexiconWords ?? LexiconWords()
    // Appended only when a list has some: appending nothing still copies the array (an app's
    // list would hold its own copy of the global list's 49,000 lexicon words).
    for list in lists where list.entries.contains(where: { $0.action == .lexicon }) {
      lexiconWords.append(contentsOf: list.entries.lazy.filter { $0.action == .lexicon }.map(\.lexiconWord))
    }
    // The base layer that lends its normalized lexicon: one that has it (not every layer
    // reads the lexicon; each app's list otherwise normalized the global lexicon again).
    let donor = base.last { !$0.lexicon.isEmpty } ?? base.last
    for group in groups {
      do {
        layers.append(
          try MatcherLayer(
            lists: group.lists, rules: group.rules, lexiconWords: lexiconWords, donor: donor, compact: compact))
      } catch { errors += error.errors }
    }
    guard errors.isEmpty else { throw WordListErrors(errors) }
    self.layers = layers
    hasAllowEntries = layers.contains { $0.hasAllowEntries }
    hasLanguageEntries = layers.contains { $0.hasLanguageEntries }
    hasNameEntries = layers.contains { $0.hasNameEntries }
    hasInsultEntries = layers.contains { $0.hasInsultEntries }
    self.customAllowsGlobal = customAllowsGlobal
    defaultRulesSlot = Self.slot(of: .default, in: layers)
    let (slots, filters) = Self.textSlots(of: layers)
    (textSlots, slotFilters) = (slots, AlphabetFilters(filters))
  }

  /// A matcher of already compiled layers (read back by `Matcher+Compiled.swift`).
  init(layers: [MatcherLayer]) {
    self.layers = layers
    hasAllowEntries = layers.contains { $0.hasAllowEntries }
    hasLanguageEntries = layers.contains { $0.hasLanguageEntries }
    hasNameEntries = layers.contains { $0.hasNameEntries }
    hasInsultEntries = layers.contains { $0.hasInsultEntries }
    customAllowsGlobal = false
    defaultRulesSlot = Self.slot(of: .default, in: layers)
    let (slots, filters) = Self.textSlots(of: layers)
    (textSlots, slotFilters) = (slots, AlphabetFilters(filters))
  }

  /// Calls `body` with the text of this thread's last scan as normalized by the default rules,
  /// if that text is still in the thread's workspace; nil when no layer normalizes by them, or
  /// when the scan's workspace was not kept (a huge text's, or a nested scan's, whose own
  /// call here also sees a new workspace). Valid only right after a scan by this matcher on
  /// this thread: the in-place check of a dump line scores what it has just matched.
  func withDefaultNormalizedText<Result>(_ body: (NormalizedUnits) -> Result) -> Result? {
    guard let slot = defaultRulesSlot else { return nil }
    return ThreadWorkspace.withWorkspace { workspace -> Result? in
      guard slot < workspace.texts.count, workspace.rules[slot] == .default else { return nil }
      return Self.withUnits(of: &workspace.texts[slot], body)
    }
  }

  /// The index of `rules`' text among those a scan normalizes: one a distinct rule set, in the
  /// order of the layers that first use each (as ``collectCandidates(in:workspace:warnings:rejected:)``
  /// fills them).
  private static func slot(of rules: Normalization, in layers: [MatcherLayer]) -> Int? {
    var distinct: [Normalization] = []
    for layer in layers where !distinct.contains(layer.normalizer.rules) { distinct.append(layer.normalizer.rules) }
    return distinct.firstIndex(of: rules)
  }

  /// ``textSlots`` and ``slotFilters`` of `layers`: a slot per distinct rule set, in the order
  /// of the layers that first use each, as ``slot(of:in:)`` numbers them.
  private static func textSlots(of layers: [MatcherLayer]) -> ([Int], [AlphabetFilter?]) {
    var rules: [Normalization] = []
    var filters: [AlphabetFilter?] = []
    var slots: [Int] = []
    for layer in layers {
      if let slot = rules.firstIndex(of: layer.normalizer.rules) {
        slots.append(slot)
        filters[slot] = filters[slot].flatMap { filter in layer.alphabetFilter.map { filter.union($0) } }
      } else {
        slots.append(rules.count)
        rules.append(layer.normalizer.rules)
        filters.append(layer.alphabetFilter)
      }
    }
    return (slots, filters)
  }

  /// The number of entries of all lists.
  public var entryCount: Int { layers.reduce(0) { $0 + $1.entries.count } }

  /// Bytes of memory the compiled lists hold (automata, entry data, tables).
  public var memoryFootprint: Int { layers.reduce(0) { $0 + $1.memoryFootprint } }

  /// Whether the lists find nothing in `text`: no block, replace or review match (and no regex
  /// check stopped by its limit, which leaves the answer unknown).
  public func isClean(_ text: String) -> Bool {
    var text = text
    return text.withUTF8 { findings(inUTF8: $0) == nil }
  }

  /// Non-overlapping matches, leftmost-longest (the longest entry at the earliest position,
  /// `傻逼玩意` over `傻逼`: what masking and verdicts use), in order.
  public func matches(in text: String) -> [Match] {
    scan(text, kind: .leftmostLongest).matches
  }

  /// Non-overlapping matches chosen by `kind`, in order.
  @_spi(Tools) public func matches(in text: String, kind: MatchKind) -> [Match] {
    scan(text, kind: kind).matches
  }

  /// Every match, overlapping ones included, ordered by start and then end.
  public func overlappingMatches(in text: String) -> [Match] {
    scan(text, kind: nil).matches
  }

  /// Scans a text: the matches (non-overlapping by `kind`, or all when `kind` is nil) and any
  /// warnings.
  @_spi(Tools) public func scan(_ text: String, kind: MatchKind? = .leftmostLongest) -> MatchReport {
    var text = text
    var suppressed: [SuppressedMatch]? = nil
    return text.withUTF8 { scan(utf8: $0, kind: kind, suppressed: &suppressed) }
  }

  /// What ``scan(_:kind:)`` with `kind` nil (every match, which is what the engine decides on)
  /// reports in the text these bytes encode (valid UTF-8); nil when it finds nothing and warns
  /// of nothing. The in-place check of a dump line checks its texts with this.
  func findings(inUTF8 bytes: UnsafeBufferPointer<UInt8>) -> MatchReport? {
    var suppressed: [SuppressedMatch]? = nil
    let report = scan(utf8: bytes, kind: nil, suppressed: &suppressed)
    return report.matches.isEmpty && report.warnings.isEmpty ? nil : report
  }

  /// Scans a text like ``scan(_:kind:)`` and also lists where an entry's text was found but not
  /// reported, and why: inside an allowed span, inside a longer word, cut from two lexicon words,
  /// or with fewer repeated letters than the entry writes, in order of start. For tuning lists
  /// (`winnow check --suppressed`); slower than a plain scan. Regex entries' rejections are not
  /// listed.
  @_spi(Tools) public func explain(_ text: String, kind: MatchKind? = .leftmostLongest) -> (
    report: MatchReport, suppressed: [SuppressedMatch]
  ) {
    var text = text
    var suppressed: [SuppressedMatch]? = []
    let report = text.withUTF8 { scan(utf8: $0, kind: kind, suppressed: &suppressed) }
    let ordered = (suppressed ?? []).sorted {
      ($0.match.range.lowerBound, $0.match.range.upperBound) < ($1.match.range.lowerBound, $1.match.range.upperBound)
    }
    return (report, ordered)
  }

  private func scan(
    utf8 bytes: UnsafeBufferPointer<UInt8>, kind: MatchKind?, suppressed: inout [SuppressedMatch]?
  ) -> MatchReport {
    // One visit to the thread's workspace for the whole scan: the candidates are chosen in its
    // storage and it is emptied at the end. Taking the storage out and giving it back after
    // the matches were made visited the workspace twice, and checked twice whether its buffers
    // were worth keeping (`Benchmarks/HISTORY.md`).
    ThreadWorkspace.withWorkspace { scan(utf8: bytes, kind: kind, suppressed: &suppressed, in: &$0) }
  }

  /// Normalizes `text` as a scan does, once for each rule set the layers use, unless none of
  /// its characters can become a scalar of those layers' patterns, and matches nothing: what
  /// normalizing costs apart from matching, for `winnow match --normalize-only` and
  /// `Benchmarks/compare`. Returns how many texts it normalized.
  @_spi(Tools) public func normalizeAsScanned(_ text: String) -> Int {
    var text = text
    return text.withUTF8 { bytes in
      ThreadWorkspace.withWorkspace { workspace in
        var normalized = 0  // texts of `workspace` filled
        var written = 0  // of those, the ones normalized
        for layerIndex in layers.indices {
          // SAFETY: as in `collectCandidates`, the caller holds the matcher, and it its layers.
          Unmanaged.passUnretained(layers[layerIndex])._withUnsafeGuaranteedRef { layer in
            let slot = textSlots[layerIndex]
            if slot == normalized {
              if prepareText(slot, for: layer, bytes: bytes, workspace: &workspace, explaining: false) { written += 1 }
              normalized += 1
            }
          }
        }
        return written
      }
    }
  }

  /// ``scan(utf8:kind:suppressed:)`` with the thread's `workspace`.
  private func scan(
    utf8 bytes: UnsafeBufferPointer<UInt8>, kind: MatchKind?, suppressed: inout [SuppressedMatch]?,
    in workspace: inout ScanWorkspace
  ) -> MatchReport {
    var warnings: [MatchWarning] = []
    var rejected: [(Candidate, MatcherLayer.Rejection)]? = suppressed == nil ? nil : []
    collectCandidates(in: bytes, workspace: &workspace, warnings: &warnings, rejected: &rejected)
    // Most texts have none: no filtering, sorting or hashing for them.
    if workspace.candidates.isEmpty && rejected?.isEmpty ?? true {
      return MatchReport(matches: [], warnings: warnings)
    }
    defer {
      if workspace.candidates.capacity > ScanWorkspace.keptCandidates {
        workspace.candidates = []
      } else {
        workspace.candidates.removeAll(keepingCapacity: true)
      }
    }
    if let rejected {
      suppressed = explainRejections(rejected, candidates: workspace.candidates, bytes: bytes)
    }
    return report(
      choosingAmong: &workspace.candidates, in: bytes, kind: kind, warnings: warnings, suppressed: &suppressed)
  }

  /// The matches of a scan, chosen by `kind` (all when nil) among its `candidates` (in the
  /// order found), which are changed in place.
  private func report(
    choosingAmong candidates: inout [Candidate], in bytes: UnsafeBufferPointer<UInt8>, kind: MatchKind?,
    warnings: [MatchWarning], suppressed: inout [SuppressedMatch]?
  ) -> MatchReport {
    if candidates.isEmpty { return MatchReport(matches: [], warnings: warnings) }
    if hasLanguageEntries {
      removeOtherLanguages(&candidates, bytes: bytes, suppressed: &suppressed)
      if candidates.isEmpty { return MatchReport(matches: [], warnings: warnings) }
    }
    // The rest are chosen in place: copying a text's few candidates into new arrays (kept,
    // sorted, chosen) cost more than choosing them, a sixth of a scan of the comparison corpus.
    // Candidates whose spans strictly increase (one walk's, most often) hold no duplicate and
    // are in order already.
    let inOrder = candidates.count == 1 || Self.spansIncrease(candidates)
    if hasAllowEntries || suppressed != nil {
      candidates = candidatesOutsideAllowed(candidates, bytes: bytes, suppressed: &suppressed)
    } else if !inOrder {
      Self.removeDuplicates(&candidates)
    }
    if let kind {
      kind.select(&candidates, start: \.start, end: \.end, pattern: rank)
    } else if !inOrder && candidates.count > 1 && !Self.spansIncrease(candidates) {
      candidates.sort { ($0.start, $0.end, rank($0)) < ($1.start, $1.end, rank($1)) }
    }
    var matches = candidates.map { match($0, in: bytes) }
    if hasNameEntries {
      for index in matches.indices
      where matches[index].isAlsoName && matches[index].action == .block
        && NameContext.isPartOfName(bytes, matches[index].range)
      {
        // Part of a name: reported for review, not blocking (see ``Entry/isAlsoName``).
        matches[index] = matches[index].withAction(.review)
      }
    }
    if hasInsultEntries {
      for index in matches.indices
      where matches[index].isInsult && matches[index].action == .review
        && AddresseeContext.isAimed(bytes, matches[index].range)
      {
        // Aimed at someone: the insult's abusive sense is meant (see ``Entry/isInsult``).
        matches[index] = matches[index].withAction(.block)
      }
    }
    return MatchReport(matches: matches, warnings: warnings)
  }

  /// Whether the candidates' spans strictly increase (by start, then end): the order one walk
  /// of one layer finds them in, which sorting by span and rank would keep. Sorting them anyway
  /// read each one's rank at every comparison.
  private static func spansIncrease(_ candidates: [Candidate]) -> Bool {
    for index in candidates.indices.dropFirst()
    where (candidates[index - 1].start, candidates[index - 1].end) >= (candidates[index].start, candidates[index].end) {
      return false
    }
    return true
  }

  /// Keeps the first of each candidate (both walks of a text with optional units find most of
  /// them), in the order found. A text's few candidates are compared one by one: hashing them
  /// into a set cost more than the comparisons (a twentieth of a per-message scan).
  private static func removeDuplicates(_ candidates: inout [Candidate]) {
    var kept = 0
    if candidates.count > linearDeduplicationLimit {
      var seen = Set<Candidate>()
      for index in candidates.indices where seen.insert(candidates[index]).inserted {
        candidates.swapAt(kept, index)
        kept += 1
      }
    } else {
      for index in candidates.indices where !candidates[..<kept].contains(candidates[index]) {
        candidates.swapAt(kept, index)
        kept += 1
      }
    }
    candidates.removeLast(candidates.count - kept)
  }

  /// The candidates of entries other than allow entries that no allow entry's candidate
  /// covers, each once, in the order found; with `suppressed`, the covered ones are added to it.
  private func candidatesOutsideAllowed(
    _ candidates: [Candidate], bytes: UnsafeBufferPointer<UInt8>, suppressed: inout [SuppressedMatch]?
  ) -> [Candidate] {
    let allowed = candidates.filter { action(of: $0) == .allow }
    var kept: [Candidate] = []
    var suppressedByAllow: [Candidate] = []
    for candidate in candidates where action(of: candidate) != .allow {
      if let allow = allowed.first(where: {
        $0.start <= candidate.start && candidate.end <= $0.end && covers($0, candidate)
      }) {
        if suppressed != nil, !suppressedByAllow.contains(candidate) {
          suppressedByAllow.append(candidate)
          suppressed!.append(
            SuppressedMatch(
              match: match(candidate, in: bytes), reason: .allowed(by: layers[allow.layer].entries[allow.entry].entry)))
        }
        continue
      }
      kept.append(candidate)
    }
    Self.removeDuplicates(&kept)
    return kept
  }

  /// Removes the candidates of entries of one language (``Entry/language``) when the text is
  /// written in another (see `LanguageEvidence`); the text's words are counted only when there
  /// is such a candidate.
  private func removeOtherLanguages(
    _ candidates: inout [Candidate], bytes: UnsafeBufferPointer<UInt8>, suppressed: inout [SuppressedMatch]?
  ) {
    var evidence: LanguageEvidence? = nil
    var kept = 0
    for index in candidates.indices {
      let candidate = candidates[index]
      let language = layers[candidate.layer].entryLanguages[candidate.entry]
      if language >= 0 {
        if evidence == nil {
          // A match written as a plain word counts as a word (a lone `nicht` is German);
          // one with other characters in it (`p_o_r_n_o`) is not read as words.
          let judged = candidates.filter {
            layers[$0.layer].entryLanguages[$0.entry] >= 0
              && !LanguageEvidence.isWord(UnsafeBufferPointer(rebasing: bytes[$0.start..<$0.end]))
          }
          evidence = LanguageEvidence(utf8: bytes, excluding: judged.map { $0.start..<$0.end })
        }
        if !evidence!.admits(
          languageAt: Int(language), against: layers[candidate.layer].entryAlsoWordOf[candidate.entry])
        {
          if suppressed != nil {
            suppressed!.append(SuppressedMatch(match: match(candidate, in: bytes), reason: .otherLanguage))
          }
          continue
        }
      }
      candidates[kept] = candidate
      kept += 1
    }
    candidates.removeLast(candidates.count - kept)
  }

  /// Whether an allow candidate may hide `candidate`: a custom allow entry hides a global
  /// entry's match only when ``customAllowsGlobal``.
  private func covers(_ allow: Candidate, _ candidate: Candidate) -> Bool {
    customAllowsGlobal || layers[allow.layer].entries[allow.entry].origin == .global
      || layers[candidate.layer].entries[candidate.entry].origin == .custom
  }

  /// A candidate's entry's action.
  @inline(__always)
  private func action(of candidate: Candidate) -> MatcherLayer.ActionCode {
    layers[candidate.layer].entryActions[candidate.entry]
  }

  /// Every layer's candidates in `bytes`, into `workspace.candidates` (empty), each layer
  /// walking the text normalized by its rules (normalized once per distinct rule set, into
  /// the workspace's buffers: see ``ThreadWorkspace``).
  private func collectCandidates(
    in bytes: UnsafeBufferPointer<UInt8>, workspace: inout ScanWorkspace, warnings: inout [MatchWarning],
    rejected: inout [(Candidate, MatcherLayer.Rejection)]?
  ) {
    var normalized = 0  // texts of `workspace` filled by this scan
    var unnormalized: UInt64 = 0  // bit `slot` for each left unnormalized (see `AlphabetFilter`)
    for layerIndex in layers.indices {
      // SAFETY: the matcher holds its layers for as long as it lives, and the caller holds
      // the matcher. Taken as a guaranteed reference, a layer is not retained and released
      // on every scan (two atomic operations, a tenth of a short message's scan).
      Unmanaged.passUnretained(layers[layerIndex])._withUnsafeGuaranteedRef { layer in
        let slot = textSlots[layerIndex]
        if slot == normalized {
          // The first layer of its rules: the text is normalized for them now.
          if !prepareText(slot, for: layer, bytes: bytes, workspace: &workspace, explaining: rejected != nil) {
            unnormalized |= 1 &<< UInt64(slot)
          }
          normalized += 1
        }
        if slot >= 64 || unnormalized &>> UInt64(slot) & 1 == 0 {
          Self.withUnits(of: &workspace.texts[slot]) { units in
            layer.collect(
              in: units, layer: layerIndex, into: &workspace.candidates, warnings: &warnings, rejected: &rejected)
          }
        }
        if !layer.rawRegexes.isEmpty {
          let store = workspace.regexScratch ?? RegexScratchStore()
          workspace.regexScratch = store
          layer.collectRaw(
            in: bytes, layer: layerIndex, scratch: store, into: &workspace.candidates, warnings: &warnings)
        }
      }
    }
  }

  /// Fills text `slot` of `workspace` (the next one, or one kept from an earlier scan) for
  /// `layer`'s rules, the first layer of them: normalizes `bytes` into it, unless none of their
  /// characters can become a scalar of those layers' patterns (then the text is left as it was
  /// and marked as nobody's, and the result is false). `explaining` (`explain`, which lists
  /// what the walks reject and so always walks) normalizes every text.
  @inline(__always)
  private func prepareText(
    _ slot: Int, for layer: MatcherLayer, bytes: UnsafeBufferPointer<UInt8>, workspace: inout ScanWorkspace,
    explaining: Bool
  ) -> Bool {
    if slot == workspace.texts.count {
      workspace.texts.append(NormalizedText())
      workspace.rules.append(layer.normalizer.rules)
    }
    if !explaining && !slotFilters.admits(bytes, slot: slot) {
      // Not the default rules' text either, for ``withDefaultNormalizedText(_:)``.
      workspace.rules[slot] = Self.unnormalized
      return false
    }
    workspace.rules[slot] = layer.normalizer.rules
    layer.normalizer.normalize(utf8: bytes, into: &workspace.texts[slot])
    return true
  }

  /// What ``ScanWorkspace/rules`` holds for a text a scan left unnormalized: no rule set the
  /// default could be taken for (it has bits no rule has).
  private static let unnormalized = Normalization(rawValue: .max)

  /// `text.withUnits(body)`, reaching the text in place: read out of an array (or through a
  /// buffer pointer) it was copied, retaining and releasing its four buffers on every scan.
  @inline(__always)
  private static func withUnits<Result>(of text: inout NormalizedText, _ body: (NormalizedUnits) -> Result) -> Result {
    text.withUnits(body)
  }

  /// The reported form of a candidate.
  private func match(_ candidate: Candidate, in bytes: UnsafeBufferPointer<UInt8>) -> Match {
    Match(
      layer: layers[candidate.layer], entryIndex: candidate.entry, range: candidate.start..<candidate.end,
      text: String(decoding: bytes[candidate.start..<candidate.end], as: UTF8.self))
  }

  /// The rejected candidates of the walks, once each, leaving out any that another walk (with
  /// or without optional units) accepted.
  private func explainRejections(
    _ rejected: [(Candidate, MatcherLayer.Rejection)], candidates: [Candidate], bytes: UnsafeBufferPointer<UInt8>
  ) -> [SuppressedMatch] {
    let accepted = Set(candidates)
    var seen = Set<Candidate>()
    var result: [SuppressedMatch] = []
    for (candidate, rejection) in rejected where !accepted.contains(candidate) && seen.insert(candidate).inserted {
      let reason: SuppressedMatch.Reason
      switch rejection {
      case .none: continue
      case .crossesLexiconWord: reason = .crossesLexiconWord
      case .startInsideWord: reason = .startInsideWord
      case .endInsideWord: reason = .endInsideWord
      case .tooFewRepeats: reason = .tooFewRepeats
      }
      result.append(SuppressedMatch(match: match(candidate, in: bytes), reason: reason))
    }
    return result
  }

  /// Preference among matches of the same span: block, then replace (which does something
  /// definite), then review, then list order.
  private func rank(_ candidate: Candidate) -> Int {
    let order: Int
    switch action(of: candidate) {
    case .block: order = 0
    case .replace: order = 1
    default: order = 2
    }
    return order << 48 | candidate.layer << 32 | candidate.entry
  }
}

/// The reusable buffers of one scan: a normalized text per distinct rule set, and the rules of
/// each (apart, so that finding a text by its rules copies no text).
struct ScanWorkspace: Sendable {
  var texts: [NormalizedText] = []
  /// Storage for a scan's candidates, which ``Matcher`` chooses among in place and empties:
  /// grown from nothing for every text with candidates, the array was allocated again at each
  /// growth.
  var candidates: [Candidate] = []
  /// The most candidates whose storage a workspace keeps.
  static let keptCandidates = 4096
  /// PCRE2's match data and context for `raw:` regexes, made on the thread's first use: made
  /// for every text, they were two allocations a text.
  var regexScratch: RegexScratchStore? = nil
  var rules: [Normalization] = []
  /// The text a ``Scorer`` normalizes into (with the default rules).
  var scorerText = NormalizedText()

  /// Whether every text's buffers are small enough to keep (see ``WordShaper/keptCapacity``).
  /// Indices, not iteration: iterating would copy each text.
  var isWorthKeeping: Bool { texts.indices.allSatisfy { texts[$0].isWorthKeeping } && scorerText.isWorthKeeping }
}

/// A match before allow-filtering and selection: an entry of a layer over original bytes.
struct Candidate: Hashable, Sendable {
  var layer: Int
  var entry: Int
  var start: Int
  var end: Int
}
