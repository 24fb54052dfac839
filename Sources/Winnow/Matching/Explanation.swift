/// Why a text matched what it matched: the JSON `winnow check --json --suppressed` prints and
/// `POST /v1/explain` answers for each field, built in one place so the two never differ.
@_spi(Tools) public enum Explanation {
  /// The report of `text`: its matches (with `actions` switching categories; the deciding ones
  /// unless `overlapping`), and with `suppressed` what was found but not reported.
  public static func explain(
    _ text: String, matcher: Matcher, actions: [String: ModerationEngine.CategoryAction], suppressed: Bool,
    overlapping: Bool = false
  ) -> (MatchReport, [SuppressedMatch]) {
    var (report, hidden) = suppressed ? matcher.explain(text, kind: nil) : (matcher.scan(text, kind: nil), [])
    if !actions.isEmpty { report.matches = report.matches.map { $0.switchingCategory(actions) } }
    if !overlapping { report.matches = Match.deciding(report.matches) }
    return (report, hidden)
  }

  /// `{"text", "matches": [match…], "masked", "warnings": [text…], "suppressed": [match + "reason"…]}`,
  /// `suppressed` only when something was. Offsets are UTF-8 bytes of `text`.
  public static func json(text: String, report: MatchReport, suppressed: [SuppressedMatch] = []) -> JSONValue {
    var members = [
      JSONMember(key: "text", value: .string(text)),
      JSONMember(key: "matches", value: .array(report.matches.map { .object($0.jsonMembers) })),
      JSONMember(key: "masked", value: .string(Match.mask(text, matches: report.matches))),
      JSONMember(key: "warnings", value: .array(report.warnings.map { .string($0.description) })),
    ]
    if !suppressed.isEmpty {
      let items = suppressed.map { item in
        JSONValue.object(item.match.jsonMembers + [JSONMember(key: "reason", value: .string(reason(item.reason)))])
      }
      members.append(JSONMember(key: "suppressed", value: .array(items)))
    }
    return .object(members)
  }

  /// Why a match was not reported, in words.
  public static func reason(_ reason: SuppressedMatch.Reason) -> String {
    switch reason {
    case .allowed(let entry):
      "inside allowed \(JSONValue.string(entry.text).jsonString)\(entry.source.map { " (\($0))" } ?? "")"
    case .crossesLexiconWord: "cut from two words of the lexicon (a word: entry)"
    case .startInsideWord: "a word character right before it (a whole-word entry)"
    case .endInsideWord: "a word character right after it (a whole-word entry)"
    case .tooFewRepeats: "fewer repeated letters than the entry writes"
    case .otherLanguage: "the text is written in another language than the entry's"
    }
  }
}
