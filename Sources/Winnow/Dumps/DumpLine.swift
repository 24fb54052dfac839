/// The dump formats ``DumpLine`` reads, detected line by line.
@_spi(Tools) public enum DumpFormat: String, Sendable, Hashable, CaseIterable {
  /// Winnow's item JSON (see ``MessageItem``).
  case item
  /// The platform's message history log: `{"appId":…,"fromUserId":…,"targetId":…,
  /// "targetType":3,"GroupId":…,"classname":…,"content":{…},"dateTime":"2024-01-02
  /// 03:04:05.678","msgUID":…,"timestamp":…,"isSensitiveWord":"false"}`, optionally glued to a
  /// `yyyy/MM/dd HH:mm:ss` prefix.
  case historyLog = "history-log"
  /// A message callback or routing post, its form fields as a JSON object (`fromUserId`,
  /// `targetId`/`toUserId`, `msgType`/`objectName`, `content` as a JSON string,
  /// `channelType` names, `msgTimeStamp`/`msgTimestamp`, `messageId`/`msgUID`,
  /// `originalMsgUID`, `busChannel`, `extraContent`).
  case callback
}

/// One line of a dump, read into an item.
///
/// Mapping of the platform's formats:
/// - History log: `classname` is the object name, `targetType` the conversation type,
///   `GroupId` (when set) the target of group and ultra-group messages, `busChannel` the
///   channel, `appId` the app, `timestamp` (else `dateTime`, read as UTC) the send time;
///   `isSensitiveWord` is kept as ``platformFlagged`` for comparison.
/// - Callback posts: `msgType`/`objectName`, `channelType` (a name or a number),
///   `messageId`/`msgUID`; a post with `originalMsgUID` is an edit of that message; a post with
///   `extraContent` and no `content` is an extension update of `msgUID`.
@_spi(Tools) public struct DumpLine: Sendable, Hashable {
  /// The format the line was read as.
  public var format: DumpFormat
  /// The item.
  public var item: MessageItem
  /// The history log's `isSensitiveWord`, when the line has it.
  public var platformFlagged: Bool?

  /// Reads one line (without its newline).
  /// - Throws: ``ItemError`` for a line that is not JSON or lacks what an item needs.
  public init(utf8 line: UnsafeBufferPointer<UInt8>) throws(ItemError) {
    let (body, prefixed) = Self.body(of: line)
    guard !body.isEmpty else { throw ItemError(.invalidField("line", "a JSON object (the line is empty)")) }
    let value: JSONValue
    do { value = try JSONValue(parsingUTF8: UnsafeBufferPointer(rebasing: line[body])) } catch {
      throw ItemError(.invalidJSON(JSONParseError(message: error.message, offset: error.offset + body.lowerBound)))
    }
    guard case .object = value else { throw ItemError(.invalidField("line", "a JSON object")) }
    switch DumpLineRules.format(prefixed: prefixed, ParsedLineMembers(value: value)) {
    case .historyLog: self = try Self.historyLog(value)
    case .callback: self = try Self.callback(value)
    case .item: self.init(format: .item, item: try MessageItem(json: value), platformFlagged: nil)
    }
  }

  /// Creates a line from its parts.
  public init(format: DumpFormat, item: MessageItem, platformFlagged: Bool?) {
    self.format = format
    self.item = item
    self.platformFlagged = platformFlagged
  }

  /// Where a line's JSON lies: the line without the spaces, tabs and carriage returns around
  /// it and without a history log's time prefix (empty only for a blank line), and whether it
  /// had that prefix.
  static func body(of line: UnsafeBufferPointer<UInt8>) -> (range: Range<Int>, prefixed: Bool) {
    var start = 0
    while start < line.count, line[start] == 0x20 || line[start] == 0x09 || line[start] == 0x0D { start += 1 }
    var end = line.count
    while end > start, line[end - 1] == 0x20 || line[end - 1] == 0x09 || line[end - 1] == 0x0D { end -= 1 }
    guard hasLogTimePrefix(line, at: start) else { return (start..<end, false) }
    start += logTimePattern.utf8CodeUnitCount
    while start < end, line[start] == 0x20 || line[start] == 0x09 { start += 1 }
    return (start..<end, true)
  }

  /// A log time prefix, `0` standing for any digit: a static string, read in place (an array
  /// was initialized on first use, checked for it and retained on every line).
  private static let logTimePattern: StaticString = "0000/00/00 00:00:00"

  /// `yyyy/MM/dd HH:mm:ss` at `start`.
  private static func hasLogTimePrefix(_ line: UnsafeBufferPointer<UInt8>, at start: Int) -> Bool {
    let pattern = UnsafeBufferPointer(start: logTimePattern.utf8Start, count: logTimePattern.utf8CodeUnitCount)
    guard line.count - start >= pattern.count + 1 else { return false }
    for (offset, expected) in pattern.enumerated() {
      let byte = line[start + offset]
      if expected == UInt8(ascii: "0") {
        guard byte &- UInt8(ascii: "0") < 10 else { return false }
      } else if byte != expected {
        return false
      }
    }
    return true
  }

  static func historyLog(_ value: JSONValue) throws(ItemError) -> DumpLine {
    let members = ParsedLineMembers(value: value)
    let type = try MessageItem.conversationType(value[.targetType], field: LineKey.targetType.name)
    var targetId = try Self.text(value, .targetId) ?? ""
    if type == .group || type == .ultraGroup, let group = try Self.text(value, .groupId), !group.isEmpty {
      targetId = group
    }
    guard let content = value[.content] else { throw ItemError(.missingField(LineKey.content.name)) }
    var sentTime = try MessageItem.time(value[.timestamp], field: LineKey.timestamp.name)
    if sentTime == nil, let dateTime = value[.dateTime] {
      guard let text = dateTime.stringValue, let time = Self.milliseconds(fromLogDateTime: text) else {
        throw ItemError(.invalidField(LineKey.dateTime.name, "yyyy-MM-dd HH:mm:ss.SSS"))
      }
      sentTime = time
    }
    var flagged: Bool?
    switch value["isSensitiveWord"] {
    case .string("true")?, .bool(true)?: flagged = true
    case .string("false")?, .bool(false)?: flagged = false
    default: flagged = nil
    }
    var item = MessageItem(
      msgUID: try Self.text(value, .msgUID) ?? "",
      fromUserId: try Self.text(value, .fromUserId) ?? "", targetId: targetId, conversationType: type,
      channelId: try Self.firstText(value, .busChannel, .channelId) ?? "",
      objectName: try Self.text(value, DumpLineRules.objectNameKey(.historyLog, members))
        ?? MessageItem.defaultObjectName,
      content: try MessageItem.embeddedJSON(content, field: LineKey.content.name), sentTime: sentTime ?? 0,
      appKey: try Self.text(value, .appId))
    try item.readPush(value)
    return DumpLine(format: .historyLog, item: item, platformFlagged: flagged)
  }

  static func callback(_ value: JSONValue) throws(ItemError) -> DumpLine {
    let members = ParsedLineMembers(value: value)
    let msgUID = try Self.firstText(value, .messageId, .msgUID) ?? ""
    // Read (and type-checked) before the kind is decided, whatever it is.
    let original = try Self.text(value, .originalMsgUID) ?? ""
    let extra = try Self.text(value, .extraContent) ?? ""
    guard let kind = DumpLineRules.callbackKind(members) else { throw ItemError(.missingField(LineKey.content.name)) }
    let objectName =
      try Self.text(value, DumpLineRules.objectNameKey(.callback, members)) ?? MessageItem.defaultObjectName
    let content: JSONValue
    switch kind {
    case .extension:
      content = [
        "mid": .string(msgUID), "put": try MessageItem.embeddedJSON(.string(extra), field: LineKey.extraContent.name),
      ]
    case .edit:
      // An edit without content (or with null or "") has nothing to read.
      guard let rawContent = value[.content] else { throw ItemError(.missingField(LineKey.content.name)) }
      content = try Self.callbackContent(rawContent, objectName: objectName)
    case .original:
      content = try Self.callbackContent(value[.content] ?? .null, objectName: objectName)
    }
    var targetId = try Self.firstText(value, .targetId, .toUserId) ?? ""
    let toUserIds = try MessageItem.userIds(value[.toUserIds])
    if targetId.isEmpty, let first = toUserIds.first { targetId = first }
    var item = MessageItem(
      sourceType: kind, msgUID: kind == .edit ? original : msgUID,
      fromUserId: try Self.text(value, .fromUserId) ?? "", targetId: targetId, toUserIds: toUserIds,
      conversationType: try MessageItem.conversationType(value[.channelType], field: LineKey.channelType.name),
      channelId: try Self.text(value, .busChannel) ?? "",
      objectName: objectName,
      content: content,
      sentTime: try MessageItem.time(value[.msgTimeStamp] ?? value[.msgTimestamp], field: LineKey.msgTimeStamp.name)
        ?? 0,
      appKey: try Self.text(value, .appKey))
    try item.readPush(value)
    return DumpLine(format: .callback, item: item, platformFlagged: nil)
  }

  /// A callback's content: the JSON its field holds, or for a custom type (not `RC:`) whose
  /// content is not JSON, the text itself, which the platform lets a custom message carry
  /// (moderated as one text field, see ``ContentExtractor``).
  static func callbackContent(_ raw: JSONValue, objectName: String) throws(ItemError) -> JSONValue {
    do { return try MessageItem.embeddedJSON(raw, field: "content") } catch {
      guard !objectName.hasPrefix("RC:"), case .string(let text) = raw else { throw error }
      return .string(text)
    }
  }

  /// The first of several fields that is present.
  static func firstText(_ value: JSONValue, _ keys: LineKey...) throws(ItemError) -> String? {
    for key in keys {
      if let text = try text(value, key) { return text }
    }
    return nil
  }

  /// A member read as text (``MessageItem/text(_:_:)``).
  static func text(_ value: JSONValue, _ key: LineKey) throws(ItemError) -> String? {
    try MessageItem.text(value, key.name)
  }

  /// `yyyy-MM-dd HH:mm:ss[.SSS]` as Unix milliseconds, the time read as UTC; nil unless every
  /// field is in its calendar range (year 0–9999, month 1–12, day 1–31, hour 0–23, minute
  /// 0–59, second 0–60, millisecond 0–999), so that no value of a log line can overflow.
  static func milliseconds(fromLogDateTime text: String) -> Int64? {
    let parts = text.split(whereSeparator: { "-: .T".contains($0) }).map { Int64($0) }
    guard parts.count >= 6 else { return nil }
    let ranges: [ClosedRange<Int64>] = [0...9999, 1...12, 1...31, 0...23, 0...59, 0...60, 0...999]
    var fields: [Int64] = []
    for (index, part) in parts.prefix(7).enumerated() {
      guard let part, ranges[index].contains(part) else { return nil }
      fields.append(part)
    }
    let (year, month, day) = (fields[0], fields[1], fields[2])
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    let days = era * 146_097 + dayOfEra - 719_468
    let seconds = days * 86_400 + fields[3] * 3600 + fields[4] * 60 + fields[5]
    let millis = fields.count > 6 ? fields[6] : 0
    return seconds * 1000 + millis
  }
}

extension MessageItem {
  /// The item of a message callback's form fields (`appKey, fromUserId, targetId, toUserIds,
  /// msgType, content, extraContent, channelType, msgTimeStamp, messageId, originalMsgUID,
  /// busChannel`), read as a callback line of a dump is: `content` is the content JSON, an
  /// `originalMsgUID` makes it an edit, `extraContent` alone an extension. Empty fields are
  /// absent ones; `toUserIds` is comma-separated; `msgTimeStamp` is Unix milliseconds.
  /// - Throws: ``ItemError`` when content is missing or not JSON, or a field is malformed.
  public init(callbackFields fields: [(name: String, value: String)]) throws(ItemError) {
    var members: [JSONMember] = []
    for (name, value) in fields where !value.isEmpty {
      switch name {
      case "toUserIds":
        let ids = value.split(separator: ",").map { JSONValue.string(String($0)) }
        members.append(JSONMember(key: name, value: .array(ids)))
      case "msgTimeStamp", "channelType":
        members.append(JSONMember(key: name, value: Int64(value) != nil ? .number(value) : .string(value)))
      default:
        members.append(JSONMember(key: name, value: .string(value)))
      }
    }
    self = try DumpLine.callback(.object(members)).item
  }
}
