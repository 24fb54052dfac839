import Foundation
import Synchronization
import Testing
import WinnowTestSupport

@_spi(Tools) @testable import Winnow

/// Review entries, category actions and language-scoped entries: what keeps ordinary text
/// from being blocked.
@Suite("Review, category actions and language scope")
struct PrecisionTests {
  static let list = """
    [profanity]
    fuck
    review:lust
    [politics: review]
    民主
    block:坏党
    review:word:党国
    [profanity: lang=nl]
    nicht
    [ads: review, lang=en]
    cheap pills
    [sexual: name]
    dick
    [p: lang=en, also=de]
    gift
    """

  static func global() throws -> WordList {
    try WordList(name: "global.txt", origin: .global, parsing: list)
  }

  static func item(_ text: String, appKey: String? = nil) -> MessageItem {
    var item = MessageItem(
      sourceType: .original, msgUID: "M1", fromUserId: "u1", targetId: "g1", conversationType: .group,
      channelId: "", content: ["content": .string(text)], sentTime: 1)
    item.appKey = appKey
    return item
  }

  @Test func sectionsSetTheActionAndLanguageOfTheirEntries() throws {
    let file = WordListFile(parsing: Self.list, path: "list.txt")
    #expect(file.errors.isEmpty)
    let entries = Dictionary(uniqueKeysWithValues: file.entries.map { ($0.text, $0) })
    #expect(entries["fuck"]?.action == .block && entries["fuck"]?.language == nil)
    #expect(entries["lust"]?.action == .review && entries["lust"]?.category == "profanity")
    #expect(entries["民主"]?.action == .review && entries["民主"]?.category == "politics")
    #expect(entries["坏党"]?.action == .block)
    #expect(entries["党国"]?.action == .review && entries["党国"]?.boundary == .dictionaryWord)
    #expect(entries["nicht"]?.action == .block && entries["nicht"]?.language == "nl")
    #expect(entries["cheap pills"]?.action == .review && entries["cheap pills"]?.language == "en")
    #expect(entries["dick"]?.isAlsoName == true && entries["fuck"]?.isAlsoName == false)
    #expect(entries["gift"]?.language == "en" && entries["gift"]?.alsoWordOf == ["de"])
    #expect(entries["nicht"]?.alsoWordOf == [])
    // Each entry written back reads as itself under its section.
    #expect(entries["lust"]?.line == "review:lust")
    #expect(entries["党国"]?.line == "review:word:党国")
  }

  @Test(arguments: [
    "[x: maybe]", "[x: lang=]", "[: review]", "[x: review,]", "[x y: review]", "[x: lang=n l]", "[x: also=de]",
    "[x: lang=en, also=]", "[x: lang=en, also=de+]", "[x: lang=en, also=d e]",
  ])
  func badSectionOptionsAreErrors(header: String) {
    let file = WordListFile(parsing: header + "\nword\n", path: "list.txt")
    #expect(file.errors.count == 1)
    #expect(file.errors.first?.location == SourceLocation(file: "list.txt", line: 1))
  }

  @Test func aReviewEntryCannotReplace() {
    let file = WordListFile(parsing: "review:bad => ***\n[x: review]\nfine => ***\n", path: "list.txt")
    #expect(file.errors.map(\.location.line) == [1])
    #expect(file.entries.map(\.action) == [.replace("***")])
  }

  @Test func aBlockEntryAppendedUnderAReviewSectionIsWrittenBlock() {
    var file = WordListFile(parsing: "[politics: review]\n民主\n", path: "list.txt")
    file.append(Entry(text: "坏党"))
    file.append(Entry(text: "#tag"))
    file.append(Entry(text: "党国", action: .review))
    let reread = WordListFile(parsing: file.lines.map(\.text).joined(separator: "\n"), path: "list.txt")
    #expect(reread.entries.map(\.action) == [.review, .block, .block, .review])
    #expect(reread.entries.map(\.text) == ["民主", "坏党", "#tag", "党国"])
  }

  @Test func reviewMatchesAreDeliveredAndFlagged() throws {
    let engine = try ModerationEngine(global: [Self.global()])
    let flagged = try engine.screen(Self.item("我们要民主"))
    #expect(flagged.verdict == .pass && flagged.flagged && flagged.record == nil)
    #expect(flagged.sensitiveType == .none)
    #expect(flagged.json.jsonString.contains(#""flagged":true"#))
    #expect(flagged.json.jsonString.contains(#""action":"review""#))
    let blocked = try engine.screen(Self.item("民主 fuck"))
    #expect(blocked.verdict == .blocked && !blocked.flagged && blocked.blockType == .globalWord)
    let clean = try engine.screen(Self.item("hello"))
    #expect(!clean.flagged && !clean.json.jsonString.contains("flagged"))
  }

  @Test func aReviewMatchDoesNotTurnAReplacementIntoAMask() throws {
    let custom = try WordList(name: "app.txt", origin: .custom, parsing: "秒杀 => **\n")
    let engine = try ModerationEngine(global: [Self.global()], custom: [custom])
    let result = try engine.screen(Self.item("秒杀民主"))
    #expect(result.verdict == .replaced && result.flagged)
    #expect(result.item.content["content"]?.stringValue == "**民主")
  }

  @Test func categoryActionsSwitchWhatACategoryDoes() throws {
    let blocking = try ModerationEngine(
      global: [Self.global()], configuration: .init(categoryActions: ["politics": .block]))
    let result = try blocking.screen(Self.item("我们要民主"))
    #expect(result.verdict == .blocked && result.blockType == .globalWord)
    #expect(result.matches.first?.match.entry.action == .block)
    let reviewing = try ModerationEngine(
      global: [Self.global()], configuration: .init(categoryActions: ["profanity": .review]))
    #expect(try reviewing.screen(Self.item("fuck")).flagged)
    // Per app, over the configuration's.
    let apps = try reviewing.addingApp("strict", custom: [], categoryActions: ["politics": .block])
    #expect(try apps.screen(Self.item("民主", appKey: "strict")).verdict == .blocked)
    #expect(try apps.screen(Self.item("fuck", appKey: "strict")).flagged)
    #expect(try apps.screen(Self.item("民主", appKey: "other")).flagged)
  }

  @Test func theReviewerIsShownTheFlaggedMatches() async throws {
    let reviewer = RecordingReviewer()
    // An hour's timeout: the default 3 s passed on a busy machine before the call began.
    let engine = try ModerationEngine(
      global: [Self.global()],
      configuration: .init(reviewer: reviewer, reviewPolicy: ReviewPolicy(timeout: .seconds(3600))))
    let result = try await engine.moderate(Self.item("我们要民主"))
    #expect(result.verdict == .pass && result.flagged)
    let requests = reviewer.requests.withLock { $0 }
    #expect(requests.count == 1)
    #expect(requests.first?.flagged.map(\.match.entry.text) == ["民主"])
  }

  @Test(arguments: [
    ("Er ist nicht da", false),  // German: er, ist, nicht, da against Dutch er
    ("Ich weiß es nicht", false),
    ("Jij bent een nicht", true),  // Dutch: jij, bent, een
    ("nicht", false),  // a German word by itself
    ("NICHT!!", false),
    ("Mijn nicht is er niet", true),
  ])
  func aScopedEntryMatchesOnlyWhereItsLanguageIsNotOutnumbered(text: String, matches: Bool) throws {
    let matcher = try Matcher(lists: [Self.global()])
    #expect(!matcher.matches(in: text).isEmpty == matches, "\(text)")
    if !matches {
      #expect(matcher.explain(text).suppressed.contains { $0.reason == .otherLanguage }, "\(text)")
    }
  }

  /// An entry that is also the word of named languages (`also=`) is kept from matching by
  /// text of those languages only: English `gift` is German *poison*, not a Spanish word.
  @Test(arguments: [
    ("Das ist ein Gift", false),  // German: das, ist, ein
    ("eres un gift", true),  // Spanish: eres, un; Spanish is not named
    ("Das ist la mia gift per te e per lei", true),  // Italian counts most; German's two words do not take it
    ("this is a gift", true),
    ("gift", true),
  ])
  func anEntryIsKeptFromMatchingOnlyByTheLanguagesItIsAlsoAWordOf(text: String, matches: Bool) throws {
    let matcher = try Matcher(lists: [Self.global()])
    #expect(matcher.matches(in: text).contains { $0.entry.text == "gift" } == matches, "\(text)")
    if !matches {
      #expect(matcher.explain(text).suppressed.contains { $0.reason == .otherLanguage }, "\(text)")
    }
  }

  /// One-letter words (`u`, `r`, `a`, the `m`s of `M&M`) are words of many languages, and chat's
  /// shorthand in English: they count for none, so they do not outnumber the entry's language.
  @Test(arguments: [
    ("u r a slut", true),
    ("What is the rarest M&M color? slut", true),  // `m` is Dutch, Hungarian, Slovak …
    ("fuck u", true),
    ("Det är slut nu", false),  // Swedish: det, är, nu (slut: end)
  ])
  func oneLetterWordsTellNoLanguage(text: String, matches: Bool) throws {
    let list = try WordList(name: "en.txt", origin: .global, parsing: "[sexual: lang=en]\nslut\nfuck\n")
    #expect(!(try Matcher(lists: [list]).matches(in: text)).isEmpty == matches, "\(text)")
  }

  @Test(arguments: [
    ("La homo kaj la hundo", false),  // Esperanto: la, kaj, la against no English word
    ("Ĉu vi estas homo?", false),
    ("you are a homo", true),  // English: you, are, a
    ("homo", true),  // no word of any language besides the entry
  ])
  func esperantoIsALanguageOfItsOwn(text: String, matches: Bool) throws {
    let list = try WordList(name: "en.txt", origin: .global, parsing: "[profanity: lang=en]\nhomo\n")
    #expect(!(try Matcher(lists: [list]).matches(in: text)).isEmpty == matches, "\(text)")
  }

  /// Chinese written in pinyin is Chinese: the built-in list's `geci` (Hungarian) and `piru`
  /// (Finnish), scoped by rule 13, are the pinyin of 歌词 (lyrics) and 譬如 (for example), and do
  /// not match there.
  @Test(arguments: [
    ("ta xie de geci hen hao", false),  // pinyin: ta, de, hen, hao
    ("piru shuo women de wenti", false),
    ("Ha a buszon ülsz, te geci", true),  // Hungarian: a, te
    ("geci", true),  // no word of any language besides the entry
    ("Tämä piru on meidän", true),  // Finnish
  ])
  func pinyinIsChinese(text: String, matches: Bool) throws {
    let matcher = try Matcher(lists: [
      WordList(name: "hu.txt", origin: .global, parsing: "[profanity: lang=hu]\ngeci\n"),
      WordList(name: "fi.txt", origin: .global, parsing: "[profanity: lang=fi]\npiru\n"),
    ])
    #expect(!matcher.matches(in: text).isEmpty == matches, "\(text)")
  }

  /// A Japanese entry that is a Chinese word too (`挿入`, `插入` insert once shinjitai fold) is
  /// scoped to Japanese, and does not match in Chinese text, even where the text's one Han run
  /// begins with the match.
  @Test(arguments: [
    ("插入帶有一個佔位項的雙曲正弦函式。", false),
    ("请插入光盘", false),
    ("ここに挿入してください", true),  // kana: Japanese
  ])
  func aHanRunThatBeginsWithTheMatchIsStillChinese(text: String, matches: Bool) throws {
    let list = try WordList(name: "ja.txt", origin: .global, parsing: "[profanity: lang=ja, also=zh]\n挿入\n")
    #expect(!(try Matcher(lists: [list]).matches(in: text)).isEmpty == matches, "\(text)")
  }

  @Test func wordsWithNoLanguageLeaveAScopedEntryItsMatch() throws {
    let list = try WordList(name: "en.txt", origin: .global, parsing: "[sexual: lang=en]\nporno\n")
    let matcher = try Matcher(lists: [list])
    #expect(!matcher.matches(in: "porno").isEmpty)
    #expect(!matcher.matches(in: "p-o-r-n-o 123").isEmpty)
    // Letters written apart are the match, not words of Italian (`e`, `o`) or Portuguese.
    #expect(!matcher.matches(in: "this is p_o_r_n_o for you").isEmpty)
    #expect(matcher.matches(in: "ein Porno ist das nicht, und wir sind es auch nicht").isEmpty)
  }

  @Test(arguments: [
    ("Have you read Moby Dick?", "review"),
    ("a story by Philip K. Dick", "review"),
    ("Dick Cheney said so", "review"),
    ("You Dick", "block"),  // `you` is a frequent word, not a name
    ("you are a dick", "block"),
    ("DICK", "block"),
    ("Dick!", "block"),
    ("My Dick Is", "block"),  // `my` and `is` are frequent words
    ("Fuck Cheney", "block"),  // `fuck` is not a name's word
    ("the book about Dick and Jane", "review"),  // names joined by a conjunction
    ("every Tom, Dick and Harry", "review"),
    ("Jane & Dick", "review"),
    ("Jane or Dick?", "review"),
    ("you and Dick", "block"),  // `you` is not a name
    ("Dick and you", "block"),
    ("Dick and and Jane", "block"),  // one conjunction, then the name
    ("Dick and", "block"),
    ("and Dick", "block"),
  ])
  func aNameWordInANameIsReviewed(text: String, action: String) throws {
    let list = try WordList(name: "en.txt", origin: .global, parsing: "[sexual: name]\ndick\n[profanity]\nfuck\n")
    let matches = try Matcher(lists: [list]).matches(in: text)
    #expect(matches.count == 1, "\(text)")
    #expect(matches.first.map { $0.entry.action == .review ? "review" : "block" } == action, "\(text)")
  }

  @Test func lintDoesNotCallAnEntryRedundantBecauseOfOneThatContextCanStop() {
    let scoped = WordListFile(parsing: "[p: lang=nl]\nnicht\n[p]\nnicht da\n", path: "a.txt")
    #expect(WordListLint.lint([scoped], origin: .global).isEmpty)
    let named = WordListFile(parsing: "[p: name]\ndick\n[p]\nbig dick\n", path: "b.txt")
    #expect(WordListLint.lint([named], origin: .global).isEmpty)
    let plain = WordListFile(parsing: "[p]\nnicht\nnicht da\n", path: "c.txt")
    #expect(WordListLint.lint([plain], origin: .global).map(\.location.line) == [3])
  }

  @Test func aCompiledMatcherKeepsActionsAndLanguages() throws {
    let matcher = try Matcher(lists: [Self.global()])
    let bytes = matcher.compiledBytes(identity: Array("test".utf8))
    let decoded = try bytes.withUnsafeBytes { try Matcher(compiledBytes: $0, identity: Array("test".utf8)) }
    for text in [
      "我们要民主", "Er ist nicht da", "Jij bent een nicht", "lust and cheap pills", "坏党 党国", "Moby Dick",
      "Das ist ein Gift",
      "eres un gift",
    ] {
      #expect(decoded.overlappingMatches(in: text) == matcher.overlappingMatches(in: text), "\(text)")
      #expect(decoded.explain(text).suppressed == matcher.explain(text).suppressed, "\(text)")
    }
  }

  /// The evidence against a plain reference: split on anything that is not a letter or an
  /// apostrophe, lower-case with `lowercased()`, and look each word up in the tables.
  @Test func languageEvidenceCountsWhatAPlainReferenceCounts() {
    var generator = SeededGenerator(state: 34)
    let words = LanguageEvidence.frequentWords.flatMap { $0.value.split(separator: " ").map(String.init) }
    let others = ["Ö", "ß", "İ", "xyz", "123", "ok", "NICHT", "Über", "日本", "です", "中文"]
    let separators = [" ", "  ", ", ", ".", "-", "\n", "\u{200B}", "!", "\"", "…"]
    for _ in 0..<2000 {
      var text = ""
      for _ in 0..<Int.random(in: 0...12, using: &generator) {
        let word =
          Bool.random(using: &generator)
          ? words.randomElement(using: &generator)! : others.randomElement(using: &generator)!
        text +=
          (Bool.random(using: &generator) ? word.uppercased() : word) + separators.randomElement(using: &generator)!
      }
      var copy = text
      let evidence = copy.withUTF8 { LanguageEvidence(utf8: $0) }
      #expect(evidence.counts == Self.referenceCounts(text), "\(text)")
    }
  }

  static func referenceCounts(_ text: String) -> [Int] {
    // A table a code: the frequent words of each (`zh`'s are its pinyin, counted with its Han).
    let tables: [Set<String>] = LanguageEvidence.codes.map { code in
      Set(
        LanguageEvidence.frequentWords.filter { $0.key == code }.flatMap { $0.value.split(separator: " ") }.map(
          String.init)
      ).union(code == "en" ? LanguageEvidence.englishChatWords : [])
    }
    var counts = [Int](repeating: 0, count: LanguageEvidence.codes.count)
    var word = ""
    var hasKana = false
    var kanaRuns = 0
    var hanRuns = 0
    var previous = ""
    func flush() {
      guard !word.isEmpty else { return }
      // A word of one letter counts for no language.
      for (index, table) in tables.enumerated() where word.unicodeScalars.count > 1 && table.contains(word) {
        counts[index] += 1
      }
      word = ""
    }
    for scalar in text.unicodeScalars {
      let kind: String
      switch scalar.value {
      case 0x3040...0x30FF: kind = "kana"
      case 0x4E00...0x9FFF: kind = "han"
      case 0x27: kind = "apostrophe"
      default: kind = scalar.properties.isAlphabetic ? "letter" : "other"
      }
      if kind != previous && kind == "kana" { kanaRuns += 1 }
      if kind != previous && kind == "han" { hanRuns += 1 }
      if kind == "kana" { hasKana = true }
      previous = kind
      if kind == "letter" {
        word += String(scalar).lowercased()
      } else if kind == "apostrophe" && !word.isEmpty {
        word += "'"
      } else {
        flush()
      }
    }
    flush()
    if hasKana { counts[counts.count - 2] = kanaRuns + hanRuns } else { counts[counts.count - 1] += hanRuns }
    return counts
  }
}

/// A reviewer that passes everything and keeps what it was asked.
final class RecordingReviewer: ContentReviewer {
  let requests = Mutex<[ReviewRequest]>([])

  func review(_ request: ReviewRequest) async throws -> ReviewDecision {
    requests.withLock { $0.append(request) }
    return ReviewDecision(outcome: .pass)
  }
}
