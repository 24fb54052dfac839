/// The first stage both start filters share: a table of 64-bit words, one per hashed prefix
/// of the patterns (the first four bytes, or the first two scalars), in which bit `n & 63` is
/// set for each unit `n` that follows the prefix in a pattern, and for a pattern that is the
/// prefix itself either every bit (the raw filter's table, tested by one shift) or one bit
/// chosen by the prefix's hash, its *end bit* (the scalar filter's tables, tested by two shifts
/// of the same word, ``testOrEnd(_:followedBy:offset:shift:_:)``). Prefixes that hash to the
/// same word share it: a word of every bit lets through every position whose prefix hashes to
/// it, and a list of Chinese words, many of them two characters long, filled many words of the
/// scalar filter's first table so. The table is a power of two between 2^6 and 2^16 words
/// (more cost more in cache misses than they saved in passes), of at least as many words as
/// its filter asks for: about 1.5 a prefix for the scalar filter, whose tables every app's
/// lists have, and 4 for the raw filter, whose first stage tests every position with gathers
/// and sends every word shared by another prefix's bits on to the slower second stage.
enum PrefixTable {
  private static let minimumBits: UInt64 = 6
  private static let maximumBits: UInt64 = 16

  /// Adds to `prefixes` (bits by hashed prefix) a pattern's prefix `hashed`, followed by
  /// `next`, or by nothing when the pattern is the prefix: then every bit, or with
  /// `endBitOnly` the prefix's end bit alone (a table read by
  /// ``testOrEnd(_:followedBy:offset:shift:_:)``).
  static func insert(
    _ hashed: UInt64, followedBy next: UInt64?, endBitOnly: Bool = false, into prefixes: inout [UInt64: UInt64]
  ) {
    let end: UInt64 = endBitOnly ? 1 << endBit(hashed) : .max
    prefixes[hashed, default: 0] |= next.map { 1 << ($0 & 63) } ?? end
  }

  /// The end bit of prefix `hashed`: the hash's low six bits, where the top bits pick the
  /// word (a variable shift takes only the low six bits of its count, so the test shifts the
  /// word by the hash itself). Taken from below the word's bits instead, it cost two more
  /// instructions a position and passed as many.
  @inline(__always)
  static func endBit(_ hashed: UInt64) -> UInt64 {
    hashed & 63
  }

  /// Appends the table of `prefixes` to `words`, of at least `minimumWords` words within the
  /// bounds; returns where it starts and the shift that takes a hashed prefix to its word.
  static func append(
    _ prefixes: [UInt64: UInt64], to words: inout [UInt64], minimumWords: Int
  ) -> (offset: Int, shift: UInt64) {
    var bits = minimumBits
    while bits < maximumBits && 1 << bits < minimumWords { bits += 1 }
    let (offset, shift) = (words.count, 64 - bits)
    words += [UInt64](repeating: 0, count: 1 << Int(bits))
    for (hashed, following) in prefixes { words[offset + Int(hashed >> shift)] |= following }
    return (offset, shift)
  }

  /// Whether a table read back lies inside `count` words and has a size
  /// ``append(_:to:minimumWords:)`` can give.
  static func fits(offset: Int, shift: UInt64, inWords count: Int) -> Bool {
    shift >= 64 - maximumBits && shift <= 64 - minimumBits && offset >= 0
      && offset + 1 << (64 - Int(shift)) <= count
  }

  /// Bit 0: whether prefix `hashed` may be followed by `next` (only its low six bits count).
  @inline(__always)
  static func test(
    _ hashed: UInt64, followedBy next: UInt64, offset: Int, shift: UInt64, _ words: UnsafeBufferPointer<UInt64>
  ) -> UInt64 {
    words[offset &+ Int(truncatingIfNeeded: hashed &>> shift)] &>> (next & 63)
  }

  /// Bit 0: whether prefix `hashed` may be followed by `next` (only its low six bits count) or
  /// be a pattern itself, in a table built with `endBitOnly`: the word's bit for `next` or its end bit.
  @inline(__always)
  static func testOrEnd(
    _ hashed: UInt64, followedBy next: UInt64, offset: Int, shift: UInt64, _ words: UnsafeBufferPointer<UInt64>
  ) -> UInt64 {
    let word = words[offset &+ Int(truncatingIfNeeded: hashed &>> shift)]
    return word &>> (next & 63) | word &>> endBit(hashed)
  }
}
