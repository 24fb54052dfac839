import PropertyBased
import Testing

@_spi(Tools) @testable import Winnow

/// Arabic-script entries meet their word across a clitic at most, and Arabic marks and the
/// tatweel do not hide them.
@Suite("Arabic-script word edges")
struct ArabicWordEdgesTests {
  static let list = """
    [profanity]
    طيز
    لعق
    اغتصاب
    جماع
    کیر
    تخمی
    sub:مص
    [profanity: review]
    كس
    لش
    """

  static func matched(_ text: String) throws -> [String] {
    try Matcher(lists: [WordList(name: "ar.txt", origin: .global, parsing: list)]).matches(in: text).map(\.text)
  }

  @Test(arguments: [
    ("كس", ["كس"]),
    ("الطيز", ["طيز"]),  // article
    ("وبالطيز", ["طيز"]),  // and + with + the
    ("طيزها", ["طيز"]),  // her
    ("للطيز كبير", ["طيز"]),
    ("کیرم", ["کیر"]),  // Persian: my
    ("کیرهای", ["کیر"]),  // Persian plural + of
    ("كير", ["كير"]),  // Persian typed with the Arabic kaf and yeh
    ("كَـس", ["كَـس"]),  // a vowel mark and a tatweel inside
    ("إغتصاب", ["إغتصاب"]),  // alef with hamza below reads as alef
    ("الاغتصاب", ["اغتصاب"]),
    ("طي\u{200C}ز", ["طي\u{200C}ز"]),  // a zero-width non-joiner inside
    ("واللعق", ["للعق"]),  // the article's `ل` merges with the entry's: the match takes both
    ("طيززز", ["طيززز"]),  // a stretched letter
    ("العقل", []),  // the mind: `لعق` inside
    ("عكس", []),  // reverse: `كس` after a letter that is no proclitic
    ("للشبكة", []),  // for the network: `لش` runs on into the word
    ("بكسل", []),  // pixel
    ("جماعة", []),  // group: the feminine ending makes another word
    ("شکست", []),  // Persian defeat
    ("عمر باتری تخمینی است", []),  // estimated: a Persian entry takes no Arabic `ني` (me)
    ("تخمیش", ["تخمی"]),  // Persian: its
    ("کیرتان", ["کیر"]),  // Persian: your
    ("کیرکم", []),  // the Arabic `كم` (your) after a Persian entry
    ("طيزنا", ["طيز"]),  // Arabic: our; the entry has no Persian letter
    ("مصر", ["مص"]),  // `sub:` keeps matching anywhere
    ("ك س", ["ك س"]),  // spelled out
    ("ط.ي.ز.ه.ا", ["ط.ي.ز"]),  // spelled out, a pronoun joined
    ("و ك س", ["ك س"]),  // spelled out after a conjunction
    ("ا ل ع ق ل", []),  // the mind spelled out: `لعق` still inside a word
  ])
  func entriesMeetTheirWord(text: String, expected: [String]) throws {
    #expect(try Self.matched(text) == expected)
  }

  /// A word of letters that include the clitics' own, against the rule stated as a regular
  /// expression: the word is a prefix (or nothing), the entry with each letter written at
  /// least as often as in the entry, and a suffix of its language (or nothing). Repeated letters merge in the
  /// prefix and suffix as everywhere (`نلهه` reads as `نله`).
  static let letters: [Character] = ["ا", "ل", "و", "ب", "ك", "ه", "م", "ي", "ن", "ع", "ف", "ت", "پ"]
  static let letterGen = Gen.int(in: 0...(letters.count - 1)).map { letters[$0] }

  static func reference(entry: String, word: String) throws -> Bool {
    var runs: [(letter: Character, count: Int)] = []
    for letter in entry {
      if runs.last?.letter == letter { runs[runs.count - 1].count += 1 } else { runs.append((letter, 1)) }
    }
    let stretched = runs.map { "\($0.letter){\($0.count),}" }.joined()
    func repeatable(_ affixes: [String]) -> String {
      affixes.map { affix in affix.map { "\($0)+" }.joined() }.joined(separator: "|")
    }
    // An entry with `پ`, a letter only Persian writes, takes Persian suffixes only.
    let suffixes = repeatable(entry.contains("پ") ? ArabicWordEdges.persianSuffixes : ArabicWordEdges.suffixes)
    let prefixes = repeatable(ArabicWordEdges.prefixes)
    return try Regex("(?:\(prefixes))?\(stretched)(?:\(suffixes))?").wholeMatch(in: word) != nil
  }

  @Test func referenceReadsRepeats() throws {
    #expect(try Self.reference(entry: "لعق", word: "اللعق"))
    #expect(try Self.reference(entry: "لل", word: "واللل"))
    #expect(try !Self.reference(entry: "لل", word: "والل"))
    #expect(try !Self.reference(entry: "لل", word: "ول"))
    #expect(try !Self.reference(entry: "لعق", word: "العق"))
    #expect(try Self.reference(entry: "نل", word: "نلهه"))
    #expect(try Self.reference(entry: "بل", word: "بلني"))
    #expect(try !Self.reference(entry: "پل", word: "پلني"))
    #expect(try Self.reference(entry: "پل", word: "پلهايم"))
  }

  @Test func wordsMatchExactlyWhenTheRestIsACliticProperty() async {
    await propertyCheck(count: 500, input: Self.letterGen.string(of: 2...3), Self.letterGen.string(of: 0...7)) {
      entry, word in
      let matcher = try Matcher(lists: [WordList(name: "ar.txt", origin: .global, parsing: entry)])
      let expected = try Self.reference(entry: entry, word: word)
      #expect(!matcher.matches(in: "1. " + word + ".").isEmpty == expected, "\(entry) in \(word)")
    }
  }

  /// Rule 13 of SOURCES.md over Arabic, Persian and Urdu: a Persian entry that is a common
  /// Arabic or Urdu word is scoped to Persian, and the language detector tells the three apart.
  static let builtIn = builtInMatcher(["ar.txt", "fa.txt"])

  @Test(arguments: [
    ("لا يجب أن تجاوز الحد في هذه الحالة", false),  // Arabic: to exceed
    ("آپ کون ہیں اور کہاں سے آئے ہیں", false),  // Urdu: who
    ("او به من تجاوز کرد", true),  // Persian: he raped me
    ("هذه الهدية مني إليك", false),  // Arabic: from me, which Persian semen (منی) folds to
    ("کون تو", true),  // too short to tell a language: the entry keeps matching
  ])
  func aPersianEntryThatIsAnArabicOrUrduWordIsScoped(text: String, matches: Bool) throws {
    let found = try #require(Self.builtIn).matches(in: text)
    #expect(!found.isEmpty == matches, "\(text): \(found.map(\.entry.text))")
  }
}
