import Foundation
import Testing
import WinnowTestSupport

/// `winnow store` against a real PostgreSQL (a throwaway cluster per test), the release binary
/// too in `scripts/test`: the schema and its migrations, import and export byte for byte, the
/// audit log, and the errors a user meets.
@Suite("winnow store (PostgreSQL)", .serialized)
struct StoreCLITests {
  /// Runs `sql` with psql as the cluster's user, over its socket, on a Dispatch thread.
  static func psql(_ database: TestPostgres, _ sql: String) async throws {
    let status = try await withCheckedThrowingContinuation { continuation in
      DispatchQueue.global().async {
        continuation.resume(
          with: Result {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [
              "psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", database.directory, "-U", "winnow", "-d", "postgres",
              "-c", sql,
            ]
            try process.run()
            return process.waitForExit()
          })
      }
    }
    #expect(status == .exited(0), "psql \(sql): \(status)")
  }

  @Test func initImportExportAndLog() async throws {
    let database = try await TestPostgres.start()
    let store = database.url
    let before = try await CLITests.run(["store", "export", "--store", store, "--apps", "/tmp/unused"])
    #expect(before.status == 2 && before.stderr.contains("no Winnow schema: run winnow store init"))
    var result = try await CLITests.run(["store", "init", "--store", store])
    #expect(result.status == 0 && result.stdout == "schema version 0 → 1\n", "\(result.stderr)")
    result = try await CLITests.run(["store", "init", "--store", store])
    #expect(result.stdout == "schema version 1: up to date\n")

    let apps = CLITests.temporaryPath("apps").path
    try FileManager.default.createDirectory(atPath: apps, withIntermediateDirectories: true)
    let lists = [
      "app1": "# the shop's words\n[spam]\n秒杀 => **\nappword   # trailing comment\n/r[e]gex\\d+/\n",
      "app-2": "x\r\nno final newline",
    ]
    for (app, text) in lists { try text.write(toFile: "\(apps)/\(app).txt", atomically: true, encoding: .utf8) }
    try "{\"app1\":\"secret\"}".write(toFile: "\(apps)/secrets.json", atomically: true, encoding: .utf8)
    result = try await CLITests.run(["store", "import", "--store", store, "--apps", apps])
    #expect(result.status == 0, "\(result.stderr)")
    let exported = CLITests.temporaryPath("exported").path
    result = try await CLITests.run(["store", "export", "--store", store, "--apps", exported])
    #expect(result.status == 0, "\(result.stderr)")
    for (app, text) in lists {
      #expect(try Data(contentsOf: URL(fileURLWithPath: "\(exported)/\(app).txt")) == Data(text.utf8))
    }
    // Secrets never go into the store.
    #expect(!FileManager.default.fileExists(atPath: "\(exported)/secrets.json"))

    let log = try await CLITests.run(["store", "log", "--store", store, "--json"])
    let changes = log.stdout.split(separator: "\n")
    #expect(changes.count == 2)
    #expect(changes.allSatisfy { $0.contains(#""op":"import""#) })
    let one = try await CLITests.run(["store", "log", "--store", store, "--app", "app1"])
    #expect(one.stdout.split(separator: "\n").count == 1 && one.stdout.contains("\tapp1\timport\t"))
    let later = try await CLITests.run(["store", "log", "--store", store, "--since", "2"])
    #expect(later.stdout.isEmpty)
    await database.stop()
  }

  @Test func aBadListImportsNothingAndBadStoresAreNamed() async throws {
    let database = try await TestPostgres.start()
    let store = database.url
    _ = try await CLITests.run(["store", "init", "--store", store])
    let apps = CLITests.temporaryPath("apps").path
    try FileManager.default.createDirectory(atPath: apps, withIntermediateDirectories: true)
    try "good\n".write(toFile: "\(apps)/a.txt", atomically: true, encoding: .utf8)
    try "fine\n[bad section\n".write(toFile: "\(apps)/b.txt", atomically: true, encoding: .utf8)
    let result = try await CLITests.run(["store", "import", "--store", store, "--apps", apps])
    #expect(result.status == 2)
    #expect(result.stderr.contains("b.txt:2"), "\(result.stderr)")
    let exported = CLITests.temporaryPath("exported").path
    _ = try await CLITests.run(["store", "export", "--store", store, "--apps", exported])
    #expect(((try? FileManager.default.contentsOfDirectory(atPath: exported)) ?? []).isEmpty)

    let password = try await CLITests.run(["store", "init", "--store", "postgres://u:pw@localhost/db"])
    #expect(password.status == 2 && password.stderr.contains("a password is never written in the URL"))
    let missing = try await CLITests.run([
      "store", "init", "--store", "postgres://winnow@/nosuchdb?host=\(database.directory)",
    ])
    #expect(missing.status == 2 && missing.stderr.contains("database \"nosuchdb\" does not exist"))
    let down = try await CLITests.run(["store", "init", "--store", "postgres://winnow@/db?host=/nonexistent"])
    #expect(down.status == 2 && down.stderr.contains("cannot connect to postgres://winnow@/db?host=/nonexistent"))
    await database.stop()
  }

  @Test func migrationsRunFromAnOlderSchemaAndRefuseANewerOne() async throws {
    let database = try await TestPostgres.start()
    let store = database.url
    // A store made by a winnow before the first version: only the version table.
    try await Self.psql(
      database, "CREATE TABLE winnow_schema (version integer NOT NULL); INSERT INTO winnow_schema VALUES (0)")
    var result = try await CLITests.run(["store", "init", "--store", store])
    #expect(result.stdout == "schema version 0 → 1\n", "\(result.stderr)")
    try await Self.psql(database, "UPDATE winnow_schema SET version = 99")
    result = try await CLITests.run(["store", "init", "--store", store])
    #expect(result.status == 2 && result.stderr.contains("version 99, newer than this winnow's 1: upgrade winnow"))
    await database.stop()
  }
}
