import Foundation
import Testing
@_spi(Tools) import Winnow
import WinnowTestSupport

/// The file store's audit log through the server and the command line (the release binary
/// too, in `scripts/test`).
@Suite("Audit log", .serialized)
struct AuditLogCLITests {
  @Test func wordAPIEditsAreLoggedWithTheCallerAndReadBack() async throws {
    let token = try CLITests.temporaryFile("token", "admin-token\n")
    chmod(token, 0o600)
    let server = try await ServeTests.Server(arguments: ["--admin-token-file", token, "--replica", "replica-a"])
    let admin = [("Authorization", "Bearer admin-token")]
    #expect(try await server.wordAPI("add", "word=%E4%BB%A3%E8%B4%AD&replaceWord=**").body.contains("200"))
    #expect(try await server.wordAPI("delete", "word=appword").body.contains("200"))
    // Only with the admin token.
    #expect(try await server.get("/v1/apps/app1/changes").status == 401)
    let answer = ServeTests.json(try await server.get("/v1/apps/app1/changes", headers: admin).body)
    let changes = try #require(ServeTests.array(answer["changes"]))
    #expect(changes.map { $0["op"] } == ["add", "delete"])
    #expect(changes.map { $0["word"] } == ["代购", "appword"])
    #expect(changes.first?["replaceWord"] == "**")
    #expect(changes.allSatisfy { $0["replica"] == "replica-a" && $0["address"] == "127.0.0.1" })
    #expect(changes.allSatisfy { ($0["requestId"]?.stringValue?.count ?? 0) > 0 })
    #expect(changes.allSatisfy { ChangeLog.milliseconds(isoTime: $0["time"]?.stringValue ?? "") != nil })
    let later = ServeTests.json(try await server.get("/v1/apps/app1/changes?since=1", headers: admin).body)
    #expect(ServeTests.array(later["changes"])?.map { $0["id"]?.int64Value } == [2])
    #expect(
      ServeTests.array(ServeTests.json(try await server.get("/v1/apps/app2/changes", headers: admin).body)["changes"])?
        .isEmpty == true)
    await server.stop()
    let log = try await CLITests.run(["store", "log", "--apps", server.apps, "--app", "app1", "--json"])
    #expect(log.status == 0)
    #expect(log.stdout.split(separator: "\n").count == 2)
    let table = try await CLITests.run(["store", "log", "--apps", server.apps, "--since", "1"])
    #expect(table.stdout.hasPrefix("2\t"))
    #expect(table.stdout.contains("\tapp1\tdelete\tappword\treplica-a\t127.0.0.1\t"))
    let old = try await CLITests.run(["store", "log", "--apps", server.apps, "--since", "2000-01-01T00:00:00Z"])
    #expect(old.stdout.split(separator: "\n").count == 2)
    let bad = try await CLITests.run(["store", "log", "--apps", server.apps, "--since", "yesterday"])
    #expect(bad.status == 2 && bad.stderr.contains("neither a change id nor an ISO 8601 time"))
  }
}
