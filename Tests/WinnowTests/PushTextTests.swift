import Testing

@_spi(Tools) @testable import Winnow

/// The push text of a message (`pushContent`, `pushData`), which a recipient's lock screen shows:
/// moderated as a field of the message, and rewritten by a replace word.
@Suite("Push text")
struct PushTextTests {
  static let engine = try! ModerationEngine(
    global: [WordList(name: "global/en.txt", origin: .global, parsing: "[profanity]\nfuck\n")],
    custom: [WordList(name: "app.txt", origin: .custom, parsing: "[ads]\n秒杀 => **\n")])

  @Test func aBlockWordInThePushTextBlocksTheMessage() throws {
    let item = try MessageItem(json: #"{"msgUID":"P1","content":{"content":"hello"},"pushContent":"fuck you"}"#)
    #expect(item.pushContent == "fuck you")
    let result = try Self.engine.screen(item)
    #expect(result.verdict == .blocked)
    #expect(result.matches.map(\.field.description) == ["pushContent"])
    #expect(result.matches.first?.field.part == .pushContent)
    let data = try MessageItem(json: #"{"msgUID":"P2","content":{"content":"hello"},"pushData":"{\"t\":\"f.u.c.k\"}"}"#)
    #expect(try Self.engine.screen(data).verdict == .blocked)
  }

  /// A replace word rewrites the push text and leaves the content as it is; the result's JSON
  /// carries the push text as delivered.
  @Test func aReplaceWordRewritesThePushText() throws {
    let item = try MessageItem(json: #"{"msgUID":"P3","content":{"content":"hello"},"pushContent":"秒杀 today"}"#)
    let result = try Self.engine.screen(item)
    #expect(result.verdict == .replaced)
    #expect(result.item.pushContent == "** today")
    #expect(result.item.content == ["content": "hello"])
    #expect(result.json["pushContent"] == "** today")
    #expect(result.item.json["pushContent"] == "** today")
  }

  /// An empty push text is none; a clean one passes; a line with push text is read in full by
  /// a scan, and one with an empty push text need not be.
  @Test func emptyAndCleanPushTextsPass() throws {
    let empty = try MessageItem(json: #"{"msgUID":"P4","content":{"content":"hi"},"pushContent":""}"#)
    #expect(empty.pushContent == nil)
    let clean = try MessageItem(json: #"{"msgUID":"P5","content":{"content":"hi"},"pushContent":"new message"}"#)
    #expect(try Self.engine.passes(clean))
    for (line, fast) in [
      (#"{"msgUID":"P6","content":{"content":"hi"},"pushContent":""}"#, true),
      (#"{"msgUID":"P7","content":{"content":"hi"},"pushContent":"new message"}"#, false),
    ] {
      Array(line.utf8).withUnsafeBufferPointer { #expect((Self.engine.cleanLine(ofDumpLine: $0) != nil) == fast) }
    }
  }

  /// The push title (`title` of `pushExt`, an object or a string holding one) is a field too: a
  /// block word there blocks, a replace word rewrites it and keeps the other options, and a
  /// `pushExt` that is not an object is an error naming it. A line with one is read in full.
  @Test func thePushTitleIsAFieldOfTheMessage() throws {
    let blocked = try MessageItem(
      json:
        #"{"msgUID":"T1","content":{"content":"hi"},"pushExt":"{\"title\":\"f u c k\",\"forceShowPushContent\":0}"}"#)
    #expect(blocked.pushTitle == "f u c k")
    let result = try Self.engine.screen(blocked)
    #expect(result.verdict == .blocked)
    #expect(result.matches.map(\.field.description) == ["pushExt.title"])
    #expect(result.matches.first?.field.part == .pushTitle)
    let replaced = try Self.engine.screen(
      MessageItem(
        json: #"{"msgUID":"T2","content":{"content":"hi"},"pushExt":{"title":"秒杀!","forceShowPushContent":1}}"#))
    #expect(replaced.verdict == .replaced)
    #expect(replaced.item.pushTitle == "**!")
    #expect(replaced.item.pushExt?["forceShowPushContent"] == 1)
    #expect(replaced.json["pushExt"]?["title"] == "**!")
    let empty = try MessageItem(json: #"{"msgUID":"T3","content":{"content":"hi"},"pushExt":""}"#)
    #expect(empty.pushExt == nil && empty.pushTitle == nil)
    #expect(throws: ItemError.self) {
      try MessageItem(json: #"{"msgUID":"T4","content":{"content":"hi"},"pushExt":"[1]"}"#)
    }
    #expect(throws: ItemError.self) {
      try MessageItem(json: #"{"msgUID":"T5","content":{"content":"hi"},"pushExt":"{no"}"#)
    }
    for (line, fast) in [
      (#"{"msgUID":"T6","content":{"content":"hi"},"pushExt":""}"#, true),
      (#"{"msgUID":"T7","content":{"content":"hi"},"pushExt":{"title":"new message"}}"#, false),
    ] {
      Array(line.utf8).withUnsafeBufferPointer { #expect((Self.engine.cleanLine(ofDumpLine: $0) != nil) == fast) }
    }
  }

  /// Push text over the content limit is an error naming the field.
  @Test func pushTextOverTheLimitIsAnError() throws {
    let engine = try ModerationEngine(
      global: [WordList(name: "g", origin: .global, parsing: "fuck\n")],
      configuration: .init(extractor: ContentExtractor(contentLimit: 20)))
    var item = MessageItem.text("hi", msgUID: "P8", targetId: "t")
    item.pushContent = String(repeating: "a", count: 21)
    #expect(throws: ItemError.self) { try engine.screen(item) }
    do {
      _ = try engine.screen(item)
    } catch {
      #expect(error.field == "pushContent")
    }
  }
}
