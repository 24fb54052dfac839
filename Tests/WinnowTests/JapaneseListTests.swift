import Testing

@_spi(Tools) @testable import Winnow

/// The built-in Japanese list (`wordlists/global/ja.txt`) under rule 11 of SOURCES.md: Japanese
/// writes no space between words, so a common word that holds a blocking entry (wordfreq's
/// Japanese at Zipf 3.0 or more) is an allow entry, and the entry does not match inside it.
@Suite("The built-in Japanese list")
struct JapaneseListTests {
  static let japanese = builtInMatcher(["ja.txt"])

  @Test(
    arguments: [
      ("ファックスで送ってください", nil),  // fax, which holds ファック
      ("ヌードルを食べました", nil),  // noodle, which holds ヌード
      ("カントリー音楽が好きです", nil),  // country, which holds カント
      ("ファック", "block"),
      ("ヌード写真を送って", "block"),
      ("ファックスじゃない、ファックだ", "block"),  // the allowed word leaves the entry elsewhere
    ] as [(String, String?)])
  func aCommonWordHoldingAnEntryIsAllowed(text: String, action: String?) throws {
    #expect(try builtInAction(Self.japanese, text) == action, "\(text)")
  }
}
