import PropertyBased
import Testing
import WinnowTestSupport

@_spi(Tools) @testable import Winnow

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

/// Whole-word Han entries against the segmentation of their context (rule 18 of SOURCES.md).
@Suite("Segmentation around Han matches")
struct SegmentationTests {
  static let lexicon = """
    [lexicon]
    lexicon:叫 5.2
    lexicon:做 5.8
    lexicon:爱 5.4
    lexicon:叫做 4.8
    lexicon:开 5.7
    lexicon:房 4.9
    lexicon:间 5.1
    lexicon:房间 4.6
    lexicon:开房 2.0
    lexicon:体 5.0
    lexicon:操 4.4
    lexicon:你 6.3
    lexicon:妈 4.9
    lexicon:体操 4.1
    lexicon:去 6.3
    lexicon:去做 3.2
    [sexual]
    做爱
    开房
    sub:中出
    操你妈
    """

  @Test(arguments: [
    ("你可以把它叫做爱", [String]()),  // 叫做 + 爱
    ("我们去开房间看看", []),  // 开 + 房间
    ("我想去做爱", ["做爱"]),  // 去 + 做爱: 去做 is rarer than 去 and 做爱 together
    ("去开房吧", ["开房"]),
    ("体操你妈", ["操你妈"]),  // one piece fewer than 体操 + 你 + 妈
    ("其中出现了", ["中出"]),  // a sub: entry matches anywhere
    ("做爱", ["做爱"]),
  ])
  func aMatchCutFromLikelierWordsIsNotReported(text: String, expected: [String]) throws {
    let matcher = try Matcher(lists: [WordList(name: "zh.txt", origin: .global, parsing: Self.lexicon)])
    #expect(matcher.matches(in: text).map(\.entry.text) == expected, "\(text)")
    if expected.isEmpty {
      #expect(matcher.explain(text).suppressed.contains { $0.reason == .crossesLexiconWord }, "\(text)")
    }
  }

  @Test func weightsAreReadAndWrittenBack() throws {
    let file = WordListFile(parsing: "lexicon:入住 3.9\nlexicon:ice cream\nlexicon:今日\n", path: "zh.txt")
    #expect(file.errors.isEmpty)
    #expect(file.entries.map(\.text) == ["入住", "ice cream", "今日"])
    #expect(file.entries.map(\.lexiconWeight) == [39, nil, nil])
    #expect(file.entries.map(\.line) == ["lexicon:入住 3.9", "lexicon:ice cream", "lexicon:今日"])
  }

  /// Against every segmentation of the window, enumerated: the best with the entry as a piece,
  /// and the best with a piece that overlaps the entry without holding it whole.
  static func naiveIsCut(count: Int, entry: Range<Int>, weight: (Int, Int) -> Int?) -> Bool {
    var kept = Int.min
    var cut = Int.min
    func walk(_ position: Int, _ score: Int, _ hasEntry: Bool, _ hasCut: Bool) {
      if position == count {
        if hasEntry { kept = max(kept, score) }
        if hasCut { cut = max(cut, score) }
        return
      }
      for length in 1...max(3, entry.count) where position + length <= count {
        let piece = position..<position + length
        let value: Int?
        if piece == entry {
          value = max((length <= 3 ? weight(position, length) : nil) ?? 0, Segmentation.entryFloorWeight) - 90
        } else if length == 1 {
          value = (weight(position, 1) ?? Segmentation.unknownCharacterWeight) - 90
        } else if length <= 3 {
          value = weight(position, length).map { $0 - 90 }
        } else {
          value = nil
        }
        guard let value else { continue }
        let overlaps = piece.overlaps(entry) && piece != entry
        let holds = piece.lowerBound <= entry.lowerBound && entry.upperBound <= piece.upperBound
        let inside = entry.lowerBound <= piece.lowerBound && piece.upperBound <= entry.upperBound
        walk(position + length, score + value, hasEntry || piece == entry, hasCut || (overlaps && !holds && !inside))
      }
    }
    walk(0, 0, false, false)
    return cut > kept
  }

  @Test func isCutAgreesWithEnumeratingEverySegmentation() {
    var generator = SeededGenerator(state: 18)
    for _ in 0..<3000 {
      let count = Int.random(in: 2...9, using: &generator)
      let length = Int.random(in: 2...min(count, 5), using: &generator)
      let start = Int.random(in: 0...(count - length), using: &generator)
      var weights: [[Int?]] = []
      for _ in 0..<count {
        weights.append(
          (0..<3).map { _ in Bool.random(using: &generator) ? Int.random(in: 0...70, using: &generator) : nil })
      }
      let weight: (Int, Int) -> Int? = { position, length in weights[position][length - 1] }
      let entry = start..<start + length
      #expect(
        Segmentation.isCut(count: count, entry: entry, weight: weight)
          == Self.naiveIsCut(count: count, entry: entry, weight: weight), "\(weights) \(entry)")
    }
  }

  /// The flat table against a dictionary uniquing with `max`: keys packed as the rules pack
  /// them, hashed readings, 0, duplicates, and probes beside each key.
  @Test func lexiconTableHoldsWhatADictionaryHolds() {
    var generator = SeededGenerator(state: 0x1E71C0)
    for round in 0..<40 {
      var pairs: [(UInt64, UInt8)] = []
      for _ in 0..<(round * round * 3) {
        let first = UInt32.random(in: 0x4E00...0x4E40, using: &generator)
        let second = UInt32.random(in: 0x4E00...0x4E40, using: &generator)
        let key =
          switch Int.random(in: 0..<4, using: &generator) {
          case 0: HanWordEdges.lexiconKey(first)
          case 1: HanWordEdges.lexiconKey(first, second)
          case 2: HanWordEdges.lexiconKey(first, second, first)
          default: SyllableWordEdges.key([first & 0x7F, second & 0x7F])
          }
        pairs.append((key, UInt8.random(in: 0...80, using: &generator)))
      }
      if round.isMultiple(of: 3) { pairs.append((0, UInt8(round))) }
      pairs += pairs.prefix(round).map { ($0.0, $0.1 &+ 1) }
      let table = LexiconTable(pairs)
      let expected = Dictionary(pairs, uniquingKeysWith: max)
      #expect(table.count == expected.count)
      let probes = expected.keys.flatMap { [$0, $0 &+ 1, $0 ^ 1 << 21, $0 | 1 << 63] } + [0, 1, .max]
      let wrong = probes.filter { table[$0] != expected[$0] }
      #expect(wrong.isEmpty, "\(wrong.prefix(5))")
      #expect(Dictionary(table.pairs.map { ($0.key, $0.weight) }, uniquingKeysWith: { _, _ in 0 }) == expected)
    }
  }
}

@Suite("Segmentation around spaced syllables")
struct SyllableSegmentationTests {
  static let list = """
    [lexicon.pinyin]
    lexicon:bu 6.9
    lexicon:cuo 5.1
    lexicon:bi 6.1
    lexicon:jiao 5.9
    lexicon:ni 6.6
    lexicon:shi 7.3
    lexicon:sha 5.7
    lexicon:hen 6.2
    lexicon:bu cuo 5.0
    lexicon:bi jiao 5.4
    lexicon:shi sha 2.1
    [profanity]
    cuo bi
    sha bi
    """

  static func matcher() throws -> Matcher {
    try Matcher(lists: [WordList(name: "zh-pinyin.txt", origin: .global, parsing: Self.list)])
  }

  @Test(arguments: [
    ("hen bu cuo bi jiao", [String]()),  // 很 不错 比较: both edges cut by likelier words
    ("bu cuo bi", []),  // 不错 + 逼
    ("cuo bi jiao", []),
    ("ni shi sha bi", ["sha bi"]),  // 是啥 is rarer than 是 and 傻逼 together
    ("sha bi", ["sha bi"]),
    ("cuo bi", ["cuo bi"]),
    ("you are bu cuo bi", []),  // the syllables before it are enough
    ("good cuo bi jiao", []),
    ("bu cuobi jiao", ["cuo bi"]),  // joined, the entry is one word: nothing to cut
    ("bu good cuo bi", ["cuo bi"]),  // context stops at a word that is no syllable
  ])
  func aSpacedMatchCutFromLikelierWordsIsNotReported(text: String, expected: [String]) throws {
    let matcher = try Self.matcher()
    #expect(matcher.matches(in: text).map(\.entry.text) == expected, "\(text)")
    if expected.isEmpty {
      #expect(matcher.explain(text).suppressed.contains { $0.reason == .crossesLexiconWord }, "\(text)")
    }
  }

  @Test func withoutTheReadingsNothingIsCut() throws {
    let list = Self.list.split(separator: "\n").filter { !$0.hasPrefix("lexicon:") }.joined(separator: "\n")
    let matcher = try Matcher(lists: [WordList(name: "zh-pinyin.txt", origin: .global, parsing: list)])
    #expect(matcher.matches(in: "hen bu cuo bi jiao").map(\.entry.text) == ["cuo bi"])
  }

  @Test func lintReadsSyllablesAsRead() {
    let file = WordListFile(parsing: "lexicon:bi jiao 5.4\nlexicon:bi  jiao\n", path: "zh-pinyin.txt")
    #expect(WordListLint.lint([file], origin: .global).filter { $0.message.contains("not read") }.isEmpty)
  }

  /// The reference: the text's words, the syllables (lexicon words of one word) around each
  /// run of words that spells an entry, and every segmentation of that window enumerated.
  static func naiveMatches(text: String, entries: [String], readings: [String: Int]) -> [String] {
    let words = text.split(separator: " ").map(String.init)
    var found: [(Int, String)] = []
    for entry in entries {
      let entryWords = entry.split(separator: " ").map(String.init)
      for start in 0...(words.count - entryWords.count)
      where Array(words[start..<start + entryWords.count]) == entryWords {
        let end = start + entryWords.count
        var left = start
        while left > 0, start - left < 3, readings[words[left - 1]] != nil { left -= 1 }
        var right = end
        while right < words.count, right - end < 3, readings[words[right]] != nil { right += 1 }
        let window = Array(words[left..<right])
        let allSyllables = entryWords.allSatisfy { readings[$0] != nil }
        let cut =
          allSyllables
          && SegmentationTests.naiveIsCut(count: window.count, entry: (start - left)..<(end - left)) { at, length in
            readings[window[at..<at + length].joined(separator: " ")]
          }
        if !cut { found.append((start, entry)) }
      }
    }
    return found.sorted { $0.0 < $1.0 }.map(\.1)
  }

  @Test func matchesAgreeWithEnumeratingEverySegmentation() throws {
    let syllables = ["bu", "cuo", "bi", "jiao", "ni", "shi", "sha", "good"]
    let readings: [String: Int] = [
      "bu": 69, "cuo": 51, "bi": 61, "jiao": 59, "ni": 66, "shi": 73, "sha": 57, "bu cuo": 50, "bi jiao": 54,
      "shi sha": 21, "ni shi": 45, "cuo bi jiao": 35, "sha bi jiao": 31,
    ]
    let lexicon = readings.map { "lexicon:\($0.key) \(Double($0.value) / 10)" }.sorted().joined(separator: "\n")
    let matcher = try Matcher(
      lists: [WordList(name: "zh-pinyin.txt", origin: .global, parsing: lexicon + "\n[profanity]\ncuo bi\nsha bi\n")])
    var generator = SeededGenerator(state: 34)
    for _ in 0..<2000 {
      let count = Int.random(in: 2...9, using: &generator)
      let text = (0..<count).map { _ in syllables[Int.random(in: 0..<syllables.count, using: &generator)] }
        .joined(separator: " ")
      let expected = Self.naiveMatches(text: text, entries: ["cuo bi", "sha bi"], readings: readings)
      #expect(matcher.matches(in: text).map(\.entry.text) == expected, "\(text)")
    }
  }
}
