/// A match of a word-list entry in one text field of an item.
public struct FieldMatch: Sendable, Hashable {
  /// The field the match is in.
  public var field: FieldLocation
  /// The match; its range is in the field's text.
  public var match: Match

  /// Creates a field match.
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
  @_spi(Tools) public var warnings: [MatchWarning]
  /// What the third-party reviewer said, when it was asked.
  @_spi(Tools) public var review: ReviewReport?

  /// Whether a review entry matched (or the check could not finish and
  /// ``ModerationEngine/Configuration/onIncomplete`` is review) and the item was not blocked:
  /// the item is delivered (the reviewer, when configured, was asked), and the match is
  /// reported for people to look at.
  public var flagged: Bool {
    verdict != .blocked
      && (flagsIncomplete || scoreFlagged || matches.contains { $0.match.action == .review })
  }

  /// The scorer's score of the item, when a scorer was asked
  /// (``ModerationEngine/Configuration/scoring``); nil otherwise. For an item a global block
  /// entry matched (with a clear threshold set), the score that decided whether to clear it
  /// (the highest of its texts and clauses, see ``ScoringPolicy/clearThreshold``); else the
  /// highest score of its delivered texts. Nil for an item a custom list blocked.
  public var score: Double?
  /// Whether the score reached the review threshold but not the block threshold.
  var scoreFlagged = false
  /// Whether the score cleared the global list's block (``ScoringPolicy/clearThreshold``): the
  /// item was delivered, flagged, with those matches as review matches.
  public internal(set) var scoreCleared = false
  /// Whether the score blocked the item (block type 3).
  @_spi(Tools) public internal(set) var scoreBlocked = false

  /// Whether a check could not finish (a regex stopped at its limits, see ``warnings``): the
  /// verdict is then the one ``ModerationEngine/Configuration/onIncomplete`` chose.
  public var incomplete: Bool { !warnings.isEmpty }

  /// Whether the item is flagged because its check could not finish (``ModerationEngine/IncompleteAction/review``).
  var flagsIncomplete = false

  /// The rewritten content, for a replaced item.
  public var replacedContent: JSONValue? { verdict == .replaced ? item.content : nil }
}

/// The third-party reviewer's part in a result.
@_spi(Tools) public struct ReviewReport: Sendable, Hashable {
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
  /// The result as one JSON object: `appKey` and `fromUserId` when the item has them,
  /// `verdict`, `blockType` and `sensitiveType`, `record` when
  /// blocked, `flagged: true` when a review entry matched an item that was not blocked, `content`
  /// (the rewritten content) when replaced, `matches` (each with `field`,
  /// `text`, `start`, `end` in UTF-8 bytes of the field, `entry`, `kind`, `action`,
  /// `replacement`, `origin`, `list`, `file`, `line`, `category`), `review` when the reviewer was
  /// asked, and `warnings` when there are any. The same text ``write(to:)`` writes, read back.
  public var json: JSONValue { JSONValue(written: write) }

  /// Writes ``json`` without building it.
  @_spi(Tools) public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    writeMembers(to: &writer)
    writer.endObject()
  }

  /// Writes the members of ``json`` into an object the caller has opened, so that it can put
  /// members of its own around them (`winnow scan` puts the file and line first).
  @_spi(Tools) public func writeMembers(to writer: inout JSONWriter) {
    // The sender, where the item names one: who an operator looks for after a block.
    if let appKey = item.appKey, !appKey.isEmpty {
      writer.key("appKey")
      writer.string(appKey)
    }
    if !item.fromUserId.isEmpty {
      writer.key("fromUserId")
      writer.string(item.fromUserId)
    }
    writer.key("verdict")
    writer.string(verdict.rawValue)
    writer.key("blockType")
    if let blockType { writer.number(blockType.rawValue) } else { writer.null() }
    writer.key("sensitiveType")
    writer.number(sensitiveType.rawValue)
    if flagged {
      writer.key("flagged")
      writer.bool(true)
    }
    if let score {
      writer.key("score")
      writer.value(.number(ModerationEngine.scoreText(score)))
    }
    if scoreCleared {
      writer.key("cleared")
      writer.bool(true)
    }
    if let record {
      writer.key("record")
      record.write(to: &writer)
    }
    if let replacedContent {
      writer.key("content")
      writer.value(replacedContent)
      // The push texts as delivered, rewritten or not: what the lock screen will show.
      if let push = item.pushContent {
        writer.key("pushContent")
        writer.string(push)
      }
      if let data = item.pushData {
        writer.key("pushData")
        writer.string(data)
      }
      if let ext = item.pushExt {
        writer.key("pushExt")
        writer.value(ext)
      }
    }
    writer.key("matches")
    writer.beginArray()
    // By index: iterating would copy each match, a retain for each of its strings.
    for index in matches.indices { matches[index].write(to: &writer) }
    writer.endArray()
    if let review {
      writer.key("review")
      review.write(to: &writer)
    }
    if !warnings.isEmpty {
      writer.key("incomplete")
      writer.bool(true)
      writer.key("warnings")
      writer.beginArray()
      for warning in warnings { writer.string(warning.description) }
      writer.endArray()
    }
  }
}

extension FieldMatch {
  /// The match as a JSON object (see ``ModerationResult/json``).
  public var json: JSONValue { JSONValue(written: write) }

  /// Writes ``json`` without building it.
  @_spi(Tools) public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    writer.key("field")
    writer.string(field.description)
    match.writeMembers(to: &writer)
    writer.endObject()
  }
}

extension Match {
  /// `text, start, end, entry, kind, action, [replacement], origin, list, [file, line], category`.
  public var jsonMembers: [JSONMember] {
    let object = JSONValue { writer in
      writer.beginObject()
      writeMembers(to: &writer)
      writer.endObject()
    }
    guard case .object(let members) = object else { preconditionFailure("a match is written as an object") }
    return members
  }

  /// Writes the members of ``jsonMembers`` into an object the caller has opened.
  @_spi(Tools) public func writeMembers(to writer: inout JSONWriter) {
    writer.key("text")
    writer.string(text)
    writer.key("start")
    writer.number(range.lowerBound)
    writer.key("end")
    writer.number(range.upperBound)
    writer.key("entry")
    writer.string(entry.text)
    writer.key("kind")
    writer.string(entry.kind.rawValue)
    writer.key("action")
    switch entry.action {
    case .block: writer.string("block")
    case .review: writer.string("review")
    case .allow: writer.string("allow")
    case .lexicon: writer.string("lexicon")
    case .replace(let replacement):
      writer.string("replace")
      writer.key("replacement")
      writer.string(replacement)
    }
    writer.key("origin")
    writer.string(origin.rawValue)
    writer.key("list")
    writer.string(list)
    if let source = entry.source {
      writer.key("file")
      writer.string(source.file)
      writer.key("line")
      writer.number(source.line)
    }
    writer.key("category")
    writer.string(entry.category)
  }
}

extension ReviewReport {
  /// `{"outcome":…,"labels":[…],"extra":…,"failure":…,"blocked":…}`.
  public var json: JSONValue { JSONValue(written: write) }

  /// Writes ``json`` without building it.
  @_spi(Tools) public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    if let decision {
      writer.key("outcome")
      writer.string(decision.outcome.rawValue)
      writer.key("labels")
      writer.beginArray()
      for label in decision.labels { writer.string(label) }
      writer.endArray()
      if let extra = decision.extra {
        writer.key("extra")
        writer.string(extra)
      }
    }
    if let failure {
      writer.key("failure")
      writer.string(failure)
    }
    writer.key("blocked")
    writer.bool(blocked)
    writer.endObject()
  }
}
