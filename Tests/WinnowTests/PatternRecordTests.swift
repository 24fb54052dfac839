import Testing

@testable import Winnow

/// `PatternRecord`: what a walk's hit reads of its pattern, packed in one word, and the repeat
/// counts it holds itself or leaves to the layer's array.
@Suite("Pattern records")
struct PatternRecordTests {
  static let fields: [(entry: Int32, checks: UInt8, runs: [UInt16], length: UInt32)] = [
    (0, 0, [], 1), (.max, .max, [1, 2, 1, 2], 4), (-1, 3, [], 62), (-7, 1, [2], 63), (12, 2, [1, 1, 1], 100_000),
  ]

  @Test func fieldsReadBack() {
    for (entry, checks, runs, length) in Self.fields {
      check(entry: entry, checks: checks, runs: runs, length: length)
    }
  }

  private func check(entry: Int32, checks: UInt8, runs: [UInt16], length: UInt32) {
    let record = PatternRecord.make(entry: entry, checks: checks, runs: runs, length: length)
    #expect(PatternRecord.entry(record) == entry)
    #expect(PatternRecord.checks(record) == checks)
    #expect(PatternRecord.length(record) == min(UInt64(length), PatternRecord.longLength))
  }

  @Test func repeatCountsGoInlineWhenShortAndAtMostTwo() {
    func runs(_ counts: [UInt16]) -> (UInt64, UInt64) {
      let record = PatternRecord.make(entry: 0, checks: 0, runs: counts, length: UInt32(counts.count))
      return (PatternRecord.runs(record), PatternRecord.twiceMask(record))
    }
    #expect(runs([]) == (PatternRecord.Runs.none.rawValue, 0))
    #expect(runs([1, 1, 1]) == (PatternRecord.Runs.none.rawValue, 0))
    #expect(runs([1, 2, 1, 2]) == (PatternRecord.Runs.inline.rawValue, 0b1010))
    #expect(runs([UInt16](repeating: 2, count: 16)) == (PatternRecord.Runs.inline.rawValue, 0xFFFF))
    #expect(runs([1, 3]).0 == PatternRecord.Runs.array.rawValue)
    #expect(runs([UInt16](repeating: 1, count: 16) + [2]).0 == PatternRecord.Runs.array.rawValue)
  }

  /// The same rejections whether a pattern's counts are in its record (`fuuck`, twice), in the
  /// array (`buuuzz`, three times; a long entry) or nowhere (`fuck`).
  @Test func everyPlaceOfTheCountsRejectsTheSame() throws {
    let long = "abcdefghijklmnopqq"  // 17 units, the last of count 2: past the record's 16
    let matcher = try Matcher(
      lists: [WordList(name: "list.txt", origin: .custom, parsing: "fuuck\nbuuuzz\nfuck\n\(long)\n")])
    func found(_ text: String) -> [String] { matcher.overlappingMatches(in: text).map(\.entry.text) }
    #expect(found("fuck") == ["fuck"])
    #expect(found("fuuck") == ["fuuck", "fuck"])
    #expect(found("fuuuuck") == ["fuuck", "fuck"])
    #expect(found("buuzz").isEmpty)
    #expect(found("buuuzz") == ["buuuzz"])
    #expect(found("buuuzzzz") == ["buuuzz"])
    #expect(found(long) == [long])
    #expect(found("abcdefghijklmnopqqq") == [long])
    #expect(found("abcdefghijklmnopq").isEmpty)
  }
}
