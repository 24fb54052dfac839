import Testing

@testable import WinnowCLI

/// Batches cut into pieces for the workers of a scan round: every line once, in order, with its
/// number, its bytes, and the read failure on the last piece only.
@Suite("Line batches")
struct LineBatchTests {
  static func batch(lines count: Int, failure: String?) -> LineBatch {
    var bytes: [UInt8] = []
    var lines: [Range<Int>] = []
    for index in 0..<count {
      let text = Array("line \(index)".utf8)
      lines.append(bytes.count..<bytes.count + text.count)
      bytes += text + [0x0A]
    }
    return LineBatch(file: "dump.jsonl", firstLine: 41, bytes: bytes, lines: lines, failure: failure)
  }

  @Test(arguments: [0, 1, 5, 6, 13])
  func piecesKeepEveryLineAndByte(_ count: Int) {
    let whole = Self.batch(lines: count, failure: "cannot decompress")
    let pieces = whole.pieces(ofAtMost: 5)
    #expect(pieces.count == max(1, (count + 4) / 5))
    #expect(pieces.allSatisfy { $0.lines.count <= 5 })
    #expect(pieces.reduce(0) { $0 + $1.bytes.count } == whole.bytes.count)
    #expect(pieces.map(\.failure) == Array(repeating: nil, count: pieces.count - 1) + ["cannot decompress"])
    var number = 41
    for piece in pieces {
      #expect(piece.firstLine == number)
      for (offset, range) in piece.lines.enumerated() {
        #expect(String(decoding: piece.bytes[range], as: UTF8.self) == "line \(number + offset - 41)")
      }
      number += piece.lines.count
    }
    #expect(number == 41 + count)
  }
}
