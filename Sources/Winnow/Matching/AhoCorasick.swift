/// A multi-pattern literal matcher over Unicode scalars: the Aho-Corasick automaton.
///
/// ```swift
/// let automaton = try AhoCorasick(patterns: ["he", "she", "his", "hers"])
/// automaton.matches(in: "ushers", kind: .standard, overlapping: true)
/// // [she 1..<4, he 2..<4, hers 2..<6]   (UTF-8 byte offsets)
/// ```
///
/// The automaton (Aho & Corasick, "Efficient string matching", CACM 18(6), 1975) is a trie of
/// the patterns plus failure links; a text is read once, left to right, one transition per
/// scalar, and every occurrence of every pattern is found in time linear in the text plus the
/// number of matches. Its alphabet is the set of scalars that occur in the patterns, coded by
/// frequency, so a CJK text takes one step per character rather than three. The whole automaton
/// lives in one flat `[UInt32]` (see ``AutomatonLayout``): the root's row is dense, every other
/// state's row is sparse and sorted.
///
/// Counting matches in UTF-8 bytes or listing them with byte offsets, and the walks of a
/// ``Matcher``, do not step the automaton through every character: a start filter
/// (``StartFilter`` for bytes, ``ScalarStartFilter`` for normalized scalars) passes the few
/// positions where a pattern may begin, and only those are looked at: in bytes by the start
/// filter's exact tables of the patterns by their first bytes (``WindowPatterns``), in scalars
/// by walking the trie. The matches are the same; the memory reads at different positions no
/// longer wait on each other.
///
/// It matches exactly the scalars it is given: normalization is ``Normalizer``'s job, word
/// boundaries and allow-lists are ``Matcher``'s. `AhoCorasick` is immutable and `Sendable`;
/// build it once and share it between threads.
@_spi(Tools) public final class AhoCorasick: Sendable {
  let layout: AutomatonLayout
  /// Length of each pattern in scalars.
  let patternLengths: [UInt32]
  /// Length of each pattern in UTF-8 bytes.
  let patternByteLengths: [UInt32]
  /// The alphabet code of each BMP scalar: a flat table of 0x10000 codes, or, when
  /// ``hashedCodes``, an open-addressing hash table (linear probing, at most three quarters
  /// full) of `scalar << 16 | code`, a free slot being all ones (an app's list of a few hundred
  /// words then takes a few KiB instead of 256 KiB, however its scalars spread over the CJK
  /// block).
  let bmpCodes: [UInt32]
  /// Whether ``bmpCodes`` is hashed.
  let hashedCodes: Bool
  let supplementaryCodes: [UInt32: UInt32]
  /// For scans of UTF-8 bytes: where a pattern may start (see ``StartFilter``). Nil unless
  /// built with ``StartFilters/bytes``, and when a pattern contains U+FFFD, which an invalid
  /// byte also decodes to; scans then step the automaton.
  let startFilter: StartFilter?
  /// For walks over scalars: where a pattern may start (see ``ScalarStartFilter``). Nil unless
  /// built with ``StartFilters/scalars``; walks then step the automaton.
  let scalarFilter: ScalarStartFilter?
  /// For walks over scalars that are all ASCII: where a pattern may start, and which (see
  /// ``ASCIIWalkFilter``). Built with ``StartFilters/scalarsAndASCII`` when some pattern is all
  /// ASCII, or added (``init(_:asciiFilter:)``).
  let asciiFilter: ASCIIWalkFilter?

  /// Which start filter an automaton builds: the one for the scans its users run.
  enum StartFilters {
    case none
    /// For scans of raw UTF-8 bytes (`winnow match`, the public API).
    case bytes
    /// For walks over normalized scalars (a ``Matcher``'s layers).
    case scalars
    /// ``scalars``, and the ``ASCIIWalkFilter`` for texts of ASCII scalars.
    case scalarsAndASCII
  }

  /// Builds an automaton for string patterns (the index of a pattern is its ``PatternID``).
  /// - Throws: ``AhoCorasickError`` when a pattern is empty.
  public convenience init(patterns: [String]) throws(AhoCorasickError) {
    try self.init(scalarPatterns: patterns.map { $0.unicodeScalars.map(\.value) }, filters: .bytes)
  }

  /// Builds an automaton for patterns given as scalar values, and the start filter `filters`
  /// names.
  /// `hashedCodes` keeps the BMP codes in a hash table (see ``bmpCodes``): for small pattern
  /// sets, which would otherwise hold a 256 KiB table each; each scalar then costs a hash.
  init(scalarPatterns patterns: [[UInt32]], filters: StartFilters = .none, hashedCodes: Bool = false)
    throws(AhoCorasickError)
  {
    if let empty = patterns.firstIndex(where: \.isEmpty) { throw AhoCorasickError(emptyPattern: empty) }
    // Counted in a flat table for the BMP (a dictionary lookup per scalar was a tenth of a build).
    var bmpFrequency = [Int32](repeating: 0, count: 0x10000)
    var otherFrequency: [UInt32: Int32] = [:]
    for pattern in patterns {
      for scalar in pattern {
        if scalar < 0x10000 { bmpFrequency[Int(scalar)] += 1 } else { otherFrequency[scalar, default: 0] += 1 }
      }
    }
    var frequency = otherFrequency.map { (key: $0.key, value: $0.value) }
    for (scalar, count) in bmpFrequency.enumerated() where count > 0 { frequency.append((UInt32(scalar), count)) }
    let alphabet = frequency.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map(\.key)
    var bmpCodes = [UInt32](repeating: 0, count: 0x10000)
    var supplementaryCodes: [UInt32: UInt32] = [:]
    for (index, scalar) in alphabet.enumerated() {
      if scalar < 0x10000 {
        bmpCodes[Int(scalar)] = UInt32(index + 1)
      } else {
        supplementaryCodes[scalar] = UInt32(index + 1)
      }
    }
    let coded = patterns.map { pattern in
      pattern.map { $0 < 0x10000 ? bmpCodes[Int($0)] : supplementaryCodes[$0]! }
    }
    self.layout = AutomatonLayout(codedPatterns: coded, alphabetSize: alphabet.count + 1)
    self.patternLengths = patterns.map { UInt32($0.count) }
    self.patternByteLengths = patterns.map { pattern in
      pattern.reduce(UInt32(0)) { total, scalar in
        total + (scalar < 0x80 ? 1 : scalar < 0x800 ? 2 : scalar < 0x10000 ? 3 : 4)
      }
    }
    // Hashed codes hold a scalar and its code in 16 bits each, with U+FFFF marking a free slot.
    let hashable = hashedCodes && alphabet.count < 0xFFFF && bmpCodes[0xFFFF] == 0
    self.bmpCodes = hashable ? Self.hashed(bmpCodes) : bmpCodes
    self.hashedCodes = hashable
    self.supplementaryCodes = supplementaryCodes
    self.scalarFilter =
      filters == .scalars || filters == .scalarsAndASCII ? ScalarStartFilter(patterns: patterns) : nil
    self.asciiFilter = filters == .scalarsAndASCII ? ASCIIWalkFilter(patterns: patterns) : nil
    let readsInvalidBytes = bmpCodes[0xFFFD] != 0
    self.startFilter =
      filters == .bytes && !readsInvalidBytes
      ? StartFilter(
        patterns: patterns.map { pattern in
          var bytes: [UInt8] = []
          for scalar in pattern { UTF8Decoding.append(scalar, to: &bytes) }
          return bytes
        }) : nil
  }

  /// An automaton from the parts ``init(scalarPatterns:filters:)`` computes, as read back from
  /// a compiled matcher (see `Matcher+Compiled.swift`).
  init(
    layout: AutomatonLayout, patternLengths: [UInt32], patternByteLengths: [UInt32], bmpCodes: [UInt32],
    supplementaryCodes: [UInt32: UInt32], startFilter: StartFilter?, scalarFilter: ScalarStartFilter?,
    asciiFilter: ASCIIWalkFilter?, hashedCodes: Bool = false
  ) {
    self.layout = layout
    self.patternLengths = patternLengths
    self.patternByteLengths = patternByteLengths
    self.bmpCodes = bmpCodes
    self.hashedCodes = hashedCodes
    self.supplementaryCodes = supplementaryCodes
    self.startFilter = startFilter
    self.scalarFilter = scalarFilter
    self.asciiFilter = asciiFilter
  }

  /// `automaton` with `asciiFilter` (built from its patterns) in place of its own.
  convenience init(_ automaton: AhoCorasick, asciiFilter: ASCIIWalkFilter?) {
    self.init(
      layout: automaton.layout, patternLengths: automaton.patternLengths,
      patternByteLengths: automaton.patternByteLengths, bmpCodes: automaton.bmpCodes,
      supplementaryCodes: automaton.supplementaryCodes, startFilter: automaton.startFilter,
      scalarFilter: automaton.scalarFilter, asciiFilter: asciiFilter, hashedCodes: automaton.hashedCodes)
  }

  /// The number of patterns.
  public var patternCount: Int { patternLengths.count }
  /// The number of automaton states.
  public var stateCount: Int { layout.stateCount }
  /// Bytes of memory the automaton holds.
  public var memoryFootprint: Int {
    layout.memoryFootprint + patternLengths.capacity * 8 + bmpCodes.capacity * 4 + supplementaryCodes.count * 16
      + (startFilter?.memoryFootprint ?? 0) + (scalarFilter?.memoryFootprint ?? 0) + (asciiFilter?.memoryFootprint ?? 0)
  }

  /// The alphabet code of a scalar (0 for a scalar no pattern contains), read from the BMP
  /// table (`bmpCodes`, borrowed for the whole scan) without a bounds check: a BMP scalar is
  /// < 0x10000 and a flat table has 0x10000 entries; a hashed one is probed within its size.
  @inline(__always)
  private func code(of scalar: UInt32, in bmpCodes: UnsafeBufferPointer<UInt32>) -> UInt32 {
    guard scalar < 0x10000 else { return supplementaryCodes[scalar] ?? 0 }
    guard hashedCodes else { return bmpCodes[Int(scalar)] }
    var slot = Self.hashSlot(scalar, slots: bmpCodes.count)
    while true {
      let value = bmpCodes[slot]
      if value >> 16 == scalar { return value == Self.freeSlot ? 0 : value & 0xFFFF }
      if value == Self.freeSlot { return 0 }
      slot = slot &+ 1 == bmpCodes.count ? 0 : slot &+ 1
    }
  }

  /// A free slot of a hashed table (scalar U+FFFF, which no hashed table holds).
  static let freeSlot: UInt32 = 0xFFFF_FFFF

  /// The first slot probed for a scalar: a multiplicative hash mapped onto `slots`.
  @inline(__always)
  static func hashSlot(_ scalar: UInt32, slots: Int) -> Int {
    Int((UInt64(scalar &* 0x9E37_79B1) &* UInt64(slots)) >> 32)
  }

  /// A flat table of BMP codes as a hash table (see ``bmpCodes``).
  static func hashed(_ flat: [UInt32]) -> [UInt32] {
    let used = flat.indices.filter { flat[$0] != 0 }
    let slots = max(8, used.count + used.count / 3 + 1)
    var table = [UInt32](repeating: freeSlot, count: slots)
    for scalar in used {
      var slot = hashSlot(UInt32(scalar), slots: slots)
      while table[slot] != freeSlot { slot = slot + 1 == slots ? 0 : slot + 1 }
      table[slot] = UInt32(scalar) << 16 | flat[scalar]
    }
    return table
  }

  /// Calls `body` with every scalar some pattern holds (the automaton's alphabet).
  func forEachAlphabetScalar(_ body: (UInt32) -> Void) {
    if hashedCodes {
      for value in bmpCodes where value != Self.freeSlot { body(value >> 16) }
    } else {
      for scalar in bmpCodes.indices where bmpCodes[scalar] != 0 { body(UInt32(truncatingIfNeeded: scalar)) }
    }
    for scalar in supplementaryCodes.keys { body(scalar) }
  }

  /// Whether some pattern is `scalar` alone, once or repeated.
  func hasPattern(madeOnlyOf scalar: UInt32) -> Bool {
    let longest = patternLengths.max() ?? 0
    return layout.program.withUnsafeBufferPointer { program in
      bmpCodes.withUnsafeBufferPointer { bmpCodes in
        let code = code(of: scalar, in: bmpCodes)
        guard code != 0 else { return false }
        var state: UInt32 = 0
        var found = false
        for _ in 0..<longest where !found {
          state = AutomatonLayout.child(program, state, code)
          if state == 0 { return false }
          layout.forEachOwnPattern(program, at: state) { _ in found = true }
        }
        return found
      }
    }
  }

  /// The BMP codes as a flat table of 0x10000 (as compiled files hold them).
  var flatBMPCodes: [UInt32] {
    guard hashedCodes else { return bmpCodes }
    var flat = [UInt32](repeating: 0, count: 0x10000)
    for value in bmpCodes where value != Self.freeSlot { flat[Int(value >> 16)] = value & 0xFFFF }
    return flat
  }

  /// Calls `body(pattern, end)` for every occurrence of every pattern in `scalars`, in order of
  /// `end` (an exclusive index; the match starts at `end - patternLengths[pattern]`).
  func forEachMatch(in scalars: UnsafeBufferPointer<UInt32>, _ body: (Int, Int) -> Void) {
    layout.program.withUnsafeBufferPointer { program in
      bmpCodes.withUnsafeBufferPointer { bmpCodes in
        var state: UInt32 = 0
        for index in 0..<scalars.count {
          state = AutomatonLayout.next(program, state, code(of: scalars[index], in: bmpCodes))
          if program[Int(state) + AutomatonLayout.slotOffset] != 0 {
            layout.forEachPattern(program, at: state) { body($0, index + 1) }
          }
        }
      }
    }
  }

  /// Calls `body(pattern, end)` for every occurrence of every pattern in `scalars` (`end` is
  /// exclusive), in order of start: the trie is walked from each position the
  /// ``ScalarStartFilter`` lets through. The same matches as ``forEachMatch(in:_:)``, found
  /// faster where matches are rare; without the filter, they are that, in order of end.
  ///
  /// With `skippingInsideWords`, matches that start inside a word of ASCII letters and digits
  /// (the scalar before the start and the first one both such) may be left out: for a caller
  /// that would reject them (see ``ScalarStartFilter/forEachCandidate(in:skippingInsideWords:_:)``).
  func forEachMatchByStart(
    in scalars: UnsafeBufferPointer<UInt32>, skippingInsideWords: Bool = false, _ body: (Int, Int) -> Void
  ) {
    guard let scalarFilter else { return forEachMatch(in: scalars, body) }
    layout.program.withUnsafeBufferPointer { program in
      bmpCodes.withUnsafeBufferPointer { bmpCodes in
        scalarFilter.forEachCandidate(in: scalars, skippingInsideWords: skippingInsideWords) { start in
          var state: UInt32 = 0
          for index in start..<scalars.count {
            state = AutomatonLayout.child(program, state, code(of: scalars[index], in: bmpCodes))
            if state == 0 { return }
            layout.forEachOwnPattern(program, at: state) { body($0, index + 1) }
          }
        }
      }
    }
  }

  /// The matches ``forEachMatchByStart(in:skippingInsideWords:_:)`` finds (none left out) in
  /// `scalars`, all ASCII, by the ``ASCIIWalkFilter`` (which the automaton must have): `bytes`
  /// are the scalars written by ``ASCIIWalkFilter/narrow(_:into:)``. With `skippingInsideWords`,
  /// matches that start inside a word of ASCII letters and digits may be left out, as
  /// ``forEachMatchByStart(in:skippingInsideWords:_:)`` leaves them. The filter's short
  /// patterns that need a repeated letter (see ``ShortRepeats``) are left out unless a walk of
  /// the trie finds them: the caller looks them up with
  /// ``forEachShortRepeat(padded:infos:_:)``. Not inlined: inlined beside the other walk, it
  /// made the caller's check of a match a function called per match.
  @inline(never)
  func forEachASCIIMatchByStart(
    in scalars: UnsafeBufferPointer<UInt32>, padded bytes: UnsafeBufferPointer<UInt8>,
    skippingInsideWords: Bool = false, _ body: (Int, Int) -> Void
  ) {
    guard asciiFilter != nil else { return }
    // Read as a guaranteed reference: bound with `guard let`, the filter was retained and
    // released on every text. SAFETY: the automaton holds its filter for as long as it lives.
    Unmanaged.passUnretained(asciiFilter.unsafelyUnwrapped)._withUnsafeGuaranteedRef { filter in
      layout.program.withUnsafeBufferPointer { program in
        bmpCodes.withUnsafeBufferPointer { bmpCodes in
          filter.forEachMatch(inPadded: bytes, skippingInsideWords: skippingInsideWords) { start in
            var state: UInt32 = 0
            for index in start..<scalars.count {
              state = AutomatonLayout.child(program, state, code(of: scalars[index], in: bmpCodes))
              if state == 0 { return }
              layout.forEachOwnPattern(program, at: state) { body($0, index + 1) }
            }
          } _: { pattern, end in
            body(pattern, end)
          }
        }
      }
    }
  }

  /// Calls `body(pattern, end)` for every occurrence in `bytes` (as for
  /// ``forEachASCIIMatchByStart(in:padded:skippingInsideWords:_:)``) of the ``ASCIIWalkFilter``'s
  /// short patterns that need a repeated letter (see ``ShortRepeats``) whose first such letter
  /// is at a unit that `infos` says stands for two letters or more (`run`): a pattern found at
  /// no such unit needs a repeat the text lacks. Some may have been reported by a walk of the
  /// trie already. Not inlined, as the walk is not.
  @inline(never)
  func forEachShortRepeat(
    padded bytes: UnsafeBufferPointer<UInt8>, infos: UnsafeBufferPointer<NormalizedText.UnitInfo>,
    _ body: (Int, Int) -> Void
  ) {
    guard asciiFilter != nil else { return }
    // SAFETY: as in the walk, the automaton holds its filter for as long as it lives.
    Unmanaged.passUnretained(asciiFilter.unsafelyUnwrapped)._withUnsafeGuaranteedRef { filter in
      filter.shortRepeats?.forEachMatch(inPadded: bytes, infos: infos, body)
    }
  }

  /// ``forEachASCIIMatchByStart(in:padded:skippingInsideWords:_:)`` when the automaton has an
  /// ``ASCIIWalkFilter`` and `scalars` are all ASCII; false, having reported nothing,
  /// otherwise. For tests.
  func forEachASCIIMatchByStart(
    in scalars: UnsafeBufferPointer<UInt32>, skippingInsideWords: Bool = false, _ body: (Int, Int) -> Void
  ) -> Bool {
    guard asciiFilter != nil else { return false }
    return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: scalars.count + StartFilter.padding) { padded in
      guard ASCIIWalkFilter.narrow(scalars, into: padded) else { return false }
      forEachASCIIMatchByStart(
        in: scalars, padded: UnsafeBufferPointer(rebasing: padded[..<scalars.count]),
        skippingInsideWords: skippingInsideWords, body)
      return true
    }
  }

  /// Calls `body(pattern, startByte, endByte)` for every occurrence of every pattern in UTF-8
  /// `bytes` (invalid bytes match nothing), in order of start: each position the
  /// ``StartFilter`` lets through is looked up in its exact tables, or the trie is walked from
  /// it where a table holds too many patterns. The same matches as ``forEachMatch(inUTF8:_:)``
  /// (bytes equal to a pattern's UTF-8 from a lead byte on decode to its scalars), found faster
  /// where matches are rare; without the filter, they are that, in order of end.
  func forEachMatchByStart(inUTF8 bytes: UnsafeBufferPointer<UInt8>, _ body: (Int, Int, Int) -> Void) {
    guard let startFilter else {
      return forEachMatch(inUTF8: bytes) { pattern, end, _ in body(pattern, end - Int(patternByteLengths[pattern]), end)
      }
    }
    layout.program.withUnsafeBufferPointer { program in
      bmpCodes.withUnsafeBufferPointer { bmpCodes in
        // Every pattern read from `start` on: one child step per scalar, no failure links.
        func walk(from start: Int) {
          var state: UInt32 = 0
          var index = start
          while index < bytes.count {
            let (value, length) = UTF8Decoding.decode(bytes, at: index)
            index += length
            state = AutomatonLayout.child(program, state, code(of: value, in: bmpCodes))
            if state == 0 { return }
            layout.forEachOwnPattern(program, at: state) { body($0, start, index) }
          }
        }
        startFilter.forEachMatch(in: bytes, walk: walk, body)
      }
    }
  }

  /// Calls `body(pattern, endByte, endScalar)` for every occurrence of every pattern in UTF-8
  /// `bytes` (invalid bytes match nothing), in order of end. Ends are exclusive.
  func forEachMatch(inUTF8 bytes: UnsafeBufferPointer<UInt8>, _ body: (Int, Int, Int) -> Void) {
    layout.program.withUnsafeBufferPointer { program in
      bmpCodes.withUnsafeBufferPointer { bmpCodes in
        var state: UInt32 = 0
        var index = 0
        var scalarIndex = 0
        while index < bytes.count {
          let (value, length) = UTF8Decoding.decode(bytes, at: index)
          index += length
          scalarIndex += 1
          state = AutomatonLayout.next(program, state, code(of: value, in: bmpCodes))
          if program[Int(state) + AutomatonLayout.slotOffset] != 0 {
            layout.forEachPattern(program, at: state) { body($0, index, scalarIndex) }
          }
        }
      }
    }
  }
}

/// The error thrown when an automaton cannot be built.
@_spi(Tools) public struct AhoCorasickError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The index of the empty pattern.
  public let emptyPattern: Int
  /// The error as one line: which pattern is empty.
  public var description: String { "pattern \(emptyPattern) is empty; every pattern needs at least one character" }
}
