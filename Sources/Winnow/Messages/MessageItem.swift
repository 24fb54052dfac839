/// One thing to moderate: an original message, an update of a message's extension, or an edit
/// of a message's content, with the message's identity and conversation.
///
/// Winnow's item JSON (``init(json:)``, `winnow check --item`, `winnow scan`) has these keys:
///
/// ```json
/// {"msgUID":"BS4S-…","fromUserId":"u1","targetId":"g1","conversationType":10,"channelId":"c1",
///  "objectName":"RC:ReferenceMsg","content":{"content":"hello","referMsg":{…}},"sentTime":1700000000000}
/// {"kind":"extension","msgUID":"…","targetId":"g1","conversationType":10,"channelId":"c1",
///  "sentTime":1700000000000,"sourceContent":{"mid":"…","put":{"key":"value"}}}
/// {"kind":"edit","msgUID":"…","targetId":"g1","conversationType":3,
///  "sentTime":1700000000000,"sourceContent":{"content":"new text"}}
/// ```
///
/// `kind` is `message` (the default), `extension` or `edit`. `content` (for messages) and
/// `sourceContent` (for extensions and edits) may be an object or a string holding JSON.
/// `conversationType` may be a number or a `channelType` name (`GROUP`); `appKey` chooses an
/// app's custom lists; `toUserIds` is optional. An item without `objectName` is a text message
/// (``defaultObjectName``).
public struct MessageItem: Sendable, Hashable {
  /// Original message, extension update or edit.
  public var sourceType: SourceType
  /// The message's unique id (for an extension or edit, the id of the message it changes).
  public var msgUID: String
  /// The sender.
  public var fromUserId: String
  /// The conversation id: the receiving user, group, chatroom or ultra group.
  public var targetId: String
  /// Receivers, where the source names them (message callbacks do); may be empty.
  public var toUserIds: [String]
  /// The conversation type.
  public var conversationType: ConversationType
  /// The ultra-group channel id; "" where none.
  public var channelId: String
  /// The message type (`RC:TxtMsg`, a custom type …): it decides which fields carry user text.
  /// For an edit, the type of the edited message.
  public var objectName: String
  /// For an original message, its content; for an extension, `{"mid":…,"put":{…}}`; for an
  /// edit, the new content (`{"content":…}` for a text message).
  public var content: JSONValue
  /// Send time, Unix milliseconds.
  public var sentTime: Int64
  /// The app whose custom lists apply; nil for the engine's default custom lists.
  public var appKey: String?
  /// The push notification's text, which a recipient's lock screen shows (`pushContent`):
  /// moderated as a field of the message, and rewritten by a replace word. Nil where none.
  public var pushContent: String? = nil
  /// The data carried with the push notification (`pushData`): moderated like
  /// ``pushContent``. Nil where none.
  public var pushData: String? = nil
  /// The push options (`pushExt`, as the platform's send API takes them: an object, or a string
  /// holding one), always an object here. Its `title`, the notification's title, is moderated
  /// like ``pushContent`` (see ``pushTitle``). Nil where none.
  public var pushExt: JSONValue? = nil

  /// The push notification's title: the `title` string of ``pushExt``; nil where none.
  public var pushTitle: String? {
    guard case .string(let title)? = pushExt?["title"], !title.isEmpty else { return nil }
    return title
  }

  /// Sets the `title` of ``pushExt``, where it has one, keeping its other members.
  mutating func setPushTitle(_ title: String) {
    guard case .object(var members)? = pushExt, let index = members.firstIndex(where: { $0.key == "title" })
    else { return }
    members[index].value = .string(title)
    pushExt = .object(members)
  }

  /// The object name of an item that has none, a text message's: `RC:TxtMsg`. Every reading
  /// (item JSON, history logs, callback posts, the in-place check of a dump line) takes it from
  /// here.
  public static let defaultObjectName = "RC:TxtMsg"

  /// ``defaultObjectName`` as a static string (a test holds the two equal), for the in-place
  /// check of dump lines, which compares bytes with it on every line. Not made from it, nor it
  /// from this: a literal string is never retained, a string made at run time on every use.
  static let defaultObjectNameText: StaticString = "RC:TxtMsg"

  /// Creates an item.
  public init(
    sourceType: SourceType = .original, msgUID: String, fromUserId: String = "", targetId: String,
    toUserIds: [String] = [], conversationType: ConversationType, channelId: String = "",
    objectName: String = MessageItem.defaultObjectName, content: JSONValue, sentTime: Int64, appKey: String? = nil
  ) {
    self.sourceType = sourceType
    self.msgUID = msgUID
    self.fromUserId = fromUserId
    self.targetId = targetId
    self.toUserIds = toUserIds
    self.conversationType = conversationType
    self.channelId = channelId
    self.objectName = objectName
    self.content = content
    self.sentTime = sentTime
    self.appKey = appKey
  }

  /// A text message (`RC:TxtMsg`, content `{"content": text}`).
  public static func text(
    _ text: String, msgUID: String, targetId: String, conversationType: ConversationType = .privateChat,
    sentTime: Int64 = 0
  ) -> MessageItem {
    MessageItem(
      msgUID: msgUID, targetId: targetId, conversationType: conversationType, content: ["content": .string(text)],
      sentTime: sentTime)
  }

  /// Reads an item from Winnow's item JSON (see the type's documentation).
  /// - Throws: ``ItemError`` for text that is not JSON or a field of the wrong type.
  public init(json text: String) throws(ItemError) {
    let value: JSONValue
    do { value = try JSONValue(parsing: text) } catch { throw ItemError(.invalidJSON(error)) }
    try self.init(json: value)
  }

  /// Reads an item from a parsed item JSON object.
  /// - Throws: ``ItemError`` for a missing or mistyped field.
  public init(json value: JSONValue) throws(ItemError) {
    guard case .object = value else { throw ItemError(.invalidField("item", "an object")) }
    try self.init(itemMembers: ParsedLineMembers(value: value))
  }

  /// Reads an item from the members of an item JSON object, however they are held: parsed
  /// (``init(json:)``), or parsed one by one from a dump line's bytes by the in-place check,
  /// which so reads a line the way reading it whole does.
  init(itemMembers members: some ItemMemberReading) throws(ItemError) {
    let kind: SourceType
    if let name = members[.kind] {
      guard let text = name.stringValue, let parsed = SourceType(kindName: text) else {
        throw ItemError(.invalidField("kind", "\"message\", \"extension\" or \"edit\""))
      }
      kind = parsed
    } else {
      kind = .original
    }
    let contentKey = DumpLineRules.contentKey(.item, kind, members)
    guard let rawContent = members[contentKey] else {
      throw ItemError(.missingField(kind == .original ? "content" : "sourceContent"))
    }
    self.init(
      sourceType: kind,
      msgUID: try Self.text(members[.msgUID], field: "msgUID") ?? "",
      fromUserId: try Self.text(members[.fromUserId], field: "fromUserId") ?? "",
      targetId: try Self.text(members[.targetId], field: "targetId") ?? "",
      toUserIds: try Self.userIds(members[.toUserIds]),
      conversationType: try Self.conversationType(members[.conversationType]),
      channelId: try Self.text(members[.channelId], field: "channelId") ?? "",
      objectName: try Self.text(members[.objectName], field: "objectName") ?? Self.defaultObjectName,
      content: try Self.embeddedJSON(rawContent, field: contentKey.name),
      sentTime: try Self.time(members[.sentTime], field: "sentTime") ?? 0,
      appKey: try Self.text(members[.appKey], field: "appKey"))
    try readPush(members)
  }

  /// Sets ``pushContent``, ``pushData`` and ``pushExt`` from an item's or a callback post's
  /// members of those names; an empty one is none. A `pushExt` that is neither an object nor
  /// a string holding one is an error naming it.
  mutating func readPush(_ value: JSONValue) throws(ItemError) {
    try readPush(ParsedLineMembers(value: value))
  }

  /// ``readPush(_:)`` from members however they are held.
  mutating func readPush(_ members: some ItemMemberReading) throws(ItemError) {
    pushContent = try Self.text(members[.pushContent], field: "pushContent").flatMap { $0.isEmpty ? nil : $0 }
    pushData = try Self.text(members[.pushData], field: "pushData").flatMap { $0.isEmpty ? nil : $0 }
    switch members[.pushExt] {
    case nil, .null?, .string("")?: pushExt = nil
    case let ext?:
      let parsed = try Self.embeddedJSON(ext, field: "pushExt")
      guard case .object = parsed else { throw ItemError(.invalidField("pushExt", "an object")) }
      pushExt = parsed
    }
  }

  /// A string field, or a number written where ids usually are strings.
  static func text(_ object: JSONValue, _ key: String) throws(ItemError) -> String? {
    try text(object[key], field: key)
  }

  /// A member's value read as ``text(_:_:)`` reads it; `field` names it in an error.
  static func text(_ value: JSONValue?, field: String) throws(ItemError) -> String? {
    switch value {
    case nil, .null?: return nil
    case .string(let text)?: return text
    case let value?:
      guard let text = value.scalarText else { throw ItemError(.invalidField(field, "a string")) }
      return text
    }
  }

  static func userIds(_ value: JSONValue?) throws(ItemError) -> [String] {
    switch value {
    case nil, .null?: return []
    case .string(let list)?: return list.split(separator: ",").map(String.init)
    case .array(let elements)?:
      var ids: [String] = []
      for element in elements {
        guard let id = element.scalarText else { throw ItemError(.invalidField("toUserIds", "strings")) }
        ids.append(id)
      }
      return ids
    default: throw ItemError(.invalidField("toUserIds", "an array of strings"))
    }
  }

  /// A conversation type as a number (1–12) or a `channelType` name; missing means private.
  static func conversationType(_ value: JSONValue?, field: String = "conversationType") throws(ItemError)
    -> ConversationType
  {
    guard let value, value.isNotNull else { return .privateChat }
    if let number = value.int64Value, let type = ConversationType(rawValue: Int(number)) { return type }
    if let name = value.stringValue, let type = ConversationType(channelTypeName: name) { return type }
    throw ItemError(.invalidField(field, "a conversation type 1–12 or a channelType name"))
  }

  /// A time in Unix milliseconds, as a number or a string of digits.
  static func time(_ value: JSONValue?, field: String) throws(ItemError) -> Int64? {
    guard let value, value.isNotNull else { return nil }
    guard let time = value.int64Value else { throw ItemError(.invalidField(field, "Unix milliseconds")) }
    return time
  }

  /// Content given as an object, or as a string holding JSON (as message callbacks send it).
  static func embeddedJSON(_ value: JSONValue, field: String) throws(ItemError) -> JSONValue {
    guard case .string(let text) = value else { return value }
    do { return try JSONValue(parsing: text) } catch { throw ItemError(.invalidJSON(error), field: field) }
  }

  /// The item in Winnow's item JSON.
  public var json: JSONValue {
    var members: [JSONMember] = []
    if sourceType != .original { members.append(JSONMember(key: "kind", value: .string(sourceType.kindName))) }
    members += [
      JSONMember(key: "msgUID", value: .string(msgUID)),
      JSONMember(key: "fromUserId", value: .string(fromUserId)),
      JSONMember(key: "targetId", value: .string(targetId)),
    ]
    if !toUserIds.isEmpty {
      members.append(JSONMember(key: "toUserIds", value: .array(toUserIds.map(JSONValue.string))))
    }
    members += [
      JSONMember(key: "conversationType", value: .number(String(conversationType.rawValue))),
      JSONMember(key: "channelId", value: .string(channelId)),
      JSONMember(key: "objectName", value: .string(objectName)),
      JSONMember(key: sourceType == .original ? "content" : "sourceContent", value: content),
      JSONMember(key: "sentTime", value: .number(String(sentTime))),
    ]
    if let appKey { members.append(JSONMember(key: "appKey", value: .string(appKey))) }
    if let pushContent { members.append(JSONMember(key: "pushContent", value: .string(pushContent))) }
    if let pushData { members.append(JSONMember(key: "pushData", value: .string(pushData))) }
    if let pushExt { members.append(JSONMember(key: "pushExt", value: pushExt)) }
    return .object(members)
  }
}

/// Why an item cannot be moderated: its content is not JSON, is too large, or a field has the
/// wrong type. Moderation reports it as an error result; it never crashes on bad input.
public struct ItemError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The kinds of problem.
  public enum Kind: Sendable, Hashable {
    /// Text that should be JSON is not.
    case invalidJSON(JSONParseError)
    /// The content is larger than the limit (bytes, limit).
    case tooLarge(Int, limit: Int)
    /// A required field is missing.
    case missingField(String)
    /// A field has the wrong type (field, what was expected).
    case invalidField(String, String)
  }

  /// What is wrong.
  public let kind: Kind
  /// The field concerned, where the problem is inside one (`content`).
  public let field: String?

  /// Creates an error of `kind`, naming the field at fault when there is one.
  public init(_ kind: Kind, field: String? = nil) {
    self.kind = kind
    self.field = field
  }

  /// The error as one line, for people.
  public var description: String {
    let place = field.map { "\($0): " } ?? ""
    switch kind {
    case .invalidJSON(let error): return place + error.description
    case .tooLarge(let size, let limit): return place + "content of \(size) bytes is over the limit of \(limit) bytes"
    case .missingField(let name): return place + "missing field \"\(name)\""
    case .invalidField(let name, let expected): return place + "field \"\(name)\" must be \(expected)"
    }
  }
}
