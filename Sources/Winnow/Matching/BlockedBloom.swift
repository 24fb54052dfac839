/// The blocked Bloom filter both start filters use: a key's hashed product picks a 64-bit word
/// and a bit by its top bits and a second bit in the same word by bits 20..<26, so a test is one
/// memory read. Bitmaps have about 32 bits per key, at least 1 Kbit (a short list then passes
/// few positions) and at most 4 Mbit (512 KB).
enum BlockedBloom {
  /// Fibonacci hashing (Knuth), 64-bit: the product whose bits the filter reads.
  static let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15

  /// log2 of the bitmap size for `keys` keys.
  static func bits(forKeys keys: Int) -> UInt64 {
    var bits = minimumBits
    while bits < maximumBits && (1 << bits) < keys * 32 { bits += 1 }
    return bits
  }

  private static let minimumBits: UInt64 = 10
  private static let maximumBits: UInt64 = 22

  /// Whether the bitmap at `offset` with index shift `shift` is one ``bits(forKeys:)`` can give
  /// and lies inside `count` words: what a filter read back from a compiled matcher checks.
  static func bitmapFits(offset: Int, shift: UInt64, inWords count: Int) -> Bool {
    guard shift >= 64 - maximumBits && shift <= 64 - minimumBits else { return false }
    return offset >= 0 && offset + 1 << (64 - Int(shift) - 6) <= count
  }

  /// Sets both bits of a hashed key in the bitmap at `offset` whose index is `product >> shift`.
  static func insert(_ product: UInt64, shift: UInt64, offset: Int, into words: inout [UInt64]) {
    let index = product >> shift
    words[offset + Int(index >> 6)] |= 1 << (index & 63) | 1 << (product >> 20 & 63)
  }

  /// Both bits of a hashed key, in bit 0 (1 when both are set).
  @inline(__always)
  static func test(_ product: UInt64, shift: UInt64, offset: Int, _ words: UnsafeBufferPointer<UInt64>) -> UInt64 {
    let index = product &>> shift
    let word = words[offset &+ Int(truncatingIfNeeded: index &>> 6)]
    return word &>> (index & 63) & word &>> (product &>> 20 & 63)
  }
}
