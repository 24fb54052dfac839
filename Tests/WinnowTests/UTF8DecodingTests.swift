import PropertyBased
import Testing

@_spi(Tools) @testable import Winnow

/// The decoder's inline three-byte path against its general one, on bytes rich in lead,
/// continuation, overlong and surrogate sequences, and against the standard library on valid
/// text.
@Suite("UTF-8 decoding")
struct UTF8DecodingTests {
  static let interesting: [UInt8] = [
    0x41, 0x7F, 0x80, 0x8F, 0x9F, 0xA0, 0xBF, 0xC2, 0xDF, 0xE0, 0xE4, 0xED, 0xEF, 0xF0, 0xF4, 0xFF,
  ]
  static let bytesGen = Gen.int(in: 0...(interesting.count - 1)).map { interesting[$0] }.array(of: 0...12)

  @Test func inlinePathAgreesWithTheGeneralDecoder() async {
    var threeByteScalars = 0
    await propertyCheck(count: 3000, input: Self.bytesGen) { bytes in
      bytes.withUnsafeBufferPointer { buffer in
        for index in buffer.indices {
          let decoded = UTF8Decoding.decode(buffer, at: index)
          let general =
            buffer[index] < 0x80
            ? (UInt32(buffer[index]), 1) : UTF8Decoding.decodeMultibyte(buffer, at: index, lead: buffer[index])
          #expect(decoded == general, "\(bytes) at \(index)")
          if decoded.length == 3 { threeByteScalars += 1 }
        }
      }
    }
    #expect(threeByteScalars > 0)
  }

  @Test(arguments: ["傻逼 and ｆｕｃｋ", "\u{800}\u{D7FF}\u{E000}\u{FFFD}\u{FFFF}", "é€𝐟🍆"])
  func validTextDecodesToItsScalars(text: String) {
    let bytes = Array(text.utf8)
    var scalars: [UInt32] = []
    bytes.withUnsafeBufferPointer { buffer in
      var index = 0
      while index < buffer.count {
        let (value, length) = UTF8Decoding.decode(buffer, at: index)
        scalars.append(value)
        index += length
      }
    }
    #expect(scalars == text.unicodeScalars.map(\.value))
  }
}
