/// The IM platform's request signature, as its server API and message callback compute it:
/// the lowercase hexadecimal SHA-1 of the app secret, a nonce and a timestamp, concatenated.
///
/// The server API sends them in the `App-Key`, `Nonce`, `Timestamp` and `Signature` headers;
/// the message callback in the `nonce`, `signTimestamp` and `signature` query parameters.
/// ``WebhookReviewer`` signs its calls this way and `winnow serve` checks them.
@_spi(Tools) public enum PlatformSignature {
  /// The signature of a request: `SHA1(secret + nonce + timestamp)` in lowercase hex.
  public static func signature(secret: String, nonce: String, timestamp: String) -> String {
    let digest = SHA1.digest(Array((secret + nonce + timestamp).utf8))
    let hex = Array("0123456789abcdef".utf8)
    var text: [UInt8] = []
    text.reserveCapacity(40)
    for byte in digest {
      text.append(hex[Int(byte >> 4)])
      text.append(hex[Int(byte & 0x0f)])
    }
    return String(decoding: text, as: UTF8.self)
  }

  /// Whether `signature` (hex, either case) is the signature of `secret`, `nonce` and
  /// `timestamp`. The comparison takes the same time wherever the first difference is.
  public static func isValid(_ signature: String, secret: String, nonce: String, timestamp: String) -> Bool {
    let expected = Array(Self.signature(secret: secret, nonce: nonce, timestamp: timestamp).utf8)
    let given = Array(signature.lowercased().utf8)
    guard given.count == expected.count else { return false }
    var difference: UInt8 = 0
    for index in expected.indices { difference |= expected[index] ^ given[index] }
    return difference == 0
  }
}

/// SHA-1 (FIPS 180-4), for the platform's signatures only: it is what the platform uses, not
/// a choice of ours, and it is not used to protect anything else.
enum SHA1 {
  /// The 20-byte digest of `message`.
  static func digest(_ message: [UInt8]) -> [UInt8] {
    var state: (UInt32, UInt32, UInt32, UInt32, UInt32) = (
      0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0
    )
    var padded = message
    padded.append(0x80)
    while padded.count % 64 != 56 { padded.append(0) }
    // The length in bits, modulo 2^64 as the standard says (a message is far shorter).
    let bits = UInt64(truncatingIfNeeded: message.count) &* 8
    for shift in stride(from: 56, through: 0, by: -8) {
      padded.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift)))
    }
    var words = [UInt32](repeating: 0, count: 80)
    for blockStart in stride(from: 0, to: padded.count, by: 64) {
      for index in 0..<16 {
        let offset = blockStart + index * 4
        words[index] =
          UInt32(padded[offset]) << 24 | UInt32(padded[offset + 1]) << 16 | UInt32(padded[offset + 2]) << 8
          | UInt32(padded[offset + 3])
      }
      for index in 16..<80 {
        let mixed = words[index - 3] ^ words[index - 8] ^ words[index - 14] ^ words[index - 16]
        words[index] = mixed << 1 | mixed >> 31
      }
      var (a, b, c, d, e) = state
      for index in 0..<80 {
        let f: UInt32
        let k: UInt32
        switch index {
        case 0..<20: (f, k) = ((b & c) | (~b & d), 0x5A82_7999)
        case 20..<40: (f, k) = (b ^ c ^ d, 0x6ED9_EBA1)
        case 40..<60: (f, k) = ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
        default: (f, k) = (b ^ c ^ d, 0xCA62_C1D6)
        }
        let temporary = (a << 5 | a >> 27) &+ f &+ e &+ k &+ words[index]
        e = d
        d = c
        c = b << 30 | b >> 2
        b = a
        a = temporary
      }
      state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e)
    }
    var digest: [UInt8] = []
    digest.reserveCapacity(20)
    for word in [state.0, state.1, state.2, state.3, state.4] {
      for shift in stride(from: 24, through: 0, by: -8) {
        digest.append(UInt8(truncatingIfNeeded: word >> UInt32(shift)))
      }
    }
    return digest
  }
}
