import PropertyBased
import Testing

@_spi(Tools) @testable import Winnow

/// Walks that skip positions inside words (every Latin entry whole-word, as in the global
/// list) find exactly what walks that test every position find: `explain`, which lists
/// rejected candidates, never skips, and its report must equal the scan's.
@Suite("Skipping positions inside words")
struct InsideWordSkipTests {
  static let pieces: [String] = [
    "a", "s", "ass", "sh", "it", "i", "l", "1", "k", "c", "h", "t", "b", "0", "9", " ", " ", ".", "-", "'", "\u{E001}",
    "傻", "逼", "v", "lick", "shit", "class", "g b i t c h", "f u c k", "é", "е", "ß", "Ａ", "12",
  ]
  static let textGen = Gen.int(in: 0...(pieces.count - 1)).map { pieces[$0] }.array(of: 0...12).map { $0.joined() }

  /// Whole-word Latin entries (with `i`/`l` variants and doubled letters), digits, CJK.
  static let wholeWords = "ass\nshit\nit\na\nlick\nkill\nbitch\nfuck\nhit\n12\n傻逼\nclass act"

  static func matcher(_ list: String) -> Matcher {
    try! Matcher(lists: [WordList(name: "w", origin: .custom, parsing: list)])
  }

  @Test func wholeWordListsSkipAndFindWhatExplainFinds() async {
    let matcher = Self.matcher(Self.wholeWords)
    #expect(matcher.layers.allSatisfy { $0.skipsInsideWords })
    var found = 0
    await propertyCheck(count: 1500, input: Self.textGen) { text in
      let report = matcher.scan(text)
      #expect(report == matcher.explain(text).report, "\(text.debugDescription)")
      found += report.matches.count
    }
    #expect(found > 0)
  }

  /// A substring entry (or a regex's required literal) starting with a letter may start inside
  /// a word: such a layer tests every position.
  @Test func substringEntriesTurnTheSkipOff() {
    #expect(!Self.matcher(Self.wholeWords + "\nsub:it").layers[0].skipsInsideWords)
    #expect(!Self.matcher(Self.wholeWords + "\nre:hit+er").layers[0].skipsInsideWords)
    #expect(Self.matcher(Self.wholeWords + "\nsub:傻").layers[0].skipsInsideWords)
    #expect(Self.matcher("sub:it").matches(in: "bits").map(\.text) == ["it"])
  }

  /// Without the separators rule a private-use character (the `1`-for-`i` code's range) stays
  /// in the text as it is, a separator: a word after it starts at a boundary.
  @Test func privateUseScalarBeforeAWordWithoutTheSeparatorsRule() {
    let rules = Normalization.default.subtracting(.separators)
    let matcher = try! Matcher(lists: [WordList(name: "w", origin: .custom, parsing: "ass", normalization: rules)])
    #expect(matcher.layers[0].skipsInsideWords)
    #expect(matcher.matches(in: "\u{E001}ass").map(\.text) == ["ass"])
  }

  /// The cases the skip must leave alone: letters spelled one by one, a private-use scalar
  /// that the `1`-for-`i` code shares, and a `1` read as `i` before the start.
  @Test(arguments: [
    ("g b i t c h", ["b i t c h"]),
    ("\u{E001}ass", ["ass"]),
    ("sh1t", ["sh1t"]),
    ("classy ass", ["ass"]),
    ("1ick it", ["1ick", "it"]),
  ])
  func edgesOfWords(text: String, expected: [String]) {
    let matcher = Self.matcher(Self.wholeWords)
    #expect(matcher.matches(in: text).map(\.text) == expected)
  }
}
