/// One message of a sender that a policy may count: blocked, replaced or flagged.
@_spi(Tools) public struct OffenderIncident: Sendable, Hashable {
  /// When: the message's `sentTime` in a scan, the time the server saw it in `winnow serve`;
  /// Unix milliseconds.
  public var time: Int64
  /// The message's id.
  public var msgUID: String
  /// The conversation's type.
  public var conversationType: ConversationType
  /// The conversation: user, group or chatroom id.
  public var targetId: String
  /// What became of the message.
  public var kinds: OffenderPolicy.Counting
  /// The categories of its matches, and of the reviewer's labels when the reviewer blocked it.
  public var categories: [String]

  /// An incident of the given parts.
  public init(
    time: Int64, msgUID: String, conversationType: ConversationType, targetId: String,
    kinds: OffenderPolicy.Counting, categories: [String]
  ) {
    self.time = time
    self.msgUID = msgUID
    self.conversationType = conversationType
    self.targetId = targetId
    self.kinds = kinds
    self.categories = categories
  }

  /// The incident of a result at `time`, or nil when the message passed with nothing flagged.
  public init?(_ result: ModerationResult, time: Int64) {
    let kinds = Self.kinds(of: result)
    guard !kinds.isEmpty else { return nil }
    var categories: [String] = []
    for found in result.matches {
      if let category = found.match.category, !categories.contains(category) { categories.append(category) }
    }
    if result.blockType == .thirdParty, let labels = result.review?.decision?.labels {
      for label in labels where !categories.contains(label) { categories.append(label) }
    }
    let item = result.item
    self.init(
      time: time, msgUID: item.msgUID, conversationType: item.conversationType, targetId: item.targetId,
      kinds: kinds, categories: categories)
  }
}

extension OffenderIncident {
  /// What became of a result's message, as its incident records it (empty when it passed with
  /// nothing flagged).
  public static func kinds(of result: ModerationResult) -> OffenderPolicy.Counting {
    var kinds: OffenderPolicy.Counting = []
    switch result.verdict {
    case .blocked: kinds.insert(.blocked)
    case .replaced: kinds.insert(.replaced)
    case .pass: break
    }
    if result.flagged { kinds.insert(.flagged) }
    return kinds
  }
}

/// A rule that fired: what it recommends, for whom, and the messages that made it fire.
@_spi(Tools) public struct OffenderFiring: Sendable, Hashable {
  /// The rule's name.
  public var rule: String
  /// What it recommends.
  public var action: OffenderPolicy.Action
  /// The duration, lengthened for a repeat (0 for a report).
  public var minutes: Int
  /// The time of the message that made it fire.
  public var time: Int64
  /// The conversation, for a rule counted per conversation or per chatroom.
  public var conversationType: ConversationType?
  /// The conversation's id, for a rule counted per conversation or per chatroom.
  public var targetId: String?
  /// The counted messages within the window, oldest first (the last made it fire).
  public var messages: [String]
  /// 0 for a first firing; 1, 2 … for repeats within the rule's `repeat` period.
  public var repeats: Int

  /// Severer first: by action, then minutes.
  public func isSeverer(than other: OffenderFiring) -> Bool {
    (action.severity, minutes) > (other.action.severity, other.minutes)
  }
}

/// The sliding windows of one sender: for each rule (and conversation, for a rule counted per
/// conversation), the counted messages within the window since it last fired, and when it last
/// fired. Memory is bounded by the rules: a window keeps fewer messages than its threshold.
@_spi(Tools) public struct OffenderWindows: Sendable {
  private struct Key: Hashable, Sendable {
    var rule: Int
    /// "" for a rule counted per user; the conversation type and target otherwise.
    var conversation: String
  }

  private struct Counted: Sendable {
    var time: Int64
    var msgUID: String
  }

  private struct LastFiring: Sendable {
    var time: Int64
    var minutes: Int
    var repeats: Int
  }

  private var pending: [Key: [Counted]] = [:]
  private var fired: [Key: LastFiring] = [:]
  /// The latest time recorded.
  public private(set) var latest: Int64 = .min

  /// Empty windows.
  public init() {}

  /// Whether nothing is held: no counted message, no firing to repeat.
  public var isEmpty: Bool { pending.isEmpty && fired.isEmpty }

  /// Records a message; returns what fires, if anything (see ``OffenderPolicy`` for the order).
  public mutating func record(_ incident: OffenderIncident, policy: OffenderPolicy) -> OffenderFiring? {
    latest = max(latest, incident.time)
    var firing: OffenderFiring?
    for (index, rule) in policy.rules.enumerated() {
      guard !rule.counting.isDisjoint(with: incident.kinds) else { continue }
      if !rule.categories.isEmpty && !incident.categories.contains(where: rule.categories.contains) { continue }
      let conversation: String
      switch rule.scope {
      case .user: conversation = ""
      case .conversation: conversation = "\(incident.conversationType.rawValue):\(incident.targetId)"
      case .chatroom:
        guard incident.conversationType == .chatroom else { continue }
        conversation = "\(incident.conversationType.rawValue):\(incident.targetId)"
      }
      let key = Key(rule: index, conversation: conversation)
      var counted = pending[key] ?? []
      // In time order, whatever order the messages come in.
      let place = counted.lastIndex { $0.time <= incident.time }.map { $0 + 1 } ?? 0
      counted.insert(Counted(time: incident.time, msgUID: incident.msgUID), at: place)
      let newest = counted[counted.count - 1].time
      counted.removeAll { Self.age(of: $0.time, at: newest) >= rule.window }
      guard counted.count >= rule.threshold else {
        pending[key] = counted
        continue
      }
      // Reached: counting starts anew, whether this rule fires or an earlier one did.
      pending[key] = nil
      guard firing == nil else { continue }
      var minutes = rule.minutes
      var repeats = 0
      if let escalation = rule.escalation, let last = fired[key],
        Self.age(of: last.time, at: incident.time) < escalation.window
      {
        let (longer, overflow) = last.minutes.multipliedReportingOverflow(by: escalation.factor)
        minutes = overflow ? OffenderPolicy.maximumMinutes : min(longer, OffenderPolicy.maximumMinutes)
        repeats = last.repeats + 1
      }
      fired[key] = LastFiring(time: incident.time, minutes: minutes, repeats: repeats)
      firing = OffenderFiring(
        rule: rule.name, action: rule.action, minutes: minutes, time: incident.time,
        conversationType: rule.scope == .user ? nil : incident.conversationType,
        targetId: rule.scope == .user ? nil : incident.targetId, messages: counted.map(\.msgUID), repeats: repeats)
    }
    return firing
  }

  /// Drops what no rule can count any more at `now`: messages older than their window, and
  /// firings older than their repeat period.
  public mutating func expire(at now: Int64, policy: OffenderPolicy) {
    for (key, counted) in pending {
      guard key.rule < policy.rules.count else {
        pending[key] = nil
        continue
      }
      let window = policy.rules[key.rule].window
      let kept = counted.filter { Self.age(of: $0.time, at: now) < window }
      pending[key] = kept.isEmpty ? nil : kept
    }
    for (key, last) in fired {
      let period = key.rule < policy.rules.count ? policy.rules[key.rule].escalation?.window ?? 0 : 0
      if Self.age(of: last.time, at: now) >= period { fired[key] = nil }
    }
  }

  /// `now - time`, saturating (times come from input).
  static func age(of time: Int64, at now: Int64) -> Int64 {
    let (difference, overflow) = now.subtractingReportingOverflow(time)
    return overflow ? (now > time ? .max : .min) : difference
  }
}
