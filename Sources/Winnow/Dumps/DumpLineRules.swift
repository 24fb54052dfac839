/// A member of a dump line that reading it looks at: the one table of their names. Reading a
/// line into an item (``DumpLine``), the in-place check of
/// ``ModerationEngine/screen(dumpLine:inPlace:)`` and the check's tests all take the names
/// from here; ``DumpLineRules`` decides from them how a line is read.
enum LineKey: Int, Sendable, CaseIterable {
  // Item JSON.
  case kind, content, msgUID, fromUserId, targetId, toUserIds, conversationType, channelId, objectName, sentTime
  case appKey, sourceContent
  // History logs.
  case classname, targetType, groupId, timestamp, dateTime, busChannel, appId
  // Callback posts.
  case messageId, originalMsgUID, extraContent, toUserId, channelType, msgType, msgTimeStamp, msgTimestamp
  // Push texts, of items and callback posts.
  case pushContent, pushData, pushExt

  /// How many keys there are (the size of ``LineMembers``' table; a test holds them equal).
  static let count = 30

  /// The member's name in the line's JSON.
  var staticName: StaticString {
    switch self {
    case .kind: "kind"
    case .content: "content"
    case .msgUID: "msgUID"
    case .fromUserId: "fromUserId"
    case .targetId: "targetId"
    case .toUserIds: "toUserIds"
    case .conversationType: "conversationType"
    case .channelId: "channelId"
    case .objectName: "objectName"
    case .sentTime: "sentTime"
    case .appKey: "appKey"
    case .sourceContent: "sourceContent"
    case .classname: "classname"
    case .targetType: "targetType"
    case .groupId: "GroupId"
    case .timestamp: "timestamp"
    case .dateTime: "dateTime"
    case .busChannel: "busChannel"
    case .appId: "appId"
    case .messageId: "messageId"
    case .originalMsgUID: "originalMsgUID"
    case .extraContent: "extraContent"
    case .toUserId: "toUserId"
    case .channelType: "channelType"
    case .msgType: "msgType"
    case .msgTimeStamp: "msgTimeStamp"
    case .msgTimestamp: "msgTimestamp"
    case .pushContent: "pushContent"
    case .pushData: "pushData"
    case .pushExt: "pushExt"
    }
  }

  /// The member's name in the line's JSON: made once for every key (reading a line looks up
  /// a score of names, and each was a new string made from ``staticName``).
  var name: String { Self.names[rawValue] }

  private static let names = allCases.map(\.staticName.description)

  /// The key whose name is `bytes`, or nil. The keys are tried by the length of their names
  /// (a test holds this dispatch to the table: every name finds its key); a table of keys by
  /// length, read through arrays, cost 8% more instructions per clean line. A name is compared
  /// as two words (``words(_:count:)``), not byte by byte.
  @inline(__always)
  static func named(_ bytes: UnsafeBufferPointer<UInt8>) -> LineKey? {
    guard let base = bytes.baseAddress, bytes.count >= 4, bytes.count <= 16 else { return nil }
    let words = Self.words(UnsafeRawPointer(base), count: bytes.count)
    @inline(__always) func key(_ key: LineKey) -> LineKey? {
      let name = key.staticName
      guard name.utf8CodeUnitCount == bytes.count else { return nil }
      return Self.words(UnsafeRawPointer(name.utf8Start), count: bytes.count) == words ? key : nil
    }
    return switch bytes.count {
    case 4: key(.kind)
    case 5: key(.appId)
    case 6: key(.msgUID) ?? key(.appKey)
    case 7: key(.content) ?? key(.groupId) ?? key(.msgType) ?? key(.pushExt)
    case 8: key(.targetId) ?? key(.sentTime) ?? key(.dateTime) ?? key(.toUserId) ?? key(.pushData)
    case 9: key(.toUserIds) ?? key(.channelId) ?? key(.classname) ?? key(.timestamp) ?? key(.messageId)
    case 10: key(.fromUserId) ?? key(.objectName) ?? key(.targetType) ?? key(.busChannel)
    case 11: key(.channelType) ?? key(.pushContent)
    case 12: key(.extraContent) ?? key(.msgTimeStamp) ?? key(.msgTimestamp)
    case 13: key(.sourceContent)
    case 14: key(.originalMsgUID)
    case 16: key(.conversationType)
    default: nil
    }
  }

  /// The key whose name is written at `offset` of `bytes` and closed by a quote there, and the
  /// name's length; nil when the bytes there are no key's name and quote (the caller then reads
  /// them as any string). A name equal to a key's has no escape or byte that a string must not
  /// hold, so the string needs no other check. The quote is found sixteen bytes at a time
  /// (the bytes XOR `"` tested for a zero byte, exact up to the first): read as a string first,
  /// then looked up, a line's keys were a quarter of the in-place check's JSON.
  @inline(__always)
  static func plainName(in bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> (key: LineKey, length: Int)? {
    guard let base = bytes.baseAddress, offset >= 0, bytes.count &- offset > 16 else { return nil }
    let raw = UnsafeRawPointer(base + offset)
    @inline(__always) func quotes(_ word: UInt64) -> UInt64 {
      let flipped = word ^ 0x2222_2222_2222_2222
      return (flipped &- 0x0101_0101_0101_0101) & ~flipped & 0x8080_8080_8080_8080
    }
    // SAFETY: 17 bytes lie at `offset` (checked above).
    let first = quotes(UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self)))
    let length: Int
    if first != 0 {
      length = first.trailingZeroBitCount &>> 3
    } else {
      let second = quotes(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
      if second != 0 {
        length = 8 &+ second.trailingZeroBitCount &>> 3
      } else {
        guard base[offset &+ 16] == UInt8(ascii: "\"") else { return nil }
        length = 16
      }
    }
    guard let key = named(UnsafeBufferPointer(start: base + offset, count: length)) else { return nil }
    return (key, length)
  }

  /// The `count` bytes (4 to 16) at `bytes` as two words that overlap where they must: the
  /// first and the last four bytes, or eight. Two texts of the same length are equal when their
  /// words are.
  @inline(__always)
  private static func words(_ bytes: UnsafeRawPointer, count: Int) -> (UInt64, UInt64) {
    if count < 8 {
      return (
        UInt64(bytes.loadUnaligned(as: UInt32.self)),
        UInt64(bytes.loadUnaligned(fromByteOffset: count &- 4, as: UInt32.self))
      )
    }
    return (bytes.loadUnaligned(as: UInt64.self), bytes.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self))
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
/// which builds its item, and the in-place check of
/// ``ModerationEngine/screen(dumpLine:inPlace:)``, which checks the line's bytes in place and
/// must take a line exactly as the reading would. Each rule decides from which members a line
/// has, not from how they are held.
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

/// How reading takes a member's value (the readers of ``MessageItem``). Every kind takes a
/// member the line lacks.
enum MemberKind: Sendable, Hashable {
  /// Text (``MessageItem/text(_:_:)``): a string, a number, a boolean or null.
  case text
  /// Receivers (``MessageItem/userIds(_:)``): null, a string, or an array of strings, numbers
  /// and booleans.
  case userIds
  /// A conversation type (``MessageItem/conversationType(_:field:)``): a number or a name.
  case conversationType
  /// A time in Unix milliseconds (``MessageItem/time(_:field:)``).
  case time
  /// A time read from this member or, when the line lacks it, from the one named.
  case timeOr(LineKey)
  /// A history log's time: this member in Unix milliseconds unless it is absent or null, else
  /// the one named as `yyyy-MM-dd HH:mm:ss.SSS`.
  case logTimeOr(LineKey)
  /// Push text (``MessageItem/readPush(_:)``), read whatever it holds; the in-place check
  /// passes only a line without any (absent, `""` or null).
  case push
}

/// The members each dump format reads, and how: the one table of them. The members
/// ``DumpLineRules`` decides from (the kind, the object name, the content) are not in it.
/// The in-place check of a line walks it; reading a line (``DumpLine``) reads the same members
/// with the readers the kinds name, and the screening property test, which writes every kind of
/// value into every ``LineKey``, holds the two to each other.
enum DumpSchema {
  /// A member and how it is read.
  struct Member: Sendable, Hashable {
    let key: LineKey
    let kind: MemberKind

    init(_ key: LineKey, _ kind: MemberKind) {
      self.key = key
      self.kind = kind
    }
  }

  /// The members a line of `format` reads as text (``MemberKind/text``) and as push text
  /// (``MemberKind/push``), each as bits of their ``LineKey`` raw values, and its other
  /// members: how the in-place check takes the schema (such a member is checked with a load
  /// and a comparison or two, not through the kinds' switch).
  @inline(__always)
  static func split(of format: DumpFormat) -> Split {
    switch format {
    case .historyLog: historyLogSplit
    case .callback: callbackSplit
    case .item: itemSplit
    }
  }

  private static let historyLogSplit = split(historyLog)
  private static let callbackSplit = split(callback)
  private static let itemSplit = split(item)

  /// A format's members by how the in-place check takes them (``split(of:)``).
  struct Split {
    var textKeys: UInt64 = 0
    var pushKeys: UInt64 = 0
    var others: [Member] = []
  }

  private static func split(_ members: [Member]) -> Split {
    precondition(LineKey.count <= 64, "a key is a bit of a UInt64")
    var split = Split()
    for member in members {
      switch member.kind {
      case .text: split.textKeys |= 1 << UInt64(member.key.rawValue)
      case .push: split.pushKeys |= 1 << UInt64(member.key.rawValue)
      default: split.others.append(member)
      }
    }
    return split
  }

  /// The members a line of `format` reads.
  @inline(__always)
  static func members(of format: DumpFormat) -> [Member] {
    switch format {
    case .historyLog: historyLog
    case .callback: callback
    case .item: item
    }
  }

  /// A history log: `targetType` is the conversation type, `GroupId` the group's target, the time
  /// `timestamp` else `dateTime`.
  static let historyLog: [Member] = [
    Member(.msgUID, .text), Member(.fromUserId, .text), Member(.targetId, .text), Member(.groupId, .text),
    Member(.busChannel, .text), Member(.channelId, .text), Member(.appId, .text),
    Member(.targetType, .conversationType), Member(.timestamp, .logTimeOr(.dateTime)),
    Member(.pushContent, .push), Member(.pushData, .push), Member(.pushExt, .push),
  ]

  /// A callback post: `channelType` is the conversation type, the time `msgTimeStamp` else
  /// `msgTimestamp`.
  static let callback: [Member] = [
    Member(.messageId, .text), Member(.msgUID, .text), Member(.extraContent, .text), Member(.fromUserId, .text),
    Member(.targetId, .text), Member(.toUserId, .text), Member(.busChannel, .text), Member(.appKey, .text),
    Member(.msgType, .text), Member(.objectName, .text), Member(.originalMsgUID, .text),
    Member(.toUserIds, .userIds), Member(.channelType, .conversationType),
    Member(.msgTimeStamp, .timeOr(.msgTimestamp)),
    Member(.pushContent, .push), Member(.pushData, .push), Member(.pushExt, .push),
  ]

  /// Winnow's item JSON.
  static let item: [Member] = [
    Member(.msgUID, .text), Member(.fromUserId, .text), Member(.targetId, .text), Member(.channelId, .text),
    Member(.appKey, .text), Member(.toUserIds, .userIds), Member(.conversationType, .conversationType),
    Member(.sentTime, .time),
    Member(.pushContent, .push), Member(.pushData, .push), Member(.pushExt, .push),
  ]
}

extension JSONValue {
  /// The value of a line's member (the last of its name), if it has one.
  subscript(key: LineKey) -> JSONValue? { self[key.name] }
}

/// A line's members as values, which reading an item takes them as
/// (``MessageItem/init(itemMembers:)``).
protocol ItemMemberReading: LineMemberLookup {
  /// The member's value (the last of its name), if the line has it.
  subscript(key: LineKey) -> JSONValue? { get }
}

extension ItemMemberReading {
  func has(_ key: LineKey) -> Bool { self[key] != nil }
  func isNull(_ key: LineKey) -> Bool { self[key] == .null }
  func isEmptyString(_ key: LineKey) -> Bool { self[key] == .string("") }
}

/// A parsed line's members.
struct ParsedLineMembers: ItemMemberReading {
  let value: JSONValue

  subscript(key: LineKey) -> JSONValue? { value[key] }
}
