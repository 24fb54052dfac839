// `winnow scan`'s work per line, in process: parse the dump line (item, history-log or
// callback format), moderate the item with the global list, write its JSON result. The
// sample dump is read 4 times per iteration. The CLI adds reading, ordering and writing
// (measured end to end by `winnow scan`'s own summary line and Benchmarks/compare/run).
import Benchmark
import Winnow
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
    var output = 0
    for line in lines {
      do {
        let dumpLine = try line.withUnsafeBufferPointer { try DumpLine(utf8: $0) }
        let result = try engine.screen(dumpLine.item)
        if result.verdict == .blocked { blocked += 1 }
        output += result.json.jsonString.utf8.count + 1
      } catch {
        output += 1
      }
    }
    return (blocked, output)
  }
  let expected = scanAll()
  check(expected.blocked > 0, "nothing blocked in the sample dump")

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
