/// A member of a dump line that decides how the line is read (see ``DumpLineRules``).
enum LineKey: Sendable {
  case kind, content, sourceContent, objectName
  case classname
  case msgType, channelType, msgTimeStamp, msgTimestamp, messageId, originalMsgUID, extraContent

  /// The member's name in the line's JSON.
  var name: String {
    switch self {
    case .kind: "kind"
    case .content: "content"
    case .sourceContent: "sourceContent"
    case .objectName: "objectName"
    case .classname: "classname"
    case .msgType: "msgType"
    case .channelType: "channelType"
    case .msgTimeStamp: "msgTimeStamp"
    case .msgTimestamp: "msgTimestamp"
    case .messageId: "messageId"
    case .originalMsgUID: "originalMsgUID"
    case .extraContent: "extraContent"
    }
  }
}

/// What a line's members are, however the reading holds them: parsed (``JSONValue``) when a
/// line is read into an item, as byte ranges when it is checked in place.
protocol LineMemberLookup {
  /// Whether the line has the member, whatever its value (null included).
  func has(_ key: LineKey) -> Bool
  /// Whether the member's value is `null` (false when the line lacks it).
  func isNull(_ key: LineKey) -> Bool
  /// Whether the member's value is the empty string (false when the line lacks it).
  func isEmptyString(_ key: LineKey) -> Bool
}

extension LineMemberLookup {
  /// The line has the member with a value other than null.
  func hasNonNull(_ key: LineKey) -> Bool { has(key) && !isNull(key) }
  /// The line has the member with a value other than null and "".
  func hasValue(_ key: LineKey) -> Bool { hasNonNull(key) && !isEmptyString(key) }
}

/// How a dump line is read, written once for both readings of a line: ``DumpLine/init(utf8:)``,
/// which builds its item, and ``ModerationEngine/cleanLine(ofDumpLine:)``, which checks the
/// line's bytes in place and must take a line exactly as the reading would. Each rule decides
/// from which members a line has, not from how they are held.
enum DumpLineRules {
  /// The format: a history log when the line has a log time prefix or a `classname`; a
  /// callback post when it has any of `msgType`, `channelType`, `msgTimeStamp`,
  /// `msgTimestamp`, `messageId`; else Winnow's item JSON.
  @inline(__always)
  static func format(prefixed: Bool, _ members: some LineMemberLookup) -> DumpFormat {
    if prefixed || members.has(.classname) { return .historyLog }
    if members.has(.msgType) || members.has(.channelType) || members.has(.msgTimeStamp)
      || members.has(.msgTimestamp) || members.has(.messageId)
    {
      return .callback
    }
    return .item
  }

  /// What a callback post is: an edit when it has an `originalMsgUID` (not null or ""), else
  /// an original message when it has `content` (not null or ""), else an extension update of
  /// `msgUID` when it has `extraContent` (not null or ""); nil when it has none of them (its
  /// content is missing).
  @inline(__always)
  static func callbackKind(_ members: some LineMemberLookup) -> SourceType? {
    if members.hasValue(.originalMsgUID) { return .edit }
    if members.hasValue(.content) { return .original }
    if members.hasValue(.extraContent) { return .extension }
    return nil
  }

  /// The member that names the message type: a history log's `classname`; a callback post's
  /// `msgType` unless it lacks one or it is null, then its `objectName`; an item's
  /// `objectName`. A line without it is a text message (`RC:TxtMsg`).
  @inline(__always)
  static func objectNameKey(_ format: DumpFormat, _ members: some LineMemberLookup) -> LineKey {
    switch format {
    case .historyLog: .classname
    case .callback: members.hasNonNull(.msgType) ? .msgType : .objectName
    case .item: .objectName
    }
  }

  /// The member that holds the content of a line of `kind`: an item's extension or edit reads
  /// `sourceContent` when it has one, else `content`; a callback post's extension update
  /// reads `extraContent` (its `put`); everything else reads `content`.
  @inline(__always)
  static func contentKey(_ format: DumpFormat, _ kind: SourceType, _ members: some LineMemberLookup) -> LineKey {
    switch (format, kind) {
    case (.item, .edit), (.item, .extension): members.has(.sourceContent) ? .sourceContent : .content
    case (.callback, .extension): .extraContent
    default: .content
    }
  }
}

/// A parsed line's members.
struct ParsedLineMembers: LineMemberLookup {
  let value: JSONValue

  func has(_ key: LineKey) -> Bool { value[key.name] != nil }
  func isNull(_ key: LineKey) -> Bool { value[key.name] == .null }
  func isEmptyString(_ key: LineKey) -> Bool { value[key.name] == .string("") }
}
