import Testing
import Winnow
import WinnowTestSupport

@testable import WinnowCLI

/// The summary's counts of matches by entry and by list, and its top lists: the first entries
/// of a full sort, found without sorting them all.
@Suite("Scan tally")
struct ScanTallyTests {
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

  /// Matches counted piece by piece, then merged as a scan merges its workers' tallies, give
  /// the counts by entry and by list that naming each match and counting the names gives:
  /// entries of different files or lists on the same line stay apart, and entries without a
  /// source are told apart by their text and list.
  @Test func countsByEntryAndListAgreeWithCountingNames() {
    var random = SeededGenerator(state: 17)
    let files = ["g/en.txt", "g/zh.txt", "h/zh.txt"]
    var pool: [(entry: Entry, list: String)] = []
    for (index, file) in files.enumerated() {
      for line in 1...4 {
        pool.append((Entry(text: "w\(index)\(line)", source: SourceLocation(file: file, line: line)), file))
      }
    }
    // One list of two files (entries included from another file), their lines alike.
    for file in ["g/a.txt", "g/b.txt"] {
      for line in 1...2 {
        pool.append((Entry(text: "v\(file)\(line)", source: SourceLocation(file: file, line: line)), "g/all"))
      }
    }
    for text in ["x", "y"] {
      for list in ["app", "other"] { pool.append((Entry(text: text), list)) }
    }
    for _ in 0..<300 {
      let picks = (0..<Int.random(in: 0...80, using: &random)).map { _ in
        pool[Int.random(in: 0..<pool.count, using: &random)]
      }
      var total = ScanTally()
      var piece = ScanTally()
      for pick in picks {
        piece.addMatch(pick.entry, list: pick.list)
        if Int.random(in: 0..<10, using: &random) == 0 {
          total.merge(piece)
          piece = ScanTally()
        }
      }
      total.merge(piece)
      var byEntry: [ScanTally.EntryKey: Int] = [:]
      var byList: [String: Int] = [:]
      for pick in picks {
        let list = ScanTally.shortName(pick.list)
        let place = pick.entry.source.map { "\(ScanTally.shortName($0.file)):\($0.line)" } ?? list
        byEntry[ScanTally.EntryKey(text: pick.entry.text, place: place), default: 0] += 1
        byList[list, default: 0] += 1
      }
      #expect(total.byEntry == byEntry)
      #expect(total.byList == byList)
    }
  }
}
