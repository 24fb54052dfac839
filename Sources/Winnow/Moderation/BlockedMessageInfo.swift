/// Why an item was blocked, field for field as the IM platform's message-block notification
/// (`BlockedMessageInfo`), so that a client SDK can show it to the sender unchanged.
///
/// Its JSON keys are exactly `type, targetId, channelId, blockedMsgUId, blockType, extra,
/// sentTime, sourceType, sourceContent`, in that order; `sourceContent` is `null` for an
/// original message:
///
/// ```json
/// {"type":10,"targetId":"g1","channelId":"c1","blockedMsgUId":"BS4S-P5AA-06A4-H2ME",
///  "blockType":1,"extra":"{\"matches\":[{\"word\":\"傻逼\",\"list\":\"zh.txt\",\"category\":\"sensitive\"}]}",
///  "sentTime":1700000000000,"sourceType":0,"sourceContent":null}
/// ```
public struct BlockedMessageInfo: Codable, Sendable, Hashable {
  /// The conversation type (``ConversationType`` raw value, 1–12).
  public var type: Int
  /// The conversation id.
  public var targetId: String
  /// The ultra-group channel id; "" where none.
  public var channelId: String
  /// The unique id of the blocked message.
  public var blockedMsgUId: String
  /// 1 global sensitive word, 2 custom sensitive word, 3 third-party reviewer (``BlockType``).
  public var blockType: Int
  /// A short JSON text: the matched words with list and category, or the reviewer's own
  /// `extra`; at most ``maximumExtraLength`` characters.
  public var extra: String
  /// The send time, Unix milliseconds.
  public var sentTime: Int64
  /// 0 original message, 1 extension, 2 edit (``SourceType``).
  public var sourceType: Int
  /// nil for an original message; the extension JSON (`{"mid":…,"put":{…}}`) or the edited
  /// content JSON (`{"content":…}`) otherwise, as compact JSON text.
  public var sourceContent: String?

  /// The longest `extra` the platform carries.
  public static let maximumExtraLength = 1024

  /// Creates a record.
  public init(
    type: Int, targetId: String, channelId: String, blockedMsgUId: String, blockType: Int, extra: String,
    sentTime: Int64, sourceType: Int, sourceContent: String?
  ) {
    self.type = type
    self.targetId = targetId
    self.channelId = channelId
    self.blockedMsgUId = blockedMsgUId
    self.blockType = blockType
    self.extra = extra
    self.sentTime = sentTime
    self.sourceType = sourceType
    self.sourceContent = sourceContent
  }

  /// The record for a blocked item; `extra` is cut to ``maximumExtraLength`` characters.
  ///
  /// The item is borrowed and the record's members set one by one: taking the item as owned,
  /// or delegating to the memberwise initializer, copied the item or the record.
  public init(item: __shared MessageItem, blockType: BlockType, extra: String) {
    // No more UTF-8 bytes than the limit means no more characters either, and no need to walk
    // the characters (a blocked line's extra is that short nearly always).
    let limit = Self.maximumExtraLength
    type = item.conversationType.rawValue
    targetId = item.targetId
    channelId = item.channelId
    blockedMsgUId = item.msgUID
    self.blockType = blockType.rawValue
    self.extra = extra.utf8.count <= limit ? extra : String(extra.prefix(limit))
    sentTime = item.sentTime
    sourceType = item.sourceType.rawValue
    sourceContent = item.sourceType == .original ? nil : item.content.jsonString
  }

  private enum CodingKeys: String, CodingKey {
    case type, targetId, channelId, blockedMsgUId, blockType, extra, sentTime, sourceType, sourceContent
  }

  /// Encodes every key, `sourceContent` as `null` when there is none.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(type, forKey: .type)
    try container.encode(targetId, forKey: .targetId)
    try container.encode(channelId, forKey: .channelId)
    try container.encode(blockedMsgUId, forKey: .blockedMsgUId)
    try container.encode(blockType, forKey: .blockType)
    try container.encode(extra, forKey: .extra)
    try container.encode(sentTime, forKey: .sentTime)
    try container.encode(sourceType, forKey: .sourceType)
    try container.encode(sourceContent, forKey: .sourceContent)
  }

  /// The record as a JSON object, keys in the platform's order.
  public var json: JSONValue { JSONValue(written: write) }

  /// Writes ``json`` without building it.
  @_spi(Tools) public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    writer.key("type")
    writer.number(type)
    writer.key("targetId")
    writer.string(targetId)
    writer.key("channelId")
    writer.string(channelId)
    writer.key("blockedMsgUId")
    writer.string(blockedMsgUId)
    writer.key("blockType")
    writer.number(blockType)
    writer.key("extra")
    writer.string(extra)
    writer.key("sentTime")
    writer.number(Int(sentTime))
    writer.key("sourceType")
    writer.number(sourceType)
    writer.key("sourceContent")
    writer.string(sourceContent)
    writer.endObject()
  }
}

/// Who blocked an item: the record's `blockType`.
public enum BlockType: Int, Sendable, Hashable, CaseIterable, Codable {
  /// A word of the global list.
  case globalWord = 1
  /// A word of the app's custom list.
  case customWord = 2
  /// The third-party reviewer (the platform's message callback).
  case thirdParty = 3
}

/// The routing feed's `sensitiveType`: which kind of word list entry fired.
public enum SensitiveType: Int, Sendable, Hashable, CaseIterable, Codable {
  /// No entry matched.
  case none = 0
  /// A block entry matched.
  case blockWord = 1
  /// Only replace entries matched.
  case replaceWord = 2
}
