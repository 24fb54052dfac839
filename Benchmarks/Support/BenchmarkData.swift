import Benchmark
import Foundation
@_spi(Tools) import Winnow

/// The data every benchmark shares, loaded once from the repository: the built-in global list
/// and the bundled sample dump (`samples/messages.jsonl`, 6,421 real chat utterances in the
/// platform's three formats). Nothing is generated or downloaded, so the numbers are
/// comparable from clone to clone; `Benchmarks/compare/run` is the 1M-message run.
public enum BenchmarkData {
  /// The repository root (this file is `Benchmarks/Support/BenchmarkData.swift`).
  public static let root: String = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

  /// The lists of `wordlists/global`.
  public static let globalLists: [WordList] = {
    do {
      return try WordList.load(directory: root + "/wordlists/global", origin: .global)
    } catch {
      fatalError("cannot load wordlists/global: \(error)")
    }
  }()

  /// The literal entries of the global list, as written, in list order.
  public static let literalPatterns: [String] = globalLists.flatMap { list in
    list.entries.filter { $0.kind == .literal && $0.action != .lexicon }.map(\.text)
  }

  /// The lines of the sample dump, as bytes.
  public static let dumpLines: [[UInt8]] = {
    guard let data = FileManager.default.contents(atPath: root + "/samples/messages.jsonl") else {
      fatalError("cannot read samples/messages.jsonl")
    }
    return data.split(separator: UInt8(ascii: "\n")).map { Array($0) }
  }()

  /// The parsed items of the sample dump.
  public static let items: [MessageItem] = dumpLines.map { line in
    do {
      return try line.withUnsafeBufferPointer { try DumpLine(utf8: $0) }.item
    } catch {
      fatalError("samples/messages.jsonl: \(error)")
    }
  }

  /// The text of every item (its text fields joined by a space): the messages.
  public static let messages: [String] = items.map { item in
    let fields = (try? ContentExtractor().fields(of: item)) ?? []
    return fields.map(\.text).joined(separator: " ")
  }

  /// The messages joined by newlines, `repeats` times: a corpus to scan as one buffer.
  public static func corpus(repeats: Int) -> [UInt8] {
    let once = Array(messages.joined(separator: "\n").utf8) + [UInt8(ascii: "\n")]
    return Array(repeatElement(once, count: repeats).joined())
  }

  /// Total UTF-8 bytes of `messages`.
  public static let messageBytes: Int = messages.reduce(0) { $0 + $1.utf8.count }
}

/// Seconds elapsed while running `body`.
public func secondsTaken(_ body: () throws -> Void) rethrows -> Double {
  let start = ContinuousClock.now
  try body()
  let elapsed = ContinuousClock.now - start
  return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

/// Stops the run with a message when a benchmark's answer is wrong: a fast wrong answer is
/// not a result.
public func check(_ condition: Bool, _ message: @autoclosure () -> String) {
  if !condition {
    FileHandle.standardError.write(Data("benchmark answer check failed: \(message())\n".utf8))
    exit(1)
  }
}

/// Throughput of one iteration in megabytes (10^6 bytes) per second.
public let megabytesPerSecond = BenchmarkMetric.custom("MB/s", polarity: .prefersLarger, useScalingFactor: false)
/// Throughput of one iteration in messages (or items, or dump lines) per second.
public let messagesPerSecond = BenchmarkMetric.custom(
  "messages/s", polarity: .prefersLarger, useScalingFactor: false)
