import CWinnowFilter
import Foundation

/// A filter that rules out most byte positions of a UTF-8 text as the start of a match, so
/// that a scan of raw bytes looks for patterns only where one may begin. Internal to
/// ``AhoCorasick``.
///
/// It has two stages. The *prefix table* has a 64-bit word per hashed first four bytes of the
/// patterns, with bit `b & 63` set for each fifth byte `b` that follows them (all bits for a
/// pattern of exactly four bytes): one read and a shift per position. Patterns of 2 or 3 bytes
/// (`ass`, `cu`, `屌`) pass by the *gate*, a table of 1,024 words of the same kind: the hashed
/// first two bytes pick the word, the third byte's bit must be set (all bits for a pattern of
/// two bytes). Patterns of one byte (`x`) pass by a bitmap of 256 bits, exactly: in the gate,
/// each set the words of all 256 two-byte starts, and a few such patterns let most positions
/// through (`Benchmarks/HISTORY.md`). The prefix table has four words a prefix (see
/// ``PrefixTable``). On the comparison corpora (`Benchmarks/compare`, 79,016 patterns) about
/// one lead byte in nine passes the first stage on the synthetic one, one in twenty on real
/// text; with AVX2 the stage's hashing runs in C, four or eight positions per instruction
/// (``FirstStage``). An exact table of two-byte starts passed one in seven: a CJK character's first two bytes are
/// shared by 64 characters, so the gate of `屌` (E5 B1 8C) let every `山`, `层` and `展`
/// through, and that of `ass` every `as`, and a raw scan was slower. Then each pattern is keyed
/// by a window of its first bytes: the longest of 1, 2, 3, 4, 6 or 8 bytes that it fills
/// (`fuck` by its 4 bytes, `傻逼` by 6, `sensitive` by its first 8). Each window length has a
/// ``BlockedBloom`` filter, about 32 bits per key. A position that passed the first stage is
/// tested against the 4-, 6- and 8-byte keys, and against the 1- to 3-byte keys only when it
/// passes the gate (read again there: carrying the first stage's answers over in a mask was
/// slower). About 1 lead byte in 55 passes both stages; there the windows that passed are
/// looked up exactly (``WindowPatterns``), where the trie used to be walked from the root. The
/// tests at different positions do not depend on each other, so the processor overlaps their
/// memory reads, where an automaton's next state waits for the one before. The windows alone,
/// three hashed reads at every lead byte, made a raw scan much slower.
///
/// A pattern that matches at a position fills its prefix and its window there, so its bits are
/// set: the filter never loses a match. One bit per key at 64 bits per key let 1 in 20 through
/// the windows, and larger bitmaps cost more in cache misses than they saved.
///
/// This is the idea behind Hyperscan's FDR and the prefilters of other literal matchers, reduced
/// to a prefix table and Bloom filters over fixed windows; the layout and sizes are ours.
struct StartFilter: Sendable {
  /// The window lengths in bytes, shortest first.
  static let windowLengths = [1, 2, 3, 4, 6, 8]

  /// One window length's bitmap: the key is the first `length` bytes, read little-endian.
  struct Window: Sendable {
    var mask: UInt64
    /// `64 - log2(bits)`: the hash's top bits index the bitmap.
    var shift: UInt64
    /// Where the bitmap starts in `words`.
    var offset: Int
  }

  /// All bitmaps, one after another.
  let words: [UInt64]
  // The windows by length; an empty one has a bitmap of zeros.
  let w1, w2, w3, w4, w6, w8: Window
  let hasShort: Bool
  let gateOffset: Int
  /// Whether a pattern is one byte long; where its four words of ``words`` start, one bit per
  /// byte value.
  let hasSingles: Bool
  let singlesOffset: Int
  /// The prefix table (see ``PrefixTable``): where its words start in `words`, and the shift
  /// that takes a hashed 4-byte prefix to a word index.
  let prefixOffset: Int
  let prefixShift: UInt64
  /// The patterns by their window, exactly: what a position that passes is looked up in.
  let patterns: WindowPatterns
  /// Whether no pattern starts with a space (0x20): then a space is not tested at all, as a
  /// continuation byte is not. Most texts have a space every few bytes, and the prefix table
  /// would reject it only after reading its word (but for a collision of hashes).
  let skipsSpaces: Bool

  /// Builds the filter for patterns given as UTF-8 bytes (none empty).
  init(patterns: [[UInt8]]) {
    // Per window length, the patterns by their key: each pattern keyed by the longest window
    // it fills. The Bloom filters hold the keys, the exact tables the patterns.
    var groups = [[UInt64: [Int]]](repeating: [:], count: Self.windowLengths.count)
    for (index, pattern) in patterns.enumerated() {
      let slot = Self.windowLengths.lastIndex { $0 <= pattern.count }!
      groups[slot][Self.key(pattern, length: Self.windowLengths[slot]), default: []].append(index)
    }
    self.patterns = WindowPatterns(patterns: patterns, groups: groups)
    var words: [UInt64] = []
    var all: [Window] = []
    for (slot, length) in Self.windowLengths.enumerated() {
      let bits = BlockedBloom.bits(forKeys: groups[slot].count)
      let window = Window(
        mask: length == 8 ? .max : (1 << UInt64(8 * length)) - 1, shift: 64 - bits, offset: words.count)
      words += [UInt64](repeating: 0, count: 1 << Int(bits - 6))
      for key in groups[slot].keys {
        BlockedBloom.insert(Self.hash(key, window), shift: window.shift, offset: window.offset, into: &words)
      }
      all.append(window)
    }
    // The gate: per hashed two-byte start of a pattern of 2 or 3 bytes, the third byte's bit
    // (all bits when the pattern ends within two bytes).
    gateOffset = words.count
    words += [UInt64](repeating: 0, count: Self.gateWords)
    for pattern in patterns where (2...3).contains(pattern.count) {
      let word = gateOffset + Self.gateIndex(UInt64(pattern[0]) | UInt64(pattern[1]) << 8)
      words[word] |= pattern.count == 3 ? 1 << UInt64(pattern[2] & 63) : .max
    }
    // One-byte patterns (`x`) exactly, one bit per byte value: in the gate, each would set the
    // words of all 256 two-byte starts.
    singlesOffset = words.count
    words += [UInt64](repeating: 0, count: 4)
    for pattern in patterns where pattern.count == 1 {
      words[singlesOffset + Int(pattern[0] >> 6)] |= 1 << UInt64(pattern[0] & 63)
    }
    hasSingles = patterns.contains { $0.count == 1 }
    // The prefix table (see ``PrefixTable``): the first four bytes, then the fifth.
    var prefixes: [UInt64: UInt64] = [:]
    for pattern in patterns where pattern.count >= 4 {
      PrefixTable.insert(
        Self.key(pattern, length: 4) &* BlockedBloom.multiplier,
        followedBy: pattern.count > 4 ? UInt64(pattern[4]) : nil, into: &prefixes)
    }
    // Four words a prefix (see ``PrefixTable``): on real text, a quarter of the words taken
    // let fewer lead bytes through to the second stage than two thirds did.
    (prefixOffset, prefixShift) = PrefixTable.append(prefixes, to: &words, minimumWords: 4 * prefixes.count)
    self.words = words
    (w1, w2, w3, w4, w6, w8) = (all[0], all[1], all[2], all[3], all[4], all[5])
    hasShort = !(groups[0].isEmpty && groups[1].isEmpty && groups[2].isEmpty)
    skipsSpaces = !patterns.contains { $0.first == 0x20 }
  }

  /// Bytes of memory the filter holds.
  var memoryFootprint: Int { words.capacity * 8 + patterns.memoryFootprint }

  /// The window length at `index` of ``windowLengths``.
  @inline(__always)
  static func windowLength(_ index: Int) -> Int { index < 4 ? index &+ 1 : 2 &* index &- 2 }

  /// The first `length` bytes of `bytes`, little-endian: a window's key.
  static func key(_ bytes: [UInt8], length: Int) -> UInt64 {
    var key: UInt64 = 0
    for index in 0..<length { key |= UInt64(bytes[index]) << UInt64(8 * index) }
    return key
  }

  /// The hashed product of `window`'s key of `bytes` (see ``BlockedBloom``).
  @inline(__always)
  private static func hash(_ bytes: UInt64, _ window: Window) -> UInt64 {
    (bytes & window.mask) &* BlockedBloom.multiplier
  }

  /// Both bits of `window`'s key of `bytes`, in bit 0.
  @inline(__always)
  private static func test(_ bytes: UInt64, _ window: Window, _ words: UnsafeBufferPointer<UInt64>) -> UInt64 {
    BlockedBloom.test(hash(bytes, window), shift: window.shift, offset: window.offset, words)
  }

  /// Whether a pattern may start at a position whose next 8 bytes (zeros past the end) are
  /// `value`, by the windows. Zeros can only add false passes, which the walk rejects: a
  /// pattern that fits before the end has its window there.
  @inline(__always)
  private func passes(_ value: UInt64, _ words: UnsafeBufferPointer<UInt64>) -> UInt64 {
    var passed =
      (Self.test(value, w8, words) & 1) &<< 5 | (Self.test(value, w6, words) & 1) &<< 4
      | (Self.test(value, w4, words) & 1) &<< 3
    if hasShort && (gate(value, words) | single(value, words)) & 1 != 0 {
      passed |=
        (Self.test(value, w3, words) & 1) &<< 2 | (Self.test(value, w2, words) & 1) &<< 1
        | Self.test(value, w1, words) & 1
    }
    return passed
  }

  /// Words in the gate's table.
  static let gateWords = 1024

  /// The gate's word for a two-byte start (in the low 16 bits of `pair`).
  @inline(__always)
  private static func gateIndex(_ pair: UInt64) -> Int {
    Int(truncatingIfNeeded: ((pair & 0xFFFF) &* BlockedBloom.multiplier) &>> 54)
  }

  /// Bit 0: whether the first three bytes of `value` may start a pattern of 1 to 3 bytes (the
  /// gate: the hashed first two bytes, then the third).
  @inline(__always)
  private func gate(_ value: UInt64, _ words: UnsafeBufferPointer<UInt64>) -> UInt64 {
    words[gateOffset &+ Self.gateIndex(value)] &>> (value &>> 16 & 63)
  }

  /// Bit 0: whether the first byte of `value` is a one-byte pattern.
  @inline(__always)
  private func single(_ value: UInt64, _ words: UnsafeBufferPointer<UInt64>) -> UInt64 {
    words[singlesOffset &+ Int(truncatingIfNeeded: value &>> 6 & 3)] &>> (value & 63)
  }

  /// Bit 0: whether a pattern may start where the next 8 bytes are `value`, by the prefix
  /// table (first four bytes, then the fifth) or the gate: one read where the windows take
  /// three, and it lets through about one lead byte in nine.
  @inline(__always)
  private func passesPrefix(_ value: UInt64, _ words: UnsafeBufferPointer<UInt64>) -> UInt64 {
    let passed = PrefixTable.test(
      (value & 0xFFFF_FFFF) &* BlockedBloom.multiplier, followedBy: value &>> 32, offset: prefixOffset,
      shift: prefixShift, words)
    return hasShort ? passed | gate(value, words) | single(value, words) : passed
  }

  /// One bit per byte of `value` (bit `k` for byte `k`) that is not a UTF-8 continuation byte
  /// (`10xxxxxx`, bit 7 set and bit 6 clear), nor a space when `skippingSpaces`.
  @inline(__always)
  private static func leadBits(_ value: UInt64, skippingSpaces: Bool) -> UInt64 {
    let continuation = value & ~(value &<< 1) & 0x8080_8080_8080_8080
    var tested = ~continuation & 0x8080_8080_8080_8080
    if skippingSpaces {
      // Bit 7 of each byte of `other` is set where that byte of `value` is not 0x20 (no carry
      // crosses a byte: each low seven bits plus 0x7F stay below 0x100).
      let spaced = value ^ 0x2020_2020_2020_2020
      let other = ((spaced & 0x7F7F_7F7F_7F7F_7F7F) &+ 0x7F7F_7F7F_7F7F_7F7F) | spaced
      tested &= other
    }
    return topBits(tested)
  }

  /// Bit `k` set where byte `k` of `tested` has its bit 7 set (its other bits clear): the
  /// multiplication gathers the eight bit 7s into the top byte.
  @inline(__always)
  private static func topBits(_ tested: UInt64) -> UInt64 {
    ((tested &>> 7) &* 0x0102_0408_1020_4080) &>> 56
  }

  /// Calls `body(pattern, start, end)` for every occurrence of every pattern in `bytes`, in
  /// order of start: each position that passes the filter is looked up in the windows' exact
  /// tables (see ``WindowPatterns``), or handed to `walk` when a table says so (`walk` then
  /// reports every pattern that starts there).
  @inline(__always)
  func forEachMatch(
    in bytes: UnsafeBufferPointer<UInt8>, walk: (Int) -> Void, _ body: (Int, Int, Int) -> Void
  ) {
    forEachCandidate(in: bytes) { start, value, windows in
      if !patterns.report(at: start, value: value, windows: windows, in: bytes, body) { walk(start) }
    }
  }

  /// Bytes past a text that a block of positions reads: eight from each of the last.
  static let padding = 72

  /// ``forEachMatch(in:walk:_:)`` for `bytes` followed in memory by ``padding`` readable zero
  /// bytes: every block is filtered in place, where the other copies the last into a padded
  /// buffer. With `skippingInsideWords`, a position whose byte and the one before it are both
  /// ASCII letters or digits is not tested past the prefix table
  /// (``wordStarts(inBlock:before:)``): the caller rejects a match starting there, as
  /// ``ScalarStartFilter/forEachCandidate(in:skippingInsideWords:_:)`` leaves it out.
  @inline(__always)
  func forEachMatch(
    inPadded bytes: UnsafeBufferPointer<UInt8>, skippingInsideWords: Bool = false, walk: (Int) -> Void,
    _ body: (Int, Int, Int) -> Void
  ) {
    guard let base = bytes.baseAddress else { return }
    let count = bytes.count
    let stage = Self.firstStage
    words.withUnsafeBufferPointer { words in
      withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { windows in
        let windows = windows.baseAddress.unsafelyUnwrapped
        var index = 0
        while index < count {
          let block = UnsafeRawPointer(base + index)
          let kept =
            skippingInsideWords
            ? Self.wordStarts(inBlock: block, before: index > 0 ? base[index &- 1] : 0) : UInt64.max
          let passed = candidatesInline(
            inBlock: block, positions: min(64, count &- index), words, windows, stage: stage, keeping: kept)
          report(passed, in: block, windows) { offset, value, windows in
            let start = index &+ offset
            if !patterns.report(at: start, value: value, windows: windows, in: bytes, body) { walk(start) }
          }
          index &+= 64
        }
      }
    }
  }

  /// Calls `body(position, value, windows)` with every position of `bytes`, in increasing
  /// order, where a pattern may start: each lead byte that passes the prefix table and then
  /// the windows. `value` is the eight bytes there (zeros past the end), `windows` has bit `n`
  /// set when the Bloom filter of `windowLengths[n]` passes.
  ///
  /// The text is taken 64 positions at a time, in two rounds over a bit mask: every lead byte
  /// (found eight at a time) is tested against the prefix table, then those that pass against
  /// the windows, with no branch on either outcome; only then are the passes reported. Testing
  /// every window at every lead byte cost three hashed reads a position, and a branch on each
  /// outcome was mispredicted often enough to stall the reads. The last block, of fewer than 72
  /// bytes, is copied into a buffer padded with zeros, so that every position reads eight bytes.
  @inline(__always)
  private func forEachCandidate(in bytes: UnsafeBufferPointer<UInt8>, _ body: (Int, UInt64, UInt8) -> Void) {
    guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
    let count = bytes.count
    let stage = Self.firstStage
    words.withUnsafeBufferPointer { words in
      withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { windows in
        let windows = windows.baseAddress!
        var index = 0
        // Whole blocks while every position's eight bytes lie inside the text.
        while index &+ 71 < count {
          let block = UnsafeRawPointer(base + index)
          report(candidates(inBlock: block, positions: 64, words, windows, stage: stage), in: block, windows) {
            body(index &+ $0, $1, $2)
          }
          index &+= 64
        }
        // The rest, at most 71 bytes, in a buffer of 136: a block of up to 64 positions and one
        // of up to 7, each readable for 72 bytes. Filtered inline: one message at a time, most
        // of a text is here.
        withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 17) { padded in
          let tail = UnsafeMutableRawBufferPointer(padded)
          tail.initializeMemory(as: UInt8.self, repeating: 0)
          tail.copyMemory(from: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[index...]))
          var offset = 0
          while index &+ offset < count {
            let block = UnsafeRawPointer(tail.baseAddress! + offset)
            let positions = min(64, count &- index &- offset)
            report(
              candidatesInline(inBlock: block, positions: positions, words, windows, stage: stage), in: block,
              windows
            ) {
              body(index &+ offset &+ $0, $1, $2)
            }
            offset &+= 64
          }
        }
      }
    }
  }

  /// Calls `body(offset, value, windows[offset])` for each bit `offset` of `passed`, in
  /// increasing order, where `value` is the eight bytes at `block + offset`.
  @inline(__always)
  private func report(
    _ passed: UInt64, in block: UnsafeRawPointer, _ windows: UnsafeMutablePointer<UInt8>,
    _ body: (Int, UInt64, UInt8) -> Void
  ) {
    var passed = passed
    while passed != 0 {
      let offset = passed.trailingZeroBitCount
      body(offset, UInt64(littleEndian: block.loadUnaligned(fromByteOffset: offset, as: UInt64.self)), windows[offset])
      passed &= passed &- 1
    }
  }

  /// Bit `k` for each candidate among the first `positions` (1 to 64) positions at `block`,
  /// readable for 72 bytes, with its windows in `windows[k]`; the first stage as `stage` says.
  /// Not inlined into the loop over a text's whole blocks: with the reporting code around them,
  /// the filter's loops ran short of registers and reloaded the block's address from the stack
  /// at every lead byte.
  @inline(never)
  private func candidates(
    inBlock block: UnsafeRawPointer, positions: Int, _ words: UnsafeBufferPointer<UInt64>,
    _ windows: UnsafeMutablePointer<UInt8>, stage: FirstStage
  ) -> UInt64 {
    candidatesInline(inBlock: block, positions: positions, words, windows, stage: stage)
  }

  /// ``candidates(inBlock:positions:_:_:stage:)``, inlined; only the positions of `kept`'s
  /// bits go past the prefix table.
  @inline(__always)
  private func candidatesInline(
    inBlock block: UnsafeRawPointer, positions: Int, _ words: UnsafeBufferPointer<UInt64>,
    _ windows: UnsafeMutablePointer<UInt8>, stage: FirstStage, keeping kept: UInt64 = .max
  ) -> UInt64 {
    var prefixed =
      stage == .scalar
      ? prefixPasses(inBlock: block, positions: positions, words)
      : vectorPrefixPasses(inBlock: block, positions: positions, words, stage: stage)
    prefixed &= kept
    if positions < 64 { prefixed &= (1 &<< UInt64(positions)) &- 1 }
    var passed: UInt64 = 0
    while prefixed != 0 {
      let offset = prefixed.trailingZeroBitCount
      prefixed &= prefixed &- 1
      let found = passes(UInt64(littleEndian: block.loadUnaligned(fromByteOffset: offset, as: UInt64.self)), words)
      windows[offset] = UInt8(truncatingIfNeeded: found)
      passed |= (found == 0 ? 0 : 1) &<< UInt64(offset)
    }
    return passed
  }

  /// Bit `k` for each of the 64 bytes at `block` (ASCII, or zeros past a text) that is not inside
  /// a word: not both it and the byte before it (`before` for the first) ASCII letters or
  /// digits. Eight bytes a step, by arithmetic on the word (SWAR): each byte's top bit says
  /// whether it lies in a range (bytes below 0x80, so no subtraction borrows from the next).
  @inline(__always)
  static func wordStarts(inBlock block: UnsafeRawPointer, before: UInt8) -> UInt64 {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let high = ones &* 0x80
    // The top bit of each byte of `word` that lies in `low...top`.
    @inline(__always) func within(_ word: UInt64, _ low: UInt8, _ top: UInt8) -> UInt64 {
      ((word | high) &- ones &* UInt64(low)) & ((ones &* UInt64(top | 0x80)) &- word) & high
    }
    var wordBytes: UInt64 = 0
    var offset = 0
    while offset < 64 {
      let word = UInt64(littleEndian: block.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
      let tested = within(word, 0x30, 0x39) | within(word | ones &* 0x20, 0x61, 0x7A)
      wordBytes |= topBits(tested) &<< UInt64(offset)
      offset &+= 8
    }
    let previous = (within(UInt64(before), 0x30, 0x39) | within(UInt64(before | 0x20), 0x61, 0x7A)) &>> 7
    return ~(wordBytes & (wordBytes &<< 1 | previous))
  }

  /// How the first stage runs: in Swift, one lead byte at a time, or with the help of C
  /// (`CWinnowFilter`), whose vector instructions lay out and hash the eight bytes of four
  /// (AVX2) or eight (AVX-512) positions at once before the table words are read. All give the
  /// same bits (a property test compares them).
  enum FirstStage: Int, Sendable, CaseIterable {
    case scalar, avx2, avx512
  }

  /// The first stage a process uses: the widest this processor and system can run
  /// (``availableStages``), or a narrower one named by `WINNOW_FIRST_STAGE` in the environment
  /// (`scalar` or `avx2`), for comparisons. A name the machine cannot run, or no name, leaves
  /// the widest.
  static let firstStage: FirstStage = {
    let widest = availableStages.last ?? .scalar
    guard let name = getenv("WINNOW_FIRST_STAGE").map({ String(cString: $0) }),
      let named = FirstStage.allCases.first(where: { "\($0)" == name }), named.rawValue <= widest.rawValue
    else { return widest }
    return named
  }()

  /// The first stages this processor and system can run, narrowest first.
  static let availableStages: [FirstStage] = Array(
    FirstStage.allCases.prefix(1 + Int(truncatingIfNeeded: winnow_filter_vector_level())))

  /// The first stage at the first `positions` (1 to 64) positions at `block` (readable for 72
  /// bytes), one lead byte at a time: bit `k` when byte `k` leads a character and the prefix
  /// table or the gate passes the eight bytes there.
  @inline(__always)
  func prefixPasses(
    inBlock block: UnsafeRawPointer, positions: Int, _ words: UnsafeBufferPointer<UInt64>
  ) -> UInt64 {
    @inline(__always) func load(_ offset: Int) -> UInt64 {
      UInt64(littleEndian: block.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }
    var leads: UInt64 = 0
    var lane = 0
    let skippingSpaces = skipsSpaces
    while lane < positions {
      leads |= Self.leadBits(load(lane), skippingSpaces: skippingSpaces) &<< UInt64(lane)
      lane &+= 8
    }
    // The zeros past a text's end are lead bytes too: not tested.
    if positions < 64 { leads &= (1 &<< UInt64(positions)) &- 1 }
    var prefixed: UInt64 = 0
    while leads != 0 {
      let offset = leads.trailingZeroBitCount
      leads &= leads &- 1
      prefixed |= (passesPrefix(load(offset), words) & 1) &<< UInt64(offset)
    }
    return prefixed
  }

  /// ``prefixPasses(inBlock:positions:_:)`` in C with `stage`'s vector instructions, which
  /// this machine must have (``availableStages``).
  @inline(__always)
  func vectorPrefixPasses(
    inBlock block: UnsafeRawPointer, positions: Int, _ words: UnsafeBufferPointer<UInt64>, stage: FirstStage
  ) -> UInt64 {
    guard let base = words.baseAddress else { return 0 }
    let (count, gate) = (Int32(truncatingIfNeeded: positions), hasShort ? base + gateOffset : nil)
    let singles = hasSingles ? base + singlesOffset : nil
    let skip: Int32 = skipsSpaces ? 1 : 0
    return stage == .avx512
      ? winnow_filter_prefix_pass_wide(
        block, count, base + prefixOffset, prefixShift, gate, singles, BlockedBloom.multiplier, skip)
      : winnow_filter_prefix_pass(
        block, count, base + prefixOffset, prefixShift, gate, singles, BlockedBloom.multiplier, skip)
  }

  /// Adds what the filter does with `bytes` to `counts`, stage by stage: the tests of
  /// ``forEachCandidate(in:_:)`` made one position at a time, and the exact tables' answers
  /// (see ``FilterStageCounts``). Slow, and apart from the scan, which counts nothing; for
  /// `winnow match --filter-counts`.
  func countStages(in bytes: UnsafeBufferPointer<UInt8>, into counts: inout FilterStageCounts) {
    // Eight readable bytes at every position, zeros past the end, as the scan reads them.
    let padded = Array(bytes) + [UInt8](repeating: 0, count: 8)
    var added = FilterStageCounts()
    padded.withUnsafeBytes { padded in
      words.withUnsafeBufferPointer { words in
        for position in 0..<bytes.count {
          added.positions += 1
          guard bytes[position] & 0xC0 != 0x80 && !(skipsSpaces && bytes[position] == 0x20) else { continue }
          added.leadBytes += 1
          let value = UInt64(littleEndian: padded.loadUnaligned(fromByteOffset: position, as: UInt64.self))
          guard passesPrefix(value, words) & 1 != 0 else { continue }
          added.passedPrefix += 1
          let windows = passes(value, words)
          guard windows != 0 else { continue }
          added.passedWindows += 1
          added.windowProbes += windows.nonzeroBitCount
          let answered = patterns.report(
            at: position, value: value, windows: UInt8(truncatingIfNeeded: windows), in: bytes
          ) { _, _, _ in added.reported += 1 }
          if !answered { added.walks += 1 }
        }
      }
    }
    counts.add(added)
  }
}

/// What a raw scan's start filter does with a text, stage by stage (`winnow match
/// --filter-counts`): why one corpus scans faster than another.
@_spi(Tools) public struct FilterStageCounts: Sendable, Equatable {
  /// Bytes of text.
  public var positions = 0
  /// Bytes that start a UTF-8 character, spaces left out where no pattern starts with one:
  /// the positions the filter tests.
  public var leadBytes = 0
  /// Lead bytes that pass the prefix table (or the gate of short patterns).
  public var passedPrefix = 0
  /// Those that pass a window's Bloom filter too: the candidates.
  public var passedWindows = 0
  /// Exact-table probes: one per window that passed, at each candidate.
  public var windowProbes = 0
  /// Matches the exact tables reported.
  public var reported = 0
  /// Candidates the exact tables sent to a walk of the trie.
  public var walks = 0

  /// No counts.
  public init() {}

  mutating func add(_ other: FilterStageCounts) {
    positions += other.positions
    leadBytes += other.leadBytes
    passedPrefix += other.passedPrefix
    passedWindows += other.passedWindows
    windowProbes += other.windowProbes
    reported += other.reported
    walks += other.walks
  }
}
