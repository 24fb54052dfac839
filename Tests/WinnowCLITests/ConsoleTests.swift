import AsyncHTTPClient
import Foundation
import Testing
@_spi(Tools) import Winnow

@testable import WinnowCLI

/// The console's page and endpoints (`/console`, `/v1/explain`, `/v1/apps`,
/// `/v1/apps/APPKEY/words`, `/v1/recent`) on a real `winnow serve`, the release binary too in
/// `scripts/test`. The page itself is driven in Chromium by `Tests/Browser/run`.
@Suite("the console's endpoints", .serialized)
struct ConsoleTests {
  static let admin = ReplicaTests.admin

  static func server(_ arguments: [String] = []) async throws -> ServeTests.Server {
    try await ServeTests.Server(
      apps: ["app1": "秒杀 => **\nappword\n", "app2": "团购\n"], secrets: ["app1": "s3cret", "app2": "s3cret"],
      arguments: ["--admin-token-file", try tokenFile()] + arguments)
  }

  static func tokenFile() throws -> String {
    let path = try CLITests.temporaryFile("token", "admin-token\n")
    chmod(path, 0o600)
    return path
  }

  @Test func explainAnswersWhatCheckPrintsForEachField() async throws {
    let server = try await Self.server()
    let text = "你是傻逼 classic 秒杀 assassin"
    let body: JSONValue = ["text": .string(text), "app": "app1"]
    #expect(try await server.post("/v1/explain", body.jsonString).status == 401)
    let answer = try await server.post("/v1/explain", body.jsonString, headers: Self.admin)
    #expect(answer.status == 200, "\(answer.body)")
    let json = ServeTests.json(answer.body)
    #expect(json["result"]?["verdict"] == "blocked")
    #expect(json["result"]?["record"]?["blockType"]?.int64Value == 1)
    let fields = try #require(ServeTests.array(json["fields"]))
    #expect(fields.count == 1)
    let field = try #require(fields.first)
    #expect(field["field"] == "content")
    // The same object `winnow check --json --suppressed` prints over the same lists.
    let check = try await CLITests.run([
      "check", "--json", "--suppressed", "--custom", "\(server.apps)/app1.txt", text,
    ])
    guard case .object(var members) = field else {
      Issue.record("not an object: \(field)")
      return
    }
    members.removeAll { $0.key == "field" }
    #expect(JSONValue.object(members) == ServeTests.json(check.stdout), "\(answer.body)\n\(check.stdout)")
    #expect(ServeTests.array(field["suppressed"])?.isEmpty == false)
    #expect(ServeTests.array(field["matches"])?.contains { $0["line"]?.int64Value == 1 && $0["entry"] == "秒杀" } == true)
    // A whole item, and an item that cannot be read.
    let item =
      #"{"item":{"msgUID":"m","targetId":"t","conversationType":1,"#
      + #""content":{"content":"团购"},"sentTime":1,"appKey":"app2"}}"#
    let explained = try await server.post("/v1/explain", item, headers: Self.admin)
    #expect(ServeTests.json(explained.body)["result"]?["verdict"] == "blocked")
    let bad = try await server.post("/v1/explain", #"{"item":{"msgUID":5}}"#, headers: Self.admin)
    #expect(bad.status == 400 && bad.body.contains("error"), "\(bad.status) \(bad.body)")
    #expect(try await server.post("/v1/explain", "[1]", headers: Self.admin).status == 400)
    // Explaining is not traffic: nothing in the recent decisions.
    let recent = ServeTests.json(try await server.get("/v1/recent", headers: Self.admin).body)
    #expect(ServeTests.array(recent["items"])?.isEmpty == true)
    await server.stop()
  }

  @Test func theListIsEditedThroughTheSensitiveWordAPIsPath() async throws {
    let server = try await Self.server()
    #expect(try await server.get("/v1/apps").status == 401)
    #expect(ServeTests.json(try await server.get("/v1/apps", headers: Self.admin).body)["apps"] == ["app1", "app2"])
    #expect(try await server.post("/v1/apps/app1/words", #"{"word":"控台"}"#).status == 401)
    let added = try await server.post("/v1/apps/app1/words", #"{"word":"控台","replaceWord":"~~"}"#, headers: Self.admin)
    #expect(added.status == 200, "\(added.body)")
    #expect(try await server.moderate("买控台", app: "app1")["verdict"] == "replaced")
    // A new replacement for a listed word; the platform's list.json sees the console's edits.
    #expect(try await server.post("/v1/apps/app1/words", #"{"word":"控台"}"#, headers: Self.admin).status == 200)
    #expect(try await server.moderate("买控台", app: "app1")["verdict"] == "blocked")
    let listed = ServeTests.json(try await server.wordAPI("list", "type=2").body)
    #expect(ServeTests.array(listed["words"])?.contains { $0["word"] == "控台" && $0["replaceWord"] == "" } == true)
    let words = ServeTests.json(try await server.get("/v1/apps/app1/words", headers: Self.admin).body)
    #expect(ServeTests.array(words["words"])?.map { $0["word"] } == ["秒杀", "appword", "控台"])
    // Deleted, then a word that is not there, a bad app key and a bad body.
    let path = "/v1/apps/app1/words?word=%E6%8E%A7%E5%8F%B0"
    #expect(try await server.send(path, method: .DELETE, body: nil, headers: Self.admin).status == 200)
    #expect(try await server.moderate("买控台", app: "app1")["verdict"] == "pass")
    let again = try await server.send(path, method: .DELETE, body: nil, headers: Self.admin)
    #expect(again.status == 400 && again.body.contains(#""code":1002"#), "\(again.body)")
    #expect(try await server.post("/v1/apps/a%20b/words", #"{"word":"x"}"#, headers: Self.admin).status == 400)
    #expect(try await server.post("/v1/apps/app1/words", #"{"words":1}"#, headers: Self.admin).status == 400)
    // Each edit is in the audit log, with the caller.
    let changes = ServeTests.json(try await server.get("/v1/apps/app1/changes", headers: Self.admin).body)
    #expect(ServeTests.array(changes["changes"])?.map { $0["op"] } == ["add", "update", "delete"])
    await server.stop()
  }

  @Test func recentDecisionsAreBoundedAndCanBeTurnedOff() async throws {
    let server = try await Self.server(["--recent", "3"])
    for index in 0..<5 { _ = try await server.moderate("秒杀\(index)", app: "app1") }
    _ = try await server.moderate("团购", app: "app2")
    _ = try await server.moderate("hello", app: "app2")
    #expect(try await server.get("/v1/recent").status == 401)
    let recent = ServeTests.json(try await server.get("/v1/recent", headers: Self.admin).body)
    let items = try #require(ServeTests.array(recent["items"]))
    // The last three that were not plain passes, newest first.
    #expect(items.count == 3)
    #expect(items.first?["result"]?["verdict"] == "blocked")
    #expect(ServeTests.array(items.first?["result"]?["matches"])?.first?["text"] == "团购")
    let minutes = try #require(ServeTests.array(recent["minutes"]))
    let total = { (key: String) in minutes.compactMap { $0[key]?.int64Value }.reduce(0, +) }
    #expect(total("pass") == 1 && total("replaced") == 5 && total("blocked") == 1, "\(minutes)")
    await server.stop()
    let off = try await Self.server(["--recent", "0"])
    _ = try await off.moderate("团购", app: "app2")
    let none = ServeTests.json(try await off.get("/v1/recent", headers: Self.admin).body)
    #expect(ServeTests.array(none["items"])?.isEmpty == true && ServeTests.array(none["minutes"])?.isEmpty == true)
    await off.stop()
  }

  @Test func thePageIsServedWithItsControlsAndNoSecret() async throws {
    let server = try await Self.server()
    let page = try await server.get("/console")
    #expect(page.status == 200)
    for id in ["try-text", "try-run", "try-verdict", "try-matches", "token-input", "app-select", "words-table"] {
      #expect(page.body.contains("id=\"\(id)\""), "no #\(id)")
    }
    #expect(page.body.contains("name=\"viewport\""))
    #expect(!page.body.contains("admin-token"))
    // Only relative requests: no other host is named in the page.
    #expect(!page.body.contains("http://") && !page.body.contains("https://") && !page.body.contains("//cdn"))
    #expect(!page.body.contains("innerHTML"))
    await server.stop()
  }

  /// The embedded page is the one in console.html (scripts/embed-console.py writes it).
  @Test func theEmbeddedPageIsConsoleHTML() throws {
    let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Sources/WinnowServer")
    let html = try String(contentsOf: sources.appendingPathComponent("console.html"), encoding: .utf8)
    let swift = try String(contentsOf: sources.appendingPathComponent("ConsolePage+Data.swift"), encoding: .utf8)
    let delimiter = String(repeating: "#", count: 3)
    let embedded = "= \(delimiter)\"\"\"\n" + html + "\"\"\"\(delimiter)\n"
    #expect(swift.contains(embedded), "run scripts/embed-console.py")
  }
}
