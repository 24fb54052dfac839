import Foundation
import Logging
import PostgresNIO
@_spi(Tools) import Winnow

/// App lists in PostgreSQL: each app's list text as written (comments and regexes kept, so an
/// export gives the files back byte for byte), and the ordered change log of every edit. The
/// schema is versioned; ``migrate()`` brings a database to the latest version.
///
/// Tables:
/// - `winnow_schema(version)`: one row, the schema's version;
/// - `winnow_apps(app, text, updated)`: each app's list file;
/// - `winnow_changes(id, app, op, word, replace_word, time, replica, address, request_id)`: the
///   audit log, `id` from a sequence in commit order of its transaction's lock.
public final class PostgresStore: Sendable {
  /// Where it is.
  public let location: StoreLocation
  private let connection: PostgresConnection
  private let logger: Logger

  /// The schema versions, each a list of statements run in one transaction.
  static let migrations: [[String]] = [
    [
      """
      CREATE TABLE winnow_apps (
        app text PRIMARY KEY,
        text text NOT NULL,
        updated timestamptz NOT NULL DEFAULT now())
      """,
      """
      CREATE TABLE winnow_changes (
        id bigserial PRIMARY KEY,
        app text NOT NULL,
        op text NOT NULL,
        word text NOT NULL,
        replace_word text,
        time timestamptz NOT NULL DEFAULT clock_timestamp(),
        replica text NOT NULL,
        address text,
        request_id text)
      """,
      "CREATE INDEX winnow_changes_app ON winnow_changes (app, id)",
    ]
  ]

  /// The advisory lock every write transaction takes first: writes take turns, so change ids
  /// (drawn inside the lock) are in commit order, and a replica that has applied every change up
  /// to an id can never later see a smaller one commit.
  static let writeLock: Int64 = 7316

  /// The channel `NOTIFY` tells replicas of new changes on.
  static let channel = "winnow_changes"

  /// The latest schema version.
  public static var latestVersion: Int { migrations.count }

  private init(location: StoreLocation, connection: PostgresConnection, logger: Logger) {
    self.location = location
    self.connection = connection
    self.logger = logger
  }

  /// Connects to the store at `location` with `password` (nil: none, as with `trust` or peer
  /// authentication).
  public static func connect(
    _ location: StoreLocation, password: String?, logger: Logger = Logger(label: "winnow.store")
  ) async throws(StoreError) -> PostgresStore {
    do {
      let connection = try await PostgresConnection.connect(
        configuration: configuration(location, password: password), id: 1, logger: logger)
      return PostgresStore(location: location, connection: connection, logger: logger)
    } catch {
      throw StoreError("cannot connect to \(location): \(Self.cause(of: error))", isUnavailable: true)
    }
  }

  /// How to connect to `location`: no TLS over TCP (a store on another host is reached through
  /// a tunnel or a private network), 5 s to connect.
  static func configuration(_ location: StoreLocation, password: String?) -> PostgresConnection.Configuration {
    var configuration: PostgresConnection.Configuration
    if let socket = location.socketPath {
      configuration = .init(
        unixSocketPath: socket, username: location.user, password: password, database: location.database)
    } else {
      configuration = .init(
        host: location.host ?? "localhost", port: location.port, username: location.user, password: password,
        database: location.database, tls: .disable)
    }
    configuration.options.connectTimeout = .seconds(5)
    return configuration
  }

  /// Closes the connection.
  public func close() async {
    try? await connection.close()
  }

  /// The schema's version; 0 for a database without Winnow's tables.
  public func schemaVersion() async throws(StoreError) -> Int {
    try await run("read the schema version") { try await Self.schemaVersion(on: connection, logger: logger) }
  }

  /// The schema's version on `connection`; 0 without Winnow's tables.
  static func schemaVersion(on connection: PostgresConnection, logger: Logger) async throws -> Int {
    let exists = try await connection.query(
      "SELECT count(*)::int FROM information_schema.tables WHERE table_name = 'winnow_schema'", logger: logger)
    var found = 0
    for try await count in exists.decode(Int.self) { found = count }
    guard found > 0 else { return 0 }
    var version = 0
    for try await value in try await connection.query("SELECT version FROM winnow_schema", logger: logger).decode(
      Int.self)
    {
      version = value
    }
    return version
  }

  /// Creates or migrates the schema to ``latestVersion``; returns the version it was at. Several
  /// replicas migrating at once wait for each other (an advisory lock).
  @discardableResult
  public func migrate() async throws(StoreError) -> Int {
    try await run("migrate the schema") {
      try await connection.withTransaction(logger: logger) { connection in
        try await connection.query("SELECT pg_advisory_xact_lock(7315)", logger: logger)
        try await connection.query(
          "CREATE TABLE IF NOT EXISTS winnow_schema (version integer NOT NULL)", logger: logger)
        var version: Int?
        for try await value in try await connection.query("SELECT version FROM winnow_schema", logger: logger).decode(
          Int.self)
        {
          version = value
        }
        if version == nil {
          try await connection.query("INSERT INTO winnow_schema (version) VALUES (0)", logger: logger)
        }
        let from = version ?? 0
        guard from <= Self.migrations.count else {
          throw StoreError(
            "the store's schema is version \(from), newer than this winnow's \(Self.migrations.count): upgrade winnow")
        }
        for step in from..<Self.migrations.count {
          for statement in Self.migrations[step] {
            try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
          }
        }
        let latest = Self.migrations.count
        try await connection.query("UPDATE winnow_schema SET version = \(latest)", logger: logger)
        return from
      }
    }
  }

  /// Stores `text` as the list of `app` (replacing what it had), with an `import` change.
  @_spi(Tools) public func importList(app: String, text: String, origin: ChangeOrigin) async throws(StoreError) {
    try await requireSchema()
    try await run("import \(app)") {
      try await connection.withTransaction(logger: logger) { connection in
        try await connection.query("SELECT pg_advisory_xact_lock(\(Self.writeLock))", logger: logger)
        try await connection.query(
          """
          INSERT INTO winnow_apps (app, text) VALUES (\(app), \(text))
          ON CONFLICT (app) DO UPDATE SET text = EXCLUDED.text, updated = now()
          """, logger: logger)
        try await connection.query(
          """
          INSERT INTO winnow_changes (app, op, word, replica, address, request_id)
          VALUES (\(app), 'import', '', \(origin.replica), \(origin.address), \(origin.requestId))
          """, logger: logger)
        try await connection.query("SELECT pg_notify(\(Self.channel), 'import')", logger: logger)
      }
    }
  }

  /// Every app's list text, by app key.
  public func lists() async throws(StoreError) -> [(app: String, text: String)] {
    try await requireSchema()
    return try await run("read the lists") {
      var lists: [(app: String, text: String)] = []
      let rows = try await connection.query("SELECT app, text FROM winnow_apps ORDER BY app", logger: logger)
      for try await (app, text) in rows.decode((String, String).self) { lists.append((app, text)) }
      return lists
    }
  }

  /// The changes of `app` (all when nil) with an id over `since` and a time at or after `after`
  /// (Unix milliseconds), oldest first.
  @_spi(Tools) public func changes(app: String?, since: Int64, after: Int64) async throws(StoreError) -> [ListChange] {
    try await requireSchema()
    return try await run("read the change log") {
      try await Self.changes(on: connection, app: app, since: since, after: after, logger: logger)
    }
  }

  /// The changes as ``changes(app:since:after:)`` reads them, on `connection`.
  static func changes(on connection: PostgresConnection, app: String?, since: Int64, after: Int64, logger: Logger)
    async throws -> [ListChange]
  {
    let rows = try await connection.query(
      """
      SELECT id, app, op, word, replace_word, (extract(epoch FROM time) * 1000)::bigint, replica, address, request_id
      FROM winnow_changes
      WHERE id > \(since) AND (\(app)::text IS NULL OR app = \(app))
        AND time >= to_timestamp(\(Double(max(after, -62_135_596_800_000)) / 1000))
      ORDER BY id
      """, logger: logger)
    var changes: [ListChange] = []
    for try await (id, app, op, word, replacement, time, replica, address, request) in rows.decode(
      (Int64, String, String, String, String?, Int64, String, String?, String?).self)
    {
      changes.append(
        ListChange(
          id: id, app: app, op: op, word: word, replaceWord: replacement, time: time,
          origin: ChangeOrigin(replica: replica, address: address, requestId: request)))
    }
    return changes
  }

  private func requireSchema() async throws(StoreError) {
    if let problem = Self.schemaProblem(version: try await schemaVersion(), location: location) {
      throw StoreError(problem)
    }
  }

  /// Why a store whose schema is `version` cannot be used, or nil.
  static func schemaProblem(version: Int, location: StoreLocation) -> String? {
    guard version != latestVersion else { return nil }
    return version == 0
      ? "\(location) has no Winnow schema: run winnow store init --store URL"
      : "\(location) has schema version \(version), this winnow needs \(latestVersion): run winnow store init"
  }

  /// Runs `body`, turning any error into a ``StoreError`` that names `what`.
  private func run<T>(_ what: String, _ body: () async throws -> T) async throws(StoreError) -> T {
    do { return try await body() } catch let error as StoreError { throw error } catch {
      if let transaction = error as? PostgresTransactionError, let inner = transaction.closureError as? StoreError {
        throw inner
      }
      throw StoreError("cannot \(what) in \(location): \(Self.cause(of: error))", isUnavailable: connection.isClosed)
    }
  }

  /// The server's message for a database error; the error's own description otherwise.
  static func cause(of error: any Error) -> String {
    if let psql = error as? PSQLError {
      if let message = psql.serverInfo?[.message] { return message }
      return "\(psql.code)"
    }
    if let transaction = error as? PostgresTransactionError {
      if let inner = transaction.closureError ?? transaction.commitError ?? transaction.beginError {
        return cause(of: inner)
      }
    }
    return "\(error)"
  }
}
