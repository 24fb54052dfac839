import Foundation
import Synchronization
import Testing

@_spi(Tools) @testable import Winnow

/// The decision order, the records, and the reviewer policies.
@Suite("Moderation")
struct ModerationTests {
  static let global = try! WordList(name: "global/zh.txt", origin: .global, parsing: "[sensitive]\n傻逼\n反动\n")
  static let custom = try! WordList(name: "app.txt", origin: .custom, parsing: "[ads]\n秒杀 => **\n加微信\n傻逼\n")

  /// Tests that are not about timeouts wait an hour: a busy test machine must not turn an
  /// instant answer into a timeout (with 60 s, an answer queued on a concurrency pool that the
  /// other suites' synchronous tests held timed out).
  static let patient = Duration.seconds(3600)

  static func engine(
    reviewer: (any ContentReviewer)? = nil, policy: ReviewPolicy = ReviewPolicy(timeout: patient)
  ) throws -> ModerationEngine {
    try ModerationEngine(
      global: [global], custom: [custom],
      configuration: .init(reviewer: reviewer, reviewPolicy: policy))
  }

  static func item(_ text: String, kind: SourceType = .original) -> MessageItem {
    let content: JSONValue =
      kind == .extension ? ["mid": "M1", "put": ["note": .string(text)]] : ["content": .string(text), "extra": "e"]
    return MessageItem(
      sourceType: kind, msgUID: "M1", fromUserId: "u1", targetId: "g1", conversationType: .ultraGroup,
      channelId: "c1", content: content, sentTime: 1_700_000_000_000)
  }

  struct Case: Sendable, CustomTestStringConvertible {
    let name: String
    let text: String
    let verdict: ModerationResult.Verdict
    let blockType: BlockType?
    let sensitiveType: SensitiveType
    /// The delivered text for a replaced item.
    var delivered: String? = nil
    var testDescription: String { name }
  }

  @Test(arguments: [
    Case(name: "clean", text: "你好 hello", verdict: .pass, blockType: nil, sensitiveType: .none),
    Case(name: "global block", text: "你是反动派", verdict: .blocked, blockType: .globalWord, sensitiveType: .blockWord),
    Case(name: "custom block", text: "快加微信", verdict: .blocked, blockType: .customWord, sensitiveType: .blockWord),
    Case(
      name: "custom replace", text: "限时秒杀!", verdict: .replaced, blockType: nil, sensitiveType: .replaceWord,
      delivered: "限时**!"),
    Case(
      name: "block beats replace", text: "秒杀 加微信", verdict: .blocked, blockType: .customWord,
      sensitiveType: .blockWord),
    Case(
      name: "global beats custom, both matching", text: "傻逼 加微信", verdict: .blocked, blockType: .globalWord,
      sensitiveType: .blockWord),
    Case(
      name: "evaded global word", text: "傻 * 逼", verdict: .blocked, blockType: .globalWord, sensitiveType: .blockWord),
  ])
  func decisionOrder(testCase: Case) throws {
    for kind in SourceType.allCases {
      let result = try Self.engine().screen(Self.item(testCase.text, kind: kind))
      #expect(result.verdict == testCase.verdict, "\(kind)")
      #expect(result.blockType == testCase.blockType, "\(kind)")
      #expect(result.sensitiveType == testCase.sensitiveType, "\(kind)")
      #expect((result.record != nil) == (testCase.verdict == .blocked))
      if let delivered = testCase.delivered {
        let path = kind == .extension ? result.item.content["put"]?["note"] : result.item.content["content"]
        #expect(path == .string(delivered), "\(kind)")
        #expect(result.item.content["extra"] == (kind == .extension ? nil : "e"), "only moderated fields change")
      }
    }
  }

  /// A replace word in an extension's key blocks (keys are identifiers: a rewritten key is
  /// another key); in a value it is replaced, and the key stays.
  @Test func replaceWordsNeverRewriteExtensionKeys() throws {
    let engine = try Self.engine()
    func extensionItem(_ put: JSONValue) -> MessageItem {
      MessageItem(
        sourceType: .extension, msgUID: "M1", fromUserId: "u1", targetId: "g1", conversationType: .group,
        content: ["mid": "M1", "put": put], sentTime: 1_700_000_000_000)
    }
    let inKey = try engine.screen(extensionItem(["秒杀": "ok"]))
    #expect(inKey.verdict == .blocked && inKey.blockType == .customWord)
    #expect(inKey.record?.extra == "ads")
    let inValue = try engine.screen(extensionItem(["k": "秒杀"]))
    #expect(inValue.verdict == .replaced && inValue.item.content["put"] == ["k": "**"])
  }

  /// The yes/no questions agree with the full answers.
  @Test func isCleanAndPassesAgreeWithTheFullAnswers() throws {
    let engine = try Self.engine()
    for text in ["hello", "傻逼", "秒杀 now", "傻 * 逼", "", "加 微 信"] {
      let matcher = engine.defaultMatcher
      #expect(matcher.isClean(text) == matcher.matches(in: text).isEmpty, "\(text)")
      let item = Self.item(text)
      let result = try engine.screen(item)
      #expect(try engine.passes(item) == (result.verdict == .pass && !result.flagged), "\(text)")
    }
    #expect(try engine.passes(Self.item("hello")))
    #expect(try !engine.passes(Self.item("秒杀 now")))
  }

  /// The record, key by key, in each source type.
  @Test(arguments: SourceType.allCases)
  func recordHasThePlatformFields(kind: SourceType) throws {
    let result = try Self.engine().screen(Self.item("你是傻逼", kind: kind))
    let record = try #require(result.record)
    let data = try JSONEncoder().encode(record)
    let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    #expect(
      Set(object.keys)
        == [
          "type", "targetId", "channelId", "blockedMsgUId", "blockType", "extra", "sentTime", "sourceType",
          "sourceContent",
        ])
    #expect(object["type"] as? Int == 10)
    #expect(object["targetId"] as? String == "g1")
    #expect(object["channelId"] as? String == "c1")
    #expect(object["blockedMsgUId"] as? String == "M1")
    #expect(object["blockType"] as? Int == 1)
    #expect(object["sentTime"] as? Int64 == 1_700_000_000_000)
    #expect(object["sourceType"] as? Int == kind.rawValue)
    switch kind {
    case .original: #expect(object["sourceContent"] is NSNull)
    case .extension: #expect(object["sourceContent"] as? String == #"{"mid":"M1","put":{"note":"你是傻逼"}}"#)
    case .edit: #expect(object["sourceContent"] as? String == #"{"content":"你是傻逼","extra":"e"}"#)
    }
    #expect(object["extra"] as? String == "sensitive", "the sender sees the category alone")
    // Our own JSON writer gives the same keys in the platform's order.
    #expect(
      record.json.jsonString.hasPrefix(
        #"{"type":10,"targetId":"g1","channelId":"c1","blockedMsgUId":"M1","blockType":1,"#))
    #expect(try JSONDecoder().decode(BlockedMessageInfo.self, from: data) == record)
  }

  /// The record's `extra` by template: the categories by default (never lists, words or
  /// errors), the placeholders filled, the old JSON detail on request.
  @Test func recordExtraFollowsItsTemplate() throws {
    let item = Self.item("你是傻逼 加微信")
    let expectations: [(RecordExtra, String)] = [
      (.categories, "sensitive"),
      (RecordExtra(template: "blocked for {categories} ({words} in {lists})"), "blocked for sensitive (傻逼 in zh.txt)"),
      (.detail, #"{"matches":[{"word":"傻逼","list":"zh.txt","category":"sensitive"}]}"#),
      (RecordExtra(template: "no"), "no"),
    ]
    for (template, expected) in expectations {
      let engine = try ModerationEngine(
        global: [Self.global], custom: [Self.custom],
        configuration: .init(extractor: ContentExtractor(), recordExtra: template))
      #expect(try engine.screen(item).record?.extra == expected, "\(template.template)")
    }
    let custom = try Self.engine().screen(Self.item("加微信 now"))
    #expect(custom.record?.extra == "ads")
  }

  @Test func extraStaysWithinTheLimit() throws {
    let words = (0..<200).map { "词语\($0)号" }
    let list = try WordList(name: "many.txt", origin: .custom, parsing: words.joined(separator: "\n"))
    let engine = try ModerationEngine(
      global: [], custom: [list], configuration: .init(extractor: ContentExtractor(), recordExtra: .detail))
    let result = try engine.screen(MessageItem.text(words.joined(separator: " "), msgUID: "m", targetId: "t"))
    let extra = try #require(result.record?.extra)
    #expect(extra.count <= 1024)
    // As many as fit: the next word would not.
    guard case .array(let kept)? = try JSONValue(parsing: extra)["matches"] else {
      Issue.record("no matches array in \(extra)")
      return
    }
    #expect(kept.count > 10 && kept.count < words.count)
    let next = #"{"word":"\#(words[kept.count])","list":"many.txt","category":null}"#
    #expect(extra.count + 1 + next.count > 1024)
  }

  /// A record's `extra` is cut to 1024 characters, not bytes: CJK text of 1,800 bytes and 600
  /// characters, or emoji of several scalars each, stays whole.
  @Test(arguments: [
    (String(repeating: "a", count: 1024), 1024), (String(repeating: "a", count: 1025), 1024),
    (String(repeating: "词", count: 600), 600), (String(repeating: "词", count: 1500), 1024),
    (String(repeating: "👍🏽", count: 600), 600), ("", 0),
  ])
  func extraIsCutToTheLimitInCharacters(extra: String, kept: Int) {
    let item = MessageItem.text("x", msgUID: "m", targetId: "t")
    let record = BlockedMessageInfo(item: item, blockType: .thirdParty, extra: extra)
    #expect(record.extra.count == kept)
    #expect(extra.hasPrefix(record.extra))
  }

  @Test func aListIsNamedByItsLastComponent() {
    #expect(ModerationEngine.shortName(ofList: "wordlists/global/zh.txt") == "zh.txt")
    #expect(ModerationEngine.shortName(ofList: "zh.txt") == "zh.txt")
    #expect(ModerationEngine.shortName(ofList: "lists/app/") == "app")
    #expect(ModerationEngine.shortName(ofList: "/") == "/")
    #expect(ModerationEngine.shortName(ofList: "") == "")
  }

  @Test func appsHaveTheirOwnCustomListsOverOneGlobalList() throws {
    let app = try WordList(name: "app-b.txt", origin: .custom, parsing: "你好\n")
    let engine = try Self.engine().addingApp("b", custom: [app])
    var item = Self.item("你好 秒杀")
    #expect(try engine.screen(item).verdict == .replaced)
    item.appKey = "b"
    let result = try engine.screen(item)
    #expect(result.verdict == .blocked && result.blockType == .customWord)
    item.content = ["content": "傻逼"]
    #expect(try engine.screen(item).blockType == .globalWord)
    #expect(engine.matcher(for: item).layers.first === engine.globalMatcher.layers.first)
  }

  @Test func commandMessagesPassUntouched() throws {
    let item = MessageItem(
      msgUID: "m", targetId: "t", conversationType: .group, objectName: "RC:RcCmd",
      content: ["messageUId": "傻逼"], sentTime: 1)
    let result = try Self.engine().screen(item)
    #expect(result.verdict == .pass && result.matches.isEmpty)
  }

  // MARK: The reviewer

  /// A reviewer that answers from a closure after an optional delay.
  struct ScriptedReviewer: ContentReviewer {
    var delay: Duration = .zero
    var ignoresCancellation = false
    let answer: @Sendable (ReviewRequest) throws -> ReviewDecision

    func review(_ request: ReviewRequest) async throws -> ReviewDecision {
      if delay > .zero {
        if ignoresCancellation {
          // Waits without blocking a thread and without looking at cancellation.
          let microseconds = Int(
            delay.components.seconds * 1_000_000 + delay.components.attoseconds / 1_000_000_000_000)
          await withCheckedContinuation { continuation in
            DispatchQueue.global().asyncAfter(deadline: .now() + .microseconds(microseconds)) { continuation.resume() }
          }
        } else {
          try await Task.sleep(for: delay)
        }
      }
      return try answer(request)
    }
  }

  struct ReviewerDown: Error, CustomStringConvertible {
    var description: String { "connection refused" }
  }

  @Test func rejectAfterReplaceBlocksWithTypeThreeAndSeesReplacedContent() async throws {
    let reviewer = ScriptedReviewer { request in
      #expect(request.item.content["content"] == "限时**!")
      #expect(request.fields.map(\.text) == ["限时**!", "e"])
      #expect(request.sensitiveType == .replaceWord)
      return ReviewDecision(outcome: .reject, labels: ["ads"], extra: "promotion not allowed")
    }
    let engine = try Self.engine(reviewer: reviewer)
    let result = try await engine.moderate(Self.item("限时秒杀!"))
    #expect(result.verdict == .blocked)
    #expect(result.blockType == .thirdParty)
    #expect(result.sensitiveType == .replaceWord)
    #expect(result.record?.blockType == 3)
    #expect(result.record?.extra == "promotion not allowed")
    #expect(result.item.content["content"] == "限时秒杀!", "a blocked item is reported as received")
    #expect(engine.reviewerStatistics.counts.rejected == 1)
  }

  @Test func reviewerIsNotAskedAboutBlockedItems() async throws {
    let reviewer = ScriptedReviewer { _ in
      Issue.record("reviewer called")
      return ReviewDecision(outcome: .pass)
    }
    let result = try await Self.engine(reviewer: reviewer).moderate(Self.item("傻逼"))
    #expect(result.blockType == .globalWord && result.review == nil)
  }

  @Test func reviewerReplacementIsDelivered() async throws {
    let reviewer = ScriptedReviewer { _ in ReviewDecision(outcome: .pass, replacementContent: ["content": "[removed]"])
    }
    let result = try await Self.engine(reviewer: reviewer).moderate(Self.item("clean text"))
    #expect(result.verdict == .replaced)
    #expect(result.replacedContent == ["content": "[removed]"])
  }

  @Test(arguments: [(ReviewPolicy.ReviewAction.deliver, ModerationResult.Verdict.pass), (.block, .blocked)])
  func reviewPolicyDecidesWhatReviewDoes(action: ReviewPolicy.ReviewAction, verdict: ModerationResult.Verdict)
    async throws
  {
    let reviewer = ScriptedReviewer { _ in ReviewDecision(outcome: .review, labels: ["unsure"]) }
    let engine = try Self.engine(reviewer: reviewer, policy: ReviewPolicy(timeout: Self.patient, onReview: action))
    let result = try await engine.moderate(Self.item("maybe"))
    #expect(result.verdict == verdict)
    #expect(result.review?.decision?.outcome == .review)
    if verdict == .blocked { #expect(result.record?.extra == "unsure") }
  }

  @Test(arguments: [ReviewPolicy.FailureAction.failOpen, .failClosed], [false, true])
  func timeoutFollowsTheFailurePolicy(onFailure: ReviewPolicy.FailureAction, stubborn: Bool) async throws {
    let reviewer = ScriptedReviewer(delay: .seconds(20), ignoresCancellation: stubborn) { _ in
      ReviewDecision(outcome: .reject)
    }
    let engine = try Self.engine(
      reviewer: reviewer, policy: ReviewPolicy(timeout: .milliseconds(200), onFailure: onFailure))
    let result = try await engine.moderate(Self.item("slow"))
    // Decided at the deadline, far below the reviewer's 20 s, even when it ignores cancellation
    // (the timer does not need a free thread of the concurrency pool). The bound is loose: the
    // decision itself resumes on that pool, which other tests may keep busy for seconds.
    let elapsed = try #require(result.review?.elapsed)
    #expect(elapsed >= .milliseconds(200) && elapsed < .seconds(15), "decided after \(elapsed)")
    #expect(result.verdict == (onFailure == .failOpen ? .pass : .blocked))
    #expect(result.review?.failure == "no answer within 0.2 seconds")
    #expect(engine.reviewerStatistics.counts.timeouts == 1)
    if onFailure == .failClosed { #expect(result.blockType == .thirdParty) }
  }

  /// The deadline's timer fires while Dispatch's global queue is busy with CPU-bound work (one
  /// item more than there are processors, each spinning for a second): on Linux that queue's
  /// threads also run the concurrency pool, and a timer queued there fired only once they were
  /// free (a 0.3 s review deadline decided after 8 s in a loaded test run).
  @Test func aDeadlineFiresWhileTheGlobalQueueIsBusy() async throws {
    let spinners = ProcessInfo.processInfo.activeProcessorCount + 1
    let done = DispatchGroup()
    for _ in 0..<spinners {
      DispatchQueue.global().async(group: done) {
        let end = ContinuousClock.now + .seconds(1)
        var spins = 0
        while ContinuousClock.now < end { spins &+= 1 }
        _ = spins
      }
    }
    let decided = DecisionTime()
    let start = ContinuousClock.now
    await #expect(throws: ReviewTimeoutError.self) {
      try await withDeadline(.milliseconds(100), decided: decided) {
        try await Task.sleep(for: .seconds(20))
      }
    }
    let elapsed = try #require(decided.value) - start
    #expect(elapsed < .milliseconds(700), "decided after \(elapsed), behind the spinning second")
    await withCheckedContinuation { continuation in
      done.notify(queue: DispatchQueue(label: "spinners")) { continuation.resume() }
    }
  }

  @Test(arguments: [ReviewPolicy.FailureAction.failOpen, .failClosed])
  func failureFollowsTheFailurePolicy(onFailure: ReviewPolicy.FailureAction) async throws {
    let reviewer = ScriptedReviewer { _ in throw ReviewerDown() }
    let engine = try Self.engine(reviewer: reviewer, policy: ReviewPolicy(timeout: Self.patient, onFailure: onFailure))
    let result = try await engine.moderate(Self.item("秒杀"))
    #expect(result.verdict == (onFailure == .failOpen ? .replaced : .blocked))
    #expect(result.review?.failure == "connection refused")
    #expect(engine.reviewerStatistics.counts.failures == 1)
  }

  /// A reviewer that ignores cancellation keeps its timed-out calls going: they count against
  /// the policy's calls in flight until the reviewer returns, and past the cap an item waits,
  /// in vain here, until its own timeout.
  @Test func callsInFlightAreBoundedOrphansIncluded() async throws {
    let entered = Mutex(0)
    struct Stubborn: ContentReviewer {
      let entered: @Sendable () -> Void
      func review(_ request: ReviewRequest) async throws -> ReviewDecision {
        entered()
        // Waits without blocking a thread and without looking at cancellation.
        await withCheckedContinuation { continuation in
          DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(30)) { continuation.resume() }
        }
        return ReviewDecision(outcome: .pass)
      }
    }
    let engine = try Self.engine(
      reviewer: Stubborn { entered.withLock { $0 += 1 } },
      policy: ReviewPolicy(timeout: .milliseconds(500), onFailure: .failClosed, maximumCallsInFlight: 2))
    var results: [ModerationResult] = []
    for _ in 0..<4 { results.append(try await engine.moderate(Self.item("hello"))) }
    // Every item times out and fails closed, as the policy says.
    #expect(results.allSatisfy { $0.review?.failure == "no answer within 0.5 seconds" && $0.verdict == .blocked })
    let counts = engine.reviewerStatistics.counts
    #expect(counts.timeouts == 4 && counts.failures == 0 && counts.calls == 4 && counts.waiting == 0)
    // Every call the reviewer entered is still in flight (it has not returned), and never more
    // than the cap entered. (How many entered depends on the machine: on a busy one a call can
    // time out before its task starts, and is then neither entered nor in flight.)
    let started = entered.withLock { $0 }
    #expect(counts.inFlight == started && started <= 2, "\(counts), \(started) entered")
  }

  /// A regex stopped at its limits is never a silent pass: the result says so, and the
  /// configuration chooses the verdict (review by default).
  @Test(arguments: [
    (ModerationEngine.IncompleteAction.review, ModerationResult.Verdict.pass, true),
    (.block, .blocked, false), (.pass, .pass, false),
  ])
  func aStoppedRegexDecidesByPolicy(
    action: ModerationEngine.IncompleteAction, verdict: ModerationResult.Verdict, flagged: Bool
  )
    throws
  {
    var configuration = ModerationEngine.Configuration()
    configuration.onIncomplete = action
    let custom = try WordList(name: "app.txt", origin: .custom, parsing: #"re:\w*\w*\w*\w*\w*z"# + "\n")
    let engine = try ModerationEngine(global: [Self.global], custom: [custom], configuration: configuration)
    let result = try engine.screen(Self.item(String(repeating: "abcdefghij", count: 30) + " .z"))
    #expect(result.incomplete && result.warnings.count == 1)
    #expect(result.verdict == verdict)
    #expect(result.flagged == flagged)
    if action == .block {
      #expect(result.blockType == .customWord && result.record?.extra == "incomplete check")
    }
    #expect(result.json["incomplete"] == true)
    // A text the regex finishes on is decided as ever.
    let short = try engine.screen(Self.item("abc z"))
    #expect(!short.incomplete && short.verdict == .blocked)
  }

  /// An ultra-group item without a channel is recorded in `RCDefault` (apps created after
  /// 2022-10-13), or in the configured channel, or with none; other types keep theirs.
  @Test func anUltraGroupItemWithoutAChannelIsRecordedInTheDefaultOne() throws {
    func record(_ type: ConversationType, channel: String, default fallback: String??) throws -> String? {
      var configuration = ModerationEngine.Configuration()
      if let fallback { configuration.ultraGroupDefaultChannel = fallback }
      let engine = try ModerationEngine(global: [Self.global], configuration: configuration)
      let item = MessageItem(
        msgUID: "m", targetId: "g", conversationType: type, channelId: channel, content: ["content": "傻逼"],
        sentTime: 1)
      return try engine.screen(item).record?.channelId
    }
    #expect(try record(.ultraGroup, channel: "", default: nil) == "RCDefault")
    #expect(try record(.ultraGroup, channel: "c1", default: nil) == "c1")
    #expect(try record(.ultraGroup, channel: "", default: .some("main")) == "main")
    #expect(try record(.ultraGroup, channel: "", default: .some(nil)) == "")
    #expect(try record(.group, channel: "", default: nil) == "")
  }

  /// The cap limits how many calls run at once and refuses none: many more items than the cap,
  /// all at once, are all reviewed, never more than the cap at a time.
  @Test func theCapLimitsConcurrencyAndRefusesNoCall() async throws {
    let running = Mutex((now: 0, most: 0))
    let reviewer = ScriptedReviewer { _ in ReviewDecision(outcome: .reject) }
    struct Counting: ContentReviewer {
      let inner: ScriptedReviewer
      let running: @Sendable (Int) -> Void
      func review(_ request: ReviewRequest) async throws -> ReviewDecision {
        running(1)
        defer { running(-1) }
        try await Task.sleep(for: .milliseconds(2))
        return try await inner.review(request)
      }
    }
    let counting = Counting(inner: reviewer) { change in
      running.withLock {
        $0.now += change
        $0.most = max($0.most, $0.now)
      }
    }
    let engine = try Self.engine(
      reviewer: counting, policy: ReviewPolicy(timeout: Self.patient, onFailure: .failOpen, maximumCallsInFlight: 4))
    let blocked = try await withThrowingTaskGroup(of: Bool.self) { group in
      for index in 0..<400 {
        group.addTask { try await engine.moderate(Self.item("hello \(index)")).verdict == .blocked }
      }
      return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
    }
    #expect(blocked == 400)
    let counts = engine.reviewerStatistics.counts
    #expect(counts.rejected == 400 && counts.failures == 0 && counts.timeouts == 0)
    #expect(counts.inFlight == 0 && counts.waiting == 0)
    let most = running.withLock { $0.most }
    #expect(most <= 4 && most >= 2, "\(most) at once")
  }

  /// Any timeout is a timeout the engine can keep: none traps, however long or short.
  @Test(arguments: [
    Duration.seconds(Int64.max), .seconds(Int64.max / 1_000_000_000 + 1), .seconds(-5), .zero, .seconds(86_401),
  ])
  func anyPolicyTimeoutIsKept(timeout: Duration) async throws {
    let reviewer = ScriptedReviewer { _ in ReviewDecision(outcome: .reject) }
    let engine = try Self.engine(reviewer: reviewer, policy: ReviewPolicy(timeout: timeout, onFailure: .failOpen))
    let result = try await engine.moderate(Self.item("hello"))
    if timeout > .zero {
      #expect(result.verdict == .blocked, "an instant answer within \(timeout)")
    } else {
      // The timer and the answer race; either way the reviewer was asked and the item decided.
      #expect(result.review != nil)
    }
  }

  @Test func resultJSONCarriesVerdictRecordAndMatches() throws {
    let result = try Self.engine().screen(Self.item("傻逼"))
    let json = result.json
    #expect(json["verdict"] == "blocked")
    #expect(json["blockType"] == .number("1"))
    #expect(json["record"] == result.record?.json)
    guard case .array(let matches)? = json["matches"] else {
      Issue.record("no matches")
      return
    }
    #expect(matches.first?["field"] == "content")
    #expect(matches.first?["entry"] == "傻逼")
    #expect(matches.first?["line"] == .number("2"))
  }
}
