import Foundation
import PropertyBased
import Synchronization
import Testing

@testable import WinnowCLI

/// Batches cut into pieces for the workers of a scan: every line once, in order, with its
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
    #expect(pieces.reduce(0) { $0 + $1.byteCount } == whole.bytes.count)
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

/// The reader against splitting the whole input at its newlines: every line once, in order,
/// numbered, whatever the batch's target and the size of a read, lines longer than both
/// included (a batch reads into room for its target and one read more, then goes on a read at
/// a time until a line ends). A byte-order mark at the start is no part of the first line, and
/// counts as read.
@Suite("Line reader")
struct LineReaderTests {
  static let lineGen = zip(Gen.int(in: 0...30), Gen.int(in: 0...3)).array(of: 0...40)
  static let sizesGen = zip(Gen.int(in: 1...40), Gen.int(in: 1...12), Gen.bool)

  @Test func batchesHoldTheInputsLines() async throws {
    await propertyCheck(count: 300, input: Self.lineGen, Self.sizesGen, Gen.bool) { shapes, sizes, marked in
      let (target, chunk, endsWithNewline) = sizes
      // Lines of letters, with a carriage return or a multi-byte character now and then.
      let lines = shapes.enumerated().map { index, shape in
        let (length, kind) = shape
        let body = String(repeating: kind == 3 ? "é" : "ab", count: length / 2) + String(index)
        return kind == 2 ? body + "\r" : body
      }
      var text = lines.joined(separator: "\n")
      if endsWithNewline && !lines.isEmpty { text += "\n" }
      guard let path = try? CLITests.temporaryFile("reader.jsonl", (marked ? "\u{FEFF}" : "") + text) else {
        Issue.record("cannot write the input")
        return
      }
      let reader = LineReader(file: path, chunkSize: chunk)
      var read: [String] = []
      var bytes = 0
      while let batch = reader.nextBatch(targetBytes: target) {
        #expect(batch.failure == nil)
        #expect(batch.firstLine == read.count + 1)
        read += batch.lines.map { String(decoding: batch.bytes[$0], as: UTF8.self) }
        bytes += batch.pieces(ofAtMost: 2).reduce(0) { $0 + $1.byteCount }
      }
      // A mark alone is no line, and no batch.
      #expect(bytes == (text.isEmpty ? 0 : text.utf8.count + (marked ? 3 : 0)))
      // The input's lines, split as bytes (`\r\n` is one Character): an empty last piece after
      // a final newline is no line.
      var expected = text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map {
        String(decoding: $0, as: UTF8.self)
      }
      if expected.last == "" { expected.removeLast() }
      #expect(read == expected)
    }
  }
}

/// The scan's pipeline: every line of the input mapped once and consumed in input order,
/// whatever the number of jobs, and a failing consumer stops the workers.
@Suite("Batch pipeline")
struct PipelineTests {
  /// A dump of `count` numbered lines of varied lengths, over 1 MiB so that it is read as several
  /// batches of many pieces.
  static func input(lines count: Int) throws -> (path: String, size: Int) {
    var text = ""
    for index in 0..<count { text += "line \(index) " + String(repeating: "x", count: index % 97) + "\n" }
    let path = try CLITests.temporaryFile("pipeline.jsonl", text)
    return (path, text.utf8.count)
  }

  struct Piece: Sendable, Equatable {
    var firstLine: Int
    var lines: [String]
    var byteCount: Int
  }

  static func map(_ batch: LineBatch) -> Piece {
    Piece(
      firstLine: batch.firstLine,
      lines: batch.lines.map { String(decoding: batch.bytes[$0], as: UTF8.self) }, byteCount: batch.byteCount)
  }

  @Test(arguments: [1, 2, 3, 4])
  func everyLineOnceInOrder(jobs: Int) throws {
    let count = 40_000
    let (path, size) = try Self.input(lines: count)
    var pieces: [Piece] = []
    var calls = 0
    pipelineBatches(of: LineReader(file: path), jobs: jobs, map: Self.map) { outputs in
      calls += 1
      // A slow consumer now and then: the workers must wait for it, not run ahead without end.
      if calls % 8 == 1 { Thread.sleep(forTimeInterval: 0.002) }
      pieces += outputs
    }
    // One job maps whole batches of about 1 MiB; more map pieces of `linesPerPiece` lines.
    #expect(pieces.count > (jobs == 1 ? 1 : maximumPiecesAhead), "the input is read in many parts")
    var expected = 1
    for piece in pieces {
      #expect(piece.firstLine == expected)
      for (offset, line) in piece.lines.enumerated() {
        #expect(line.hasPrefix("line \(expected + offset - 1) "))
      }
      expected += piece.lines.count
    }
    #expect(expected == count + 1)
    #expect(pieces.reduce(0) { $0 + $1.byteCount } == size)
  }

  struct Stop: Error {}

  /// The input is four times as many pieces as the pipeline reads ahead: with fewer (40,000
  /// lines were 20 pieces of 2,048 against 16 read ahead), four workers sometimes mapped them
  /// all before the consumer's first output failed.
  @Test(arguments: [1, 2, 4])
  func aFailingConsumerStopsTheWorkers(jobs: Int) throws {
    let pieces = 4 * maximumPiecesAhead
    let (path, _) = try Self.input(lines: pieces * linesPerPiece)
    let mapped = Mutex(0)
    var consumed = 0
    let count: @Sendable (LineBatch) -> Int = { batch in
      mapped.withLock { $0 += 1 }
      return batch.lines.count
    }
    #expect(throws: Stop.self) {
      try pipelineBatches(of: LineReader(file: path), jobs: jobs, map: count) { outputs in
        consumed += outputs.count
        throw Stop()
      }
    }
    // Returned only once every worker had stopped: no piece is mapped after.
    let after = mapped.withLock { $0 }
    Thread.sleep(forTimeInterval: 0.05)
    #expect(mapped.withLock { $0 } == after)
    #expect(after < pieces, "the workers stopped before the end of the input")
    #expect(consumed >= 1)
  }

  /// Input that stops coming (a pipe whose writer waits) does not hold back the outputs of
  /// what was read: every line of the first batch is consumed before the input goes on. Its
  /// 5,242 lines of 200 bytes make 3 pieces, fewer than the outputs the consumer is woken for
  /// at once.
  @Test(arguments: [2, 3])
  func outputsOfReadLinesAreNotHeldForMoreInput(jobs: Int) throws {
    try FileManager.default.createDirectory(at: CLITests.runDirectory, withIntermediateDirectories: true)
    let path = CLITests.temporaryPath("fifo").path
    try #require(mkfifo(path, 0o600) == 0)
    defer { unlink(path) }
    let line = Array(repeating: UInt8(ascii: "x"), count: 199) + [0x0A]
    let linesFirst = 6_000  // over 1 MiB: one batch read whole, the rest waiting in the reader
    let consumedFirstBatch = DispatchSemaphore(value: 0)
    let waitedInVain = Mutex(false)
    let writer = Thread {
      let handle = FileHandle(forWritingAtPath: path)!
      handle.write(Data((0..<linesFirst).flatMap { _ in line }))
      // The input pauses until the first batch is consumed, or 10 seconds.
      if consumedFirstBatch.wait(timeout: .now() + 10) == .timedOut { waitedInVain.withLock { $0 = true } }
      handle.write(Data(line))
      try? handle.close()
    }
    writer.start()
    var consumed = 0
    var signalled = false
    // Mapping takes a while, as moderating does, so that the consumer waits for outputs.
    let map: @Sendable (LineBatch) -> Int = { batch in
      Thread.sleep(forTimeInterval: 0.002)
      return batch.lines.count
    }
    pipelineBatches(of: LineReader(file: path), jobs: jobs, map: map) { outputs in
      consumed += outputs.reduce(0, +)
      if consumed >= (1 << 20) / 200 && !signalled {
        signalled = true
        consumedFirstBatch.signal()
      }
    }
    #expect(consumed == linesFirst + 1)
    #expect(!waitedInVain.withLock { $0 }, "the first batch's outputs waited for more input")
  }
}
