/// Decoding of possibly invalid UTF-8, one scalar at a time, without allocation.
enum UTF8Decoding {
  /// The scalar starting at `index` and its length in bytes. An invalid or truncated sequence
  /// decodes as U+FFFD of length 1, so every byte of the input belongs to exactly one scalar.
  @inline(__always)
  static func decode(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> (value: UInt32, length: Int) {
    let lead = bytes[index]
    if lead < 0x80 { return (UInt32(lead), 1) }
    // Three bytes (the BMP from U+0800: CJK, most of a Chinese text) inline, the rest out of line.
    if lead & 0xF0 == 0xE0 && index + 2 < bytes.count {
      let (second, third) = (bytes[index + 1], bytes[index + 2])
      if second & 0xC0 == 0x80 && third & 0xC0 == 0x80 {
        let value = UInt32(lead & 0x0F) << 12 | UInt32(second & 0x3F) << 6 | UInt32(third & 0x3F)
        // Not overlong, not a surrogate.
        if value >= 0x800 && value & 0xF800 != 0xD800 { return (value, 3) }
      }
    }
    return decodeMultibyte(bytes, at: index, lead: lead)
  }

  /// Every sequence of two to four bytes, and invalid ones: the general decoder, which the
  /// inline three-byte path of ``decode(_:at:)`` must agree with.
  static func decodeMultibyte(
    _ bytes: UnsafeBufferPointer<UInt8>, at index: Int, lead: UInt8
  ) -> (value: UInt32, length: Int) {
    let length: Int
    var value: UInt32
    let minimum: UInt32
    switch lead {
    case 0xC2...0xDF: (length, value, minimum) = (2, UInt32(lead & 0x1F), 0x80)
    case 0xE0...0xEF: (length, value, minimum) = (3, UInt32(lead & 0x0F), 0x800)
    case 0xF0...0xF4: (length, value, minimum) = (4, UInt32(lead & 0x07), 0x10000)
    default: return (0xFFFD, 1)
    }
    guard index + length <= bytes.count else { return (0xFFFD, 1) }
    for offset in 1..<length {
      let byte = bytes[index + offset]
      guard byte & 0xC0 == 0x80 else { return (0xFFFD, 1) }
      value = value << 6 | UInt32(byte & 0x3F)
    }
    guard value >= minimum, value <= 0x10FFFF, !(0xD800...0xDFFF).contains(value) else { return (0xFFFD, 1) }
    return (value, length)
  }

  /// Appends the UTF-8 encoding of a scalar value (U+FFFD for a value that is not a scalar).
  static func append(_ value: UInt32, to bytes: inout [UInt8]) {
    switch value {
    case 0..<0x80:
      bytes.append(UInt8(value))
    case 0x80..<0x800:
      bytes.append(UInt8(0xC0 | value >> 6))
      bytes.append(UInt8(0x80 | value & 0x3F))
    case 0xD800...0xDFFF, 0x110000...:
      append(0xFFFD, to: &bytes)
    case 0x800..<0x10000:
      bytes.append(UInt8(0xE0 | value >> 12))
      bytes.append(UInt8(0x80 | value >> 6 & 0x3F))
      bytes.append(UInt8(0x80 | value & 0x3F))
    default:
      bytes.append(UInt8(0xF0 | value >> 18))
      bytes.append(UInt8(0x80 | value >> 12 & 0x3F))
      bytes.append(UInt8(0x80 | value >> 6 & 0x3F))
      bytes.append(UInt8(0x80 | value & 0x3F))
    }
  }
}
