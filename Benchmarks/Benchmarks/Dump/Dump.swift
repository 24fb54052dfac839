// `winnow scan`'s work per line, in process: parse the dump line (item, history-log or
// callback format), moderate the item with the global list, write its JSON result (as with
// `--all`); and, as without it, count the lines that pass without reading them. The sample
// dump is read 4 times per iteration. The CLI adds reading, ordering and writing
// (measured end to end by `winnow scan`'s own summary line and Benchmarks/compare/run).
import Benchmark
@_spi(Tools) import Winnow
import WinnowBenchmarkSupport

let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: [.wallClock, megabytesPerSecond, messagesPerSecond], maxDuration: .seconds(5), maxIterations: 20)
  let engine = try! ModerationEngine(global: BenchmarkData.globalLists)
  let lines = BenchmarkData.dumpLines
  let bytes = lines.reduce(0) { $0 + $1.count + 1 }
  let repeats = 4

  /// Output bytes of the results of every line (the answer to check).
  func scanAll() -> (blocked: Int, output: Int) {
    var blocked = 0
    var writer = JSONWriter()
    for line in lines {
      do {
        let screened = try line.withUnsafeBufferPointer { try engine.screen(dumpLine: $0, inPlace: false) }
        if case .screened(let result, _, _) = screened {
          if result.verdict == .blocked { blocked += 1 }
          result.write(to: &writer)
        }
      } catch {}
      writer.endLine()
    }
    return (blocked, writer.bytes.count)
  }
  let expected = scanAll()
  check(expected.blocked > 0, "nothing blocked in the sample dump")

  /// `winnow scan` without `--all`: lines that pass in place are counted without being read
  /// (``ModerationEngine/screen(dumpLine:inPlace:)``), the others read and screened; the
  /// blocked and passed counts.
  func countAll() -> (blocked: Int, passed: Int) {
    var blocked = 0
    var passed = 0
    for line in lines {
      line.withUnsafeBufferPointer { bytes in
        switch try? engine.screen(dumpLine: bytes) {
        case .clean?: passed += 1
        case .screened(let result, _, _)?:
          if result.verdict == .blocked { blocked += 1 }
          if result.verdict == .pass { passed += 1 }
        case nil: break
        }
      }
    }
    return (blocked, passed)
  }
  let counted = countAll()
  check(counted.blocked == expected.blocked, "counting blocks \(counted.blocked) lines, reading \(expected.blocked)")

  Benchmark("count every dump line, reading only those that do not pass") { benchmark in
    var answers: [(blocked: Int, passed: Int)] = []
    let seconds = secondsTaken {
      for _ in 0..<repeats { answers.append(countAll()) }
    }
    check(answers.allSatisfy { $0 == counted }, "answers differ between passes: \(answers) vs \(counted)")
    benchmark.measurement(megabytesPerSecond, Int(Double(bytes * repeats) / seconds / 1e6))
    benchmark.measurement(messagesPerSecond, Int(Double(lines.count * repeats) / seconds))
  }

  Benchmark("parse, moderate and write every dump line") { benchmark in
    var answers: [(blocked: Int, output: Int)] = []
    let seconds = secondsTaken {
      for _ in 0..<repeats { answers.append(scanAll()) }
    }
    check(answers.allSatisfy { $0 == expected }, "answers differ between passes: \(answers) vs \(expected)")
    benchmark.measurement(megabytesPerSecond, Int(Double(bytes * repeats) / seconds / 1e6))
    benchmark.measurement(messagesPerSecond, Int(Double(lines.count * repeats) / seconds))
  }
}
