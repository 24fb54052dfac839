import ArgumentParser
import Foundation
import Logging
@_spi(Tools) import Winnow
@_spi(Tools) import WinnowStore

/// `winnow store`: the stores of app lists: PostgreSQL's schema, import and export, and the
/// audit log of either store.
struct StoreCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "store",
    abstract: "The app lists' store: create it, import and export lists, read its audit log.",
    subcommands: [StoreInitCommand.self, StoreImportCommand.self, StoreExportCommand.self, StoreLogCommand.self]
  )
}

/// `--store URL` and its password.
struct StoreOptions: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      "The PostgreSQL store: postgres://USER@HOST[:PORT]/DB, or postgres://USER@/DB?host=SOCKETDIR (serve: file, the default, is --apps DIR).",
      discussion: "The password comes from PGPASSWORD or --password-file, never from the URL.", valueName: "URL"))
  var store: String?

  @Option(
    name: .customLong("password-file"),
    help: ArgumentHelp("A file (mode 0600) holding the store's password.", valueName: "FILE"))
  var passwordFile: String?

  /// Whether a PostgreSQL store is named (`--store file`, or none, is the file store).
  var isPostgres: Bool { store != nil && store != "file" }

  /// The location and password.
  func resolved() throws -> (StoreLocation, String?) {
    guard let store, store != "file" else { throw ValidationError("--store URL is required") }
    let location = try StoreLocation(url: store)
    var password = ProcessInfo.processInfo.environment["PGPASSWORD"]
    if let passwordFile { password = try readSecretFile(passwordFile) }
    return (location, password)
  }

  /// The replica of `winnow serve --store URL`, whose edits and reads of the store are answered
  /// unavailable past `timeout`.
  func replica(timeout: Duration, logger: Logger) throws -> StoreReplica {
    let (location, password) = try resolved()
    return StoreReplica(location: location, password: password, timeout: timeout, logger: logger)
  }

  /// Connects, or exits with status 2 naming the cause.
  func connect() async throws -> PostgresStore {
    guard store != nil else { throw ValidationError("--store URL is required") }
    do {
      let (location, password) = try resolved()
      return try await PostgresStore.connect(location, password: password)
    } catch {
      FileHandle.standardError.write(Data("winnow: \(error)\n".utf8))
      throw CLIError.exitCode
    }
  }
}

/// Runs `body` with a store, closing it after; a ``StoreError`` exits with status 2.
func withStore<T>(_ options: StoreOptions, _ body: (PostgresStore) async throws -> T) async throws -> T {
  let store = try await options.connect()
  do {
    let value = try await body(store)
    await store.close()
    return value
  } catch {
    await store.close()
    if error is StoreError || error is CLIError {
      FileHandle.standardError.write(Data("winnow: \(error)\n".utf8))
      throw CLIError.exitCode
    }
    throw error
  }
}

/// `winnow store init`: creates or migrates the schema.
struct StoreInitCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "init", abstract: "Create the store's tables, or migrate them to this winnow's schema version.")

  @OptionGroup var options: StoreOptions

  func run() async throws {
    let (from, to) = try await withStore(options) { store in (try await store.migrate(), PostgresStore.latestVersion) }
    print(from == to ? "schema version \(to): up to date" : "schema version \(from) → \(to)")
  }
}

/// `winnow store import`: an app directory's lists into the store.
struct StoreImportCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "import",
    abstract: "Copy the lists of an app directory (DIR/APPKEY.txt) into the store, as written.",
    discussion: """
      Every list is read first; a list with errors stops the import before anything is \
      written (each error with its file and line). secrets.json stays in the directory: secrets \
      are never in the store. Each app's import is a change in the audit log (op import).
      """)

  @OptionGroup var options: StoreOptions

  @Option(help: ArgumentHelp("The app directory.", valueName: "DIR"))
  var apps: String

  func run() async throws {
    let directory = AppDirectory(path: apps)
    let keys: [String]
    do { keys = try directory.appKeys() } catch {
      FileHandle.standardError.write(Data("winnow: \(error)\n".utf8))
      throw CLIError.exitCode
    }
    var lists: [(String, String)] = []
    var errors: [String] = []
    for key in keys {
      let path = directory.listPath(of: key)
      do {
        let file = try WordListFile(contentsOf: path)
        errors += file.errors.map(\.description)
        lists.append((key, file.text))
      } catch { errors.append("\(error)") }
    }
    guard errors.isEmpty else {
      FileHandle.standardError.write(Data(("winnow: nothing imported:\n" + errors.joined(separator: "\n") + "\n").utf8))
      throw CLIError.exitCode
    }
    try await withStore(options) { store in
      for (key, text) in lists { try await store.importList(app: key, text: text, origin: ChangeOrigin()) }
    }
    print("imported \(lists.count) app lists into \(options.store ?? "")")
  }
}

/// `winnow store export`: the store's lists into an app directory.
struct StoreExportCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "export",
    abstract: "Write every app list of the store to DIR/APPKEY.txt, byte for byte as stored.")

  @OptionGroup var options: StoreOptions

  @Option(help: ArgumentHelp("The app directory to write (created if missing).", valueName: "DIR"))
  var apps: String

  func run() async throws {
    let lists = try await withStore(options) { store in try await store.lists() }
    do {
      try FileManager.default.createDirectory(atPath: apps, withIntermediateDirectories: true)
      let directory = AppDirectory(path: apps)
      for (app, text) in lists {
        try AtomicFile.write(Array(text.utf8), to: directory.listPath(of: app))
      }
    } catch {
      FileHandle.standardError.write(Data("winnow: cannot write \(apps): \(error)\n".utf8))
      throw CLIError.exitCode
    }
    print("exported \(lists.count) app lists to \(apps)")
  }
}

/// `winnow store log`: the changes of an app directory's lists (or of a PostgreSQL store), as
/// they were logged.
struct StoreLogCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "log",
    abstract: "Print the audit log of list changes (DIR/changes.jsonl, or the store's), oldest first.",
    discussion: """
      Each change made through winnow serve's sensitive-word API (or ModerationService) is \\
      logged with its id, app, op (add, update, delete), word, replaceWord, time, the replica, \\
      and the caller's address and request id. See Docs/serving.md.

      Exit status: 0; 2 when the log cannot be read or --since is neither an id nor a time.
      """
  )

  @Option(help: ArgumentHelp("The app directory (as for serve --apps).", valueName: "DIR"))
  var apps: String?

  @OptionGroup var options: StoreOptions

  @Option(help: ArgumentHelp("Only this app's changes.", valueName: "APPKEY"))
  var app: String?

  @Option(
    help: ArgumentHelp(
      "Only changes after this id, or at or after this time (ISO 8601: 2026-11-22T00:00:00Z).",
      valueName: "ID|TIME"))
  var since: String?

  @Flag(help: "One JSON object a line, as the log and GET /v1/apps/APPKEY/changes write them.")
  var json = false

  func validate() throws {
    if (apps == nil) == (options.store == nil) { throw ValidationError("give --apps DIR or --store URL") }
  }

  func run() async throws {
    var afterID: Int64 = 0
    var afterTime = Int64.min
    if let since {
      if let id = Int64(since), id >= 0 {
        afterID = id
      } else if let time = ChangeLog.milliseconds(isoTime: since) {
        afterTime = time
      } else {
        FileHandle.standardError.write(
          Data("winnow: --since \(since): neither a change id nor an ISO 8601 time (2026-11-22T00:00:00Z)\n".utf8))
        throw CLIError.exitCode
      }
    }
    let changes: [ListChange]
    if let apps {
      do { changes = try ChangeLog.read(directory: apps, app: app, since: afterID, after: afterTime) } catch {
        FileHandle.standardError.write(Data("winnow: \(error)\n".utf8))
        throw CLIError.exitCode
      }
    } else {
      let (app, afterID, afterTime) = (app, afterID, afterTime)
      changes = try await withStore(options) { store in
        try await store.changes(app: app, since: afterID, after: afterTime)
      }
    }
    for change in changes {
      if json {
        print(change.json.jsonString)
      } else {
        let value = change.json
        let replacement = change.replaceWord.map { " => \($0)" } ?? ""
        print(
          "\(change.id)\t\(value["time"]?.stringValue ?? "")\t\(change.app)\t\(change.op)\t\(change.word)\(replacement)\t"
            + "\(change.origin.replica)\t\(change.origin.address ?? "-")\t\(change.origin.requestId ?? "-")")
      }
    }
  }
}
