/// The conversation a message belongs to, with the platform's numbers (`type` in
/// ``BlockedMessageInfo``) and the `channelType` names of its message callbacks.
public enum ConversationType: Int, Sendable, Hashable, CaseIterable, Codable {
  case privateChat = 1
  case discussion = 2
  case group = 3
  case chatroom = 4
  case customerService = 5
  case system = 6
  case appService = 7
  case publicService = 8
  case push = 9
  case ultraGroup = 10
  case encrypted = 11
  case rtc = 12

  /// The `channelType` name used by message callbacks and routing posts (`PERSON`, `GROUP`,
  /// `ULTRAGROUP`, …); nil for the types that have none (push, encrypted, RTC).
  public var channelTypeName: String? {
    switch self {
    case .privateChat: "PERSON"
    case .discussion: "PERSONS"
    case .group: "GROUP"
    case .chatroom: "TEMPGROUP"
    case .customerService: "CUSTOMERSERVICE"
    case .system: "NOTIFY"
    case .appService: "MC"
    case .publicService: "MP"
    case .ultraGroup: "ULTRAGROUP"
    case .push, .encrypted, .rtc: nil
    }
  }

  /// The type for a `channelType` name (case-insensitive), nil for an unknown name.
  public init?(channelTypeName name: String) {
    let upper = name.uppercased()
    guard let type = Self.allCases.first(where: { $0.channelTypeName == upper }) else { return nil }
    self = type
  }
}

/// What an item is: the original message, an update of its extension, or an edit of it. The raw
/// value is the `sourceType` of ``BlockedMessageInfo``.
public enum SourceType: Int, Sendable, Hashable, CaseIterable, Codable {
  /// An original message (`sourceType` 0).
  case original = 0
  /// A change to a message's extension, `{"mid":…,"put":{key:value}}` (`sourceType` 1).
  case `extension` = 1
  /// New content for an earlier message, `{"content":…}` (`sourceType` 2).
  case edit = 2

  /// The name used in Winnow's item JSON (`"kind"`): `message`, `extension`, `edit`.
  public var kindName: String {
    switch self {
    case .original: "message"
    case .extension: "extension"
    case .edit: "edit"
    }
  }

  /// The kind for a name of ``kindName``, nil for another name.
  public init?(kindName: String) {
    guard let kind = Self.allCases.first(where: { $0.kindName == kindName }) else { return nil }
    self = kind
  }
}
