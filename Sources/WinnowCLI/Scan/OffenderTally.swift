@_spi(Tools) import Winnow

/// What a scan knows of each sender (app and `fromUserId`): message counts, first and last
/// `sentTime`, and every blocked, replaced or flagged message (an ``OffenderIncident``).
/// Mergeable across batches and across the parts of a dump: the incidents are kept whole, so a
/// policy gives the same answer on a merged tally as on one scan of the whole dump.
///
/// Items without a `fromUserId` are not tallied.
struct OffenderTally: Sendable {
  /// A sender: app and user. Its hash is computed once, when the key is made, with the
  /// process's seeded hasher (as a `String` pair hashes), and fed whole to a table's hasher:
  /// a scan's tallies are merged batch by batch into one table of every offending sender, and
  /// rehashing two strings per sender at each of that table's resizes and merges cost 0.3% of
  /// a corpus dump's scan (`Benchmarks/HISTORY.md`).
  struct Key: Hashable, Sendable, Comparable {
    let appKey: String
    let fromUserId: String
    private let digest: Int

    init(appKey: String, fromUserId: String) {
      self.appKey = appKey
      self.fromUserId = fromUserId
      var hasher = Hasher()
      hasher.combine(appKey)
      hasher.combine(fromUserId)
      digest = hasher.finalize()
    }

    static func == (left: Key, right: Key) -> Bool {
      left.digest == right.digest && left.appKey == right.appKey && left.fromUserId == right.fromUserId
    }

    func hash(into hasher: inout Hasher) { hasher.combine(digest) }

    static func < (left: Key, right: Key) -> Bool {
      (left.appKey, left.fromUserId) < (right.appKey, right.fromUserId)
    }
  }

  struct Sender: Sendable {
    var messages = 0
    var blocked = 0
    var replaced = 0
    var flagged = 0
    var firstSentTime = Int64.max
    var lastSentTime = Int64.min
    var incidents: [OffenderIncident] = []

    mutating func merge(_ other: Sender) {
      messages &+= other.messages
      blocked &+= other.blocked
      replaced &+= other.replaced
      flagged &+= other.flagged
      firstSentTime = min(firstSentTime, other.firstSentTime)
      lastSentTime = max(lastSentTime, other.lastSentTime)
      incidents += other.incidents
    }

    /// Whether the sender has a blocked, replaced or flagged message.
    var isOffender: Bool { blocked > 0 || replaced > 0 || flagged > 0 }

    /// Worse first: more blocked, then more flagged and replaced.
    func isWorse(than other: Sender) -> Bool {
      (blocked, flagged &+ replaced) > (other.blocked, other.flagged &+ other.replaced)
    }
  }

  var senders: [Key: Sender] = [:]
  /// A batch's tally (``ScanTally/defersCounting``): each message is kept in ``pending``, in
  /// order, and counted by the tally it is merged into, not in ``senders``.
  var defersCounting = false
  /// A deferring tally's messages, in order.
  private var pending: [Pending] = []

  /// A message of a sender, kept to be counted where the tally is merged.
  private struct Pending: Sendable {
    var appKey: String
    var fromUserId: String
    var sentTime: Int64
    var kinds: OffenderPolicy.Counting
    var incident: OffenderIncident?
  }

  /// Counts a moderated item. `everyMessage`: the scan counts every message (`--offenders`), so
  /// clean messages are counted too and incidents are kept; otherwise only the counts of items
  /// with an incident are (for the summary's worst senders, in memory by sender, not by message).
  mutating func add(_ result: ModerationResult, everyMessage: Bool) {
    let kinds = OffenderIncident.kinds(of: result)
    guard everyMessage || !kinds.isEmpty else { return }
    // The incident itself is kept only when every message is (`--offenders`); the counts need
    // its kinds alone, and making it (its strings, its categories) was most of what counting
    // a blocked line cost.
    let incident = everyMessage && !kinds.isEmpty ? OffenderIncident(result, time: result.item.sentTime) : nil
    count(result.item, kinds, incident)
  }

  /// Counts a message that passed with nothing found, checked in place: as ``add(_:everyMessage:)``
  /// counts its result when every message is counted.
  mutating func addClean(_ item: MessageItem) { count(item, [], nil) }

  /// Counts a message of `item`'s sender, if it has one.
  private mutating func count(_ item: MessageItem, _ kinds: OffenderPolicy.Counting, _ incident: OffenderIncident?) {
    guard !item.fromUserId.isEmpty else { return }
    if defersCounting {
      pending.append(
        Pending(
          appKey: item.appKey ?? "", fromUserId: item.fromUserId, sentTime: item.sentTime, kinds: kinds,
          incident: incident))
      return
    }
    let key = Key(appKey: item.appKey ?? "", fromUserId: item.fromUserId)
    // Counted in place, one lookup: taken out and put back (so that its incidents were not
    // copied), a sender cost two lookups and a rehash.
    Self.count(item.sentTime, kinds, incident, into: &senders[key, default: Sender()])
  }

  private static func count(
    _ sentTime: Int64, _ kinds: OffenderPolicy.Counting, _ incident: OffenderIncident?, into sender: inout Sender
  ) {
    sender.messages &+= 1
    sender.firstSentTime = min(sender.firstSentTime, sentTime)
    sender.lastSentTime = max(sender.lastSentTime, sentTime)
    if kinds.contains(.blocked) { sender.blocked &+= 1 }
    if kinds.contains(.replaced) { sender.replaced &+= 1 }
    if kinds.contains(.flagged) { sender.flagged &+= 1 }
    if let incident { sender.incidents.append(incident) }
  }

  mutating func merge(_ other: OffenderTally) {
    // The first batch's senders are taken whole; after that each is merged in place, with one
    // lookup (a sender merged into a new one is itself: counts from zero, the first and last
    // times from the extremes). Looked up to test, then to set or merge, a sender was hashed
    // two or three times.
    if senders.isEmpty {
      senders = other.senders
    } else {
      for (key, sender) in other.senders { senders[key, default: Sender()].merge(sender) }
    }
    // A deferring tally's messages, counted as ``count(_:_:_:)`` would have (a deferring
    // tally's own senders are empty).
    for message in other.pending {
      Self.count(
        message.sentTime, message.kinds, message.incident,
        into: &senders[Key(appKey: message.appKey, fromUserId: message.fromUserId), default: Sender()])
    }
  }

  /// The senders with a blocked, replaced or flagged message, worst first (ties by app and user).
  func offenders() -> [(key: Key, sender: Sender)] {
    senders.filter(\.value.isOffender).map {
      (key: $0.key, sender: $0.value)
    }.sorted(by: Self.precedes)
  }

  /// The order of ``offenders()``: worse first, then by app and user (a total order: keys are
  /// unique).
  private static func precedes(_ left: (key: Key, sender: Sender), _ right: (key: Key, sender: Sender)) -> Bool {
    if left.sender.isWorse(than: right.sender) { return true }
    if right.sender.isWorse(than: left.sender) { return false }
    return left.key < right.key
  }

  /// Every sender, by app and user: what the part of a dump tells a merge.
  func everySender() -> [(key: Key, sender: Sender)] {
    senders.map { (key: $0.key, sender: $0.value) }.sorted { $0.key < $1.key }
  }

  /// The ten worst senders, for the summary.
  ///
  /// The first `count` of ``offenders()``, chosen in one pass over the senders: sorting them all
  /// to keep ten compared a dump's tens of thousands of offenders' names (`Benchmarks/HISTORY.md`).
  func worst(_ count: Int = 10) -> [ScanSummary.SenderCount] {
    guard count > 0 else { return [] }
    var top: [(key: Key, sender: Sender)] = []
    top.reserveCapacity(count + 1)
    // The last kept sender's counts, once `count` are kept: a sender with fewer is passed over
    // by comparing numbers (copying the last kept sender to compare with, its strings and
    // incidents retained and released, was most of this loop).
    var bar: (blocked: Int, others: Int)? = nil
    for (key, sender) in senders where sender.isOffender {
      if let bar, (sender.blocked, sender.flagged &+ sender.replaced) < bar { continue }
      let offender = (key: key, sender: sender)
      if top.count == count, let last = top.last, !Self.precedes(offender, last) { continue }
      top.insert(offender, at: top.firstIndex { Self.precedes(offender, $0) } ?? top.count)
      if top.count > count { top.removeLast() }
      if top.count == count, let last = top.last {
        bar = (last.sender.blocked, last.sender.flagged &+ last.sender.replaced)
      }
    }
    return top.map {
      ScanSummary.SenderCount(
        appKey: $0.key.appKey, fromUserId: $0.key.fromUserId, blocked: $0.sender.blocked,
        replaced: $0.sender.replaced, flagged: $0.sender.flagged)
    }
  }

  /// Every firing of `policy` over a sender's incidents, replayed in ``ordered(_:)`` order.
  static func firings(of sender: Sender, policy: OffenderPolicy) -> [OffenderFiring] {
    var windows = OffenderWindows()
    return ordered(sender.incidents).compactMap { windows.record($0, policy: policy) }
  }

  /// The severest of `firings` (the first of equals): a sender's recommendation.
  static func severest(of firings: [OffenderFiring]) -> OffenderFiring? {
    firings.reduce(nil) { best, next in
      guard let best else { return next }
      return next.isSeverer(than: best) ? next : best
    }
  }

  /// Incidents in `sentTime` order, then by `msgUID` and conversation: an order that does not
  /// depend on the order the lines were read in, so that the parts of a dump, merged in any
  /// order, give what one scan of it gives.
  static func ordered(_ incidents: [OffenderIncident]) -> [OffenderIncident] {
    incidents.sorted {
      ($0.time, $0.msgUID, $0.conversationType.rawValue, $0.targetId, $0.kinds.rawValue)
        < ($1.time, $1.msgUID, $1.conversationType.rawValue, $1.targetId, $1.kinds.rawValue)
    }
  }

  /// One offenders line (see `Docs/offenders.md`): the counts, the categories and
  /// conversations of the incidents, the policy's recommendation and the incidents.
  static func writeLine(key: Key, sender: Sender, policy: OffenderPolicy, to writer: inout JSONWriter) {
    writer.beginObject()
    if !key.appKey.isEmpty {
      writer.key("appKey")
      writer.string(key.appKey)
    }
    writer.key("fromUserId")
    writer.string(key.fromUserId)
    for (name, value) in [
      ("messages", sender.messages), ("blocked", sender.blocked), ("replaced", sender.replaced),
      ("flagged", sender.flagged),
    ] {
      writer.key(escaping: name)
      writer.number(value)
    }
    if sender.firstSentTime <= sender.lastSentTime {
      writer.key("firstSentTime")
      writer.number(Int(sender.firstSentTime))
      writer.key("lastSentTime")
      writer.number(Int(sender.lastSentTime))
    }
    var categories: [String: Int] = [:]
    var conversations: [ConversationKey: (blocked: Int, replaced: Int, flagged: Int)] = [:]
    for incident in sender.incidents {
      for category in incident.categories { categories[category, default: 0] &+= 1 }
      let conversation = ConversationKey(type: incident.conversationType, targetId: incident.targetId)
      var counts = conversations[conversation] ?? (0, 0, 0)
      if incident.kinds.contains(.blocked) { counts.blocked &+= 1 }
      if incident.kinds.contains(.replaced) { counts.replaced &+= 1 }
      if incident.kinds.contains(.flagged) { counts.flagged &+= 1 }
      conversations[conversation] = counts
    }
    writer.key("categories")
    writer.beginArray()
    for (category, count) in categories.sorted(by: { ($1.value, $0.key) < ($0.value, $1.key) }) {
      writer.beginObject()
      writer.key("category")
      writer.string(category)
      writer.key("messages")
      writer.number(count)
      writer.endObject()
    }
    writer.endArray()
    writer.key("conversations")
    writer.beginArray()
    let orderedConversations = conversations.sorted {
      let left = ($0.value.blocked, $0.value.replaced &+ $0.value.flagged)
      let right = ($1.value.blocked, $1.value.replaced &+ $1.value.flagged)
      if left != right { return left > right }
      return ($0.key.type.rawValue, $0.key.targetId) < ($1.key.type.rawValue, $1.key.targetId)
    }
    for (conversation, counts) in orderedConversations {
      writer.beginObject()
      writer.key("conversationType")
      writer.number(conversation.type.rawValue)
      writer.key("targetId")
      writer.string(conversation.targetId)
      writer.key("blocked")
      writer.number(counts.blocked)
      writer.key("replaced")
      writer.number(counts.replaced)
      writer.key("flagged")
      writer.number(counts.flagged)
      writer.endObject()
    }
    writer.endArray()
    let firings = firings(of: sender, policy: policy)
    writer.key("recommend")
    if let severest = severest(of: firings) {
      writeFiring(severest, to: &writer)
    } else {
      writer.beginObject()
      writer.key("action")
      writer.string("none")
      writer.endObject()
    }
    writer.key("fired")
    writer.number(firings.count)
    writer.key("incidents")
    writer.beginArray()
    for incident in ordered(sender.incidents) { writeIncident(incident, to: &writer) }
    writer.endArray()
    writer.endObject()
    writer.endLine()
  }

  struct ConversationKey: Hashable {
    var type: ConversationType
    var targetId: String
  }

  /// `{"action":…,"minutes":…,"rule":…,"conversationType":…,"targetId":…,"sentTime":…,"repeats":…,"messages":[…]}`.
  static func writeFiring(_ firing: OffenderFiring, to writer: inout JSONWriter) {
    writer.beginObject()
    writer.key("action")
    writer.string(firing.action.rawValue)
    if firing.action != .report {
      writer.key("minutes")
      writer.number(firing.minutes)
    }
    writer.key("rule")
    writer.string(firing.rule)
    if let type = firing.conversationType, let target = firing.targetId {
      writer.key("conversationType")
      writer.number(type.rawValue)
      writer.key("targetId")
      writer.string(target)
    }
    writer.key("sentTime")
    writer.number(Int(firing.time))
    writer.key("repeats")
    writer.number(firing.repeats)
    writer.key("messages")
    writer.beginArray()
    for message in firing.messages { writer.string(message) }
    writer.endArray()
    writer.endObject()
  }

  static func writeIncident(_ incident: OffenderIncident, to writer: inout JSONWriter) {
    writer.beginObject()
    writer.key("sentTime")
    writer.number(Int(incident.time))
    writer.key("msgUID")
    writer.string(incident.msgUID)
    writer.key("conversationType")
    writer.number(incident.conversationType.rawValue)
    writer.key("targetId")
    writer.string(incident.targetId)
    writer.key("kinds")
    writer.beginArray()
    for name in incident.kinds.names { writer.string(name) }
    writer.endArray()
    writer.key("categories")
    writer.beginArray()
    for category in incident.categories { writer.string(category) }
    writer.endArray()
    writer.endObject()
  }

  /// The sender of an offenders line, as ``writeLine(key:sender:policy:to:)`` writes it; nil
  /// with the cause when the line is not one.
  static func readLine(_ value: JSONValue) -> Result<(Key, Sender), LineProblem> {
    func problem(_ field: String, _ cause: String) -> Result<(Key, Sender), LineProblem> {
      .failure(LineProblem(field: field, cause: cause))
    }
    guard case .object = value else { return problem("", "an offenders line is an object") }
    guard let user = value["fromUserId"]?.stringValue, !user.isEmpty else {
      return problem("fromUserId", "a non-empty string is required")
    }
    var appKey = ""
    if let app = value["appKey"] {
      guard let text = app.stringValue else { return problem("appKey", "a string is required") }
      appKey = text
    }
    var sender = Sender()
    for (name, path) in [
      ("messages", \Sender.messages), ("blocked", \Sender.blocked), ("replaced", \Sender.replaced),
      ("flagged", \Sender.flagged),
    ] {
      guard let count = value[name]?.int64Value, count >= 0, count <= Int64(ScanSummary.countLimit) else {
        return problem(name, "a count from 0 to 2^48 is required")
      }
      sender[keyPath: path] = Int(count)
    }
    if let first = value["firstSentTime"] {
      guard let time = first.int64Value else { return problem("firstSentTime", "a whole number is required") }
      sender.firstSentTime = time
    }
    if let last = value["lastSentTime"] {
      guard let time = last.int64Value else { return problem("lastSentTime", "a whole number is required") }
      sender.lastSentTime = time
    }
    guard case .array(let incidents)? = value["incidents"] else {
      return problem("incidents", "an array of incidents is required")
    }
    for (index, incident) in incidents.enumerated() {
      let field = "incidents[\(index)]"
      guard let time = incident["sentTime"]?.int64Value else { return problem(field + ".sentTime", "a time") }
      guard let uid = incident["msgUID"]?.stringValue else { return problem(field + ".msgUID", "a string") }
      guard let typeNumber = incident["conversationType"]?.int64Value,
        let type = ConversationType(rawValue: Int(clamping: typeNumber))
      else { return problem(field + ".conversationType", "a conversation type from 1 to 12") }
      guard let target = incident["targetId"]?.stringValue else { return problem(field + ".targetId", "a string") }
      var kinds: OffenderPolicy.Counting = []
      guard case .array(let kindNames)? = incident["kinds"] else { return problem(field + ".kinds", "an array") }
      for name in kindNames {
        guard let found = name.stringValue.flatMap(OffenderPolicy.Counting.init(name:)) else {
          return problem(field + ".kinds", "\(name.jsonString) is not blocked, replaced or flagged")
        }
        kinds.insert(found)
      }
      guard !kinds.isEmpty else { return problem(field + ".kinds", "an incident is blocked, replaced or flagged") }
      var categories: [String] = []
      if case .array(let names)? = incident["categories"] {
        for name in names {
          guard let text = name.stringValue else { return problem(field + ".categories", "strings") }
          categories.append(text)
        }
      }
      sender.incidents.append(
        OffenderIncident(
          time: time, msgUID: uid, conversationType: type, targetId: target, kinds: kinds, categories: categories))
    }
    return .success((Key(appKey: appKey, fromUserId: user), sender))
  }

  struct LineProblem: Error {
    var field: String
    var cause: String
  }
}
