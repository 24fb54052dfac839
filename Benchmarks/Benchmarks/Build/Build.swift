// Building the global list: the raw automaton and the full matcher (normalization, variants),
// for a quarter, half and all of the list's literal entries, and the whole list as shipped
// (with the lexicon of its word: entries). Wall clock and peak resident memory per build.
import Benchmark
@_spi(Tools) import Winnow
import WinnowBenchmarkSupport

let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: [.wallClock, .peakMemoryResident, .mallocCountTotal], maxDuration: .seconds(10), maxIterations: 10)
  let patterns = BenchmarkData.literalPatterns
  let entries = BenchmarkData.globalLists.flatMap(\.entries).filter { $0.kind == .literal && $0.action != .lexicon }
  for share in [4, 2, 1] {
    let subset = Array(patterns.prefix(patterns.count / share))
    let subsetEntries = Array(entries.prefix(entries.count / share))
    Benchmark("raw automaton, \(subset.count) patterns") { benchmark in
      let automaton = try AhoCorasick(patterns: subset)
      check(automaton.patternCount == subset.count, "built \(automaton.patternCount) of \(subset.count) patterns")
      blackHole(automaton)
    }
    let list = WordList(name: "global-\(subsetEntries.count)", origin: .global, entries: subsetEntries)
    Benchmark("matcher (normalized), \(subsetEntries.count) entries") { benchmark in
      let matcher = try Matcher(lists: [list])
      check(
        matcher.entryCount == subsetEntries.count, "compiled \(matcher.entryCount) of \(subsetEntries.count) entries")
      blackHole(matcher)
    }
  }
  // The global list as shipped: its entries (regexes and allow entries too) and its lexicon.
  let lists = BenchmarkData.globalLists
  let compiled = lists.flatMap(\.entries).filter { $0.action != .lexicon }.count
  Benchmark("matcher (normalized), the global list and its lexicon") { benchmark in
    let matcher = try Matcher(lists: lists)
    check(matcher.entryCount == compiled, "compiled \(matcher.entryCount) of \(compiled) entries")
    blackHole(matcher)
  }
}
