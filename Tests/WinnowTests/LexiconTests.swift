import PropertyBased
import Testing

@testable import Winnow

/// `word:` entries and lexicon words: a short CJK entry that is not a word of its own does not
/// match where it is cut from two neighbouring words.
@Suite("Lexicon words")
struct LexiconTests {
  static func matcher(_ words: String) throws -> Matcher {
    try Matcher(lists: [WordList(name: "zh.txt", origin: .global, parsing: words)])
  }

  static let list = "lexicon:入住\nlexicon:今日\nlexicon:结账\nword:日入\nword:天结\n"

  @Test(arguments: [
    ("18日入住", [String]()),  // 18日 | 入住 (check in on the 18th)
    ("今日入账三千", []),  // 今日 | 入账 (today's income)
    ("第二天結賬", []),  // Traditional 結賬 is 结账 once normalized
    ("日入过万", ["日入"]),  // "daily income over ten thousand": the ad the entry is for
    ("本人日入三千", ["日入"]),
    ("日_入_住", []),  // separators are dropped before the lexicon is consulted
    ("天结日入", ["天结", "日入"]),
  ])
  func wordEntriesSkipTwoWordsThatMeet(_ text: String, _ expected: [String]) throws {
    #expect(try Self.matcher(Self.list).matches(in: text).map(\.entry.text) == expected)
  }

  @Test func threeCharacterWordsAtTheEdgesOfTheText() throws {
    let matcher = try Self.matcher("lexicon:十八日\nlexicon:入场券\nword:日入\n")
    #expect(matcher.matches(in: "十八日入").isEmpty)
    #expect(matcher.matches(in: "日入场券").isEmpty)
    #expect(matcher.matches(in: "八日入场").map(\.entry.text) == ["日入"])
  }

  @Test func onlyWordEntriesAreGuarded() throws {
    let plain = try Self.matcher("lexicon:入住\n日入\n")
    #expect(plain.matches(in: "18日入住").map(\.entry.text) == ["日入"])
    let noLexicon = try Self.matcher("word:日入\n")
    #expect(noLexicon.matches(in: "18日入住").map(\.entry.text) == ["日入"])
  }

  @Test func latinEdgesOfWordEntriesStayWholeWord() throws {
    let matcher = try Self.matcher("word:av\nlexicon:入住\n")
    #expect(matcher.matches(in: "Java").isEmpty)
    #expect(matcher.matches(in: "an av film").map(\.entry.text) == ["av"])
  }

  @Test func customListsUseTheGlobalLexicon() throws {
    let global = try Self.matcher("lexicon:入住\n")
    let app = try Matcher(lists: [WordList(name: "app", origin: .custom, parsing: "word:日入\n")], over: global)
    #expect(app.matches(in: "18日入住").isEmpty)
    #expect(app.matches(in: "日入过万").map(\.origin) == [.custom])
  }

  @Test func customListsBorrowTheGlobalLexiconOnlyWhenItIsTheirs() throws {
    // The global layer has a `word:` entry, so its lexicon is normalized and can be lent.
    let global = try Self.matcher("lexicon:入住\nlexicon:結賬\nword:天结\n")
    let app = try Matcher(lists: [WordList(name: "app", origin: .custom, parsing: "word:日入\n")], over: global)
    #expect(app.matches(in: "18日入住").isEmpty)
    #expect(app.matches(in: "日入过万").map(\.origin) == [.custom])
    // A lexicon word of the app's own joins the global ones.
    let own = try Matcher(
      lists: [WordList(name: "app", origin: .custom, parsing: "lexicon:今日\nword:日入\n")], over: global)
    #expect(own.matches(in: "今日入账").isEmpty)
    #expect(own.matches(in: "18日入住").isEmpty)
    // Other rules key the lexicon their own way: without Traditional → Simplified, 結賬 stays
    // 結賬 in the text and in the lexicon, so 天結 is cut from 第二天 | 結賬.
    let traditional = try Matcher(
      lists: [
        WordList(
          name: "app", origin: .custom, parsing: "word:天結\n",
          normalization: Normalization.default.subtracting(.traditionalToSimplified))
      ], over: global)
    #expect(!traditional.overlappingMatches(in: "第二天結賬").contains { $0.origin == .custom })
    #expect(traditional.overlappingMatches(in: "天結过万").contains { $0.origin == .custom })
  }

  @Test func linesReadBackAsThemselves() throws {
    let file = WordListFile(parsing: "lexicon:入住\nword:日入\nallow:word:class\nlexicon:\n", path: "zh.txt")
    let entries = file.entries
    #expect(entries.map(\.action) == [.lexicon, .block, .allow])
    #expect(entries.map(\.boundary) == [.substring, .dictionaryWord, .word])
    #expect(entries.map(\.line) == ["lexicon:入住", "word:日入", "allow:word:class"])
    #expect(file.errors.map(\.location.line) == [4])
  }

  @Test func lintReportsLexiconWordsThatAreNeverRead() {
    let file = WordListFile(parsing: "lexicon:入住\nlexicon:中华人民\n", path: "zh.txt")
    let findings = WordListLint.lint([file], origin: .global)
    #expect(findings.map(\.location.line) == [2])
    #expect(findings.first?.message.contains("it normalizes to 4 characters") == true)
  }

  // MARK: Against a naive reference

  /// Plain CJK characters that normalization leaves as they are; few, so that entries and
  /// lexicon words meet often.
  static let alphabet: [Character] = ["日", "入", "住", "今", "天"]
  static let characterGen = Gen.int(in: 0...(alphabet.count - 1)).map { alphabet[$0] }
  /// No character twice in a row: normalization merges a doubled CJK character into one unit.
  static func undoubled(_ text: String) -> String {
    var result: [Character] = []
    for character in text where character != result.last { result.append(character) }
    return String(result)
  }
  static let lexiconGen = characterGen.string(of: 2...3).map(undoubled).array(of: 0...8)
  static let entryGen = characterGen.string(of: 2...2).map(undoubled).array(of: 1...4)
  static let textGen = characterGen.string(of: 0...60).map(undoubled)

  /// Every occurrence of an entry, minus those whose first character ends a lexicon word begun
  /// before it or whose last character begins a lexicon word ending after it.
  static func naiveMatches(entries: [String], lexicon: [String], text: String) -> Set<[String]> {
    let characters = Array(text)
    let words = Set(lexicon.filter { (2...3).contains($0.count) })
    func word(_ range: Range<Int>) -> Bool {
      range.lowerBound >= 0 && range.upperBound <= characters.count && words.contains(String(characters[range]))
    }
    var found = Set<[String]>()
    for entry in Set(entries) where entry.count == 2 {
      let pattern = Array(entry)
      for start in characters.indices.dropLast() where Array(characters[start..<start + 2]) == pattern {
        let end = start + 2
        if word(start - 1..<start + 1) || word(start - 2..<start + 1) || word(end - 1..<end + 1)
          || word(end - 1..<end + 2)
        {
          continue
        }
        found.insert([entry, String(start)])
      }
    }
    return found
  }

  @Test func wordEntriesMatchLikeNaive() async {
    await propertyCheck(count: 300, input: Self.entryGen, Self.lexiconGen, Self.textGen) { entries, lexicon, text in
      let entries = Array(Set(entries.filter { $0.count == 2 }))
      guard !entries.isEmpty else { return }
      let words = (lexicon.map { "lexicon:\($0)" } + entries.map { "word:\($0)" }).joined(separator: "\n")
      let matcher = try! Self.matcher(words)
      // Each CJK character is three UTF-8 bytes.
      let found = matcher.overlappingMatches(in: text).map { [$0.entry.text, String($0.range.lowerBound / 3)] }
      #expect(Set(found) == Self.naiveMatches(entries: entries, lexicon: lexicon, text: text))
      #expect(found.count == Set(found).count)
    }
  }
}
