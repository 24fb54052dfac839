/// What to do about a sender who keeps being blocked: ordered rules, each a threshold of counted
/// messages within a sliding window, and the platform action it recommends.
///
/// A policy file is JSON:
///
/// ```json
/// {"rules":[
///   {"name":"block-day","blocked":10,"within":"1d","per":"user","action":"block","minutes":1440},
///   {"name":"chatroom-mute","blocked":3,"within":"10m","per":"chatroom","action":"chatroom-mute",
///    "minutes":10,"repeat":{"within":"1d","factor":2}}
/// ]}
/// ```
///
/// Each rule has:
/// - `name`: unique; events and recommendations name it;
/// - `blocked`: the threshold, N counted messages within `within` (`30s`, `10m`, `2h`, `1d`, at
///   most `365d`);
/// - `counting` (optional, default `["blocked"]`): which messages count, any of `blocked`,
///   `replaced` and `flagged` (delivered with a review match);
/// - `categories` (optional): only messages with a match (or a reviewer label) of one of these
///   categories count, such as `["sexual","contact"]`;
/// - `per` (optional, default `user`): `user` counts all of the sender's messages in the app,
///   `conversation` each conversation apart, `chatroom` each chatroom apart (and only
///   chatroom messages);
/// - `action`: `report` (an event, no platform call), `chatroom-mute` (`per` must be
///   `chatroom`), `chatroom-ban` or `block`, as the platform's `/chatroom/user/gag/add.json`,
///   `/chatroom/user/ban/add.json` and `/user/block.json` do them;
/// - `minutes`: 1 to 43,200 (the platform's limit); not for `report`;
/// - `repeat` (optional): `{"within":"1d","factor":2}`: when the rule fires again for the same
///   sender (and conversation) within this period of its last firing, the minutes are that
///   firing's times `factor`, at most 43,200.
///
/// At each counted message the rules are looked at in the file's order and the first that
/// reaches its threshold fires: put the severest first. Every rule that reaches its threshold
/// at that message starts counting anew, so one message gives at most one action, and a rule
/// fires at most once per window of its own.
@_spi(Tools) public struct OffenderPolicy: Sendable, Hashable {
  /// The rules, in the order they are looked at.
  public var rules: [Rule]

  /// One rule of a policy (see ``OffenderPolicy``).
  public struct Rule: Sendable, Hashable {
    /// Unique within the policy; events and recommendations name it.
    public var name: String
    /// Counted messages that make the rule fire.
    public var threshold: Int
    /// Which messages count.
    public var counting: Counting
    /// Only messages with one of these categories count; empty: any.
    public var categories: [String]
    /// The sliding window, in milliseconds.
    public var window: Int64
    /// Where messages are counted together.
    public var scope: Scope
    /// What a firing recommends.
    public var action: Action
    /// The action's duration (0 for ``Action/report``).
    public var minutes: Int
    /// How a repeat within a period is lengthened; nil: every firing lasts ``minutes``.
    public var escalation: Escalation?

    /// A rule; the values are taken as given (the file reader checks them).
    public init(
      name: String, threshold: Int, counting: Counting = .blocked, categories: [String] = [], window: Int64,
      scope: Scope = .user, action: Action, minutes: Int, escalation: Escalation? = nil
    ) {
      self.name = name
      self.threshold = threshold
      self.counting = counting
      self.categories = categories
      self.window = window
      self.scope = scope
      self.action = action
      self.minutes = minutes
      self.escalation = escalation
    }
  }

  /// Which messages a rule counts.
  public struct Counting: OptionSet, Sendable, Hashable {
    /// The set, one bit a kind.
    public let rawValue: UInt8
    /// The set of `rawValue`'s bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// Blocked messages.
    public static let blocked = Counting(rawValue: 1)
    /// Messages delivered rewritten.
    public static let replaced = Counting(rawValue: 2)
    /// Messages delivered with a review match.
    public static let flagged = Counting(rawValue: 4)

    /// The names, as a policy file writes them.
    static let names: [(String, Counting)] = [("blocked", .blocked), ("replaced", .replaced), ("flagged", .flagged)]

    /// The member named `blocked`, `replaced` or `flagged`; nil for another name.
    public init?(name: String) {
      guard let found = Self.names.first(where: { $0.0 == name }) else { return nil }
      self = found.1
    }

    /// `blocked`, `replaced`, `flagged`: the names of the members, in that order.
    public var names: [String] { Self.names.filter { contains($0.1) }.map(\.0) }
  }

  /// A longer action for a repeat.
  public struct Escalation: Sendable, Hashable {
    /// How long after a firing a new one is a repeat, in milliseconds.
    public var window: Int64
    /// What a repeat multiplies the last firing's minutes by.
    public var factor: Int

    /// An escalation by `factor` for a firing within `window` milliseconds of the last.
    public init(window: Int64, factor: Int) {
      self.window = window
      self.factor = factor
    }
  }

  /// Where a rule counts.
  public enum Scope: String, Sendable, Hashable, CaseIterable {
    case user, conversation, chatroom
  }

  /// What a rule recommends, as the platform's server API does it.
  public enum Action: String, Sendable, Hashable, CaseIterable {
    /// An event only.
    case report
    /// `/chatroom/user/gag/add.json`: the sender cannot speak in the chatroom.
    case chatroomMute = "chatroom-mute"
    /// `/chatroom/user/ban/add.json`: the sender cannot speak in any chatroom of the app.
    case chatroomBan = "chatroom-ban"
    /// `/user/block.json`: the sender's account is blocked.
    case block

    /// Higher is severer: a sender's recommendation is the severest action fired.
    public var severity: Int {
      switch self {
      case .report: 0
      case .chatroomMute: 1
      case .chatroomBan: 2
      case .block: 3
      }
    }
  }

  /// The platform's longest mute or ban, in minutes (30 days).
  public static let maximumMinutes = 43_200

  /// The policy used without `--policy`: 10 blocked messages in a day block the account for a
  /// day; 3 blocked in 10 minutes in one chatroom mute the sender there for 10 minutes, twice
  /// as long for each repeat within a day.
  public static let builtIn = OffenderPolicy(rules: [
    Rule(name: "block-day", threshold: 10, window: 86_400_000, action: .block, minutes: 1440),
    Rule(
      name: "chatroom-mute", threshold: 3, window: 600_000, scope: .chatroom, action: .chatroomMute, minutes: 10,
      escalation: Escalation(window: 86_400_000, factor: 2)),
  ])

  /// A policy of `rules`.
  public init(rules: [Rule]) { self.rules = rules }

  /// The longest time a rule looks back, its window or its repeat period, in milliseconds:
  /// a sender with nothing that recent can be forgotten.
  public var memory: Int64 {
    rules.reduce(0) { max($0, $1.window, $1.escalation?.window ?? 0) }
  }
}

/// A policy file that cannot be used: its file, the line of the field, the field and why.
@_spi(Tools) public struct OffenderPolicyError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The policy file, as given.
  public var file: String
  /// The line of the field (or of the JSON error), from 1.
  public var line: Int
  /// Where in the document: `rules[1].within`; empty for the document itself.
  public var field: String
  /// What is wrong, and what is expected.
  public var cause: String

  /// `FILE:LINE: FIELD: cause`.
  public var description: String {
    "\(file):\(line): " + (field.isEmpty ? "" : "\(field): ") + cause
  }
}

extension OffenderPolicy {
  /// Reads a policy file's text (see ``OffenderPolicy``); `file` names it in errors.
  /// - Throws: ``OffenderPolicyError`` naming the line and field of the first problem.
  public init(json text: String, file: String) throws(OffenderPolicyError) {
    let bytes = Array(text.utf8)
    var lines = JSONLineLocator(bytes)
    func fail(_ field: String, _ cause: String) -> OffenderPolicyError {
      OffenderPolicyError(file: file, line: lines.line(of: field), field: field, cause: cause)
    }
    let document: JSONValue
    do { document = try JSONValue(parsingUTF8: bytes) } catch {
      throw OffenderPolicyError(
        file: file, line: lines.line(atOffset: error.offset), field: "", cause: "invalid JSON: \(error.message)")
    }
    // Parsed, so no deeper than the parser allows: the locator's recursion is bounded.
    lines.locateValues(bytes)
    guard case .object(let top) = document else { throw fail("", "a policy is an object {\"rules\":[…]}") }
    for member in top where member.key != "rules" {
      throw fail(member.key, "unknown field (a policy has only \"rules\")")
    }
    guard let rulesValue = document["rules"] else { throw fail("", "\"rules\" is missing") }
    guard case .array(let values) = rulesValue else { throw fail("rules", "an array of rules") }
    var rules: [Rule] = []
    for (index, value) in values.enumerated() {
      let path = "rules[\(index)]"
      guard case .object(let members) = value else { throw fail(path, "a rule is an object") }
      let known: Set = ["name", "blocked", "counting", "categories", "within", "per", "action", "minutes", "repeat"]
      if let unknown = members.first(where: { !known.contains($0.key) }) {
        throw fail("\(path).\(unknown.key)", "unknown field (one of \(known.sorted().joined(separator: ", ")))")
      }
      guard let name = value["name"]?.stringValue, !name.isEmpty else {
        throw fail("\(path).name", "a non-empty string is required")
      }
      if rules.contains(where: { $0.name == name }) { throw fail("\(path).name", "\"\(name)\" names two rules") }
      guard let threshold = value["blocked"]?.int64Value, (1...100_000).contains(threshold) else {
        throw fail("\(path).blocked", "a whole number of messages from 1 to 100000 is required")
      }
      var counting = Counting.blocked
      if let list = value["counting"] {
        guard case .array(let names) = list, !names.isEmpty else {
          throw fail("\(path).counting", "a non-empty array of \"blocked\", \"replaced\", \"flagged\"")
        }
        counting = []
        for name in names {
          guard let found = Counting.names.first(where: { $0.0 == name.stringValue }) else {
            throw fail("\(path).counting", "\(name.jsonString) is not \"blocked\", \"replaced\" or \"flagged\"")
          }
          counting.insert(found.1)
        }
      }
      var categories: [String] = []
      if let list = value["categories"] {
        guard case .array(let names) = list else { throw fail("\(path).categories", "an array of category names") }
        for name in names {
          guard let text = name.stringValue, !text.isEmpty else {
            throw fail("\(path).categories", "\(name.jsonString) is not a category name")
          }
          categories.append(text)
        }
      }
      let window: Int64
      do throws(DurationError) { window = try Self.milliseconds(value["within"]) } catch {
        throw fail("\(path).within", error.cause)
      }
      var scope = Scope.user
      if let per = value["per"] {
        guard let text = per.stringValue, let parsed = Scope(rawValue: text) else {
          throw fail("\(path).per", "\"user\", \"conversation\" or \"chatroom\"")
        }
        scope = parsed
      }
      guard let actionName = value["action"]?.stringValue, let action = Action(rawValue: actionName) else {
        throw fail("\(path).action", "one of \"report\", \"chatroom-mute\", \"chatroom-ban\", \"block\"")
      }
      if action == .chatroomMute && scope != .chatroom {
        throw fail("\(path).per", "a chatroom mute names its chatroom: \"per\" must be \"chatroom\"")
      }
      var minutes = 0
      if action == .report {
        if value["minutes"] != nil { throw fail("\(path).minutes", "a report has no duration") }
      } else {
        guard let given = value["minutes"]?.int64Value, (1...Int64(Self.maximumMinutes)).contains(given) else {
          throw fail("\(path).minutes", "a whole number of minutes from 1 to \(Self.maximumMinutes) is required")
        }
        minutes = Int(given)
      }
      var escalation: Escalation?
      if let repeatValue = value["repeat"] {
        guard case .object(let repeatMembers) = repeatValue else {
          throw fail("\(path).repeat", "an object {\"within\":…,\"factor\":…}")
        }
        if let unknown = repeatMembers.first(where: { $0.key != "within" && $0.key != "factor" }) {
          throw fail("\(path).repeat.\(unknown.key)", "unknown field (\"within\" or \"factor\")")
        }
        if action == .report { throw fail("\(path).repeat", "a report has no duration to lengthen") }
        let repeatWindow: Int64
        do throws(DurationError) { repeatWindow = try Self.milliseconds(repeatValue["within"]) } catch {
          throw fail("\(path).repeat.within", error.cause)
        }
        guard let factor = repeatValue["factor"]?.int64Value, (1...100).contains(factor) else {
          throw fail("\(path).repeat.factor", "a whole number from 1 to 100 is required")
        }
        escalation = Escalation(window: repeatWindow, factor: Int(factor))
      }
      rules.append(
        Rule(
          name: name, threshold: Int(threshold), counting: counting, categories: categories, window: window,
          scope: scope, action: action, minutes: minutes, escalation: escalation))
    }
    guard !rules.isEmpty else { throw fail("rules", "at least one rule is required") }
    self.init(rules: rules)
  }

  private struct DurationError: Error {
    var cause: String
  }

  /// `30s`, `10m`, `2h`, `1d` in milliseconds, at most 365 days.
  private static func milliseconds(_ value: JSONValue?) throws(DurationError) -> Int64 {
    let usage = "a duration such as \"30s\", \"10m\", \"2h\" or \"1d\" is required (at most 365d)"
    guard let text = value?.stringValue, let unit = text.last else { throw DurationError(cause: usage) }
    let scale: Int64
    switch unit {
    case "s": scale = 1000
    case "m": scale = 60_000
    case "h": scale = 3_600_000
    case "d": scale = 86_400_000
    default: throw DurationError(cause: usage)
    }
    guard let count = Int64(text.dropLast()), count > 0, count <= 365 * 86_400_000 / scale else {
      throw DurationError(cause: usage)
    }
    return count * scale
  }

  /// The policy as its file would write it, one rule a line (`winnow offenders --policy` prints
  /// the built-in one this way).
  public var json: String {
    var lines: [String] = []
    for rule in rules {
      var members: [JSONMember] = [
        JSONMember(key: "name", value: .string(rule.name)),
        JSONMember(key: "blocked", value: .number(String(rule.threshold))),
      ]
      if rule.counting != .blocked {
        members.append(JSONMember(key: "counting", value: .array(rule.counting.names.map { .string($0) })))
      }
      if !rule.categories.isEmpty {
        members.append(JSONMember(key: "categories", value: .array(rule.categories.map { .string($0) })))
      }
      members.append(JSONMember(key: "within", value: .string(Self.durationText(rule.window))))
      members.append(JSONMember(key: "per", value: .string(rule.scope.rawValue)))
      members.append(JSONMember(key: "action", value: .string(rule.action.rawValue)))
      if rule.action != .report { members.append(JSONMember(key: "minutes", value: .number(String(rule.minutes)))) }
      if let escalation = rule.escalation {
        members.append(
          JSONMember(
            key: "repeat",
            value: [
              "within": .string(Self.durationText(escalation.window)),
              "factor": .number(String(escalation.factor)),
            ]))
      }
      lines.append("  " + JSONValue.object(members).jsonString)
    }
    return "{\"rules\":[\n" + lines.joined(separator: ",\n") + "\n]}\n"
  }

  /// The largest whole unit of `milliseconds`: `1d`, `90m`.
  static func durationText(_ milliseconds: Int64) -> String {
    for (unit, scale) in [("d", Int64(86_400_000)), ("h", 3_600_000), ("m", 60_000)]
    where milliseconds % scale == 0 {
      return "\(milliseconds / scale)\(unit)"
    }
    return "\(milliseconds / 1000)s"
  }
}

/// Where the values of a JSON document are, by line: `rules[1].within` → the line of that
/// member's key. The document is read only far enough to follow its structure.
struct JSONLineLocator {
  private var lineStarts: [Int] = [0]
  private var lines: [String: Int] = [:]

  /// The lines of `bytes`; values are located by ``locateValues(_:)``.
  init(_ bytes: [UInt8]) {
    for (offset, byte) in bytes.enumerated() where byte == 0x0A { lineStarts.append(offset + 1) }
  }

  /// Finds the line of every value of a document that parses (its depth is the parser's
  /// bound, and so is this recursion).
  mutating func locateValues(_ bytes: [UInt8]) {
    var index = 0
    locate(bytes, &index, path: "")
  }

  /// The line (from 1) of `path`, or of its nearest enclosing value found, or 1.
  func line(of path: String) -> Int {
    var path = path
    while true {
      if let line = lines[path] { return line }
      guard let cut = path.lastIndex(where: { $0 == "." || $0 == "[" }) else { return lines[""] ?? 1 }
      path = String(path[..<cut])
    }
  }

  /// The line (from 1) of a byte offset.
  func line(atOffset offset: Int) -> Int {
    var low = 0
    var high = lineStarts.count
    while high - low > 1 {
      let middle = (low + high) / 2
      if lineStarts[middle] <= offset { low = middle } else { high = middle }
    }
    return low + 1
  }

  private mutating func skipSpace(_ bytes: [UInt8], _ index: inout Int) {
    while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
  }

  /// Reads a string starting at its quote; returns its raw text (escapes kept as written,
  /// enough for the keys of a policy).
  private mutating func string(_ bytes: [UInt8], _ index: inout Int) -> String {
    index += 1
    let start = index
    while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
      index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
    }
    let end = min(index, bytes.count)
    index += 1
    return String(decoding: bytes[start..<end], as: UTF8.self)
  }

  private mutating func locate(_ bytes: [UInt8], _ index: inout Int, path: String) {
    skipSpace(bytes, &index)
    guard index < bytes.count else { return }
    if lines[path] == nil { lines[path] = line(atOffset: index) }
    switch bytes[index] {
    case UInt8(ascii: "{"):
      index += 1
      while index < bytes.count {
        skipSpace(bytes, &index)
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { break }
        let keyLine = line(atOffset: index)
        let key = string(bytes, &index)
        let member = path.isEmpty ? key : path + "." + key
        lines[member] = keyLine
        skipSpace(bytes, &index)
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return }
        index += 1
        locate(bytes, &index, path: member)
        skipSpace(bytes, &index)
        guard index < bytes.count, bytes[index] == UInt8(ascii: ",") else { break }
        index += 1
      }
      if index < bytes.count { index += 1 }
    case UInt8(ascii: "["):
      index += 1
      var element = 0
      while index < bytes.count {
        skipSpace(bytes, &index)
        guard index < bytes.count, bytes[index] != UInt8(ascii: "]") else { break }
        locate(bytes, &index, path: "\(path)[\(element)]")
        element += 1
        skipSpace(bytes, &index)
        guard index < bytes.count, bytes[index] == UInt8(ascii: ",") else { break }
        index += 1
      }
      if index < bytes.count { index += 1 }
    case UInt8(ascii: "\""):
      _ = string(bytes, &index)
    default:
      while index < bytes.count, !",]}".utf8.contains(bytes[index]) { index += 1 }
    }
  }
}
