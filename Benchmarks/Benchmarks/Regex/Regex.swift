// Regex entries: the global list alone, then with 200 PCRE2 entries added (each a list word
// with up to two characters allowed between its first and second character, `傻.{0,2}逼`), over
// the sample messages one at a time. The ratio of the two is what regex entries cost.
import Benchmark
import Winnow
import WinnowBenchmarkSupport

/// 200 regex entries made from list words of three characters or more, evenly spread.
func regexEntries() -> [Entry] {
  let words = BenchmarkData.literalPatterns.filter { $0.count >= 3 && $0.allSatisfy { $0.isLetter } }
  let step = max(words.count / 200, 1)
  return stride(from: 0, to: words.count, by: step).prefix(200).map { index in
    let characters = Array(words[index])
    let escaped = characters.map { String($0) }
    return Entry(text: escaped[0] + ".{0,2}" + escaped[1...].joined(), kind: .regex)
  }
}

let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: [.wallClock, messagesPerSecond], maxDuration: .seconds(5), maxIterations: 20)
  let regexes = regexEntries()
  check(regexes.count == 200, "made \(regexes.count) regex entries, not 200")
  let literalOnly = try! Matcher(lists: BenchmarkData.globalLists)
  let withRegexes = try! Matcher(
    lists: BenchmarkData.globalLists + [WordList(name: "regexes", origin: .global, entries: regexes)])
  let literalCount = BenchmarkData.messages.reduce(0) { $0 + literalOnly.overlappingMatches(in: $1).count }
  let regexCount = BenchmarkData.messages.reduce(0) { $0 + withRegexes.overlappingMatches(in: $1).count }
  // Each regex matches its own word, so it finds at least what that literal finds.
  check(regexCount >= literalCount && literalCount > 0, "regex run found \(regexCount) < \(literalCount)")

  for (name, matcher, expected) in [
    ("literal entries only", literalOnly, literalCount), ("with 200 regex entries", withRegexes, regexCount),
  ] {
    Benchmark(name) { benchmark in
      var count = 0
      let seconds = secondsTaken {
        for message in BenchmarkData.messages { count += matcher.overlappingMatches(in: message).count }
      }
      check(count == expected, "\(name): \(count) != \(expected)")
      benchmark.measurement(messagesPerSecond, Int(Double(BenchmarkData.messages.count) / seconds))
    }
  }
}
