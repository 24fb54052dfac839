import Foundation
import Synchronization
import Testing
@_spi(Tools) import Winnow
import WinnowTestSupport

/// Offenders from the command line and the server: `scan --offenders`, `winnow offenders`, and
/// `serve --enforce` against a stand-in platform that checks every signature (the release
/// binary too, in `scripts/test`).
@Suite("Offenders", .serialized)
struct OffenderCLITests {
  static let policy =
    #"{"rules":[{"name":"chatroom-mute","blocked":3,"within":"10m","per":"chatroom","action":"chatroom-mute","minutes":10}]}"#

  /// An item of `user` of `app` in chatroom `room`, `seconds` after a fixed time.
  static func item(
    _ uid: String, _ user: String, _ text: String, app: String = "app1", room: String = "r1", seconds: Int
  )
    -> String
  {
    JSONValue.object([
      JSONMember(key: "msgUID", value: .string(uid)), JSONMember(key: "fromUserId", value: .string(user)),
      JSONMember(key: "targetId", value: .string(room)), JSONMember(key: "conversationType", value: 4),
      JSONMember(key: "appKey", value: .string(app)),
      JSONMember(key: "content", value: .object([JSONMember(key: "content", value: .string(text))])),
      JSONMember(key: "sentTime", value: .number(String(1_700_000_000_000 + seconds * 1000))),
    ]).jsonString
  }

  /// Two blocked messages of u1, then a clean one, then the third blocked one; u2 and app2's
  /// u1 are blocked twice each: only app1's u1 reaches the threshold.
  static let dump =
    [
      item("m1", "u1", "你是傻逼", seconds: 0),
      item("m2", "u2", "傻逼", seconds: 1),
      item("m3", "u1", "fuck you", seconds: 2),
      item("m4", "u1", "hello", seconds: 3),
      item("m5", "u1", "fuck you", app: "app2", seconds: 4),
      item("m6", "u2", "傻逼", seconds: 5),
      item("m7", "u1", "fuck you", app: "app2", seconds: 6),
      item("m8", "u1", "傻逼", seconds: 7),
    ].joined(separator: "\n") + "\n"

  static func lines(_ text: String) -> [JSONValue] {
    text.split(separator: "\n").compactMap { try? JSONValue(parsing: String($0)) }
  }

  @Test func scanWritesOneLinePerSenderWithThePolicysAnswer() async throws {
    let input = try CLITests.temporaryFile("dump.jsonl", Self.dump)
    let policy = try CLITests.temporaryFile("policy.json", Self.policy)
    let output = CLITests.temporaryPath("offenders.jsonl").path
    let result = try await CLITests.run(["scan", "--offenders", output, "--policy", policy, input])
    #expect(result.status == 1)
    // Results name the sender.
    let results = Self.lines(result.stdout)
    #expect(results.first?["appKey"] == "app1" && results.first?["fromUserId"] == "u1")
    #expect(result.stderr.contains(#"worst senders (blocked/replaced/flagged): "app1/u1" 3/0/0"#))
    let offenders = Self.lines(try String(contentsOfFile: output, encoding: .utf8))
    #expect(
      offenders.map { "\($0["appKey"]?.stringValue ?? "")/\($0["fromUserId"]?.stringValue ?? "")" }
        == ["app1/u1", "app1/u2", "app2/u1"])
    let first = try #require(offenders.first)
    #expect(first["messages"]?.int64Value == 4)
    #expect(first["blocked"]?.int64Value == 3)
    #expect(first["firstSentTime"]?.int64Value == 1_700_000_000_000)
    #expect(first["lastSentTime"]?.int64Value == 1_700_000_007_000)
    #expect(first["recommend"]?["action"] == "chatroom-mute")
    #expect(first["recommend"]?["minutes"]?.int64Value == 10)
    #expect(first["recommend"]?["targetId"] == "r1")
    #expect(first["recommend"]?["messages"] == ["m1", "m3", "m8"])
    #expect(offenders[1]["recommend"]?["action"] == "none")
    #expect(offenders[2]["recommend"]?["action"] == "none")
  }

  @Test func checkItemNamesTheSender() async throws {
    let result = try await CLITests.run(
      ["check", "--json", "--item", "-"], stdin: Self.item("m1", "u1", "傻逼", seconds: 0))
    let answer = try JSONValue(parsing: result.stdout)
    #expect(answer["appKey"] == "app1" && answer["fromUserId"] == "u1" && answer["verdict"] == "blocked")
    // The record stays the platform's, with no sender in it.
    #expect(answer["record"]?["fromUserId"] == nil)
  }

  @Test func theOffendersOfPartsAddUpToTheWholeDump() async throws {
    let lines = Self.dump.split(separator: "\n")
    let whole = try CLITests.temporaryFile("whole.jsonl", Self.dump)
    let first = try CLITests.temporaryFile("a.jsonl", lines.prefix(4).joined(separator: "\n") + "\n")
    let second = try CLITests.temporaryFile("b.jsonl", lines.dropFirst(4).joined(separator: "\n") + "\n")
    let policy = try CLITests.temporaryFile("policy.json", Self.policy)
    var outputs: [String] = []
    for input in [whole, first, second] {
      let output = CLITests.temporaryPath("offenders.jsonl").path
      _ = try await CLITests.run(["scan", "--quiet", "--offenders", output, "--policy", policy, input])
      outputs.append(output)
    }
    // The second part's lines as `scan --offenders -` writes them, after its results.
    let wrapped = try await CLITests.run(["scan", "--quiet", "--offenders", "-", "--policy", policy, second])
    outputs[2] = try CLITests.temporaryFile(
      "wrapped.jsonl",
      wrapped.stdout.split(separator: "\n").filter { $0.hasPrefix(#"{"offender":"#) }.joined(separator: "\n"))
    let merged = CLITests.temporaryPath("merged.jsonl").path
    let result = try await CLITests.run(["offenders", "--policy", policy, "--json", merged, outputs[1], outputs[2]])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(try String(contentsOfFile: merged, encoding: .utf8) == String(contentsOfFile: outputs[0], encoding: .utf8))
    #expect(result.stdout.contains("app1\tu1\t4\t3\t0\t0\tchatroom-mute 10 min (chatroom-mute)"))
  }

  @Test func aBadPolicyIsAnErrorNamingItsLineAndField() async throws {
    let policy = try CLITests.temporaryFile(
      "policy.json",
      "{\"rules\":[\n  {\"name\":\"x\",\"blocked\":3,\n   \"within\":\"ten minutes\",\"action\":\"block\",\"minutes\":5}]}"
    )
    let input = try CLITests.temporaryFile("dump.jsonl", Self.dump)
    let output = CLITests.temporaryPath("offenders.jsonl").path
    let result = try await CLITests.run(["scan", "--offenders", output, "--policy", policy, input])
    #expect(result.status == 2)
    #expect(result.stderr.contains("policy.json:3: rules[0].within: a duration"))
    #expect(!FileManager.default.fileExists(atPath: output))
  }

  // MARK: - Serve

  /// The platform's server API, on loopback: checks each call's signature against app1's
  /// secret and answers `{"code":200}`, except that the first call gets a 500.
  final class StandInPlatform: Sendable {
    let server: TestHTTPServer
    let calls = Mutex(0)

    init() async throws {
      let calls = Mutex(0)
      server = try await TestHTTPServer { request in
        let count = calls.withLock {
          $0 += 1
          return $0
        }
        let headers = request.headers
        guard headers["app-key"] == "app1", let nonce = headers["nonce"], let timestamp = headers["timestamp"],
          let signature = headers["signature"],
          PlatformSignature.isValid(signature, secret: "s3cret", nonce: nonce, timestamp: timestamp)
        else { return .init(status: 401, body: #"{"code":1004,"errorMessage":"signature"}"#) }
        if count == 1 { return .init(status: 500, body: #"{"code":1000}"#) }
        return .init(body: #"{"code":200}"#)
      }
    }
  }

  @Test func aPlatformThatIsDownNeitherStopsEventsNorSlowsCallbacks() async throws {
    // A port nothing listens on: every call is refused.
    let refusing = try RefusingPort()
    let port = refusing.port
    let token = try CLITests.temporaryFile("token", "admin-token\n")
    chmod(token, 0o600)
    let policy = try CLITests.temporaryFile(
      "policy.json", #"{"rules":[{"name":"ban","blocked":1,"within":"1m","action":"chatroom-ban","minutes":5}]}"#)
    let events = CLITests.temporaryPath("events.jsonl").path
    let server = try await ServeTests.Server(arguments: [
      "--policy", policy, "--events", events, "--enforce", "--platform-url", "http://127.0.0.1:\(port)",
      "--enforce-attempts", "3", "--enforce-backoff", "0.05", "--admin-token-file", token,
    ])
    let clock = ContinuousClock()
    var slowest = Duration.zero
    for index in 0..<20 {
      let start = clock.now
      let answer = try await server.callback("傻逼 \(index)")
      slowest = max(slowest, clock.now - start)
      #expect(answer.body.contains(#""pass":0"#))
    }
    // Answered without waiting for the platform (each call's retries take 0.15 s or more).
    #expect(slowest < .seconds(1))
    var failed: [JSONValue] = []
    for _ in 0..<200 {
      let answer = ServeTests.json(
        try await server.get("/v1/offenders?app=app1", headers: [("Authorization", "Bearer admin-token")]).body)
      failed = (ServeTests.array(answer["events"]) ?? []).filter { $0["enforcement"]?["result"] == "failed" }
      if failed.count == 20 { break }
      try await Task.sleep(for: .milliseconds(50))
    }
    #expect(failed.count == 20)
    #expect(failed.allSatisfy { $0["enforcement"]?["attempts"]?.int64Value == 3 })
    let metrics = try await server.get("/metrics").body
    #expect(metrics.contains(#"winnow_enforcements_total{action="chatroom-ban",result="failed"} 20"#))
    await server.stop()
    let written = Self.lines(try String(contentsOfFile: events, encoding: .utf8))
    #expect(written.filter { $0["event"] == "offender" }.count == 20)
    #expect(written.filter { $0["event"] == "enforcement" }.count == 20)
    withExtendedLifetime(refusing) {}
  }

  @Test func serveMutesARepeatOffenderThroughThePlatformOnce() async throws {
    let platform = try await StandInPlatform()
    let token = try CLITests.temporaryFile("token", "admin-token\n")
    chmod(token, 0o600)
    let policy = try CLITests.temporaryFile("policy.json", Self.policy)
    let events = CLITests.temporaryPath("events.jsonl").path
    let server = try await ServeTests.Server(arguments: [
      "--policy", policy, "--events", events, "--enforce", "--platform-url", "http://127.0.0.1:\(platform.server.port)",
      "--admin-token-file", token,
    ])
    let admin = [("Authorization", "Bearer admin-token")]
    // Two blocked of u1, u2's and app2's do not add to them, then the third of u1.
    for line in Self.dump.split(separator: "\n").prefix(7) {
      let answer = try await server.post("/v1/moderate", String(line))
      #expect(answer.status == 200)
    }
    #expect(platform.server.requests.isEmpty)
    let beforeThird = ServeTests.json(try await server.get("/v1/offenders?app=app1", headers: admin).body)
    #expect(ServeTests.array(beforeThird["events"])?.isEmpty == true)
    let third = try await server.post("/v1/moderate", Self.item("m8", "u1", "傻逼", seconds: 7))
    #expect(ServeTests.json(third.body)["verdict"] == "blocked")
    #expect(ServeTests.json(third.body)["appKey"] == "app1" && ServeTests.json(third.body)["fromUserId"] == "u1")
    // The call is made off the request's path, retried after the 500.
    var enforcement: JSONValue?
    for _ in 0..<200 {
      let answer = ServeTests.json(try await server.get("/v1/offenders?app=app1", headers: admin).body)
      if let event = ServeTests.array(answer["events"])?.first, event["enforcement"]?["result"] != "pending" {
        enforcement = event
        break
      }
      try await Task.sleep(for: .milliseconds(50))
    }
    let event = try #require(enforcement)
    #expect(event["operateType"] == "chatroom-mute")
    #expect(event["chatroomId"] == "r1")
    #expect(event["userIds"] == ["u1"])
    #expect(event["durationTime"]?.int64Value == 600_000)
    #expect(event["messages"] == ["m1", "m3", "m8"])
    #expect(event["enforcement"]?["result"] == "ok")
    #expect(event["enforcement"]?["attempts"]?.int64Value == 2)
    let requests = platform.server.requests
    #expect(requests.count == 2)
    #expect(requests.allSatisfy { $0.uri == "/chatroom/user/gag/add.json" })
    #expect(requests.last?.body == "userId=u1&chatroomId=r1&minute=10")
    // Another two blocked messages stay inside the new count: no second call.
    for (index, seconds) in [8, 9].enumerated() {
      _ = try await server.post("/v1/moderate", Self.item("n\(index)", "u1", "傻逼", seconds: seconds))
    }
    try await Task.sleep(for: .milliseconds(300))
    #expect(platform.server.requests.count == 2)
    let other = ServeTests.json(try await server.get("/v1/offenders?app=app2", headers: admin).body)
    #expect(ServeTests.array(other["events"])?.isEmpty == true)
    #expect(try await server.get("/v1/offenders").status == 401)
    let metrics = try await server.get("/metrics").body
    #expect(metrics.contains(#"winnow_enforcements_total{action="chatroom-mute",result="ok"} 1"#))
    await server.stop()
    try await platform.server.shutdown()
    let written = Self.lines(try String(contentsOfFile: events, encoding: .utf8))
    #expect(written.map { $0["event"]?.stringValue ?? "" } == ["offender", "enforcement"])
    let table = try await CLITests.run(["offenders", events])
    #expect(table.stdout.contains("app1\tu1\tchatroom-mute ×1"))
  }
}
