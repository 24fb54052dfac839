extension MatcherLayer {
  /// Adds this layer's candidate matches in `text` to `candidates`.
  func collect(
    in text: NormalizedUnits, layer: Int, into candidates: inout [Candidate], warnings: inout [MatchWarning],
    rejected: inout [(Candidate, Rejection)]?
  ) {
    // Regexes whose required literal the (primary) walk found; the others need no run. Nil
    // without regexes: an empty array was still released at the end of every text.
    var triggered: [Int32]? = regexes.isEmpty ? nil : []  // allocates only when a literal is found
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
  fileprivate func walk(
    _ scalars: UnsafeBufferPointer<UInt32>, units: [Int32]?, in text: NormalizedUnits, layer: Int,
    into candidates: inout [Candidate], triggered: inout [Int32]?, rejected: inout [(Candidate, Rejection)]?
  ) {
    guard self.automaton != nil else { return }
    // Matches starting inside a word would be rejected (unless two spelled letters meet there,
    // `g b i t c h`), and only `explain` asks for rejections. Walk positions are units only
    // when `units` is nil. A text without words (most Chinese text) has no position inside one:
    // building the masks that find them cost about a fifth of its filter's work.
    let skipsInsideWords =
      skipsInsideWords && text.mayHaveWords && units == nil && rejected == nil && !text.hasSpelledUnits
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
      @inline(__always) func found(_ pattern: Int, _ end: Int, units: [Int32]?) {
        layerReference._withUnsafeGuaranteedRef { layerObject in
          automatonReference._withUnsafeGuaranteedRef { automaton in
            // One read of the pattern's record (entry, checks, runs, length) per hit.
            let record = layerObject.patternRecords[pattern]
            let entryIndex = Int(PatternRecord.entry(record))
            if entryIndex < 0 {
              triggered?.append(Int32(-entryIndex - 1))
              return
            }
            let length = PatternRecord.length(record)
            let start =
              end
              - (length == PatternRecord.longLength ? Int(automaton.patternLengths[pattern]) : Int(length))
            let rejection = layerObject.check(
              pattern: pattern, record: record, from: start, to: end, scalars: scalars, units: units, in: text)
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
      // Texts of ASCII scalars by the raw filter of the ASCII patterns, over the scalars written
      // as bytes (a text that does not start with ASCII is not tried). Such a text has no
      // optional units (letters between CJK characters), so its walk is over units (`units`
      // nil): written so, its closure differs from the other's, and each inlines the check of
      // a match (two closures the same were merged into one function, called per match).
      // Not for `explain`, whose rejections include hits of short patterns that need a
      // repeated letter where the text has none, which this walk does not look up (see
      // ``ShortRepeats``).
      if units == nil && rejected == nil && walked.asciiFilter != nil && scalars.first ?? 0 < 0x80 {
        let walkedASCII = withUnsafeTemporaryAllocation(
          of: UInt8.self, capacity: scalars.count + StartFilter.padding
        ) { padded in
          guard ASCIIWalkFilter.narrow(scalars, into: padded) else { return false }
          let bytes = UnsafeBufferPointer(rebasing: padded[..<scalars.count])
          walked.forEachASCIIMatchByStart(in: scalars, padded: bytes, skippingInsideWords: skipsInsideWords) {
            found($0, $1, units: nil)
          }
          walked.forEachShortRepeat(padded: bytes, infos: text.infos) { found($0, $1, units: nil) }
          return true
        }
        if walkedASCII { return }
      }
      walked.forEachMatchByStart(in: scalars, skippingInsideWords: skipsInsideWords) {
        found($0, $1, units: units)
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

  /// Whether a candidate of a literal's `pattern` (whose ``PatternRecord`` is `record`) over
  /// walk positions `start..<end` meets its entry's word edges (each script's rule, in turn)
  /// and repeat counts, and if not, why.
  @inline(__always)
  private func check(
    pattern: Int, record: UInt64, from start: Int, to end: Int, scalars: UnsafeBufferPointer<UInt32>,
    units: [Int32]?, in text: NormalizedUnits
  ) -> Rejection {
    let checks = PatternRecord.checks(record)
    let candidate = EdgeCandidate(start: start, end: end, scalars: scalars, units: units, text: text)
    if checks & HanWordEdges.readsLexicon != 0, !lexicon.isEmpty {
      let rejection = HanWordEdges.rejection(of: candidate, checks: checks, lexicon: lexicon)
      if rejection != .none { return rejection }
    }
    if checks & SyllableWordEdges.owned != 0, !lexicon.isEmpty {
      let rejection = SyllableWordEdges.rejection(of: candidate, lexicon: lexicon)
      if rejection != .none { return rejection }
    }
    if checks & LatinWordEdges.owned != 0 {
      let rejection = LatinWordEdges.rejection(of: candidate, checks: checks)
      if rejection != .none { return rejection }
    }
    if checks & ArabicWordEdges.owned != 0 {
      let rejection = ArabicWordEdges.rejection(of: candidate, checks: checks, runs: patternRuns[pattern])
      if rejection != .none { return rejection }
    }
    // Most patterns write no repeats, and most that do are in the record: `patternRuns` is
    // read for the others only (a copy of the empty array retained and released it at every
    // candidate; reading an array through the array of them was two cache misses).
    switch PatternRecord.runs(record) {
    case PatternRecord.Runs.none.rawValue: return .none
    case PatternRecord.Runs.inline.rawValue:
      return repeatRejection(of: candidate, twice: PatternRecord.twiceMask(record), in: text)
    default: return repeatRejection(of: candidate, runs: patternRuns[pattern], in: text)
    }
  }

  /// ``repeatRejection(of:runs:in:)`` for counts of 1 and 2 given as a mask (bit `k` set when
  /// unit `k` of the candidate must stand for two letters or more).
  private func repeatRejection(of candidate: EdgeCandidate, twice mask: UInt64, in text: NormalizedUnits) -> Rejection {
    var mask = mask
    while mask != 0 {
      let offset = mask.trailingZeroBitCount
      mask &= mask &- 1
      if text[candidate.unit(candidate.start &+ offset)].run < 2 { return .tooFewRepeats }
    }
    return .none
  }

  /// ``Rejection/tooFewRepeats`` when a unit of `candidate` stands for fewer repeated letters
  /// than `runs` (its pattern's) asks; otherwise ``Rejection/none``.
  private func repeatRejection(of candidate: EdgeCandidate, runs: [UInt16], in text: NormalizedUnits) -> Rejection {
    for offset in runs.indices where text[candidate.unit(candidate.start + offset)].run < runs[offset] {
      return .tooFewRepeats
    }
    return .none
  }

  /// Adds the matches of this layer's `raw:` regexes in the original text's UTF-8 `bytes` to
  /// `candidates`: their ranges are the original's already. `scratch` is the thread's.
  ///
  /// Not inlined: inlined into the scan of every text, its regex clock's generic storage was
  /// set up there on every call, layers without `raw:` regexes too.
  @inline(never)
  func collectRaw(
    in bytes: UnsafeBufferPointer<UInt8>, layer: Int, scratch: RegexScratchStore, into candidates: inout [Candidate],
    warnings: inout [MatchWarning]
  ) {
    // A regex whose required literals the text lacks, or that needs more digits (or decimal
    // digits) than the text has, or closer together than they are, cannot match it. The scan
    // writes the offsets of the first digits to the scratch's room, for the regexes that ask
    // how close they are; a text with more is read again.
    let offsets = scratch.digitOffsets
    let records = rawPrefilter.mostDigitsNeeded > 0 && bytes.count <= Int(Int32.max)
    let scanned =
      rawPrefilter.isUseful ? rawPrefilter.scan(bytes, digitOffsets: records ? offsets : nil) : RawPrefilter.Scanned()
    var digitsRead: (offsets: [Int], decimals: Int)? = nil  // read once, where the scan wrote too few
    for (position, index) in rawRegexes.enumerated() {
      let needed = rawPrefilter.needed[position]
      guard scanned.sets & needed == needed, scanned.digits >= rawPrefilter.digitsNeeded[position] else { continue }
      guard
        rawPrefilter.digitsFit(
          regex: position, in: bytes, scanned: scanned, offsets: UnsafeBufferPointer(offsets), read: &digitsRead)
      else { continue }
      runRawRegex(Int(index), in: bytes, layer: layer, scratch: scratch, into: &candidates, warnings: &warnings)
    }
  }

  /// Runs raw regex `index` over `bytes`, for ``collectRaw(in:layer:scratch:into:warnings:)``.
  /// Out of line: inlined, the regex's run (its clock's values, whose size the standard
  /// library does not fix at compile time) set up its stack on every text the prefilter read,
  /// though few texts run a regex. The scratch is reached here too: an `inout` access to a
  /// class's property is checked for exclusivity at run time, on every text where it was
  /// taken in the caller.
  @inline(never)
  private func runRawRegex(
    _ index: Int, in bytes: UnsafeBufferPointer<UInt8>, layer: Int, scratch: RegexScratchStore,
    into candidates: inout [Candidate], warnings: inout [MatchWarning]
  ) {
    let (entryIndex, program, _) = regexes[index]
    let outcome = program.forEachMatch(in: bytes, scratch: &scratch.scratch) { range in
      candidates.append(Candidate(layer: layer, entry: entryIndex, start: range.lowerBound, end: range.upperBound))
    }
    if outcome != .completed {
      warnings.append(
        MatchWarning(
          entry: entries[entryIndex].entry, message: RegexProgram.describe(outcome),
          origin: entries[entryIndex].origin))
    }
  }

  /// Runs the regexes that need to run (no prefilter, or in `triggered`) over the UTF-8 form of
  /// `scalars` and maps byte ranges back to units.
  private func matchRegexes(
    _ scalars: UnsafeBufferPointer<UInt32>, units: [Int32]?, in text: NormalizedUnits, layer: Int,
    triggered: [Int32], into candidates: inout [Candidate], warnings: inout [MatchWarning]
  ) {
    guard !unfilteredRegexes.isEmpty || !triggered.isEmpty else { return }
    runRegexes(
      scalars, units: units, in: text, layer: layer, triggered: triggered, into: &candidates, warnings: &warnings)
  }

  /// The work of ``matchRegexes(_:units:in:layer:triggered:into:warnings:)`` once some regex
  /// must run: out of line, as ``runRawRegex(_:in:layer:scratch:into:warnings:)`` is.
  @inline(never)
  private func runRegexes(
    _ scalars: UnsafeBufferPointer<UInt32>, units: [Int32]?, in text: NormalizedUnits, layer: Int,
    triggered: [Int32], into candidates: inout [Candidate], warnings: inout [MatchWarning]
  ) {
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
