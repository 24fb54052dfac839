/// The ``StartFilter`` of a walk over scalars (normalized text). Its first stage is a prefix
/// table: a 64-bit word per hashed first two scalars of the patterns, with bit `c & 63` set
/// for each third scalar `c` that follows them (for a pattern of two scalars, the end bit its
/// hash picks: see ``PrefixTable``), and an exact bitmap of one-scalar patterns of the BMP
/// (`屌`). Its second stage, at the positions the first lets through, is a second prefix table,
/// of the first three scalars and then the fourth (the end bit for a pattern of three), with a
/// ``BlockedBloom`` filter of the patterns of two scalars and one of the supplementary
/// one-scalar patterns (those of the BMP again exactly, read without hashing). The scalars are
/// hashed directly, with no alphabet lookup; only a position that passes both stages is walked
/// from the root. Keys of two scalars alone would let a third of all positions through
/// (English words share their first two letters with some listed word). The second prefix
/// table took the place of Bloom filters keyed by the first three and four scalars: one read
/// where they took two, for 2–2.5% of a normalized message (`Benchmarks/HISTORY.md`).
/// Internal to ``AhoCorasick``.
struct ScalarStartFilter: Sendable {
  /// Past the last scalar: not a scalar, so no key holds it.
  private static let beyond: UInt32 = 0xFFFF_FFFF

  let words: [UInt64]
  /// Per key length 1 and 2: where its Bloom filter starts in `words`, and its shift. Keys of
  /// length 1 in the BMP are not hashed: `words` starts with an exact bitmap of them, one bit
  /// per scalar (8 KiB), read with no multiplication; the hashed bitmap of length 1 holds only
  /// supplementary scalars.
  let offsets: (Int, Int)
  let shifts: (UInt64, UInt64)
  let hasSingles: Bool
  let hasSupplementarySingles: Bool
  static let bmpSinglesWords = 0x10000 / 64
  /// The prefix table (see ``PrefixTable``) of the first two scalars, then the third: where
  /// its words start in `words`, and the shift that takes a hashed prefix to a word index.
  let prefixOffset: Int
  let prefixShift: UInt64
  /// The second stage's prefix table (see ``PrefixTable``) of the first three scalars, then
  /// the fourth: where its words start in `words`, and its shift.
  let longPrefixOffset: Int
  let longPrefixShift: UInt64
  /// Whether a pattern starts with a space. Without one, a space in the text (what a run of
  /// separators becomes) is not tested where the masks of words are built; elsewhere the prefix
  /// table rejects it (no key starts with a space) but for a collision of hashes.
  let startsWithSpace: Bool

  /// Builds the filter for patterns given as scalar values (none empty).
  init(patterns: [[UInt32]]) {
    var keys = [Set<UInt64>](repeating: [], count: 2)
    var words = [UInt64](repeating: 0, count: Self.bmpSinglesWords)
    var hasSingles = false
    var prefixes: [UInt64: UInt64] = [:]
    var longPrefixes: [UInt64: UInt64] = [:]
    for pattern in patterns {
      if pattern.count >= 2 {
        PrefixTable.insert(
          Self.key(pattern[0], pattern[1], 0, length: 2), followedBy: pattern.count > 2 ? UInt64(pattern[2]) : nil,
          endBitOnly: true, into: &prefixes)
      }
      switch pattern.count {
      case 1:
        hasSingles = true
        if pattern[0] < 0x10000 {
          words[Int(pattern[0] >> 6)] |= 1 << UInt64(pattern[0] & 63)
        } else {
          keys[0].insert(Self.key(pattern[0], 0, 0, length: 1))
        }
      case 2:
        keys[1].insert(Self.key(pattern[0], pattern[1], 0, length: 2))
      default:
        PrefixTable.insert(
          Self.key(pattern[0], pattern[1], pattern[2], length: 3),
          followedBy: pattern.count > 3 ? UInt64(pattern[3]) : nil, endBitOnly: true, into: &longPrefixes)
      }
    }
    var offsets: [Int] = []
    var shifts: [UInt64] = []
    for set in keys {
      let bits = BlockedBloom.bits(forKeys: set.count)
      let (offset, shift) = (words.count, 64 - bits)
      words += [UInt64](repeating: 0, count: 1 << Int(bits - 6))
      for key in set { BlockedBloom.insert(key, shift: shift, offset: offset, into: &words) }
      offsets.append(offset)
      shifts.append(shift)
    }
    // About 1.5 words a prefix: every app's lists have these tables (see ``PrefixTable``).
    (prefixOffset, prefixShift) = PrefixTable.append(
      prefixes, to: &words, minimumWords: prefixes.count + prefixes.count / 2)
    (longPrefixOffset, longPrefixShift) = PrefixTable.append(
      longPrefixes, to: &words, minimumWords: longPrefixes.count + longPrefixes.count / 2)
    self.words = words
    self.offsets = (offsets[0], offsets[1])
    self.shifts = (shifts[0], shifts[1])
    self.hasSingles = hasSingles
    hasSupplementarySingles = !keys[0].isEmpty
    startsWithSpace = patterns.contains { $0[0] == 0x20 }
  }

  /// Bytes of memory the filter holds.
  var memoryFootprint: Int { words.capacity * 8 }

  /// The hashed key of the first `length` of three scalars (21 bits each; the rest ignored).
  @inline(__always)
  private static func key(_ a: UInt32, _ b: UInt32, _ c: UInt32, length: Int) -> UInt64 {
    switch length {
    case 1: return UInt64(a) &* BlockedBloom.multiplier
    case 2: return (UInt64(a) | UInt64(b) << 21) &* BlockedBloom.multiplier
    default: return (UInt64(a) | UInt64(b) << 21 | UInt64(c) << 42) &* BlockedBloom.multiplier
    }
  }

  /// Bit 0: whether a pattern may start at a position whose scalars are `a, b, c, d` (past
  /// the end: ``beyond``), by the second stage: the long prefix table (patterns of three
  /// scalars or more), the two-scalar keys and the one-scalar patterns.
  @inline(__always)
  private func passes(
    _ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: UInt32, _ words: UnsafeBufferPointer<UInt64>
  ) -> UInt64 {
    var passed =
      PrefixTable.testOrEnd(
        Self.key(a, b, c, length: 3), followedBy: UInt64(d), offset: longPrefixOffset, shift: longPrefixShift,
        words)
      | BlockedBloom.test(Self.key(a, b, 0, length: 2), shift: shifts.1, offset: offsets.1, words)
    if hasSingles {
      if a < 0x10000 {
        passed |= words[Int(truncatingIfNeeded: a &>> 6)] &>> UInt64(a & 63)
      } else if hasSupplementarySingles {
        passed |= BlockedBloom.test(Self.key(a, 0, 0, length: 1), shift: shifts.0, offset: offsets.0, words)
      }
    }
    return passed & 1
  }

  /// Bit 0: whether a pattern may start at a position whose scalars are `a, b, c`, by the
  /// prefix table (first two scalars, then the third) or the one-scalar patterns: two reads
  /// where the second stage takes three or four. The bitmap of one-scalar patterns is read
  /// whether or not there are any (it is all zeros then): a test of ``hasSingles`` at every
  /// position cost more.
  /// A supplementary scalar passes here when a one-scalar pattern lies beyond the BMP
  /// (`supplementary` is 1 then, else 0), for the second stage's keys of them to decide; with
  /// one-scalar patterns of the BMP alone, every one passed (each letter of Shavian, each emoji).
  @inline(__always)
  private func passesPrefix(
    _ a: UInt32, _ b: UInt32, _ c: UInt32, supplementary: UInt64, _ words: UnsafeBufferPointer<UInt64>
  ) -> UInt64 {
    let passed = PrefixTable.testOrEnd(
      Self.key(a, b, 0, length: 2), followedBy: UInt64(c), offset: prefixOffset, shift: prefixShift, words)
    let single = a < 0x10000 ? words[Int(truncatingIfNeeded: a &>> 6)] &>> UInt64(a & 63) : supplementary
    return (passed | single) & 1
  }

  /// 1 when `scalar` is an ASCII letter or digit, else 0.
  @inline(__always)
  static func isASCIIWordScalar(_ scalar: UInt32) -> UInt64 {
    let digits: UInt64 = 0x03FF_0000_0000_0000  // 0x30...0x39
    let letters: UInt64 = 0x07FF_FFFE_07FF_FFFE  // 0x41...0x5A, 0x61...0x7A
    let word = scalar < 64 ? digits : scalar < 128 ? letters : 0
    return word &>> UInt64(scalar & 63) & 1
  }

  /// Calls `body` with every position of `scalars`, in increasing order, where a pattern may
  /// start: each position that passes the prefix table and then the keys.
  ///
  /// As ``StartFilter`` does, 64 positions at a time (``candidates(in:from:skippingInsideWords:_:)``),
  /// then the passes are walked.
  ///
  /// With `skippingInsideWords`, a position whose scalar and the one before it are both ASCII
  /// letters or digits is not tested: the caller knows that no pattern it reports starts
  /// inside a word, nor a space when no pattern starts with one. In the sample dump's texts,
  /// mostly English, that leaves one position in four to test.
  @inline(__always)
  func forEachCandidate(
    in scalars: UnsafeBufferPointer<UInt32>, skippingInsideWords: Bool = false, _ body: (Int) -> Void
  ) {
    words.withUnsafeBufferPointer { words in
      var block = 0
      while block < scalars.count {
        var passed = candidates(in: scalars, from: block, skippingInsideWords: skippingInsideWords, words)
        while passed != 0 {
          body(block &+ passed.trailingZeroBitCount)
          passed &= passed &- 1
        }
        block &+= 64
      }
    }
  }

  /// Bit `k`: whether a pattern may start at position `block + k` of `scalars`, for the up to
  /// 64 positions from `block` (below the count). Three rounds over bit masks: which positions
  /// to test (a mask of word scalars and one of spaces, compared with the mask shifted by one
  /// position), each of those against the prefix table, then those that pass against the keys,
  /// with no branch on any outcome.
  ///
  /// Not inlined into the walk: there, with the caller's match checks around it, its values
  /// lived on the stack and every test of a position read them back (about 45 instructions a
  /// position, against about 20 here).
  @inline(never)
  private func candidates(
    in scalars: UnsafeBufferPointer<UInt32>, from block: Int, skippingInsideWords: Bool,
    _ words: UnsafeBufferPointer<UInt64>
  ) -> UInt64 {
    let count = scalars.count
    let end = min(block &+ 64, count)
    let all = UInt64.max &>> UInt64(truncatingIfNeeded: 64 &- (end &- block))
    var testable = all
    // Masks only where they leave few positions: inside words most positions go. A space alone
    // is not worth a mask: it cost more to build (18 instructions a scalar) than the prefix
    // table costs at every position of a window sliding over all of them, and where no pattern
    // starts with a space, the table lets a space through only by a collision of its hash.
    if skippingInsideWords {
      let skipsSpaces = !startsWithSpace
      // From the last position back, each mask shifted up by one: a shift by each position's
      // offset instead was vectorized, at 23 instructions a position.
      var wordScalars: UInt64 = 0
      var spaces: UInt64 = 0
      var index = end
      while index > block {
        index &-= 1
        let value = scalars[index]
        wordScalars = wordScalars &<< 1 | Self.isASCIIWordScalar(value)
        spaces = spaces &<< 1 | (value == 0x20 ? 1 : 0)
      }
      let before = block > 0 ? Self.isASCIIWordScalar(scalars[block &- 1]) : 0
      var excluded = wordScalars & (wordScalars &<< 1 | before)
      if skipsSpaces { excluded |= spaces }
      testable = all & ~excluded
    }
    @inline(__always) func scalar(_ index: Int) -> UInt32 { index < count ? scalars[index] : Self.beyond }
    let supplementary: UInt64 = hasSupplementarySingles ? 1 : 0
    var prefixed: UInt64 = 0
    if testable != all {
      // Few positions left (words of a spaced script): each tested on its own.
      while testable != 0 {
        let offset = testable.trailingZeroBitCount
        testable &= testable &- 1
        let index = block &+ offset
        let bit = passesPrefix(
          scalars[index], scalar(index &+ 1), scalar(index &+ 2), supplementary: supplementary, words)
        prefixed |= bit &<< UInt64(truncatingIfNeeded: offset)
      }
    } else {
      // Every position, from the last one back: a window of three scalars slides along, one
      // read a position, and the mask shifts up by one.
      var (b, c) = (scalar(end), scalar(end &+ 1))
      var index = end
      while index > block {
        index &-= 1
        let a = scalars[index]
        prefixed = prefixed &<< 1 | passesPrefix(a, b, c, supplementary: supplementary, words)
        (b, c) = (a, b)
      }
    }
    var passed: UInt64 = 0
    while prefixed != 0 {
      let offset = prefixed.trailingZeroBitCount
      prefixed &= prefixed &- 1
      let index = block &+ offset
      let (b, c, d) =
        index &+ 4 <= count
        ? (scalars[index &+ 1], scalars[index &+ 2], scalars[index &+ 3])
        : (scalar(index &+ 1), scalar(index &+ 2), scalar(index &+ 3))
      passed |= passes(scalars[index], b, c, d, words) &<< UInt64(truncatingIfNeeded: offset)
    }
    return passed
  }
}
