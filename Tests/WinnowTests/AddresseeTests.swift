import Foundation
import Testing
import WinnowTestSupport

@_spi(Tools) @testable import Winnow

/// Insults that block where they are aimed at someone (``Entry/isInsult``, `AddresseeContext`),
/// and links that are not words of a language.
@Suite("Insults aimed at someone")
struct AddresseeTests {
  static let list = """
    [profanity: review, insult]
    白痴
    脑残
    去死
    废物
    moron
    retard
    retarded
    idiot
    [profanity: review]
    垃圾
    trash
    [profanity]
    傻逼
    """

  static func matcher() throws -> Matcher {
    try Matcher(lists: [WordList(name: "zh.txt", origin: .global, parsing: list)])
  }

  /// The action of the text's one match: `block`, `review`, or `none`.
  static func action(_ text: String, _ matcher: Matcher) -> String {
    guard let match = matcher.matches(in: text).first else { return "none" }
    return match.entry.action == .block ? "block" : "review"
  }

  @Test(arguments: [
    // Hits: an addressee word before the insult in its sentence, or 你 just after it.
    ("你这个白痴", "block"),
    ("你是脑残吗", "block"),
    ("你真是个大白痴", "block"),
    ("你们都是废物", "block"),
    ("妳个白痴", "block"),
    ("您是白痴吧", "block"),
    ("滚吧白痴", "block"),
    ("去死吧你", "block"),
    ("白痴你", "block"),
    ("你，白痴", "block"),  // a vocative: a comma does not end the sentence
    ("你 这 个 白 痴", "block"),
    ("you moron", "block"),
    ("you're such a moron", "block"),
    ("youre a retard", "block"),
    ("u r a fucking retard lol", "block"),
    ("ur retarded", "block"),
    ("you are such an idiot", "block"),
    ("You, idiot!", "block"),
    ("what a guy, such a moron", "block"),
    ("that moron again", "review"),  // `that` points at things as often as at people
    // Near misses: nobody addressed, or another person named nearer.
    ("我真是个白痴", "review"),
    ("白痴都懂的道理", "review"),
    ("你说我是白痴", "review"),
    ("你看他多白痴", "review"),
    ("你好。白痴的故事", "review"),  // another sentence
    ("你今天去了超市买了很多东西白痴", "review"),  // too far apart
    ("the idiot box", "review"),
    ("I'm such an idiot", "review"),
    ("I feel like such an idiot", "review"),
    ("she called me a moron", "review"),
    ("you know what, the other day some moron parked here", "review"),  // five words between
    ("you did well. idiot proof design", "review"),
    ("Retard the ignition timing", "review"),
    // Not insults: review entries without the mark stay flagged, blocks stay blocks.
    ("你这个垃圾", "review"),
    ("you trash", "review"),
    ("傻逼", "block"),
  ])
  func anInsultBlocksWhereAimed(text: String, action: String) throws {
    #expect(Self.action(text, try Self.matcher()) == action, "\(text)")
  }

  @Test func theMarkIsASectionOptionAndSurvivesCompiling() throws {
    let list = try WordList(name: "a.txt", origin: .global, parsing: "[p: review, insult]\nmoron\n[p: review]\ndope\n")
    #expect(list.entries.map(\.isInsult) == [true, false])
    #expect(WordListFile(parsing: "[p: insult, review]\nx\n", path: "b.txt").errors.isEmpty)
    let matcher = try Matcher(lists: [list])
    let bytes = matcher.compiledBytes(identity: Array("t".utf8))
    let decoded = try bytes.withUnsafeBytes { try Matcher(compiledBytes: $0, identity: Array("t".utf8)) }
    for text in ["you moron", "a moron", "you dope"] {
      #expect(decoded.matches(in: text) == matcher.matches(in: text), "\(text)")
    }
    #expect(Self.action("you moron", decoded) == "block")
  }

  @Test func aCategorySettingStillDecides() async throws {
    let global = try WordList(name: "zh.txt", origin: .global, parsing: Self.list)
    let engine = try ModerationEngine(
      global: [global], configuration: .init(categoryActions: ["profanity": .review]))
    let item = PrecisionTests.item("你这个白痴")
    let result = try await engine.moderate(item)
    #expect(result.verdict == .pass && result.flagged)
  }

  @Test(arguments: [
    ("ebony babe pussy http://t.co/abc", true),
    ("ebony babe pussy t.co/abc", true),
    ("pussy www.example.cz ok", true),
    ("@jan_novak pussy", true),
    ("pussy #jak #se #mas", true),
    ("pussy mail me at jak.se@mas.cz", true),
    ("jak se mas pussy", false),  // Czech words still count
  ])
  func linksTagsAndAddressesAreNotWords(text: String, matches: Bool) throws {
    let list = try WordList(name: "en.txt", origin: .global, parsing: "[sexual: lang=en, also=cs]\npussy\n")
    #expect(!(try Matcher(lists: [list]).matches(in: text)).isEmpty == matches, "\(text)")
  }

  @Test func chatShorthandCountsForEnglish() throws {
    let list = try WordList(name: "en.txt", origin: .global, parsing: "[profanity: lang=en, also=sv]\nbitch\n")
    let matcher = try Matcher(lists: [list])
    #expect(!matcher.matches(in: "ur a bird bitch").isEmpty)  // `ur` is Swedish too: a tie keeps it
    #expect(matcher.matches(in: "det är ur min bitch").isEmpty)  // Swedish words still count
  }

  /// The table of frequent words read at the space byte holds what splitting the generated
  /// text by `Character` gives (the simple reading): each word, with the bit of each language
  /// that lists it, and English chat's shorthand.
  @Test func frequentWordsAreReadWordByWord() {
    var expected: [String: UInt64] = [:]
    for pair in LanguageEvidence.frequentWords {
      guard let index = LanguageEvidence.codes.firstIndex(of: pair.key) else { continue }
      for word in pair.value.split(separator: " ") { expected[String(word), default: 0] |= 1 << UInt64(index) }
    }
    if let english = LanguageEvidence.codes.firstIndex(of: "en") {
      for word in LanguageEvidence.englishChatWords { expected[word, default: 0] |= 1 << UInt64(english) }
    }
    #expect(expected.count > 8_000)
    #expect(LanguageEvidence.languagesOfWord == expected)
  }

  /// The table of ASCII words answers as the table of strings: for each of its words, for each
  /// word with a letter changed, added or taken away, and for words that are in neither. No
  /// other word is equal to an ASCII one as a `String` (canonically equivalent), which the
  /// ASCII table, comparing bytes, would miss.
  @Test func asciiWordsAnswerAsTheTableOfStrings() {
    let table = LanguageEvidence.languagesOfWord
    let ascii = LanguageEvidence.asciiWords
    func bits(_ bytes: [UInt8]) -> UInt64? { bytes.withUnsafeBufferPointer { ascii.bits(of: $0) } }
    var generator = SeededGenerator(state: 58)
    var checked = 0
    for word in table.keys {
      guard word.utf8.allSatisfy({ $0 < 0x80 }) else {
        #expect(bits(Array(word.utf8)) == nil)
        // Its scalars mapped to their canonical decompositions: a word of other scalars could
        // only equal an ASCII word by decomposing into ASCII.
        let decomposed = word.unicodeScalars.flatMap { Self.canonicalASCII($0) }
        #expect(decomposed.contains { !$0.isASCII }, "\(word)")
        continue
      }
      #expect(bits(Array(word.utf8)) == table[word], "\(word)")
      var bytes = Array(word.utf8)
      for _ in 0..<3 {
        switch Int.random(in: 0..<3, using: &generator) {
        case 0 where !bytes.isEmpty:
          bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 97...122, using: &generator)
        case 1:
          bytes.insert(
            UInt8.random(in: 97...122, using: &generator), at: Int.random(in: 0...bytes.count, using: &generator))
        default:
          if !bytes.isEmpty { bytes.remove(at: Int.random(in: 0..<bytes.count, using: &generator)) }
        }
        #expect(bits(bytes) == table[String(decoding: bytes, as: UTF8.self)] ?? 0, "\(bytes)")
        checked += 1
      }
    }
    #expect(checked > 10_000)
    #expect(LanguageEvidence.nonASCIIWords == table.filter { $0.key.utf8.contains { $0 >= 0x80 } })
    #expect(LanguageEvidence.nonASCIIWords.count > 1_000)
    #expect(bits(Array("é".utf8)) == nil)
    #expect(bits([]) == 0)
  }

  /// The scalar, or what it decomposes to canonically when that is one ASCII scalar (the
  /// singletons `K` KELVIN SIGN → `K`, `;` GREEK QUESTION MARK → `;`, `` ` `` …).
  static func canonicalASCII(_ scalar: Unicode.Scalar) -> [Unicode.Scalar] {
    let decomposed = String(scalar).decomposedStringWithCanonicalMapping.unicodeScalars
    return decomposed.allSatisfy(\.isASCII) ? Array(decomposed) : [scalar]
  }

  @Test func unreadSpansAreTheLinkLikeRuns() {
    // `www.` begins a span in either case, and only with more after it.
    var text = "看http://t.co/x 和 a@b.c #tag www.x.org ok. t.co a/b WwW.Y.z www. wwwx.y"
    let spans = text.withUTF8 { bytes in
      LanguageEvidence.unreadSpans(bytes).map {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[$0]), as: UTF8.self)
      }
    }
    #expect(spans == ["http://t.co/x", "a@b.c", "#tag", "www.x.org", "WwW.Y.z"])
  }
}
