import Testing
import WinnowTestSupport

@_spi(Tools) @testable import Winnow

/// The built-in English list as rule 6 of SOURCES.md leaves it: a word WordNet gives no
/// offensive sense is flagged when only better-profanity lists it, when it is frequent or when it
/// names a product; one better-profanity alone lists that is frequent is not in the default list
/// at all (opt-in); a word with an offensive sense, or derived from a blocking word of LDNOOBW,
/// keeps blocking; and an entry the engine reads as a flagged word is flagged with it.
@Suite("The built-in English list and rule 6")
struct EnglishListTests {
  static let english = builtInMatcher(["en.txt"])
  static let optional: Matcher? = {
    let path = repositoryRoot.appendingPathComponent("wordlists/optional/en-ordinary.txt").path
    guard let list = try? WordList.load(path: path, origin: .global) else { return nil }
    return try? Matcher(lists: [list])
  }()

  @Test(arguments: [
    ("Fifteen men and a bottle of rum", "review"),  // better-profanity only; WordNet: a liquor
    ("He left his watch at the pawn shop", "review"),
    ("The urinal is out of order", "review"),
    ("Talking about sex education", "review"),  // in both lists, frequent, no offensive sense
    ("Bring me a Twinkie", "review"),  // a trademark, though it holds LDNOOBW's `twink`
    ("omg that was close", "review"),  // frequent, unknown to WordNet, better-profanity only
    ("what a fucker", "block"),  // holds LDNOOBW's `fuck`
    ("that is crap", "block"),  // WordNet: obscene terms for feces
    ("screw you", "block"),  // one obscene sense among ordinary ones
    ("fuck off", "block"),
  ])
  func aWordIsJudgedByItsDictionarySenses(text: String, action: String) throws {
    #expect(try builtInAction(Self.english, text) == action, "\(text)")
  }

  /// `h0m0` reads as `homo`, a word rule 6 flags (and a human being in Esperanto): it is
  /// flagged too, so the spelling does not block where the word is only flagged.
  @Test func aSpellingOfAFlaggedWordIsFlagged() throws {
    let matches = try #require(Self.english).matches(in: "homo sapiens")
    #expect(!matches.isEmpty && matches.allSatisfy { $0.entry.action == .review }, "\(matches.map(\.entry.text))")
  }

  /// Frequent words better-profanity alone lists, with no offensive sense, are opt-in.
  @Test(arguments: ["kill", "god", "hell", "stupid"])
  func aFrequentOrdinaryWordIsOptIn(word: String) throws {
    #expect(try #require(Self.english).matches(in: "oh \(word) it is").isEmpty)
    #expect(try !#require(Self.optional).matches(in: "oh \(word) it is").isEmpty)
  }

  /// Rules 28 and 29 of SOURCES.md: inflections block as their entry does unless WordNet knows
  /// the form as an ordinary word, and an insult too ordinary to block alone blocks where aimed.
  @Test(
    arguments: [
      ("you assholes", "block"),
      ("bastards", "block"),
      ("those sluts", "block"),
      ("a slutty outfit", "block"),
      ("the potters of Delft", nil),  // `potter`, not `pot` inflected
      ("a cocky grin", nil),  // WordNet: overly self-confident
      ("you moron", "block"),
      ("ur such a retard", "block"),
      ("the moron in the film", "review"),
      ("I'm such a moron", "review"),
      ("ur a bird bitch", "block"),  // `ur` is chat's English as much as Swedish
      ("ebony babe pussy http://t.co/abc", "block"),  // `t.co` is a link, not Czech
      // Rule 31's lists, and rules 6, 28 and 29 on them.
      ("you idiot", "block"),  // a person noun only: flagged and an insult, not opt-in
      ("I'm such an idiot", "review"),
      ("you morons", "block"),  // an insult's plural is an insult
      ("those retards", "review"),
      ("dirty dishes", "review"),  // WordNet's first sense: soiled
      ("call a spade a spade", "review"),
      ("Hori dago", "review"),  // Basque "it is there": Hunspell's Basque dictionary
      ("you dago", "block"),
      ("Moby Dick", "review"),  // `d1ck` is `dick` spelled otherwise, not a copy without `name`
      ("you d1ck", "block"),
      // Rule 33: WordNet's nouns of abuse, not those whose first sense is ordinary.
      ("go home you white trash", "block"),
      ("what a load of horseshit", "block"),
      ("you greaseballs", "block"),  // the plural only, as for a noun
      ("hey you boys", nil),  // `boy` has an ethnic-slur sense; its first is a male child
      ("the queen and her suit", nil),
    ] as [(String, String?)])
  func inflectionsAndAimedInsults(text: String, action: String?) throws {
    #expect(try builtInAction(Self.english, text) == action, "\(text)")
  }
}

/// The built-in English list in other languages' text (rule 13 of SOURCES.md): an entry that is
/// also a common word of some languages does not match in their text, and matches in any other
/// language's, as English insults are written in chat of every language.
@Suite("The built-in English list in other languages' text")
struct EnglishInOtherLanguagesTests {
  static let english = builtInMatcher(["en.txt"])

  @Test(
    arguments: [
      ("Je suis une slut", "block"),  // French: slut is a Swedish word, not a French one
      ("Du bist so ein fucking Idiot", "block"),  // German
      ("ty jesteś nigger", "block"),  // Polish
      ("u r a slut", "block"),  // one-letter words count for no language
      ("Det är slut nu", nil),  // Swedish: slut, the end
      ("Das ist dick", nil),  // German: thick
      ("Du bist ein Nigger", "block"),  // German's dictionary knows the word in its English sense only
      ("Das Kraut im Garten", nil),  // German: herb; the dictionary gives ordinary senses
    ] as [(String, String?)])
  func anEntryIsKeptOnlyFromTheLanguagesItIsAWordOf(text: String, action: String?) throws {
    #expect(try builtInAction(Self.english, text) == action, "\(text)")
  }
}
