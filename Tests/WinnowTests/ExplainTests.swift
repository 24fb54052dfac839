import Testing

@_spi(Tools) @testable import Winnow

/// `Matcher.explain`: where an entry was found but not reported, and why, for someone tuning a
/// list (`winnow check --suppressed`).
@Suite("Suppressed matches")
struct ExplainTests {
  static func matcher(_ lines: String) throws -> Matcher {
    try Matcher(lists: [WordList(name: "list.txt", origin: .custom, parsing: lines)])
  }

  static func reasons(_ matcher: Matcher, _ text: String) -> [String] {
    matcher.explain(text).suppressed.map { item in
      let why =
        switch item.reason {
        case .allowed(let entry): "allowed by \(entry.text)"
        case .crossesLexiconWord: "lexicon"
        case .startInsideWord: "start"
        case .endInsideWord: "end"
        case .tooFewRepeats: "repeats"
        case .otherLanguage: "language"
        }
      return "\(item.match.text) \(item.match.range.lowerBound) \(why)"
    }
  }

  @Test func eachReasonIsNamed() throws {
    let matcher = try Self.matcher("ass\nsub:cla\nallow:class\nlexicon:入住\nword:日入\nfuuck\n")
    #expect(Self.reasons(matcher, "bass") == ["ass 1 start"])
    #expect(Self.reasons(matcher, "assess") == ["ass 0 end"])
    #expect(Self.reasons(matcher, "a class") == ["cla 2 allowed by class", "ass 4 start"])
    #expect(Self.reasons(matcher, "18日入住") == ["日入 2 lexicon"])
    #expect(Self.reasons(matcher, "fuck") == ["fuck 0 repeats"])
  }

  @Test func explainingChangesNoMatch() throws {
    let matcher = try Self.matcher("ass\nsub:cla\nallow:class\nlexicon:入住\nword:日入\n")
    for text in ["bass ass", "a class clan", "18日入住, 日入过万", "ａｓｓ", ""] {
      let (report, suppressed) = matcher.explain(text)
      #expect(report == matcher.scan(text))
      // A span reported as a match is not also listed as suppressed for the same entry.
      for item in suppressed {
        #expect(!report.matches.contains { $0.entry == item.match.entry && $0.range == item.match.range })
      }
    }
    #expect(Self.reasons(matcher, "a class clan") == ["cla 2 allowed by class", "ass 4 start"])
    #expect(matcher.explain("a class clan").report.matches.map(\.text) == ["cla"])
  }

  /// A candidate one walk rejects and the other accepts is a match, not a suppressed one: in
  /// `日入x住` the walk without the optional `x` reads `日入住` (日入 cut from 入住), the walk with
  /// it reads `日入x住` (no lexicon word after 日入).
  @Test func acceptedByEitherWalkIsNotSuppressed() throws {
    let matcher = try Self.matcher("lexicon:入住\nword:日入\n")
    let (report, suppressed) = matcher.explain("日入x住")
    #expect(report.matches.map(\.text) == ["日入"])
    #expect(suppressed.isEmpty)
  }
}
