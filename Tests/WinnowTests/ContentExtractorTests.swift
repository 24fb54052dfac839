import Testing

@_spi(Tools) @testable import Winnow

/// Which text of which message type is moderated.
@Suite("Content extraction")
struct ContentExtractorTests {
  struct Case: Sendable, CustomTestStringConvertible {
    let objectName: String
    let content: String
    /// Expected (field path, text) in order.
    let fields: [(String, String)]
    var testDescription: String { objectName }
  }

  static let user = #""user":{"id":"u1","name":"Nick","portrait":"http://x/p.png"},"extra":"ex""#

  static let cases: [Case] = [
    Case(
      objectName: "RC:TxtMsg",
      content: #"{"content":"hi","mentionedInfo":{"type":2,"userIdList":["u2"],"mentionedContent":"@u2"},\#(user)}"#,
      fields: [("content", "hi"), ("mentionedInfo.mentionedContent", "@u2"), ("extra", "ex"), ("user.name", "Nick")]),
    Case(
      objectName: "RC:ReferenceMsg",
      content: #"{"content":"reply","referMsgUserId":"u2","objName":"RC:TxtMsg","referMsg":{"content":"quoted"}}"#,
      fields: [("content", "reply"), ("referMsg.content", "quoted")]),
    Case(
      objectName: "RC:FileMsg", content: #"{"name":"plan.pdf","size":10,"type":"pdf","fileUrl":"http://x/f",\#(user)}"#,
      fields: [("name", "plan.pdf"), ("extra", "ex"), ("user.name", "Nick")]),
    Case(
      objectName: "RC:GIFMsg", content: #"{"name":"cat.gif","remoteUrl":"http://x/g"}"#, fields: [("name", "cat.gif")]),
    Case(
      objectName: "RC:SightMsg", content: #"{"name":"clip.mp4","content":"/9j/4AAQSkZJRgABAQ==","duration":5}"#,
      fields: [("name", "clip.mp4")]),
    Case(
      objectName: "RC:LBSMsg", content: #"{"poi":"Tiananmen","latitude":39.9,"content":"/9j/4AAQSkZJRg=="}"#,
      fields: [("poi", "Tiananmen")]),
    Case(
      objectName: "RC:CombineMsg",
      content: #"{"title":"Chat","nameList":["A","B"],"summaryList":["A: hi","B: yo"],"remoteUrl":"http://x"}"#,
      fields: [
        ("title", "Chat"), ("nameList[0]", "A"), ("nameList[1]", "B"), ("summaryList[0]", "A: hi"),
        ("summaryList[1]", "B: yo"),
      ]),
    Case(
      objectName: "RC:ImgMsg", content: #"{"content":"/9j/4AAQSkZJRgABAQ==","imageUri":"http://x/i.jpg",\#(user)}"#,
      fields: [("extra", "ex"), ("user.name", "Nick")]),
    Case(objectName: "RC:HQVCMsg", content: #"{"remoteUrl":"http://x/v.aac","duration":3}"#, fields: []),
    Case(objectName: "RC:ReadNtf", content: #"{"lastMessageSendTime":1,"messageUId":"x","type":1}"#, fields: []),
    Case(objectName: "RC:TypSts", content: #"{"typingContentType":"RC:TxtMsg"}"#, fields: []),
    Case(objectName: "RC:RcCmd", content: #"{"messageUId":"x","conversationType":1,"targetId":"t"}"#, fields: []),
    Case(
      objectName: "App:Unknown", content: #"{"a":"one","b":{"c":["two",3]},"d":true}"#,
      fields: [("a", "one"), ("b.c[0]", "two")]),
  ]

  @Test(arguments: cases)
  func extractsTheUserTextOfEachType(testCase: Case) throws {
    let item = MessageItem(
      msgUID: "m", targetId: "t", conversationType: .group, objectName: testCase.objectName,
      content: try JSONValue(parsing: testCase.content), sentTime: 1)
    let fields = try ContentExtractor().fields(of: item)
    #expect(fields.map(\.location.description) == testCase.fields.map(\.0))
    #expect(fields.map(\.text) == testCase.fields.map(\.1))
  }

  @Test func unknownTypesCanBeSkipped() throws {
    let item = MessageItem(
      msgUID: "m", targetId: "t", conversationType: .group, objectName: "App:Unknown", content: ["a": "text"],
      sentTime: 1)
    #expect(try ContentExtractor(unknownTypes: .skip).fields(of: item).isEmpty)
  }

  @Test func customTypesAreRegisteredWithTheirPaths() throws {
    var extractor = ContentExtractor()
    try extractor.register(objectName: "App:Card", textFields: ["title", "items[].label"])
    let content = try JSONValue(parsing: #"{"title":"T","items":[{"label":"x","url":"u"},{"label":"y"}],"id":"i"}"#)
    let item = MessageItem(
      msgUID: "m", targetId: "t", conversationType: .group, objectName: "App:Card", content: content, sentTime: 1)
    #expect(try extractor.fields(of: item).map(\.text) == ["T", "x", "y"])
    // Plain text, which a custom type may carry instead of an object, is its text.
    let plain = MessageItem(
      msgUID: "m", targetId: "t", conversationType: .group, objectName: "App:Card", content: "plain text", sentTime: 1)
    #expect(try extractor.fields(of: plain).map(\.text) == ["plain text"])
    #expect(throws: ExtractionRuleError.self) { try extractor.register(objectName: "RC:Mine", textFields: ["a"]) }
    #expect(throws: ExtractionRuleError.self) { try extractor.register(objectName: "App:Bad", textFields: ["a..b"]) }
  }

  /// The fields any message may carry (seed 003: `extra`, `user.name`; seed 004: the `@`
  /// mention text) are read for every type, a registered custom type too unless its
  /// registration leaves them out.
  @Test func everyTypeGivesTheCommonFields() throws {
    let common = try JSONValue(
      parsing:
        #"{"imageUri":"u","title":"T","extra":"E","user":{"name":"N"},"mentionedInfo":{"mentionedContent":"@M"}}"#)
    func texts(_ objectName: String, _ extractor: ContentExtractor = ContentExtractor()) throws -> [String] {
      let item = MessageItem(
        msgUID: "m", targetId: "t", conversationType: .group, objectName: objectName, content: common, sentTime: 1)
      return try extractor.fields(of: item).map(\.text)
    }
    #expect(try texts("RC:ImgMsg") == ["E", "N", "@M"])
    #expect(try texts("RC:FileMsg") == ["E", "N", "@M"])
    var extractor = ContentExtractor()
    try extractor.register(objectName: "App:Card", textFields: ["title"])
    try extractor.register(objectName: "App:Bare", textFields: ["title"], commonFields: false)
    #expect(try texts("App:Card", extractor) == ["T", "E", "N", "@M"])
    #expect(try texts("App:Bare", extractor) == ["T"])
  }

  @Test func extensionKeysAndValuesAreModerated() throws {
    let item = try MessageItem(
      json: #"{"kind":"extension","msgUID":"m","targetId":"g","conversationType":10,"sentTime":5,"#
        + #""sourceContent":{"mid":"m","put":{"color":"red","note":"hello"}}}"#)
    let fields = try ContentExtractor().fields(of: item)
    #expect(fields.map(\.location.description) == ["put.color (key)", "put.color", "put.note (key)", "put.note"])
    #expect(fields.map(\.text) == ["color", "red", "note", "hello"])
  }

  @Test func editsAreReadByTheEditedType() throws {
    let item = try MessageItem(
      json: #"{"kind":"edit","msgUID":"m","targetId":"g","conversationType":"GROUP","sentTime":5,"#
        + #""sourceContent":"{\"content\":\"new text\"}"}"#)
    #expect(item.conversationType == .group)
    #expect(try ContentExtractor().fields(of: item).map(\.text) == ["new text"])
  }

  @Test func contentOverTheLimitIsAnError() throws {
    let item = MessageItem.text(String(repeating: "a", count: 200_000), msgUID: "m", targetId: "t")
    #expect(throws: ItemError(.tooLarge(200_014, limit: 131_072), field: "content")) {
      try ContentExtractor().fields(of: item)
    }
  }

  @Test(arguments: [
    (#"{"msgUID":"m","content":"{not json"}"#, "content: invalid JSON at byte 1: expected a string key in an object"),
    (#"{"msgUID":"m"}"#, "missing field \"content\""),
    (
      #"{"msgUID":"m","content":{},"conversationType":99}"#,
      "field \"conversationType\" must be a conversation type 1–12 or a channelType name"
    ),
    (#"{"msgUID":"m","content":{},"sentTime":"yesterday"}"#, "field \"sentTime\" must be Unix milliseconds"),
    (#"{"kind":"reply","content":{}}"#, "field \"kind\" must be \"message\", \"extension\" or \"edit\""),
    ("[1]", "field \"item\" must be an object"),
  ])
  func badItemsGiveClearErrors(text: String, message: String) {
    #expect(throws: ItemError.self) { try MessageItem(json: text) }
    do { _ = try MessageItem(json: text) } catch { #expect(error.description == message) }
  }

  @Test func conversationTypesMapToChannelTypeNames() {
    let names = ConversationType.allCases.map { $0.channelTypeName ?? "-" }
    #expect(
      names == [
        "PERSON", "PERSONS", "GROUP", "TEMPGROUP", "CUSTOMERSERVICE", "NOTIFY", "MC", "MP", "-", "ULTRAGROUP", "-", "-",
      ])
    for type in ConversationType.allCases {
      if let name = type.channelTypeName { #expect(ConversationType(channelTypeName: name) == type) }
    }
    #expect(ConversationType(channelTypeName: "ultragroup") == .ultraGroup)
    #expect(ConversationType(channelTypeName: "NOPE") == nil)
  }
}
