import Testing

@_spi(Tools) @testable import Winnow

/// The built-in Chinese list (`wordlists/global/zh.txt` with its lexicon) under rule 26 of
/// SOURCES.md: a word none of whose English senses the English list blocks is flagged, while
/// a word with an offensive sense, and every phrase, keeps blocking.
@Suite("The built-in Chinese list")
struct ChineseListTests {
  static let chinese = builtInMatcher(["zh.txt", "zh-lexicon.txt"])

  @Test(arguments: [
    ("禁毒委员会部署打击毒品犯罪", "review"),  // 毒品: drugs, narcotics
    ("患乳腺癌的危险", "review"),  // 乳腺: mammary gland
    ("我真是个白痴", "review"),  // idiot, as `idiot` in English
    ("我真是個白癡", "review"),  // the same word in traditional characters
    ("qq出售冰毒", "block"),  // a phrase the dictionary does not know
    ("鸡巴", "block"),  // "dick (vulgar)"
    ("草泥马", "block"),  // refers to 肏你妈
    ("色情片", "block"),  // "pornographic film": `pornography` by its stem
  ])
  func aWordWhoseSensesAreOrdinaryIsFlagged(text: String, action: String) throws {
    #expect(try builtInAction(Self.chinese, text) == action, "\(text)")
  }

  /// Rules 27, 28 and 30 of SOURCES.md: variants follow their base, a profanity morpheme or a
  /// blocking entry inside a review entry blocks it, a hand-made list of profanity names the
  /// category, and an insult too ordinary to block alone blocks where it is aimed at someone.
  @Test(arguments: [
    ("你真是个白痴", "block"),  // aimed: 你 before it
    ("你真是個白癡", "block"),
    ("去死吧你", "block"),
    ("白痴都懂的道理", "review"),  // nobody addressed
    ("干妳娘", "block"),  // 妳 for 你: 干你娘
    ("你个傻比", "block"),  // 比 for 逼: holds 傻逼
    ("傻比", "block"),
    ("牛b", "block"),  // a generated variant
    ("草你妈", "block"),
    ("驶你老母", "block"),  // the morpheme 老母
    ("塞你娘", "block"),  // holds the blocking entry 你娘
    ("插死你", "block"),  // LDNOOBW's hand-made list: profanity, not the catch-all
    ("黑鬼", "block"),  // CC-CEDICT: derogatory term for black people
    ("操作系统", "none"),  // 操 inside an ordinary word
    ("以大比分获胜", "none"),  // 大比 is a word of its own, not 大逼
    ("他骑的马的尾巴", "review"),  // 马的: a horse's (the catch-all flags it), not 妈的
    ("想找个人陪你吗", "none"),  // 你吗: you?
    // Rule 28 by the dictionary: CC-CEDICT gives an English insult as a sense.
    ("你这个智障", "block"),  // retarded
    ("我真是个智障", "review"),
    ("你这个蠢猪", "block"),  // stupid swine; idiot
    ("你这个傻叉", "block"),  // fool: WordNet files it under simpleton
    ("你这个狗娘养的", "block"),  // son of a bitch
    ("你好小姐", "review"),  // 小姐 miss: frequent, so no insult by the dictionary
  ])
  func variantsMorphemesAndInsultsBlock(text: String, action: String) throws {
    #expect(try builtInAction(Self.chinese, text) ?? "none" == action, "\(text)")
  }

  /// Rule 32 of SOURCES.md: CC-CEDICT's own abuse is a source. A word marked vulgar or abusive
  /// in every sense blocks; one with an insult among its senses is an insult of rule 28; a
  /// word that only names another (`地支` names `丑`, clown) is none.
  @Test(arguments: [
    ("你这个蠢货", "block"),  // blockhead; idiot: no list held it
    ("我真是个蠢货", "review"),
    ("你这个阿三", "block"),  // (derog.) an Indian: a people, marked
    ("你知道婆娘吗", "none"),  // woman (derog.): a mark of register, not an insult
    ("忘八蛋", "block"),  // highly offensive when directed at sb
    ("睡了三小时", "none"),  // 三小, vulgar in Taiwan, is cut from 小时 (rule 18)
    ("天干地支", "none"),
    ("玉米棒子", "none"),  // 棒子 (derog.) Korean, inside maize
  ])
  func theDictionarysAbuseIsASource(text: String, action: String) throws {
    #expect(try builtInAction(Self.chinese, text) ?? "none" == action, "\(text)")
  }
}
