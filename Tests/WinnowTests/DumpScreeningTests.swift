import Foundation
import PropertyBased
import Testing
import WinnowTestSupport

@_spi(Tools) @testable import Winnow

/// `ModerationEngine.screen(dumpLine:)`, the batch scan's one door, and its in-place check
/// (`cleanLine`), the way past building items: the check may only say a line passes when
/// reading and screening the line says so too, and what it hands to the full screen changes
/// no result.
@Suite("Screening dump lines without reading items")
struct DumpScreeningTests {
  static let lists = [try! WordList(name: "zh.txt", origin: .global, parsing: "傻逼\nfuck\nbad word\n")]

  /// Scans every string of unknown types, knows a custom type with an array path.
  static let engine: ModerationEngine = {
    var extractor = ContentExtractor()
    try! extractor.register(objectName: "App:Card", textFields: ["title", "items[].label"])
    return try! ModerationEngine(global: lists, configuration: .init(extractor: extractor))
  }()

  /// With per-app lists: app `A1` finds `hello`, app `u1` has a list that finds nothing here.
  static let appsEngine: ModerationEngine = {
    try! engine.addingApp("A1", custom: [WordList(name: "A1.txt", origin: .custom, parsing: "hello\n")])
      .addingApp("u1", custom: [WordList(name: "u1.txt", origin: .custom, parsing: "zzzz\n")])
  }()

  /// Skips unknown types, and has a small content limit.
  static let strictEngine = try! ModerationEngine(
    global: lists, configuration: .init(extractor: ContentExtractor(unknownTypes: .skip, contentLimit: 40)))

  /// Values of every type a member can hold, right and wrong for each field, escapes included.
  static let values = [
    #""A1""#, #""u1""#, "3", #""3""#, #""GROUP""#, #""group""#, "13", "3.5", "-1", "null", "true", "[]",
    #"["u1",2]"#, #"["u1",null]"#, "{}", #""message""#, #""edit""#, #""mess\u0061ge""#, #""RC:TxtMsg""#,
    #""RC:ImgMsg""#, #""RC:ReadNtf""#, #""App:Card""#, #""Other:Type""#, #""RC:\u0054xtMsg""#, "1700000000000",
    #""1700000000000""#, #""17e3""#, "1e3", #"{"content":"hello"}"#, #"{"content":"你是傻逼"}"#,
    #"{"content":"傻 逼"}"#, #"{"content":"f.u.c.k"}"#, #"{"content":"fine","extra":"fuck"}"#,
    #"{"content":"ok","user":{"name":"傻逼"}}"#, #"{"content":"ok","mentionedInfo":{"mentionedContent":"fuck"}}"#,
    #"{"content":"a\"b"}"#, #"{"content":"fu\u0063k"}"#, #"{"content":5}"#, #"{"content":["fuck"]}"#,
    #"{"title":"x","items":[{"label":"fuck"},{"label":"ok"}]}"#, #"{"title":"ok","items":[{"label":"ok"},3]}"#,
    #"{"content":"ok","content":"fuck"}"#, #"{"con\u0074ent":"fuck"}"#, #"{"content":"hello","extra":null}"#,
    #""{\"content\":\"fuck\"}""#, #"{"nested":{"deep":["fuck",{"x":"bad  word"}]}}"#,
    #"{"content":"a long enough message to go past a small limit of forty bytes"}"#, #"{ "content" : "spaced" }"#,
    #""2024-01-02 03:04:05.678""#, #""2024-13-02 03:04:05""#, #""false""#, #""PERSON""#, #""""#,
    #""{\"content\":\"hello\"}""#, #"" {\"content\":\"ok\",\"extra\":\"傻逼\"} ""#, #""[1]""#, #""{bad""#,
    #""{\"content\":\"a\\\"b\"}""#, #""{\"put\":{\"k\":\"v\"}}""#,
    // Extensions: keys and string values under `put`.
    #""extension""#, #"{"mid":"A1","put":{"note":"hello"}}"#, #"{"mid":"A1","put":{"fuck":"ok"}}"#,
    #"{"put":{"note":["ok",{"x":"傻 逼"}]}}"#, #"{"put":{"note":{"deep":"fine"},"n":3}}"#, #"{"put":"fuck"}"#,
    #"{"put":{"n\u006fte":"fine","x":"a\"b"}}"#, #"{"put":{"note":"ok"},"put":{"k":"f.u.c.k"}}"#,
    #"{"mid":"fuck","put":{"note":"ok"},"pu\u0074":{}}"#, #""{\"put\":{\"k\":\"傻逼\"}}""#,
    // Paths that share their first key (`referMsg.content`, `referMsg.name`).
    #""RC:ReferenceMsg""#, #"{"content":"ok","referMsg":{"content":"fine","name":"fuck"}}"#,
    // Push texts.
    #""fucking""#, #""你好""#,
    #"{"referMsg":{"name":"ok","title":"傻逼"},"content":"fine"}"#,
  ]
  /// Every member reading looks at (``LineKey``), the members that decide most often twice
  /// more, and names it must not take for them: escaped, unknown, or read only by reading.
  static let keys =
    LineKey.allCases.map(\.name) + ["content", "content", "content", "classname", "messageId"]
    + ["extra", #"con\u0074ent"#, #"object\u004eame"#, "isSensitiveWord"]

  /// A line from a recipe: the first number picks the line's surroundings, the rest pairs of a
  /// key and a value; the last number may damage one byte.
  static func line(_ recipe: [Int]) -> [UInt8] {
    var members: [String] = []
    var index = 1
    while index + 1 < recipe.count {
      members.append("\"\(keys[recipe[index] % keys.count])\":\(values[recipe[index + 1] % values.count])")
      index += 2
    }
    let shape = recipe.first ?? 0
    // Some lines are edits or extensions from the start, as dumps have them.
    switch shape % 11 {
    case 3: members.insert(#""kind":"extension""#, at: 0)
    case 4: members.insert(#""kind":"edit""#, at: 0)
    // A text message's object name before its content, so that the content is checked as it
    // is skipped (see `cleanLine`).
    case 5, 6, 7: members.insert(#""objectName":"RC:TxtMsg""#, at: 0)
    default: break
    }
    var text = "{" + members.joined(separator: shape % 3 == 0 ? ", " : ",") + "}"
    if shape % 5 == 1 { text = " \t" + text + " \r" }
    if shape % 7 == 2 { text = "2024/01/02 03:04:05" + text }
    var bytes = Array(text.utf8)
    let damage = recipe.last ?? 0
    if damage % 4 == 0, !bytes.isEmpty {
      let junk: [UInt8] = [0x22, 0x5C, 0x7B, 0x7D, 0x2C, 0x3A, 0xFF, 0x00, 0x20, 0xE4, 0x5B]
      bytes[damage / 4 % bytes.count] = junk[damage / 64 % junk.count]
    } else if damage % 4 == 1 {
      bytes.removeLast(min(bytes.count, damage / 4 % 8))
    }
    return bytes
  }

  /// What the full road (reading the line and screening its item) says about a line the door
  /// passed in place; for a line it screened, that its result is the full road's (what the
  /// in-place check found, handed over, changes nothing); the door's error is the full road's.
  /// True when the door passed the line in place.
  @discardableResult
  static func confirm(_ bytes: [UInt8], _ engine: ModerationEngine) -> Bool {
    bytes.withUnsafeBufferPointer { line in
      let door = Result { () throws(ItemError) in try engine.screen(dumpLine: line) }
      let full = Result { () throws(ItemError) in try engine.screen(dumpLine: line, inPlace: false) }
      switch (door, full) {
      case (.success(.clean(let clean)), .success(.screened(let result, let format, _))):
        #expect(format == clean.format && result.item.sourceType == clean.sourceType)
        #expect(result.verdict == .pass && !result.flagged && result.matches.isEmpty && result.warnings.isEmpty)
      case (.success(.screened(let first, let format, let flagged)), .success(.screened(let result, let f, let p))):
        #expect(first == result && format == f && flagged == p, "a hand-over changed a result")
      case (.failure(let first), .failure(let error)):
        #expect(first.description == error.description)
      default:
        Issue.record("the door and the full road disagree: \(door) \(full)")
      }
      confirmCounting(line, door: door, full: full, engine)
      if case .success(.clean) = door { return true }
      return false
    }
  }

  /// The door asked for the items of clean lines (`scan --offenders`): a line passed in place
  /// comes with the item reading makes of it when it is item JSON, and is read and screened
  /// (the full road's result) when it is not; any other line gets the door's answer.
  static func confirmCounting(
    _ line: UnsafeBufferPointer<UInt8>, door: Result<ScreenedDumpLine, ItemError>,
    full: Result<ScreenedDumpLine, ItemError>, _ engine: ModerationEngine
  ) {
    let counting = Result { () throws(ItemError) in try engine.screen(dumpLine: line, itemsOfClean: true) }
    switch (door, counting, full) {
    case (.success(.clean(let clean)), .success(.cleanItem(let other, let item)), _):
      #expect(clean == other && clean.format == .item)
      #expect((try? DumpLine(utf8: line))?.item == item, "\(String(decoding: line, as: UTF8.self))")
    case (
      .success(.clean), .success(.screened(let result, let format, let flagged)),
      .success(.screened(let r, let f, let p))
    ):
      #expect(format != .item && result == r && format == f && flagged == p)
    case (.success(.screened(let first, let format, let flagged)), .success(.screened(let result, let f, let p)), _):
      #expect(first == result && format == f && flagged == p)
    case (.failure(let first), .failure(let error), _):
      #expect(first.description == error.description)
    default:
      Issue.record("counting every sender changed the door's answer: \(door) \(counting)")
    }
  }

  /// What the in-place check found is taken by the full screen only for the same lists and
  /// text: lines in any order, for apps whose lists find different things in texts of one
  /// length (and for lines of no app), in the content, the mention or both, each get the full
  /// road's result.
  /// The check compares a line's object name with the text message's name as a static string,
  /// which must be the name every reading takes.
  @Test func theCheckKnowsTheTextMessageByItsOwnName() {
    #expect(MessageItem.defaultObjectNameText.description == MessageItem.defaultObjectName)
  }

  /// The check of a time's digits, eight bytes at a time, says what reading the digits one by
  /// one says: over runs of digits with a byte of each kind that is not one (the neighbours of
  /// `0` and `9`, bytes that carry when 6 is added, a quote), quoted or not.
  @Test func digitsReadEightAtATimeAreDigits() {
    var random = SeededGenerator(state: 7)
    let others: [UInt8] = [0x2F, 0x3A, 0x3F, 0x20, 0x22, 0xFA, 0xFF, 0xB0, 0x0A, 0x39 + 0x10]
    var plain = 0
    for _ in 0..<4000 {
      var bytes = (0..<Int.random(in: 0...24, using: &random)).map { _ in UInt8.random(in: 0x30...0x39, using: &random)
      }
      if !bytes.isEmpty && Bool.random(using: &random) {
        bytes[Int.random(in: 0..<bytes.count, using: &random)] = others.randomElement(using: &random) ?? 0
      }
      if Bool.random(using: &random) { bytes = [0x22] + bytes + [0x22] }
      guard !bytes.isEmpty else { continue }
      bytes.withUnsafeBufferPointer { buffer in
        let range = 0..<buffer.count
        let value = PlainDigits.value(in: buffer, range)
        #expect(PlainDigits.are(in: buffer, range) == (value != nil), "\(bytes)")
        if value != nil { plain += 1 }
      }
    }
    #expect(plain > 500)
  }

  @Test func aHandedOverScanIsTheLinesOwn() async throws {
    let engine = try Self.engine.addingApp(
      "a", custom: [WordList(name: "a.txt", origin: .custom, parsing: "duck => **\n逼\n")]
    ).addingApp("b", custom: [WordList(name: "b.txt", origin: .custom, parsing: "luck\n傻\n")])
    let texts = ["oh fuck", "oh duck", "oh luck", "oh muck", "傻逼", "傻子", "", "f.u.c.k", "fuck luck duck"]
    let apps = [#""a""#, #""b""#, #""c""#, "null"]
    let steps = zip(Gen.int(in: 0...3), Gen.int(in: 0...(texts.count - 1)), Gen.int(in: 0...(texts.count - 1)))
      .array(of: 1...8)
    await propertyCheck(count: 200, input: steps) { steps in
      for (app, first, second) in steps {
        let line =
          #"{"msgUID":"M","appKey":\#(apps[app]),"content":{"content":"\#(texts[first])","#
          + #""mentionedInfo":{"mentionedContent":"\#(texts[second])"}}}"#
        Self.confirm(Array(line.utf8), engine)
      }
    }
  }

  /// With a scorer, a line is clean only when every text it checks in place scores under the
  /// review threshold: the scorer's blocks and flags come from the full road, and texts it
  /// scores low still pass in place.
  @Test func aScorerSeesEveryTextTheCheckReads() throws {
    var configuration = Self.engine.configuration
    configuration.scoring = ScoringPolicy(scorer: try ScorerTests.oneWordScorer("zorkle"), reviewThreshold: 0.5)
    let engine = try ModerationEngine(global: Self.lists, configuration: configuration)
    let places = [
      #"{"msgUID":"M","content":{"content":"X"}}"#,
      #"{"msgUID":"M","content":{"content":"ok","extra":"X"}}"#,
      #"{"msgUID":"M","content":{"content":"ok","mentionedInfo":{"mentionedContent":"X"}}}"#,
      #"{"msgUID":"M","objectName":"App:Card","content":{"title":"t","items":[{"label":"X"}]}}"#,
      #"{"kind":"extension","msgUID":"M","sourceContent":{"mid":"M","put":{"k":"X"}}}"#,
    ]
    for place in places {
      #expect(Self.confirm(Array(place.replacingOccurrences(of: "X", with: "hello there").utf8), engine), "\(place)")
      // No list finds `zorkle`: only the scorer keeps the line from passing in place.
      let scored = Array(place.replacingOccurrences(of: "X", with: "zorkle").utf8)
      #expect(scored.withUnsafeBufferPointer { Self.engine.cleanLine(ofDumpLine: $0) } != nil, "\(place)")
      #expect(!Self.confirm(scored, engine), "\(place)")
    }
  }

  @Test func passesOnlyLinesThatReadingAndScreeningPass() async {
    let recipes = Gen.int(in: 0...100_000).array(of: 1...13)
    var confirmed = 0
    await propertyCheck(count: 4000, input: recipes) { recipe in
      let bytes = Self.line(recipe)
      if Self.confirm(bytes, Self.engine) { confirmed += 1 }
      if Self.confirm(bytes, Self.strictEngine) { confirmed += 1 }
      if Self.confirm(bytes, Self.appsEngine) { confirmed += 1 }
    }
    // Only lines the screening passes are confirmed: enough of them must be, or this checks nothing.
    #expect(confirmed >= 45, "\(confirmed) of 12000 screenings passed a line")
  }

  /// The item the in-place check makes of an item JSON line it does not pass (from the members
  /// it found, parsed one by one) is the item reading the whole line makes, for lines with
  /// matches, damaged lines and every member name; a line reading takes in another format, or
  /// cannot read, gets none.
  @Test func anItemMadeInPlaceIsTheItemReadingMakes() async {
    let recipes = Gen.int(in: 0...100_000).array(of: 1...13)
    var made = 0
    await propertyCheck(count: 4000, input: recipes) { recipe in
      Self.line(recipe).withUnsafeBufferPointer { line in
        for engine in [Self.engine, Self.strictEngine, Self.appsEngine] {
          var found: FoundText? = nil
          let check = withUnsafeMutablePointer(to: &found) {
            engine.checkInPlace(ofDumpLine: line, found: $0, makingItem: true)
          }
          guard case .item(let item) = check else { continue }
          made += 1
          let read = try? DumpLine(utf8: line)
          #expect(read?.format == .item && read?.item == item, "\(String(decoding: line, as: UTF8.self))")
        }
      }
    }
    // Enough lines must have an item made, or this checks nothing.
    #expect(made >= 60, "\(made) of 12000 checks made an item in place")
  }

  /// The usual lines pass without being read, so that the scan gains: a test that only checked
  /// the other direction would hold for a screening that never passed anything.
  @Test(arguments: [
    #"{"msgUID":"A1","fromUserId":"u1","targetId":"g1","conversationType":3,"channelId":"","objectName":"RC:TxtMsg","content":{"content":"hello there"},"sentTime":1700000000000}"#,
    #"{"msgUID":"A2","content":{"content":"你好，明天见","extra":"{\"k\":1}"},"toUserIds":["u1","u2"],"appKey":"app"}"#,
    #" {"kind":"message","objectName":"App:Card","content":{"title":"menu","items":[{"label":"tea"},{"label":"茶"}]}} "#,
    #"{"objectName":"RC:ImgMsg","content":{"content":"base64 fuck","imageUri":"https://x/y.png"}}"#,
    #"{"msgUID":"A3","content":{"content":"hi"},"sentTime":"1700000000000","conversationType":"12"}"#,
    #"{"msgUID":"A4","content":{"content":"hi"},"sentTime":9223372036854775807,"conversationType":1}"#,
    // An empty push text is none.
    #"{"msgType":"RC:TxtMsg","content":"{\"content\":\"hi\"}","messageId":"A5","pushContent":"","pushData":null}"#,
    #"{"objectName":"Other:Type","content":{"a":["fine",{"b":"ok \u00e9"}]},"conversationType":"GROUP"}"#,
    // A listed word under a key the rule does not name, as long as one it does (`content`).
    #"{"objectName":"RC:TxtMsg","content":{"content":"hello","comment":"fuck","user":{"name":"ann","nick":"fuck"}}}"#,
    // A string where a path goes on (`mentionedInfo.mentionedContent`) is no text.
    #"{"objectName":"RC:TxtMsg","content":{"content":"hello","mentionedInfo":"fuck","user":"fuck"}}"#,
  ])
  func passesUsualCleanItems(line: String) {
    Array(line.utf8).withUnsafeBufferPointer { #expect(Self.engine.cleanLine(ofDumpLine: $0) != nil) }
  }

  @Test(arguments: [
    #"{"msgUID":"B1","content":{"content":"你是傻 逼"}}"#,
    #"{"msgUID":"B2","content":{"content":"ok","user":{"name":"f.u.c.k"}}}"#,
    #"{"objectName":"App:Card","content":{"title":"menu","items":[{"label":"tea"},{"label":"fuck"}]}}"#,
    #"{"objectName":"Other:Type","content":{"deep":[{"x":"bad  word"}]}}"#,
    #"{"objectName":"RC:ReferenceMsg","content":{"content":"ok","referMsg":{"content":"fine","name":"fuck"}}}"#,
    // Push text is moderated with the message.
    #"{"msgUID":"B16","content":{"content":"hello"},"pushContent":"fucking"}"#,
    #"{"msgType":"RC:TxtMsg","content":"{\"content\":\"hello\"}","messageId":"B17","pushData":"傻 逼"}"#,
    #"{"msgUID":"B3","content":{"content":"fu\u0063k"}}"#,
    // A text message's content after its object name, checked as it is skipped.
    #"{"objectName":"RC:TxtMsg","content":{"content":"你是傻 逼"}}"#,
    #"{"objectName":"RC:TxtMsg","content":{"content":"ok","user":{"name":"f.u.c.k"}}}"#,
    #"{"objectName":"RC:TxtMsg","content":{"content":"fu\u0063k"}}"#,
    #"{"objectName":"RC:TxtMsg","content":{"con\u0074ent":"hello"}}"#,
    #"{"objectName":"RC:TxtMsg","content":{"title":"fuck"},"objectName":"App:Card"}"#,
    #"{"objectName":"RC:TxtMsg","content":{"content":"hello"},"content":{"content":"fuck"}}"#,
    #"{"objectName":"RC:TxtMsg","content":{"content":"hello"},"kind":"edit","sourceContent":{"content":"fuck"}}"#,
    #"2024/01/02 03:04:05{"classname":"RC:TxtMsg","content":{"content":"你是傻逼"},"msgUID":"B4"}"#,
    #"{"classname":"RC:TxtMsg","content":{"content":"hello"},"dateTime":"yesterday","msgUID":"B12"}"#,
    #"{"msgType":"RC:TxtMsg","content":"{\"content\":\"傻 逼\"}","messageId":"B5"}"#,
    #"{"msgType":"RC:TxtMsg","content":"{\"content\":\"fuck\"}","messageId":"B13","originalMsgUID":"B1"}"#,
    #"{"msgType":"RC:TxtMsg","content":"","messageId":"B14","extraContent":"{\"k\":\"v\"}"}"#,
    #"{"msgType":"RC:TxtMsg","content":"{\"content\":\"hello\"","messageId":"B15"}"#,
    #"{"msgType":"RC:TxtMsg","content":"{\"content\":\"hello\"}","msgTimeStamp":"soon","msgTimestamp":1}"#,
    #"{"kind":"edit","msgUID":"B6","sourceContent":{"content":"傻 逼"}}"#,
    #"{"kind":"edit","msgUID":"B16","content":{"content":"hello"},"sourceContent":{"content":"fuck"}}"#,
    #"{"kind":"extension","msgUID":"B17","sourceContent":{"mid":"B17","put":{"note":"f u c k"}}}"#,
    #"{"kind":"extension","msgUID":"B18","sourceContent":{"mid":"B18","put":{"傻逼":"ok"}}}"#,
    #"{"kind":"extension","msgUID":"B19","sourceContent":{"mid":"B19","put":{"note":["ok",{"x":"fuck"}]}}}"#,
    #"{"kind":"extension","msgUID":"B20","sourceContent":{"mid":"B20","put":"hello"}}"#,
    #"{"kind":"Edit","msgUID":"B21","sourceContent":{"content":"hello"}}"#,
    #"{"msgUID":"B7","content":{"content":"hello"},"sentTime":"soon"}"#,
    // Times and types as reading takes them: no digits, or a colon (just past the digits).
    #"{"msgUID":"B22","content":{"content":"hello"},"sentTime":""}"#,
    #"{"msgUID":"B23","content":{"content":"hello"},"sentTime":"17:00"}"#,
    #"{"msgUID":"B24","content":{"content":"hello"},"conversationType":"1:"}"#,
    #"{"msgUID":"B25","content":{"content":"hello"},"conversationType":0}"#,
    #"{"msgUID":"B8","content":{"content":"hello"},"conversationType":99}"#,
    #"{"msgUID":["B9"],"content":{"content":"hello"}}"#,
    #"{"msgUID":"B10","content":{"content":"hello"}} x"#,
    #"{"msgUID":"B11","content":{"content":"hello"}"#,
  ])
  func leavesFlaggedOtherAndBrokenLinesToReading(line: String) {
    Array(line.utf8).withUnsafeBufferPointer { #expect(Self.engine.cleanLine(ofDumpLine: $0) == nil) }
  }

  /// History-log lines, with and without their time prefix, pass as history logs.
  @Test(arguments: [
    #"2023/11/14 22:13:20{"appId":"app","fromUserId":"u1","targetId":"g1","targetType":3,"GroupId":"g1","classname":"RC:TxtMsg","content":{"content":"hello"},"dateTime":"2023-11-14 22:13:20.073","msgUID":"H1","timestamp":1700000000073,"source":"Websocket","isSensitiveWord":"false"}"#,
    #"{"classname":"RC:TxtMsg","content":{"content":"你好"},"dateTime":"2023-11-14 22:13:20.073","msgUID":"H2"}"#,
  ])
  func passesCleanHistoryLogLines(line: String) {
    Array(line.utf8).withUnsafeBufferPointer {
      #expect(Self.engine.cleanLine(ofDumpLine: $0) == CleanDumpLine(format: .historyLog, sourceType: .original))
    }
  }

  /// Callback posts, their content a string of JSON, pass as callback posts.
  @Test(arguments: [
    #"{"appKey":"app","fromUserId":"u1","targetId":"g1","toUserIds":"","msgType":"RC:TxtMsg","content":"{\"content\":\"Are you sentient?\"}","channelType":"GROUP","msgTimeStamp":"1700000000160","messageId":"M1","originalMsgUID":"","busChannel":"","extraContent":""}"#,
    #"{"objectName":"RC:TxtMsg","content":{"content":"你好"},"msgTimestamp":1700000000160,"msgUID":"M2"}"#,
  ])
  func passesCleanCallbackPosts(line: String) {
    Array(line.utf8).withUnsafeBufferPointer {
      #expect(Self.engine.cleanLine(ofDumpLine: $0) == CleanDumpLine(format: .callback, sourceType: .original))
    }
  }

  /// Edits and extensions pass as such: a scan counts them by kind, and reading them in full
  /// was a tenth of scanning the sample dump repeated.
  @Test(arguments: [
    (
      #"{"kind":"edit","msgUID":"E1","objectName":"RC:TxtMsg","sourceContent":{"content":"Python."}}"#, SourceType.edit,
      DumpFormat.item
    ),
    (#"{"kind":"edit","msgUID":"E2","content":{"content":"你好"}}"#, .edit, .item),
    (#"{"kind":"edit","msgUID":"E3","sourceContent":"{\"content\":\"hello\"}"}"#, .edit, .item),
    (
      #"{"kind":"extension","msgUID":"X1","sourceContent":{"mid":"X1","put":{"note":"Are you sentient?"}}}"#,
      .extension, .item
    ),
    (
      #"{"kind":"extension","msgUID":"X2","sourceContent":{"mid":"X2","put":{"k":["ok",{"d":"好"}],"n":1},"other":"fuck"}}"#,
      .extension, .item
    ),
    (#"{"kind":"extension","objectName":"RC:ImgMsg","content":{"put":{"note":"hello"}}}"#, .extension, .item),
    (
      #"{"msgType":"RC:TxtMsg","content":"{\"content\":\"hello\"}","messageId":"E4","originalMsgUID":"B1"}"#, .edit,
      .callback
    ),
    (
      #"{"msgType":"RC:TxtMsg","content":"{\"content\":\"hello\"}","messageId":"E5","originalMsgUID":7}"#, .edit,
      .callback
    ),
  ])
  func passesCleanEditsAndExtensionsWithTheirKind(line: String, kind: SourceType, format: DumpFormat) {
    Array(line.utf8).withUnsafeBufferPointer {
      #expect(Self.engine.cleanLine(ofDumpLine: $0) == CleanDumpLine(format: format, sourceType: kind))
    }
    Self.confirm(Array(line.utf8), Self.engine)
  }

  /// Every plain text message of the sample dump (every format) that reading screens clean is
  /// passed by the in-place check: a rule changed on the reading side alone would send these
  /// lines down the slow path, and nothing else would report the slowdown.
  @Test func takesTheFastPathForEveryCleanTextMessageOfTheSample() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let sample = try String(contentsOf: root.appendingPathComponent("samples/messages.jsonl"), encoding: .utf8)
    var checked = 0
    var missed: [String] = []
    for line in sample.split(separator: "\n") {
      let bytes = Array(line.utf8)
      let read = bytes.withUnsafeBufferPointer { try? DumpLine(utf8: $0) }
      guard let read, read.item.objectName == "RC:TxtMsg", read.item.sourceType == .original,
        let result = try? Self.engine.screen(read.item), result.verdict == .pass, result.matches.isEmpty
      else { continue }
      checked += 1
      let clean = bytes.withUnsafeBufferPointer { Self.engine.cleanLine(ofDumpLine: $0) }
      if clean != CleanDumpLine(format: read.format, sourceType: .original) { missed.append(String(line.prefix(120))) }
    }
    #expect(checked > 1000)
    #expect(missed.isEmpty, "\(missed.count) clean text lines not taken by the fast path, e.g. \(missed.prefix(3))")
  }

  /// The one table of member names: each name finds its key, nothing else finds one, and the
  /// in-place check's table has room for every key.
  @Test func everyMemberNameFindsItsKey() {
    #expect(LineKey.allCases.count == LineKey.count)
    #expect(Set(LineKey.allCases.map(\.name)).count == LineKey.count)
    for key in LineKey.allCases {
      #expect(Array(key.name.utf8).withUnsafeBufferPointer { LineKey.named($0) } == key, "\(key.name)")
    }
    for name in ["", "Kind", "contents", "conten", "groupId", "extra", "isSensitiveWord", "conversationTypes"] {
      #expect(Array(name.utf8).withUnsafeBufferPointer { LineKey.named($0) } == nil, "\(name)")
    }
    // A name with any one byte changed is not that key's (names are compared a word at a time).
    for key in LineKey.allCases {
      for index in 0..<key.name.utf8.count {
        var bytes = Array(key.name.utf8)
        bytes[index] ^= 0x01
        #expect(bytes.withUnsafeBufferPointer { LineKey.named($0) } != key, "\(key.name)")
      }
    }
  }

  /// Property: the fast reading of a key finds a key exactly when the bytes up to the first
  /// quote are its name (and 17 bytes can be read), whatever else surrounds them.
  @Test func aKeysNameIsFoundUpToItsQuote() async {
    let names = LineKey.allCases.map(\.name)
    let pieces =
      names + names.map { String($0.dropLast()) } + names.map { $0 + "s" }
      + ["\"", "\\", "\\\"", "a", "\u{1}", "é", "中", " ", "conversationTypes", "kind"]
    let texts = zip(Gen.int(in: 0...(pieces.count - 1)).array(of: 1...4), Gen.int(in: 0...24)).map {
      ($0.map { pieces[$0] }.joined(), $1)
    }
    await propertyCheck(count: 4000, input: texts) { text, padding in
      let bytes = Array(text.utf8) + [UInt8](repeating: 0x78, count: padding)
      let quote = bytes.firstIndex(of: 0x22)
      var expected: (LineKey, Int)? = nil
      if let quote, bytes.count > 16,
        let key = LineKey.allCases.first(where: { Array($0.name.utf8) == Array(bytes[..<quote]) })
      {
        expected = (key, quote)
      }
      let found = bytes.withUnsafeBufferPointer { LineKey.plainName(in: $0, at: 0) }
      #expect(found?.key == expected?.0 && found?.length == expected?.1, "\(text) + \(padding)")
    }
  }

  /// With per-app lists, a line is checked against its app's lists (`appKey`, a history log's
  /// `appId`), as its item would be; an app key that is not a plain string is left to reading.
  @Test func checksALineAgainstItsAppsLists() throws {
    let engine = try Self.engine.addingApp(
      "app", custom: [WordList(name: "app.txt", origin: .custom, parsing: "tea\n")])
    func clean(_ line: String) -> Bool {
      Array(line.utf8).withUnsafeBufferPointer { engine.cleanLine(ofDumpLine: $0) != nil }
    }
    #expect(!clean(#"{"msgUID":"A1","appKey":"app","content":{"content":"tea"}}"#))
    #expect(!clean(#"{"msgUID":"A1","content":{"content":"tea"},"appKey":"app"}"#))
    #expect(!clean(#"{"appId":"app","classname":"RC:TxtMsg","content":{"content":"tea"},"timestamp":1700000000000}"#))
    #expect(clean(#"{"appId":"other","classname":"RC:TxtMsg","content":{"content":"tea"},"timestamp":1700000000000}"#))
    #expect(!clean(#"{"msgUID":"A1","appKey":"ap\u0070","content":{"content":"tea"}}"#))
    #expect(!clean(#"{"msgUID":"A1","appKey":7,"content":{"content":"tea"}}"#))
    #expect(clean(#"{"msgUID":"A1","appKey":"other","content":{"content":"tea"}}"#))
    #expect(clean(#"{"msgUID":"A1","appKey":null,"content":{"content":"tea"}}"#))
    #expect(clean(#"{"msgUID":"A1","content":{"content":"tea"}}"#))
    #expect(clean(#"{"msgUID":"A1","appKey":"app","content":{"content":"coffee"}}"#))
    #expect(!clean(#"{"msgUID":"A1","appKey":"other","content":{"content":"fuck"}}"#))
    for line in [#"{"msgUID":"A1","appKey":"other","content":{"content":"tea"}}"#] {
      #expect(Self.confirm(Array(line.utf8), engine))
    }
  }
}
