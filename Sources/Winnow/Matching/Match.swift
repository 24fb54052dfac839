/// A match of a word-list entry in a text, reported on the original characters.
///
/// `Match` is a `Sendable` value. It refers to its entry in the compiled lists of the
/// ``Matcher`` that found it (which it keeps alive while it lives) rather than holding a copy:
/// a copy of an entry (its text, category, source and languages) was retained when a match was
/// made and released when it was dropped, several reference counts a match (measured in
/// `Benchmarks/HISTORY.md`). ``entry``, ``origin`` and ``list`` read them there.
public struct Match: Sendable {
  /// The compiled lists that hold the entry, and its index there.
  private let layer: MatcherLayer
  private let entryIndex: Int
  /// The action the match has when it is not its entry's (a switched category, a name's word).
  private let actionOverride: Entry.Action?
  /// The UTF-8 byte range of the match in the original text.
  public let range: Range<Int>
  /// The original text of the match (`Ｆ.u.c.k`, not `fuck`).
  public let text: String

  /// A match of entry `entryIndex` of `layer`.
  init(layer: MatcherLayer, entryIndex: Int, range: Range<Int>, text: String, action: Entry.Action? = nil) {
    self.layer = layer
    self.entryIndex = entryIndex
    self.range = range
    self.text = text
    self.actionOverride = action
  }

  /// The entry that matched, with its category and source line.
  public var entry: Entry {
    guard let actionOverride else { return layer.entries[entryIndex].entry }
    var entry = layer.entries[entryIndex].entry
    entry.action = actionOverride
    return entry
  }

  /// What a match of the entry does: ``entry``'s action, read without copying the entry.
  package var action: Entry.Action { actionOverride ?? layer.entries[entryIndex].entry.action }

  /// The entry's category, read without copying the entry.
  package var category: String? { layer.entries[entryIndex].entry.category }

  /// ``Entry/isAlsoName`` and ``Entry/isInsult`` of the entry, read without copying it.
  var isAlsoName: Bool { layer.entries[entryIndex].entry.isAlsoName }
  var isInsult: Bool { layer.entries[entryIndex].entry.isInsult }

  /// Whether the entry is from the global list or a custom one.
  public var origin: WordList.Origin { layer.entries[entryIndex].origin }

  /// The name of the list (its file path, for a file).
  public var list: String { layer.list(ofEntry: entryIndex) }
}

extension Match: Hashable {
  /// Equal when the entries, origins, lists, ranges and texts are.
  public static func == (left: Match, right: Match) -> Bool {
    guard left.range == right.range, left.text == right.text else { return false }
    if left.layer === right.layer && left.entryIndex == right.entryIndex && left.actionOverride == right.actionOverride
    {
      return true
    }
    return left.entry == right.entry && left.origin == right.origin && left.list == right.list
  }

  /// Hashes what ``==`` compares.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(entry)
    hasher.combine(origin)
    hasher.combine(list)
    hasher.combine(range)
    hasher.combine(text)
  }
}

extension Match {
  /// This match with its entry given another action (a switched category, a name's word).
  func withAction(_ action: Entry.Action) -> Match {
    Match(layer: layer, entryIndex: entryIndex, range: range, text: text, action: action)
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
