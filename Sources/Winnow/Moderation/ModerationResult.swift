/// A match of a word-list entry in one text field of an item.
public struct FieldMatch: Sendable, Hashable {
  /// The field the match is in.
  public var field: FieldLocation
  /// The match; its range is in the field's text.
  public var match: Match

  public init(field: FieldLocation, match: Match) {
    self.field = field
    self.match = match
  }
}

/// The verdict on one item and everything behind it.
public struct ModerationResult: Sendable, Hashable {
  /// Deliver unchanged, deliver rewritten, or block.
  public enum Verdict: String, Sendable, Hashable, CaseIterable {
    case pass
    case replaced
    case blocked
  }

  /// The verdict.
  public var verdict: Verdict
  /// The item as it is delivered: for ``Verdict/replaced``, with its content rewritten (only
  /// the moderated strings changed); otherwise as it came in.
  public var item: MessageItem
  /// Who blocked the item; nil unless blocked.
  public var blockType: BlockType?
  /// Which kind of entry fired: none, a block word, or only replace words.
  public var sensitiveType: SensitiveType
  /// The record for the sender; nil unless blocked.
  public var record: BlockedMessageInfo?
  /// Every match of a block or replace entry, in field order.
  public var matches: [FieldMatch]
  /// Regex entries that stopped at a limit while scanning this item.
  public var warnings: [MatchWarning]
  /// What the third-party reviewer said, when it was asked.
  public var review: ReviewReport?

  /// The rewritten content, for a replaced item.
  public var replacedContent: JSONValue? { verdict == .replaced ? item.content : nil }
}

/// The third-party reviewer's part in a result.
public struct ReviewReport: Sendable, Hashable {
  /// The answer, when there was one.
  public var decision: ReviewDecision?
  /// Why there was no answer (`no answer within 3.0 seconds`, a connection error …).
  public var failure: String?
  /// True when the reviewer's answer or failure decided that the item is blocked.
  public var blocked: Bool
  /// From asking to the answer, failure or timeout (not in ``json``, which stays the same from
  /// run to run).
  public var elapsed: Duration
}

extension ModerationResult {
  /// The result as one JSON object: `verdict`, `blockType` and `sensitiveType`, `record` when
  /// blocked, `content` (the rewritten content) when replaced, `matches` (each with `field`,
  /// `text`, `start`, `end` in UTF-8 bytes of the field, `entry`, `kind`, `action`,
  /// `replacement`, `origin`, `list`, `file`, `line`, `category`), `review` when the reviewer was
  /// asked, and `warnings` when there are any.
  public var json: JSONValue {
    var members: [JSONMember] = [
      JSONMember(key: "verdict", value: .string(verdict.rawValue)),
      JSONMember(key: "blockType", value: blockType.map { .number(String($0.rawValue)) } ?? .null),
      JSONMember(key: "sensitiveType", value: .number(String(sensitiveType.rawValue))),
    ]
    if let record { members.append(JSONMember(key: "record", value: record.json)) }
    if let replacedContent { members.append(JSONMember(key: "content", value: replacedContent)) }
    members.append(JSONMember(key: "matches", value: .array(matches.map(\.json))))
    if let review { members.append(JSONMember(key: "review", value: review.json)) }
    if !warnings.isEmpty {
      members.append(JSONMember(key: "warnings", value: .array(warnings.map { .string($0.description) })))
    }
    return .object(members)
  }
}

extension FieldMatch {
  /// The match as a JSON object (see ``ModerationResult/json``).
  public var json: JSONValue {
    var members: [JSONMember] = [JSONMember(key: "field", value: .string(field.description))]
    members += match.jsonMembers
    return .object(members)
  }
}

extension Match {
  /// `text, start, end, entry, kind, action, [replacement], origin, list, [file, line], category`.
  public var jsonMembers: [JSONMember] {
    var members: [JSONMember] = [
      JSONMember(key: "text", value: .string(text)),
      JSONMember(key: "start", value: .number(String(range.lowerBound))),
      JSONMember(key: "end", value: .number(String(range.upperBound))),
      JSONMember(key: "entry", value: .string(entry.text)),
      JSONMember(key: "kind", value: .string(entry.kind.rawValue)),
    ]
    switch entry.action {
    case .block: members.append(JSONMember(key: "action", value: "block"))
    case .allow: members.append(JSONMember(key: "action", value: "allow"))
    case .lexicon: members.append(JSONMember(key: "action", value: "lexicon"))
    case .replace(let replacement):
      members.append(JSONMember(key: "action", value: "replace"))
      members.append(JSONMember(key: "replacement", value: .string(replacement)))
    }
    members.append(JSONMember(key: "origin", value: .string(origin.rawValue)))
    members.append(JSONMember(key: "list", value: .string(list)))
    if let source = entry.source {
      members.append(JSONMember(key: "file", value: .string(source.file)))
      members.append(JSONMember(key: "line", value: .number(String(source.line))))
    }
    members.append(JSONMember(key: "category", value: entry.category.map(JSONValue.string) ?? .null))
    return members
  }
}

extension ReviewReport {
  /// `{"outcome":…,"labels":[…],"extra":…,"failure":…,"blocked":…}`.
  public var json: JSONValue {
    var members: [JSONMember] = []
    if let decision {
      members.append(JSONMember(key: "outcome", value: .string(decision.outcome.rawValue)))
      members.append(JSONMember(key: "labels", value: .array(decision.labels.map(JSONValue.string))))
      if let extra = decision.extra { members.append(JSONMember(key: "extra", value: .string(extra))) }
    }
    if let failure { members.append(JSONMember(key: "failure", value: .string(failure))) }
    members.append(JSONMember(key: "blocked", value: .bool(blocked)))
    return .object(members)
  }
}
