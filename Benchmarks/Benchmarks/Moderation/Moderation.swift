// Moderation of whole items (the embedded-server path): content extraction, the global list
// with normalization, the decision and the record, for every item of the sample dump.
import Benchmark
import Winnow
import WinnowBenchmarkSupport

let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: [.wallClock, messagesPerSecond, .mallocCountTotal], maxDuration: .seconds(5), maxIterations: 20)
  let engine = try! ModerationEngine(global: BenchmarkData.globalLists)
  let items = BenchmarkData.items
  let expected = items.reduce(0) { $0 + ((try? engine.screen($1))?.verdict == .blocked ? 1 : 0) }
  check(expected > 0, "nothing blocked in the sample dump")

  Benchmark("screen every sample item") { benchmark in
    var blocked = 0
    let seconds = secondsTaken {
      for item in items where (try? engine.screen(item))?.verdict == .blocked { blocked += 1 }
    }
    check(blocked == expected, "blocked \(blocked) != \(expected)")
    benchmark.measurement(messagesPerSecond, Int(Double(items.count) / seconds))
  }
}
