// Scan throughput of the global list over the sample messages: the raw automaton (no
// normalization) over one buffer and one message at a time, and the matcher with the default
// normalization one message at a time. Custom metrics: MB/s and messages/s per iteration.
import Benchmark
@_spi(Tools) import Winnow
import WinnowBenchmarkSupport

let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: [.wallClock, megabytesPerSecond, messagesPerSecond], maxDuration: .seconds(5), maxIterations: 20)
  let automaton = try! AhoCorasick(patterns: BenchmarkData.literalPatterns)
  let repeats = 8
  let corpus = BenchmarkData.corpus(repeats: repeats)
  let messages = BenchmarkData.messages.map { Array($0.utf8) }
  // The answer: every overlapping match, counted once over the buffer and once per message.
  // Patterns never contain a newline, so both must agree.
  let perMessage = messages.reduce(0) { total, message in
    total + message.withUnsafeBufferPointer { automaton.countOverlappingMatches(inUTF8: $0) }
  }
  check(perMessage > 0, "no raw match in the sample messages")

  Benchmark("raw automaton, one buffer") { benchmark in
    var count = 0
    let seconds = secondsTaken {
      count = corpus.withUnsafeBufferPointer { automaton.countOverlappingMatches(inUTF8: $0) }
    }
    check(count == perMessage * repeats, "buffer count \(count) != \(perMessage * repeats)")
    benchmark.measurement(megabytesPerSecond, Int(Double(corpus.count) / seconds / 1e6))
    benchmark.measurement(messagesPerSecond, Int(Double(messages.count * repeats) / seconds))
  }

  Benchmark("raw automaton, one message at a time") { benchmark in
    var count = 0
    let seconds = secondsTaken {
      for message in messages {
        count += message.withUnsafeBufferPointer { automaton.countOverlappingMatches(inUTF8: $0) }
      }
    }
    check(count == perMessage, "per-message count \(count) != \(perMessage)")
    benchmark.measurement(megabytesPerSecond, Int(Double(BenchmarkData.messageBytes) / seconds / 1e6))
    benchmark.measurement(messagesPerSecond, Int(Double(messages.count) / seconds))
  }

  let matcher = try! Matcher(lists: BenchmarkData.globalLists)
  let expected = BenchmarkData.messages.reduce(0) { $0 + matcher.matches(in: $1).count }
  check(expected > 0, "no normalized match in the sample messages")
  Benchmark("normalized matcher, one message at a time") { benchmark in
    var count = 0
    let seconds = secondsTaken {
      for message in BenchmarkData.messages { count += matcher.matches(in: message).count }
    }
    check(count == expected, "normalized count \(count) != \(expected)")
    benchmark.measurement(megabytesPerSecond, Int(Double(BenchmarkData.messageBytes) / seconds / 1e6))
    benchmark.measurement(messagesPerSecond, Int(Double(BenchmarkData.messages.count) / seconds))
  }
}
