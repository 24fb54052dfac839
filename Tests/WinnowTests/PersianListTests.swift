import Testing

@_spi(Tools) @testable import Winnow

/// The built-in Persian list (`wordlists/global/fa.txt`) under rule 16 of SOURCES.md: an entry
/// that standard Persian uses often (hazm's lexicon, Zipf 4.0 or more) has an ordinary sense and
/// is flagged, while vulgar words, which that lexicon all but never counts, keep blocking.
@Suite("The built-in Persian list")
struct PersianListTests {
  static let persian = builtInMatcher(["fa.txt"])

  @Test(arguments: [
    ("کلید سوپر را روی صفحه‌کلیدتان بفشارید", "review"),  // the Super key (also slang for porn)
    ("رفتم سوپر و نان خریدم", "review"),  // the grocery store
    ("تجاوز به حریم هوایی کشور", "review"),  // violation (also rape)
    ("این فیلم سوپر است", "block"),  // `فیلم سوپر`, a porn film: the phrase keeps blocking
    ("کیر خر", "block"),
    ("جنده", "block"),
  ])
  func aWordStandardPersianUsesOftenIsFlagged(text: String, action: String) throws {
    #expect(try builtInAction(Self.persian, text) == action, "\(text)")
  }
}
