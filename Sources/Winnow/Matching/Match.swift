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

/// Something a scan could not finish, reported beside the matches: a regex stopped at a limit.
public struct MatchWarning: Sendable, Hashable, CustomStringConvertible {
  /// The regex entry concerned.
  public let entry: Entry
  /// What happened, in lower case.
  public let message: String

  public var description: String {
    let place = entry.source.map { "\($0): " } ?? ""
    return "\(place)regex \"\(entry.text)\" stopped: \(message)"
  }
}

/// The result of a scan: the matches, and warnings about what could not be checked fully.
public struct MatchReport: Sendable, Hashable {
  /// Matches in order of start (then end).
  public var matches: [Match]
  /// Regex entries that hit a limit on this text; their later matches may be missing.
  public var warnings: [MatchWarning]
}
