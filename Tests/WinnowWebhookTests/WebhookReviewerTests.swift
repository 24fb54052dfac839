import AsyncHTTPClient
import Foundation
import Synchronization
import Testing
@_spi(Tools) import Winnow
import WinnowTestSupport

@testable import WinnowWebhook

/// The webhook reviewer against a real HTTP server on 127.0.0.1.
@Suite("Webhook reviewer")
struct WebhookReviewerTests {
  static let custom = try! WordList(name: "app.txt", origin: .custom, parsing: "秒杀 => **\n")

  /// Tests that are not about timeouts wait ten minutes: an answer must not turn into a
  /// timeout when the test process is busy. (The engine's deadline is a Dispatch timer and
  /// fires on time, but the reviewer's answer resumes on the concurrency pool, which long
  /// synchronous tests in other suites held for over a minute on a 2-core machine, when this
  /// limit was 60 s.) A reviewer that never answers still fails the test, ten minutes in.
  static func engine(_ reviewer: WebhookReviewer, timeout: Duration = .seconds(600), failClosed: Bool = false) throws
    -> ModerationEngine
  {
    try ModerationEngine(
      global: [], custom: [custom],
      configuration: .init(
        reviewer: reviewer,
        reviewPolicy: ReviewPolicy(timeout: timeout, onFailure: failClosed ? .failClosed : .failOpen)))
  }

  static let item = MessageItem(
    msgUID: "BS4S-P5AA", fromUserId: "u1", targetId: "g1", toUserIds: ["u2", "u3"], conversationType: .ultraGroup,
    channelId: "c9", content: ["content": "限时秒杀 now", "extra": "x"], sentTime: 1_700_000_000_123)

  /// Runs `body` with a server answering every request with `answer`, then shuts it down.
  static func withServer(
    _ answer: TestHTTPServer.Response,
    _ body: (TestHTTPServer) async throws -> Void
  ) async throws {
    let server = try await TestHTTPServer { _ in answer }
    do { try await body(server) } catch {
      try await server.shutdown()
      throw error
    }
    try await server.shutdown()
  }

  static func form(_ body: String) -> [String: String] {
    var fields: [String: String] = [:]
    for pair in body.split(separator: "&") {
      let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      fields[String(parts[0])] = String(parts[1]).removingPercentEncoding
    }
    return fields
  }

  @Test func messageCallbackPostsTheFormFieldsAndPasses() async throws {
    try await Self.withServer(.init(body: #"{"pass":1}"#)) { server in
      let reviewer = WebhookReviewer(url: server.url, mode: .messageCallback(appKey: "key-1"))
      var item = Self.item
      item.pushContent = "秒杀 soon"
      let result = try await Self.engine(reviewer).moderate(item)
      #expect(result.verdict == .replaced, "the replace word stays replaced; the reviewer passed")
      #expect(result.review?.decision?.outcome == .pass)
      let request = try #require(server.requests.first)
      #expect(request.method == "POST")
      #expect(request.contentType == "application/x-www-form-urlencoded")
      let fields = Self.form(request.body)
      #expect(
        request.body.split(separator: "&").map { String($0.split(separator: "=")[0]) } == [
          "appKey", "fromUserId", "targetId", "toUserIds", "msgType", "content", "pushContent", "extraContent",
          "channelType", "msgTimeStamp", "messageId", "originalMsgUID", "busChannel",
        ])
      #expect(fields["appKey"] == "key-1")
      #expect(fields["toUserIds"] == "u2,u3")
      #expect(fields["msgType"] == "RC:TxtMsg")
      #expect(fields["content"] == #"{"content":"限时** now","extra":"x"}"#, "the reviewer sees replaced content")
      #expect(fields["pushContent"] == "** soon", "and the push text as it will be delivered")
      #expect(fields["channelType"] == "ULTRAGROUP")
      #expect(fields["msgTimeStamp"] == "1700000000123")
      #expect(fields["messageId"] == "BS4S-P5AA")
      #expect(fields["busChannel"] == "c9")
    }
  }

  @Test func messageCallbackRejectBlocksWithTypeThree() async throws {
    try await Self.withServer(.init(body: #"{"pass":0,"extra":"no ads"}"#)) { server in
      let engine = try Self.engine(WebhookReviewer(url: server.url, mode: .messageCallback(appKey: "k")))
      let result = try await engine.moderate(Self.item)
      #expect(result.verdict == .blocked)
      #expect(result.record?.blockType == 3)
      #expect(result.record?.extra == "no ads")
      #expect(engine.reviewerStatistics.counts.rejected == 1)
    }
  }

  @Test func messageCallbackReplaceContentIsDelivered() async throws {
    let answer = #"{"pass":2,"replaceContent":"{\"content\":\"[filtered]\"}"}"#
    try await Self.withServer(.init(body: answer)) { server in
      let engine = try Self.engine(WebhookReviewer(url: server.url, mode: .messageCallback(appKey: "k")))
      let result = try await engine.moderate(Self.item)
      #expect(result.verdict == .replaced)
      #expect(result.replacedContent == ["content": "[filtered]"])
    }
  }

  @Test func extensionKeysAndValuesAreSentAsExtraContent() async throws {
    let answer = #"{"pass":1,"replaceExtraContent":"{\"note\":\"ok\"}"}"#
    try await Self.withServer(.init(body: answer)) { server in
      let engine = try Self.engine(WebhookReviewer(url: server.url, mode: .messageCallback(appKey: "k")))
      var item = Self.item
      item.sourceType = .extension
      item.content = ["mid": "BS4S-P5AA", "put": ["note": "hello"]]
      let result = try await engine.moderate(item)
      #expect(Self.form(server.requests[0].body)["extraContent"] == #"{"note":"hello"}"#)
      #expect(result.verdict == .replaced)
      #expect(result.replacedContent == ["mid": "BS4S-P5AA", "put": ["note": "ok"]])
    }
  }

  @Test func jsonModeSendsTheItemAndReadsTheDecision() async throws {
    let answer = #"{"decision":"review","labels":["spam"],"extra":"check"}"#
    try await Self.withServer(.init(body: answer)) { server in
      let engine = try Self.engine(WebhookReviewer(url: server.url, mode: .json))
      let result = try await engine.moderate(Self.item)
      #expect(result.review?.decision == ReviewDecision(outcome: .review, labels: ["spam"], extra: "check"))
      #expect(result.verdict == .replaced, "review delivers by default")
      let body = try JSONValue(parsing: server.requests[0].body)
      #expect(body["item"]?["msgUID"] == "BS4S-P5AA")
      #expect(body["sensitiveType"] == .number("2"))
      #expect(body["fields"] == [["field": "content", "text": "限时** now"], ["field": "extra", "text": "x"]])
      #expect(body["flagged"] == [])
    }
  }

  @Test(arguments: [false, true])
  func slowAnswerTimesOutByPolicy(failClosed: Bool) async throws {
    try await Self.withServer(.init(body: #"{"pass":0}"#, delay: .seconds(10))) { server in
      let engine = try Self.engine(
        WebhookReviewer(url: server.url, mode: .messageCallback(appKey: "k")), timeout: .milliseconds(300),
        failClosed: failClosed)
      let result = try await engine.moderate(Self.item)
      let elapsed = try #require(result.review?.elapsed)
      #expect(
        // Loose: the decision resumes on the concurrency pool, which other tests may keep busy.
        elapsed >= .milliseconds(300) && elapsed < .seconds(8), "decided after \(elapsed), below the server's 10 s")
      #expect(result.verdict == (failClosed ? .blocked : .replaced))
      #expect(result.review?.failure == "no answer within 0.3 seconds")
      #expect(engine.reviewerStatistics.counts.timeouts == 1)
    }
  }

  @Test func anAnswerThatStallsMidBodyFailsAtTheRequestTimeout() async throws {
    try await Self.withServer(.init(body: #"{"pass":1,"extra":"long enough to cut"}"#, stallsBody: true)) { server in
      let reviewer = WebhookReviewer(
        url: server.url, mode: .messageCallback(appKey: "k"), requestTimeout: .milliseconds(500))
      // Without the request timeout this fails in five minutes, with "no answer within 300.0
      // seconds".
      let engine = try Self.engine(reviewer, timeout: .seconds(300), failClosed: true)
      let result = try await engine.moderate(Self.item)
      let elapsed = try #require(result.review?.elapsed)
      #expect(elapsed >= .milliseconds(500), "decided after \(elapsed)")
      #expect(result.verdict == .blocked && result.blockType == .thirdParty)
      #expect(result.review?.failure == "reviewer gave no complete answer within its request timeout of 0.5 seconds")
      #expect(engine.reviewerStatistics.counts.failures == 1)
    }
  }

  @Test func connectionRefusedFollowsTheFailurePolicy() async throws {
    let refusing = try RefusingPort()
    let url = "http://127.0.0.1:\(refusing.port)/review"
    let client = WebhookReviewer.makeFailFastClient()
    let engine = try Self.engine(
      WebhookReviewer(url: url, mode: .messageCallback(appKey: "k"), client: client), failClosed: true)
    let result = try await engine.moderate(Self.item)
    try await client.shutdown()
    #expect(result.verdict == .blocked && result.blockType == .thirdParty)
    // The refusal itself is the failure: a client that retried until a deadline would report
    // the deadline instead. (Elapsed time is not asserted: a busy test process delays it.)
    let failure = result.review?.failure ?? ""
    #expect(failure.hasPrefix("reviewer unreachable") && failure.contains("Connection refused"), "\(failure)")
    #expect(engine.reviewerStatistics.counts.failures == 1)
    withExtendedLifetime(refusing) {}
  }

  @Test(arguments: [
    (200, "not json", "malformed reviewer answer: invalid JSON at byte 0: invalid literal, expected 'null'"),
    (200, #"{"pass":7}"#, #"malformed reviewer answer: "pass" must be 0, 1 or 2"#),
    (200, "[1]", "malformed reviewer answer: the answer is not a JSON object"),
    (500, #"{"pass":1}"#, "reviewer answered HTTP 500"),
  ])
  func malformedAnswersAreFailures(status: Int, body: String, failure: String) async throws {
    try await Self.withServer(.init(status: status, body: body)) { server in
      let engine = try Self.engine(WebhookReviewer(url: server.url, mode: .messageCallback(appKey: "k")))
      let result = try await engine.moderate(Self.item)
      #expect(result.verdict == .replaced, "fail open delivers")
      #expect(result.review?.failure == failure)
      #expect(engine.reviewerStatistics.counts.failures == 1)
    }
  }

  /// A redirect is a failure, never an answer: the fail-fast client does not follow it, and a
  /// client that does (the shared one) has its answer refused.
  @Test(arguments: [false, true])
  func aRedirectIsAFailure(failFast: Bool) async throws {
    let server = try await TestHTTPServer { request in
      request.uri == "/review"
        ? .init(status: 302, body: "", headers: [("Location", "/elsewhere")]) : .init(body: #"{"pass":0}"#)
    }
    let client = failFast ? WebhookReviewer.makeFailFastClient() : HTTPClient.shared
    let engine = try Self.engine(WebhookReviewer(url: server.url, mode: .messageCallback(appKey: "k"), client: client))
    let result = try await engine.moderate(Self.item)
    #expect(result.verdict == .replaced, "fail open delivers; the redirect's target did not reject")
    let failure = try #require(result.review?.failure)
    #expect(failure.hasPrefix("reviewer redirected the call to "))
    #expect(failure.hasSuffix("/elsewhere; redirects are not followed"))
    #expect(server.requests.map(\.uri) == (failFast ? ["/review"] : ["/review", "/elsewhere"]))
    if failFast { try await client.shutdown() }
    try await server.shutdown()
  }

  @Test(arguments: [
    ("http://127.0.0.1:9/review", nil), ("https://reviewer.example/cb", nil), ("not a url", "not an absolute URL"),
    ("ftp://host/x", "the scheme must be http or https, not ftp"), ("http:///path", "no host"),
  ])
  func urlsThatCanNeverBeCalledAreTold(url: String, problem: String?) {
    #expect(WebhookReviewer.problem(with: url) == problem)
  }

  @Test func concurrencyIsLimitedAndConnectionsReused() async throws {
    try await Self.withServer(.init(body: #"{"pass":1}"#, delay: .milliseconds(50))) { server in
      let reviewer = WebhookReviewer(url: server.url, mode: .messageCallback(appKey: "k"), maximumConcurrentRequests: 2)
      let engine = try Self.engine(reviewer)
      try await withThrowingTaskGroup(of: Void.self) { group in
        for index in 0..<8 {
          group.addTask {
            var item = Self.item
            item.msgUID = "m\(index)"
            let result = try await engine.moderate(item)
            #expect(result.review?.decision?.outcome == .pass)
          }
        }
        try await group.waitForAll()
      }
      #expect(server.requests.count == 8)
      #expect(server.connections <= 2, "no more connections than the limit: they are reused")
      #expect(server.maximumInFlight == 2)
    }
  }
}
