import Testing

@testable import WinnowCLI

/// The summary's top lists: the first entries of a full sort, found without sorting them all.
@Suite("Scan tally")
struct ScanTallyTests {
  /// SplitMix64: the same cases on every run.
  struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var value = state
      value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
      value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
      return value ^ (value >> 31)
    }
  }

  @Test func topIsThePrefixOfTheSortedElements() {
    var random = SeededGenerator(state: 5)
    for _ in 0..<2000 {
      // Few distinct values, so that ties are common.
      let values = (0..<Int.random(in: 0...40, using: &random)).map { _ in Int.random(in: 0...9, using: &random) }
      let count = Int.random(in: 0...12, using: &random)
      #expect(ScanTally.top(count, of: values, by: >) == Array(values.sorted(by: >).prefix(count)))
    }
  }

  @Test func topOrdersCountsThenNamesAsTheSummaryDoes() {
    var random = SeededGenerator(state: 11)
    for _ in 0..<500 {
      var counts: [String: Int] = [:]
      for _ in 0..<Int.random(in: 0...60, using: &random) {
        counts["w\(Int.random(in: 0...30, using: &random))", default: 0] += Int.random(in: 1...4, using: &random)
      }
      let order: ((key: String, value: Int), (key: String, value: Int)) -> Bool = {
        ($1.value, $0.key) < ($0.value, $1.key)
      }
      let top = ScanTally.top(10, of: counts, by: order)
      let sorted = counts.sorted(by: order).prefix(10)
      #expect(top.map(\.key) == sorted.map(\.key))
      #expect(top.map(\.value) == sorted.map(\.value))
    }
  }
}
