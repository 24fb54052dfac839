/// A match of a word-list entry in a text, reported on the original characters.
///
/// `Match` is a `Sendable` value.
public struct Match: Sendable, Hashable {
  /// The entry that matched, with its category and source line.
  public let entry: Entry
  /// Whether the entry is from the global list or a custom one.
  public let origin: WordList.Origin
  /// The name of the list (its file path, for a file).
  public let list: String
  /// The UTF-8 byte range of the match in the original text.
  public let range: Range<Int>
  /// The original text of the match (`Ｆ.u.c.k`, not `fuck`).
  public let text: String
}

extension Match {
  /// This match with its entry given another action (a switched category, a name's word).
  func withAction(_ action: Entry.Action) -> Match {
    var entry = self.entry
    entry.action = action
    return Match(entry: entry, origin: origin, list: list, range: range, text: text)
  }
}

/// Where an entry's text was found but not reported, and why: what ``Matcher/explain(_:kind:)``
/// lists, so that someone tuning a list can see why `class` does not match `ass`.
@_spi(Tools) public struct SuppressedMatch: Sendable, Hashable {
  /// Why a found entry was not reported.
  public enum Reason: Sendable, Hashable {
    /// Inside the span of an allow entry's match (`ass` inside `class`, with `allow:class`).
    case allowed(by: Entry)
    /// A `word:` entry cut from two neighbouring lexicon words (`日入` in `18日入住`).
    case crossesLexiconWord
    /// A whole-word entry with a word character right before it (`ass` in `bass`).
    case startInsideWord
    /// A whole-word entry with a word character right after it (`ass` in `assess`).
    case endInsideWord
    /// Fewer repeated letters in the text than the entry writes.
    case tooFewRepeats
    /// An entry of one language (``Entry/language``) in a text written in another (Dutch
    /// `nicht` in German `Er ist nicht da`).
    case otherLanguage
  }

  /// The entry and where it was found, as a match would report it.
  public let match: Match
  /// Why it was not reported.
  public let reason: Reason
}

/// Something a scan could not finish, reported beside the matches: a regex stopped at a limit.
@_spi(Tools) public struct MatchWarning: Sendable, Hashable, CustomStringConvertible {
  /// The regex entry concerned.
  public let entry: Entry
  /// What happened, in lower case.
  public let message: String
  /// Whether the entry is from the global list or a custom one.
  public var origin: WordList.Origin = .custom

  init(entry: Entry, message: String, origin: WordList.Origin = .custom) {
    self.entry = entry
    self.message = message
    self.origin = origin
  }

  /// The warning as one line: the entry and the limit it stopped at.
  public var description: String {
    let place = entry.source.map { "\($0): " } ?? ""
    return "\(place)regex \"\(entry.text)\" stopped: \(message)"
  }
}

/// The result of a scan: the matches, and warnings about what could not be checked fully.
@_spi(Tools) public struct MatchReport: Sendable, Hashable {
  /// Matches in order of start (then end).
  public var matches: [Match]
  /// Regex entries that hit a limit on this text; their later matches may be missing.
  public var warnings: [MatchWarning]
}
