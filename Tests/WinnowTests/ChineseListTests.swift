import Testing

@testable import Winnow

/// The built-in Chinese list (`wordlists/global/zh.txt` with its lexicon) under rule 26 of
/// SOURCES.md: a word none of whose English senses the English list blocks is flagged, while
/// a word with an offensive sense, and every phrase, keeps blocking.
@Suite("The built-in Chinese list")
struct ChineseListTests {
  static let chinese = builtInMatcher(["zh.txt", "zh-lexicon.txt"])

  @Test(arguments: [
    ("禁毒委员会部署打击毒品犯罪", "review"),  // 毒品: drugs, narcotics
    ("患乳腺癌的危险", "review"),  // 乳腺: mammary gland
    ("你真是个白痴", "review"),  // idiot, as `idiot` in English
    ("你真是個白癡", "review"),  // the same word in traditional characters
    ("qq出售冰毒", "block"),  // a phrase the dictionary does not know
    ("鸡巴", "block"),  // "dick (vulgar)"
    ("草泥马", "block"),  // refers to 肏你妈
    ("色情片", "block"),  // "pornographic film": `pornography` by its stem
  ])
  func aWordWhoseSensesAreOrdinaryIsFlagged(text: String, action: String) throws {
    #expect(try builtInAction(Self.chinese, text) == action, "\(text)")
  }
}
