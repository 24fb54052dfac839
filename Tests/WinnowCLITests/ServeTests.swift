import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization
import Testing
@_spi(Tools) import Winnow
import WinnowTestSupport
import WinnowWebhook

/// `winnow serve`, the binary on 127.0.0.1 (the release one too, in `scripts/test`): every
/// endpoint, signatures, the platform's error codes, reloads under load, and durability.
@Suite("winnow serve", .serialized)
struct ServeTests {
  /// A running `winnow serve` on a free port of 127.0.0.1.
  final class Server: @unchecked Sendable {
    let process = Process()
    let port: Int
    let apps: String
    private let errorOutput: Pipe
    /// The last bytes the server logged.
    private let logTail = LogTail()

    private final class LogTail: Sendable {
      let bytes = Mutex<[UInt8]>([])
    }

    /// Starts the server with an app directory holding `apps` (app key → list text) and the
    /// secrets `secrets`, and waits until it is ready.
    init(
      apps files: [String: String] = ["app1": "秒杀 => **\nappword\n"], secrets: [String: String] = ["app1": "s3cret"],
      directory: String? = nil, store: String? = nil, arguments: [String] = [], waitUntilReady: Bool = true
    ) async throws {
      let apps = directory ?? CLITests.temporaryPath("apps").path
      if directory == nil {
        try FileManager.default.createDirectory(atPath: apps, withIntermediateDirectories: true)
        for (app, text) in files { try text.write(toFile: "\(apps)/\(app).txt", atomically: true, encoding: .utf8) }
        let json = "{" + secrets.map { "\"\($0.key)\":\"\($0.value)\"" }.joined(separator: ",") + "}"
        try json.write(toFile: "\(apps)/secrets.json", atomically: true, encoding: .utf8)
        chmod("\(apps)/secrets.json", 0o600)
      }
      self.apps = apps
      process.executableURL = CLITests.executable
      // With a store, the directory holds only the secrets.
      let lists = store.map { ["--store", $0, "--secrets", "\(apps)/secrets.json"] } ?? ["--apps", apps]
      process.arguments = ["serve", "--port", "0", "--threads", "2"] + lists + arguments
      process.environment = ProcessInfo.processInfo.environment.merging([
        "WINNOW_CACHE_DIR": CLITests.cacheDirectory.path
      ]) { $1 }
      errorOutput = Pipe()
      process.standardError = errorOutput
      process.standardOutput = FileHandle.nullDevice
      try process.run()
      let handle = errorOutput.fileHandleForReading
      let port = await offThePool { () -> Int? in
        var text = ""
        while true {
          let data = handle.availableData
          if data.isEmpty { return nil }
          text += String(decoding: data, as: UTF8.self)
          if let range = text.range(of: "listening on http://127.0.0.1:") {
            let digits = text[range.upperBound...].prefix { $0.isNumber }
            if text[range.upperBound...].dropFirst(digits.count).first != nil { return Int(digits) }
          }
        }
      }
      guard let port else { throw ServeTestError("the server did not start") }
      self.port = port
      // Keep draining the log so the server never blocks on a full pipe; its end is kept for
      // a server that does not stop. The drain is a blocking read on a thread of its own that
      // ends at the server's exit (end of file), not a `readabilityHandler`: on Linux that
      // handler's read source can be torn down after its descriptor is closed and reused, and
      // libdispatch then crashes in `_dispatch_event_loop_drain`
      // (swiftlang/swift-corelibs-libdispatch#949), which took down a whole test run.
      let logTail = self.logTail
      let drain = Thread {
        while true {
          let data = handle.availableData
          if data.isEmpty { return }
          logTail.bytes.withLock { tail in
            tail.append(contentsOf: data)
            if tail.count > 8192 { tail.removeFirst(tail.count - 8192) }
          }
        }
      }
      drain.name = "serve-log-drain"
      drain.start()
      guard waitUntilReady else { return }
      // Up to 120 s: a debug build compiling the global list while other suites run takes
      // tens of seconds on two cores (the compiled-list cache is cold at a test run's start).
      for _ in 0..<2400 {
        if (try? await get("/readyz").status) == 200 { return }
        try await Task.sleep(for: .milliseconds(50))
      }
      throw ServeTestError("the server did not become ready")
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    func get(_ path: String, headers: [(String, String)] = []) async throws -> (status: Int, body: String) {
      try await send(path, method: .GET, body: nil, headers: headers)
    }

    func post(_ path: String, _ body: String, headers: [(String, String)] = []) async throws -> (
      status: Int, body: String
    ) {
      try await send(path, method: .POST, body: body, headers: headers)
    }

    func send(_ path: String, method: HTTPMethod, body: String?, headers: [(String, String)]) async throws
      -> (status: Int, body: String)
    {
      var request = HTTPClientRequest(url: url(path))
      request.method = method
      for (name, value) in headers { request.headers.add(name: name, value: value) }
      if let body { request.body = .bytes(ByteBuffer(string: body)) }
      let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
      let answer = try await response.body.collect(upTo: 64 << 20)
      return (Int(response.status.code), String(buffer: answer))
    }

    /// A sensitive-word API call signed with `secret`.
    func wordAPI(
      _ path: String, _ body: String, app: String = "app1", secret: String = "s3cret", json: Bool = false,
      nonce: String = String(UInt64.random(in: 0...UInt64.max)),
      timestamp: String = String(Int(Date().timeIntervalSince1970))
    ) async throws -> (status: Int, body: String) {
      return try await post(
        "/sensitiveword/\(path).json", body,
        headers: [
          ("App-Key", app), ("Nonce", nonce), ("Timestamp", timestamp),
          ("Signature", PlatformSignature.signature(secret: secret, nonce: nonce, timestamp: timestamp)),
          ("Content-Type", json ? "application/json" : "application/x-www-form-urlencoded"),
        ])
    }

    /// A message callback of `content` (and push text and options) signed with `secret`.
    /// `rawContent` is the form's `content` as it is (by default `content` in a text
    /// message's JSON).
    func callback(
      _ content: String, push: String = "", pushExt: String = "", app: String = "app1", secret: String = "s3cret",
      timestamp: String = String(Int(Date().timeIntervalSince1970 * 1000)),
      nonce: String = "n\(UInt64.random(in: 0...UInt64.max))", msgType: String = "RC:TxtMsg",
      rawContent: String? = nil
    ) async throws -> (status: Int, body: String) {
      let contentJSON =
        rawContent ?? JSONValue.object([JSONMember(key: "content", value: .string(content))]).jsonString
      let fields = [
        ("appKey", app), ("fromUserId", "u1"), ("targetId", "u2"), ("toUserIds", "u2"), ("msgType", msgType),
        ("content", contentJSON), ("pushContent", push), ("pushExt", pushExt), ("channelType", "PERSON"),
        ("msgTimeStamp", "1700000000000"), ("messageId", "M1"),
      ]
      var allowed = CharacterSet.alphanumerics
      allowed.insert(charactersIn: "-._~")
      let body = fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }
        .joined(separator: "&")
      let signature = PlatformSignature.signature(secret: secret, nonce: nonce, timestamp: timestamp)
      return try await post(
        "/callback/message?nonce=\(nonce)&signTimestamp=\(timestamp)&signature=\(signature)", body,
        headers: [("Content-Type", "application/x-www-form-urlencoded")])
    }

    func moderate(_ text: String, app: String? = nil) async throws -> JSONValue {
      var members = [
        JSONMember(key: "content", value: .object([JSONMember(key: "content", value: .string(text))])),
        JSONMember(key: "msgUID", value: "m1"), JSONMember(key: "targetId", value: "t1"),
      ]
      if let app { members.append(JSONMember(key: "appKey", value: .string(app))) }
      let answer = try await post("/v1/moderate", JSONValue.object(members).jsonString)
      return try JSONValue(parsing: answer.body)
    }

    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// What the server has logged lately (its last 8 KiB).
    var log: String { logTail.bytes.withLock { String(decoding: $0, as: UTF8.self) } }

    /// Sends `SIGTERM` and waits for the server to exit; one that has not exited within a
    /// minute is killed, and the test fails with the end of its log (a server that cannot stop
    /// is a failure, not a test run that never ends).
    func stop() async {
      if await !stop(within: .seconds(60)) {
        Issue.record("the server did not exit within 60 s of SIGTERM; the end of its log:\n\(log)")
      }
    }

    /// Sends `SIGTERM` and waits up to `limit` for the server to exit: true if it did, false if
    /// it had to be killed. How it exited is then ``ending``.
    func stop(within limit: Duration) async -> Bool {
      if process.isRunning { signal(SIGTERM) }
      let process = self.process
      let outcome = await offThePool { process.waitForExit(orKillAfter: limit) }
      endings.withLock { $0 = (true, outcome) }
      return outcome != nil
    }

    /// How the server exited, once ``stop(within:)`` saw it exit (nil before, or if it was
    /// killed). Foundation's `terminationStatus` cannot be read once the child was reaped
    /// without it (see `Process.waitForExit(grace:)`).
    var ending: ChildExit? { endings.withLock { $0.ending } }
    private let endings = Mutex<(stopped: Bool, ending: ChildExit?)>((false, nil))

    /// A server no test stopped is killed. One that was stopped is not signalled again: once
    /// reaped, its process id may be another process's.
    deinit { if !endings.withLock({ $0.stopped }) && process.isRunning { kill(process.processIdentifier, SIGKILL) } }
  }

  /// Counts shared by the tasks of a load.
  final class Tally: Sendable {
    let failures = Mutex(0)
    let answered = Mutex(0)
  }

  struct ServeTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
  }

  static func json(_ text: String) -> JSONValue { (try? JSONValue(parsing: text)) ?? .null }

  /// The elements of a JSON array, or nil for anything else.
  static func array(_ value: JSONValue?) -> [JSONValue]? {
    guard case .array(let elements)? = value else { return nil }
    return elements
  }

  // MARK: - Endpoints

  @Test(arguments: ["--idle-timeout", "--body-timeout", "--store-timeout"])
  func timeoutsOutOfRangeAreRefused(option: String) async throws {
    for value in ["0", "-1", "nan", "86401"] {
      let result = try await CLITests.run(["serve", "--port", "0", "\(option)=\(value)"])
      #expect(result.status == 64, "\(option) \(value): \(result.stderr)")
      #expect(result.stderr.contains("\(option) must be more than 0 and at most 86400 seconds"), "\(result.stderr)")
    }
  }

  @Test func healthReadinessStatusAndMetrics() async throws {
    let server = try await Server()
    #expect(try await server.get("/healthz") == (200, "ok\n"))
    #expect(try await server.get("/readyz").status == 200)
    let status = Self.json(try await server.get("/v1/status").body)
    #expect(status["state"] == "ready" && status["apps"]?.int64Value == 1)
    #expect((status["globalEntries"]?.int64Value ?? 0) > 10_000)
    _ = try await server.moderate("hello")
    let metrics = try await server.get("/metrics").body
    #expect(metrics.contains(#"winnow_requests_total{endpoint="moderate",status="200"} 1"#))
    #expect(metrics.contains("winnow_request_duration_seconds_bucket"))
    #expect(metrics.contains(#"winnow_verdicts_total{verdict="pass""#))
    #expect(try await server.get("/no/such/path").status == 404)
    await server.stop()
    #expect(server.ending == .exited(0))
  }

  @Test func moderateAnswersAsCheckItemDoes() async throws {
    let server = try await Server()
    let blocked = try await server.moderate("you fucking idiot")
    #expect(blocked["verdict"] == "blocked" && blocked["blockType"]?.int64Value == 1)
    #expect(blocked["record"]?["blockedMsgUId"] == "m1")
    let custom = try await server.moderate("秒杀 today", app: "app1")
    #expect(custom["verdict"] == "replaced")
    #expect(try await server.moderate("秒杀 today")["verdict"] == "pass")
    let bad = try await server.post("/v1/moderate", "{not json")
    #expect(bad.status == 400 && Self.json(bad.body)["verdict"] == "error")
    // NDJSON: one answer per item line, in order; a bad line gets an error naming it.
    let batch = try await server.post(
      "/v1/moderate",
      #"{"content":{"content":"hello"},"msgUID":"a","targetId":"t"}"# + "\n{bad\n\n"
        + #"{"content":{"content":"fucking"},"msgUID":"c","targetId":"t"}"# + "\n",
      headers: [("Content-Type", "application/x-ndjson")])
    // A blank line is an error, as in `winnow scan`: every line sent is answered.
    let lines = batch.body.split(separator: "\n").map { Self.json(String($0)) }
    #expect(batch.status == 200 && lines.count == 4)
    #expect(lines.first?["verdict"] == "pass" && lines.last?["verdict"] == "blocked")
    #expect(lines.count == 4 && lines[1]["verdict"] == "error" && lines[1]["line"]?.int64Value == 2)
    #expect(
      lines.count == 4 && lines[2]["line"]?.int64Value == 3
        && lines[2]["error"] == #"field "line" must be a JSON object (the line is empty)"#, "\(lines)")
    await server.stop()
  }

  @Test func oversizedBodiesAreRefused() async throws {
    let server = try await Server(arguments: ["--max-body", "2048"])
    let large = try await server.post("/v1/moderate", String(repeating: "a", count: 5000))
    #expect(large.status == 413 && Self.json(large.body)["error"] != nil)
    #expect(try await server.get("/healthz").status == 200)
    await server.stop()
  }

  /// Hostile bodies on every POST endpoint (random bytes, truncated and deeply nested JSON,
  /// broken percent escapes, invalid UTF-8) get a 4xx answer, never a crash or a 5xx.
  @Test func hostileBodiesGetClientErrors() async throws {
    let server = try await Server()
    var generator = SeededGenerator(state: 36)
    var bodies = [
      "", "{", "[", String(repeating: "[", count: 600), #"{"content":"#, "%", "a=%zz", "content=%E4%B8",
      "appKey=app1&content=%FF%FE", #"{"words":"x"}"#, #"{"words":[{"word":7}]}"#, "\u{0}",
    ]
    for _ in 0..<60 {
      let count = Int.random(in: 0..<200, using: &generator)
      bodies.append(
        String(decoding: (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }, as: UTF8.self))
    }
    let timestamp = String(Int(Date().timeIntervalSince1970 * 1000))
    for body in bodies {
      for contentType in ["application/json", "application/x-ndjson", "application/x-www-form-urlencoded"] {
        let moderated = try await server.post("/v1/moderate", body, headers: [("Content-Type", contentType)])
        #expect(moderated.status == 400 || (contentType == "application/x-ndjson" && moderated.status == 200))
        // A signature is accepted once: each call has its own nonce.
        let nonce = "n\(UInt64.random(in: 0...UInt64.max))"
        let signature = PlatformSignature.signature(secret: "s3cret", nonce: nonce, timestamp: timestamp)
        let callback = "/callback/message?nonce=\(nonce)&signTimestamp=\(timestamp)&signature=\(signature)"
        // Signed, so that the body is read: appKey=app1 first, then the hostile fields.
        let called = try await server.post(
          callback, "appKey=app1&" + body, headers: [("Content-Type", contentType)])
        // Not a form: 400. A signed form whose message cannot be read: blocked, since the
        // platform would deliver on an error answer.
        #expect(
          called.status == 400 || (called.status == 200 && Self.json(called.body)["pass"]?.int64Value == 0),
          "callback \(body.debugDescription): \(called)")
      }
      for path in ["add", "batch/add", "list", "delete", "batch/delete"] {
        let edited = try await server.wordAPI(path, body, json: path == "batch/add")
        #expect([200, 400].contains(edited.status), "\(path) \(body.debugDescription): \(edited)")
      }
    }
    #expect(try await server.get("/healthz").status == 200)
    await server.stop()
    #expect(server.ending == .exited(0))
  }

  // MARK: - The message callback

  @Test func callbackChecksSignaturesAndAnswersPass() async throws {
    let server = try await Server()
    #expect(try await server.callback("hello") == (200, "{\"pass\":1}\n"))
    let blocked = Self.json(try await server.callback("you fucking idiot").body)
    #expect(blocked["pass"]?.int64Value == 0 && blocked["extra"] == "profanity")
    let replaced = Self.json(try await server.callback("秒杀 now").body)
    #expect(replaced["pass"]?.int64Value == 1 && replaced["replaceContent"] == #"{"content":"** now"}"#)
    let push = Self.json(try await server.callback("hello", push: "fucking").body)
    #expect(push["pass"]?.int64Value == 0)
    // The answer cannot carry a rewritten push text: a replace word there blocks.
    let pushReplaced = Self.json(try await server.callback("hello", push: "秒杀 now").body)
    #expect(pushReplaced["pass"]?.int64Value == 0 && pushReplaced["extra"] == "blocked")
    // The push title (`title` of `pushExt`) likewise.
    let titleReplaced = Self.json(try await server.callback("hello", pushExt: #"{"title":"秒杀 now"}"#).body)
    #expect(titleReplaced["pass"]?.int64Value == 0 && titleReplaced["extra"] == "blocked")
    #expect(try await server.callback("hello", pushExt: #"{"title":"new message"}"#) == (200, "{\"pass\":1}\n"))
    #expect(try await server.callback("hello", secret: "wrong").status == 401)
    #expect(try await server.callback("hello", app: "nobody").status == 401)
    let stale = String(Int(Date().timeIntervalSince1970 * 1000) - 3_600_000)
    #expect(try await server.callback("hello", timestamp: stale).status == 401)
    let unsigned = try await server.post("/callback/message", "appKey=app1&content=%7B%7D")
    #expect(unsigned.status == 401 && Self.json(unsigned.body)["error"] == "nonce is missing")
    await server.stop()
  }

  /// A signed callback is never answered with an error, which the platform would take as a
  /// pass: a custom type's plain-text content is moderated as text, and a message that cannot
  /// be read is answered by `--callback-on-error` (block by default).
  @Test func aSignedCallbackIsNeverAPassInDisguise() async throws {
    let server = try await Server()
    let custom = try await server.callback("", msgType: "App:Note", rawContent: "you fucking idiot")
    #expect(custom.status == 200 && Self.json(custom.body)["pass"]?.int64Value == 0, "\(custom)")
    let replaced = try await server.callback("", msgType: "App:Note", rawContent: "秒杀 now")
    #expect(Self.json(replaced.body) == ["pass": 1, "replaceContent": "** now"], "\(replaced)")
    let clean = try await server.callback("", msgType: "App:Note", rawContent: "see you at noon")
    #expect(clean == (200, "{\"pass\":1}\n"))
    let malformed = try await server.callback("", rawContent: "{\"content\":")
    #expect(malformed == (200, "{\"pass\":0,\"extra\":\"unreadable\"}\n"), "\(malformed)")
    let tooLarge = try await server.callback(String(repeating: "a", count: 140_000))
    #expect(Self.json(tooLarge.body)["pass"]?.int64Value == 0, "\(tooLarge.status)")
    #expect(try await server.get("/metrics").body.contains("winnow_callbacks_unreadable_total 2"))
    await server.stop()
    let passing = try await Server(arguments: ["--callback-on-error", "pass"])
    #expect(try await passing.callback("", rawContent: "{\"content\":") == (200, "{\"pass\":1}\n"))
    await passing.stop()
  }

  /// A regex stopped by its budget is never a silent pass: the result says so, the default
  /// flags it, `/metrics` counts it, `--on-incomplete block` blocks it, and `winnow check`
  /// does not say "no match" nor exit 0.
  @Test func aStoppedRegexIsNeverASilentPass() async throws {
    let regex = #"re:\w*\w*\w*\w*\w*z"#
    let text = String(repeating: "abcdefghij", count: 30) + " .z"
    let server = try await Server(apps: ["app1": regex + "\n"])
    let result = try await server.moderate(text, app: "app1")
    #expect(result["verdict"] == "pass" && result["flagged"] == true && result["incomplete"] == true, "\(result)")
    #expect(try await server.get("/metrics").body.contains("winnow_incomplete_checks_total 1"))
    await server.stop()
    let blocking = try await Server(apps: ["app1": regex + "\n"], arguments: ["--on-incomplete", "block"])
    let blocked = try await blocking.callback(text)
    #expect(blocked == (200, "{\"pass\":0,\"extra\":\"incomplete check\"}\n"), "\(blocked)")
    await blocking.stop()
    let list = try CLITests.temporaryFile("stops.txt", regex + "\n")
    let check = try await CLITests.run(["check", "--no-global", "--custom", list, text])
    #expect(check.status == 1 && check.stdout.contains("no match found, but the check is incomplete"), "\(check)")
    let lint = try await CLITests.run(["words", "lint", list])
    #expect(lint.status == 1 && lint.stdout.contains("regex backtracks catastrophically"), "\(lint)")
  }

  /// Within the window a signature is accepted once, at whichever endpoint it comes to first:
  /// neither a repeated callback nor a callback URL's signature sent to the word API passes.
  @Test func aSignatureIsAcceptedOnce() async throws {
    let server = try await Server()
    let milliseconds = String(Int(Date().timeIntervalSince1970 * 1000))
    let nonce = "once\(UInt64.random(in: 0...UInt64.max))"
    #expect(try await server.callback("hello", timestamp: milliseconds, nonce: nonce) == (200, "{\"pass\":1}\n"))
    let repeated = try await server.callback("hello", timestamp: milliseconds, nonce: nonce)
    #expect(repeated.status == 401 && repeated.body.contains("used already"), "\(repeated)")
    // The callback's query signature, taken from a proxy's log, as the word API's headers.
    let crossed = try await server.wordAPI("add", "word=replayed", nonce: nonce, timestamp: milliseconds)
    #expect(crossed.status == 401 && Self.json(crossed.body)["code"]?.int64Value == 1004, "\(crossed)")
    let listed = try await server.wordAPI("list", "type=2")
    #expect(listed.status == 200 && !listed.body.contains("replayed"), "\(listed)")
    // A word edit's signature, sent twice.
    let seconds = String(Int(Date().timeIntervalSince1970))
    let edit = "edit\(UInt64.random(in: 0...UInt64.max))"
    #expect(try await server.wordAPI("add", "word=onceword", nonce: edit, timestamp: seconds).status == 200)
    let again = try await server.wordAPI("delete", "word=onceword", nonce: edit, timestamp: seconds)
    #expect(again.status == 401 && Self.json(again.body)["code"]?.int64Value == 1004, "\(again)")
    #expect(try await server.wordAPI("list", "type=2").body.contains("onceword"))
    // Another nonce with the same timestamp is another signature.
    #expect(try await server.callback("hello", timestamp: milliseconds).status == 200)
    await server.stop()
  }

  /// Winnow's own reviewer, signing as the platform does, against this server.
  @Test func webhookReviewerSignsItsCallbacks() async throws {
    let server = try await Server()
    for (secret, expected) in [("s3cret", BlockType.thirdParty), ("wrong", nil)] {
      var configuration = ModerationEngine.Configuration()
      configuration.reviewer = WebhookReviewer(
        url: server.url("/callback/message"), mode: .messageCallback(appKey: "app1"), signingSecret: secret)
      configuration.reviewPolicy = ReviewPolicy(timeout: .seconds(20), onFailure: .failOpen)
      let engine = try ModerationEngine(global: [], configuration: configuration)
      let result = try await engine.moderate(MessageItem.text("you fucking idiot", msgUID: "m", targetId: "t"))
      #expect(result.blockType == expected)
      if expected == nil { #expect(result.review?.failure?.contains("401") == true) }
    }
    await server.stop()
  }

  // MARK: - The sensitive-word API

  @Test func sensitiveWordAPIEditsTakeEffectAtOnce() async throws {
    let server = try await Server()
    #expect(try await server.moderate("a freshword here", app: "app1")["verdict"] == "pass")
    #expect(try await server.wordAPI("add", "word=freshword") == (200, "{\"code\":200}\n"))
    #expect(try await server.moderate("a freshword here", app: "app1")["verdict"] == "blocked")
    #expect(try await server.wordAPI("add", "word=swapword&replaceWord=%23%23").status == 200)
    let batch = #"{"words":[{"word":"甲乙"},{"word":"丙丁","replaceWord":"xx"}]}"#
    #expect(try await server.wordAPI("batch/add", batch, json: true).status == 200)
    let replaceWords = Self.json(try await server.wordAPI("list", "type=0").body)
    #expect(replaceWords["code"]?.int64Value == 200)
    if case .array(let words)? = replaceWords["words"] {
      #expect(words.compactMap { $0["word"]?.stringValue } == ["秒杀", "swapword", "丙丁"])
      #expect(words.allSatisfy { $0["type"] == "0" })
    } else {
      Issue.record("no words in \(replaceWords)")
    }
    let blockWords = Self.json(try await server.wordAPI("list", "").body)
    #expect(Self.array(blockWords["words"])?.compactMap { $0["word"]?.stringValue } == ["appword", "freshword", "甲乙"])
    #expect(try await server.wordAPI("delete", "word=freshword").status == 200)
    #expect(try await server.moderate("a freshword here", app: "app1")["verdict"] == "pass")
    #expect(try await server.wordAPI("batch/delete", "words=%E7%94%B2%E4%B9%99&words=swapword").status == 200)
    let all = Self.json(try await server.wordAPI("list", "type=2").body)
    #expect(Self.array(all["words"])?.count == 3, "\(all)")
    // The platform's error codes.
    let badWord = try await server.wordAPI("add", "word=two%20words")
    #expect(badWord.status == 400 && Self.json(badWord.body)["code"]?.int64Value == 1002)
    #expect(Self.json(try await server.wordAPI("add", "replaceWord=x").body)["code"]?.int64Value == 1002)
    let tooMany = "{\"words\":[" + (0..<51).map { "{\"word\":\"w\($0)\"}" }.joined(separator: ",") + "]}"
    #expect(Self.json(try await server.wordAPI("batch/add", tooMany, json: true).body)["code"]?.int64Value == 1002)
    #expect(Self.json(try await server.wordAPI("list", "type=7").body)["code"]?.int64Value == 1002)
    let badSignature = try await server.wordAPI("add", "word=x", secret: "wrong")
    #expect(badSignature.status == 401 && Self.json(badSignature.body)["code"]?.int64Value == 1004)
    #expect(Self.json(try await server.wordAPI("add", "word=x", app: "nobody").body)["code"]?.int64Value == 1004)
    let file = try String(contentsOfFile: "\(server.apps)/app1.txt", encoding: .utf8)
    #expect(file == "秒杀 => **\nappword\n丙丁 => xx\n")
    await server.stop()
  }

  /// What the platform's server SDKs send and expect: the Python SDK's `word=['秒杀']` removes
  /// the word, block words are listed with `"replaceWord":""`, an edit that does nothing is an
  /// error, and no error shows where the server keeps its files.
  @Test func theSDKsFormsWorkAndNoEditIsAnEmptySuccess() async throws {
    let server = try await Server(apps: ["app1": "秒杀 => **\nappword\n代购\n"])
    let listed = Self.json(try await server.wordAPI("list", "type=2").body)
    #expect(
      listed["words"]
        == [
          ["type": "0", "word": "秒杀", "replaceWord": "**"], ["type": "1", "word": "appword", "replaceWord": ""],
          ["type": "1", "word": "代购", "replaceWord": ""],
        ], "\(listed)")
    // `word=['秒杀']`, form-encoded, as the Python SDK sends a list.
    let python = try await server.wordAPI("delete", "word=%5B%27%E7%A7%92%E6%9D%80%27%5D")
    #expect(python.status == 200, "\(python)")
    let batch = try await server.wordAPI("batch/delete", "words=%5B%27appword%27%2C%20%27%E4%BB%A3%E8%B4%AD%27%5D")
    #expect(batch.status == 200, "\(batch)")
    #expect(try String(contentsOfFile: "\(server.apps)/app1.txt", encoding: .utf8) == "")
    let nothing = try await server.wordAPI("delete", "word=absentword")
    #expect(nothing.status == 400 && Self.json(nothing.body)["code"]?.int64Value == 1002, "\(nothing)")
    #expect(nothing.body.contains("absentword"))
    // A list file someone broke: the error names the file, not the server's directory.
    try "re:(\n".write(toFile: "\(server.apps)/app1.txt", atomically: true, encoding: .utf8)
    let broken = try await server.wordAPI("add", "word=newword")
    #expect(broken.status == 400 && broken.body.contains("app1.txt:1"), "\(broken)")
    #expect(!broken.body.contains(server.apps), "\(broken)")
    await server.stop()
  }

  /// Two servers on one apps directory, and `winnow words add` beside them: every
  /// acknowledged word is in the file, and each server enforces the others' words within a
  /// second, without a signal.
  @Test func serversAndTheCLIOnOneDirectoryLoseNoWord() async throws {
    let first = try await Server(apps: ["app1": "appword\n"])
    let second = try await Server(directory: first.apps)
    let list = "\(first.apps)/app1.txt"
    let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
      for index in 0..<40 {
        group.addTask {
          if index % 4 == 3 {
            return try await CLITests.run(["words", "add", list, "cliword\(index)"]).status == 0 ? 200 : 500
          }
          return try await (index % 2 == 0 ? first : second).wordAPI("add", "word=apiword\(index)").status
        }
      }
      return try await group.reduce(into: [Int]()) { $0.append($1) }
    }
    #expect(statuses.allSatisfy { $0 == 200 }, "\(statuses)")
    let words = (0..<40).map { $0 % 4 == 3 ? "cliword\($0)" : "apiword\($0)" }
    let file = Set(try String(contentsOfFile: list, encoding: .utf8).split(separator: "\n").map(String.init))
    #expect(file == Set(words + ["appword"]), "\(Set(words).subtracting(file).sorted()) lost")
    try await Task.sleep(for: .milliseconds(1500))
    for server in [first, second] {
      var unenforced: [String] = []
      for word in words where try await server.moderate("a \(word) here", app: "app1")["verdict"] != "blocked" {
        unenforced.append(word)
      }
      #expect(unenforced.isEmpty, "\(unenforced) not enforced")
    }
    await first.stop()
    await second.stop()
  }

  /// An acknowledged word survives `kill -9` of the server.
  @Test func anAcknowledgedWordSurvivesKill9() async throws {
    let server = try await Server()
    #expect(try await server.wordAPI("add", "word=durableword").status == 200)
    server.signal(SIGKILL)
    await server.stop()
    let again = try await Server(directory: server.apps)
    #expect(try await again.moderate("durableword", app: "app1")["verdict"] == "blocked")
    await again.stop()
  }

  // MARK: - Reloads

  @Test func reloadsDuringRequestsFailNoRequest() async throws {
    let token = try CLITests.temporaryFile("token", "t0ken\n")
    chmod(token, 0o600)
    // Only the reloads asked for: the watcher's own look (every 0.5 s by default) would count a
    // second failed reload of the bad list below whenever it came first.
    let server = try await Server(arguments: ["--admin-token-file", token, "--watch-interval", "0"])
    #expect(try await server.post("/admin/reload", "").status == 401)
    let auth = [("Authorization", "Bearer t0ken")]
    let tally = Tally()
    try await withThrowingTaskGroup(of: Void.self) { group in
      for worker in 0..<4 {
        group.addTask {
          for index in 0..<60 {
            let text = index.isMultiple(of: 2) ? "hello \(worker)" : "fucking \(worker)"
            let answer = try? await server.moderate(text, app: "app1")
            let expected = index.isMultiple(of: 2) ? "pass" : "blocked"
            if answer?["verdict"]?.stringValue != expected { tally.failures.withLock { $0 += 1 } }
            tally.answered.withLock { $0 += 1 }
          }
        }
      }
      group.addTask {
        for round in 0..<20 {
          try "appword\nround\(round)\n".write(toFile: "\(server.apps)/app1.txt", atomically: true, encoding: .utf8)
          if round.isMultiple(of: 2) {
            server.signal(SIGHUP)
          } else {
            _ = try await server.post("/admin/reload", "", headers: auth)
          }
          try await Task.sleep(for: .milliseconds(30))
        }
      }
      try await group.waitForAll()
    }
    #expect(tally.failures.withLock { $0 } == 0)
    #expect(tally.answered.withLock { $0 } == 240)
    // A reload whose list does not compile keeps the old lists and says why.
    _ = try await server.post("/admin/reload", "", headers: auth)
    #expect(try await server.moderate("round19", app: "app1")["verdict"] == "blocked")
    try "re:(\n".write(toFile: "\(server.apps)/app1.txt", atomically: true, encoding: .utf8)
    let failed = try await server.post("/admin/reload", "", headers: auth)
    #expect(failed.status == 422)
    if case .array(let errors)? = Self.json(failed.body)["errors"] {
      #expect(errors.first?.stringValue?.contains("app1.txt:1: invalid regex") == true)
    } else {
      Issue.record("no errors in \(failed.body)")
    }
    #expect(try await server.moderate("round19", app: "app1")["verdict"] == "blocked")
    let status = Self.json(try await server.get("/v1/status", headers: auth).body)
    #expect(status["lastReload"]?["succeeded"] == .bool(false))
    #expect(try await server.get("/v1/status").status == 401)
    #expect(try await server.get("/metrics").body.contains(#"winnow_reloads_total{result="failed"} 1"#))
    await server.stop()
  }

  @Test func aListThatDoesNotCompileStopsTheServer() async throws {
    let result = try await CLITests.run(["serve", "--port", "0", "--global", try Self.badGlobal()])
    #expect(result.status == 2)
    #expect(result.stderr.contains("global.txt:1: invalid regex"))
  }

  /// Secrets behind a symbolic link, or in a directory others can write, stop the server
  /// with the cause, as `ssh` refuses such a key.
  @Test func untrustedSecretsStopTheServer() async throws {
    let linked = CLITests.temporaryPath("linked-secrets").path
    try FileManager.default.createDirectory(atPath: linked, withIntermediateDirectories: true)
    let real = CLITests.temporaryPath("real-secrets.json").path
    try #"{"app1":"s3cret"}"#.write(toFile: real, atomically: false, encoding: .utf8)
    chmod(real, 0o600)
    #expect(symlink(real, linked + "/secrets.json") == 0)
    let refused = try await CLITests.run(["serve", "--port", "0", "--apps", linked])
    #expect(refused.status != 0 && refused.stderr.contains("secrets.json: is a symbolic link"), "\(refused.stderr)")
    let open = CLITests.temporaryPath("open-apps").path
    try FileManager.default.createDirectory(atPath: open, withIntermediateDirectories: true)
    try #"{"app1":"s3cret"}"#.write(toFile: open + "/secrets.json", atomically: false, encoding: .utf8)
    chmod(open + "/secrets.json", 0o600)
    chmod(open, 0o777)
    let writable = try await CLITests.run(["serve", "--port", "0", "--apps", open])
    #expect(writable.status != 0 && writable.stderr.contains("writable by group or others"), "\(writable.stderr)")
  }

  /// A SIGHUP while the server starts never ends it, and no shutdown leaves NIO work for
  /// loops already shut down (run with NIO's strict mode, in which that is a crash).
  @Test func startingAndStoppingSurviveSignals() async throws {
    let apps = CLITests.temporaryPath("signal-apps").path
    try FileManager.default.createDirectory(atPath: apps, withIntermediateDirectories: true)
    var problems: [String] = []
    for round in 0..<12 {
      let process = Process()
      process.executableURL = CLITests.executable
      process.arguments = ["serve", "--port", "0", "--apps", apps]
      process.environment = ProcessInfo.processInfo.environment.merging([
        "WINNOW_CACHE_DIR": CLITests.cacheDirectory.path, "SWIFTNIO_STRICT": "1",
      ]) { $1 }
      let errors = Pipe()
      process.standardError = errors
      process.standardOutput = FileHandle.nullDevice
      try process.run()
      // Past the loading of the binary (a signal before the program's first code takes the
      // default action whatever it does), within its start. A debug binary, loaded by a busy
      // test run, takes longer to reach its first code.
      let loading = ReliabilityTests.isReleaseBinary ? 15 : 150
      try await Task.sleep(for: .milliseconds(loading + 10 * (round % 4)))
      kill(process.processIdentifier, SIGHUP)
      try await Task.sleep(for: .milliseconds(300))
      guard process.isRunning else {
        problems.append("round \(round): ended by SIGHUP (\(process.waitForExit()))")
        continue
      }
      // Stopped once it has started (a SIGTERM before the server traps it is a plain kill):
      // the graceful shutdown is what must not hand work to stopped loops.
      let handle = errors.fileHandleForReading
      let started = await offThePool { () -> String in
        var text = ""
        while !text.contains("lists loaded") {
          let data = handle.availableData
          if data.isEmpty { break }
          text += String(decoding: data, as: UTF8.self)
        }
        return text
      }
      kill(process.processIdentifier, SIGTERM)
      let output = await offThePool { handle.readDataToEndOfFile() }
      let ending = await process.ended()
      let log = started + String(decoding: output, as: UTF8.self)
      if ending != .exited(0) || log.contains("Cannot schedule") {
        problems.append("round \(round): \(ending) \(log.suffix(300))")
      }
    }
    #expect(problems.isEmpty, "\(problems)")
  }

  /// A connection to the server's port made by hand, for what an HTTP client will not do:
  /// stay idle, or stop in the middle of a body. Reads wait at most `timeout`.
  static func rawConnection(port: Int, timeout: Int = 10) -> Int32? {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { return nil }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var wait = timeval(tv_sec: timeout, tv_usec: 0)
    setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else {
      close(descriptor)
      return nil
    }
    return descriptor
  }

  /// What the server sends on `descriptor` until it closes it (or the read times out).
  static func readAll(_ descriptor: Int32) -> (text: String, closed: Bool) {
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count == 0 { return (String(decoding: bytes, as: UTF8.self), true) }
      if count < 0 { return (String(decoding: bytes, as: UTF8.self), false) }
      bytes += buffer[..<count]
    }
  }

  /// Idle connections are closed, a body that stalls gets 408, the connection count is capped
  /// so health checks get through, and NDJSON requests are bounded in lines and answer size.
  @Test func connectionsAndBatchesAreBounded() async throws {
    let server = try await Server(arguments: [
      "--idle-timeout", "2", "--body-timeout", "1", "--max-connections", "20", "--max-lines", "50",
      "--max-answer", "4096",
    ])
    let port = server.port
    // More idle connections than the cap: the server closes them after the idle timeout, and
    // a health check made meanwhile is answered once one is closed.
    let idle = (0..<30).compactMap { _ in Self.rawConnection(port: port) }
    #expect(idle.count == 30)
    let started = ContinuousClock.now
    #expect(try await server.get("/healthz").status == 200)
    #expect(ContinuousClock.now - started < .seconds(10))
    let closed = await offThePool { idle.map { Self.readAll($0).closed } }
    #expect(closed.allSatisfy { $0 }, "\(closed.filter { !$0 }.count) idle connections left open")
    for descriptor in idle { close(descriptor) }
    // A body promised and not sent: 408 at the body timeout (a connection silent for the
    // idle timeout is closed without an answer, as the idle ones above were).
    if let stalled = Self.rawConnection(port: port) {
      let head =
        "POST /v1/moderate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"a\":"
      _ = head.withCString { write(stalled, $0, strlen($0)) }
      let answer = await offThePool { Self.readAll(stalled) }
      close(stalled)
      #expect(answer.text.hasPrefix("HTTP/1.1 408"), "\(answer.text.prefix(200))")
    } else {
      Issue.record("no connection")
    }
    // NDJSON: too many lines, or answers too long, get 413 naming the limit.
    let line = #"{"content":{"content":"hello"},"msgUID":"a","targetId":"t"}"#
    let headers = [("Content-Type", "application/x-ndjson")]
    let many = try await server.post(
      "/v1/moderate", Array(repeating: line, count: 51).joined(separator: "\n"), headers: headers)
    #expect(many.status == 413 && many.body.contains("at most 50"), "\(many)")
    let blocked = #"{"content":{"content":"you fucking idiot"},"msgUID":"a","targetId":"t"}"#
    let long = try await server.post(
      "/v1/moderate", Array(repeating: blocked, count: 40).joined(separator: "\n"), headers: headers)
    #expect(long.status == 413 && long.body.contains("4096 bytes"), "\(long.status) \(long.body.prefix(200))")
    let fine = try await server.post(
      "/v1/moderate", Array(repeating: line, count: 50).joined(separator: "\n"), headers: headers)
    #expect(fine.status == 200 && fine.body.split(separator: "\n").count == 50)
    await server.stop()
  }

  static func badGlobal() throws -> String {
    let directory = CLITests.temporaryPath("bad-global")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try "re:(\n".write(to: directory.appendingPathComponent("global.txt"), atomically: true, encoding: .utf8)
    return directory.path
  }
}
