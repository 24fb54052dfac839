import Testing

@_spi(Tools) @testable import Winnow

/// The built-in lists of the languages rule 26 of SOURCES.md reads in a dictionary into English
/// (Apertium's pairs, or FreeDict's dictionaries where Apertium has none): an entry none of whose
/// English senses the English list blocks is flagged, one with a listed, derived or offensive
/// sense keeps blocking, and a flagged entry that is also another language's word stays scoped
/// to its own language.
@Suite("The built-in lists read through a dictionary")
struct TranslatedListTests {
  static let lists = builtInMatcher(["de", "es", "fi", "hu", "nl", "pl"].map { "\($0).txt" })

  @Test(arguments: [
    ("Ich habe eine Fratze gezogen", "review"),  // German: grimace
    ("Kup jajko na śniadanie", "review"),  // Polish: egg
    ("Hän näki haahka linnun", "review"),  // Finnish: eider
    ("Vete al infierno", "review"),  // Spanish (Apertium): hell
    ("Jij bent een nicht", "review"),  // Dutch: niece, cousin; the text is Dutch
    ("Du bist eine Fotze", "block"),  // cunt [vulg.]
    ("Ty jesteś dupek", "block"),  // asshole, marked pejorative
    ("Hän on pantava", "block"),  // fuckable: `fuck` and the common word `able`
    ("Kurafi", "block"),  // whoreson: `whore` and `son`
  ])
  func anEntryWhoseSensesAreOrdinaryIsFlagged(text: String, action: String) throws {
    #expect(try builtInAction(Self.lists, text) == action, "\(text)")
  }

  /// Dutch `nicht` is flagged by rule 26 and scoped to Dutch by rule 13: German text never sees it.
  @Test func aFlaggedWordOfTwoLanguagesStaysScoped() throws {
    let matches = try #require(Self.lists).matches(in: "Er ist nicht da, wir warten")
    #expect(matches.isEmpty, "\(matches.map(\.entry.text))")
  }
}
