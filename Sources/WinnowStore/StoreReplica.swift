import Foundation
import Logging
import PostgresNIO
import Synchronization
@_spi(Tools) import Winnow

/// One `winnow serve` replica's link to the store: it loads every app's list into a
/// ``ModerationService``, writes the sensitive-word API's edits in one transaction each, and
/// follows the change log so that an edit made through any replica is enforced by all.
///
/// - **Writes** (``edit(app:origin:service:_:)``): one transaction takes the store's write lock,
///   reads the app's list, changes it, compiles it (a list that does not compile is refused),
///   writes it, appends the changes to `winnow_changes` and sends `NOTIFY winnow_changes`. The
///   replica puts the new list in before answering, so a caller reads its own writes.
/// - **Following** (``follow(service:)``): a connection of its own listens on `winnow_changes`
///   and, after `LISTEN` and after each notification, reads every change past the last one
///   applied, then the current text of each app they touch, and puts those lists in. It reads
///   again every second too, so a lost notification costs at most a second; after a lost
///   connection it reconnects with backoff (0.1 s doubling to 5 s) and catches up from the last
///   applied change id. Applying is idempotent: each app keeps the id of the change its list is
///   at, and an older text never replaces a newer one.
/// - **Store down**: the lists in memory stay in use; edits and reads of the store fail with a
///   ``StoreError`` whose ``StoreError/isUnavailable`` is true (the server answers 503).
@_spi(Tools) public final class StoreReplica: Sendable {
  /// Where the store is.
  public let location: StoreLocation
  private let configuration: PostgresConnection.Configuration
  private let client: PostgresClient
  private let logger: Logger
  private let state = Mutex(State())
  /// The longest an edit or a read of the store may take, waiting for its turn included, before
  /// it is answered as unavailable. A store the follower has lost fails a call at once instead.
  public let timeout: Duration

  private struct State {
    /// Every change up to this id is in effect.
    var applied: Int64 = 0
    /// Each app's list is at this change.
    var appChanges: [String: Int64] = [:]
    var connected = false
    var lastCaughtUp: ContinuousClock.Instant?
    var lastError: String?
    var reconnects = 0
  }

  /// What the replica knows of the store, for `/v1/status` and `/metrics`.
  public struct Status: Sendable {
    /// Whether the follower's connection is up.
    public var connected: Bool
    /// The last change in effect here.
    public var appliedChange: Int64
    /// Seconds since the replica last read the change log successfully (every change made
    /// before then is in effect); nil before the first read.
    public var lagSeconds: Double?
    /// The last error, if any.
    public var lastError: String?
    /// How many times the follower lost its connection.
    public var reconnects: Int
  }

  /// A replica of the store at `location`; nothing is connected until ``run()``.
  public init(
    location: StoreLocation, password: String?, timeout: Duration = .seconds(30),
    logger: Logger = Logger(label: "winnow.store")
  ) {
    self.location = location
    self.logger = logger
    self.timeout = timeout
    configuration = PostgresStore.configuration(location, password: password)
    var pool: PostgresClient.Configuration
    if let socket = location.socketPath {
      pool = .init(unixSocketPath: socket, username: location.user, password: password, database: location.database)
    } else {
      pool = .init(
        host: location.host ?? "localhost", port: location.port, username: location.user, password: password,
        database: location.database, tls: .disable)
    }
    pool.options.connectTimeout = .seconds(5)
    pool.options.maximumConnections = 4
    client = PostgresClient(configuration: pool, backgroundLogger: logger)
  }

  /// Runs the connection pool of edits until cancelled.
  public func run() async {
    await client.run()
  }

  /// What the replica knows of the store now.
  public var status: Status {
    state.withLock { state in
      Status(
        connected: state.connected, appliedChange: state.applied,
        lagSeconds: state.lastCaughtUp.map { Self.seconds(ContinuousClock.now - $0) }, lastError: state.lastError,
        reconnects: state.reconnects)
    }
  }

  private static func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
  }

  /// Loads every app's list from the store into `service`. Throws a ``StoreError`` when the
  /// store cannot be reached or does not answer within ``timeout`` (``StoreError/isUnavailable``:
  /// try again) or has no usable schema, and a ``ModerationServiceError`` naming each list that
  /// does not compile. Reading is bounded as a read of the API is: a store that stops answering
  /// mid-read fails the load (at start, the server tries again; on a reload, the old lists
  /// stay) instead of holding it; compiling what was read takes what it takes.
  public func load(into service: ModerationService) async throws {
    let opened = SessionConnection()
    defer { opened.abandon() }
    let (timeout, location) = (self.timeout, self.location)
    let (latest, texts) = try await Self.firstOutcome { fail in
      let timer = Task {
        try await Task.sleep(for: timeout)
        fail(StoreError("cannot read the lists of \(location): no answer within \(timeout)", isUnavailable: true))
      }
      defer { timer.cancel() }
      return try await self.readLists(opened)
    }
    opened.abandon()
    let compiled = await Self.offThePool { service.compileAppLists(texts) }
    var updates: [String: ModerationService.CompiledAppList?] = [:]
    var errors: [String] = []
    for (app, outcome) in compiled {
      switch outcome {
      case .success(let list): updates[app] = list
      case .failure(let error): errors += error.errors.map { "store: \($0)" }
      }
    }
    guard errors.isEmpty else { throw ModerationServiceError(errors: errors) }
    state.withLock { state in
      // An edit made here meanwhile may have put in a newer list.
      updates = updates.filter { state.appChanges[$0.key, default: 0] <= latest }
      service.setAppLists(updates)
      for app in updates.keys { state.appChanges[app] = latest }
      state.applied = max(state.applied, latest)
      state.lastCaughtUp = .now
      // Just read: edits may go ahead until the follower finds the store gone.
      state.connected = true
    }
  }

  /// The latest change id and every app's text, read on a connection of `opened`.
  private func readLists(_ opened: SessionConnection) async throws -> (Int64, [(app: String, text: String)]) {
    let connection: PostgresConnection
    do {
      connection = try await PostgresConnection.connect(configuration: configuration, id: 2, logger: logger)
    } catch {
      throw StoreError("cannot connect to \(location): \(PostgresStore.cause(of: error))", isUnavailable: true)
    }
    guard opened.adopt(connection) else { throw CancellationError() }
    do {
      let version = try await PostgresStore.schemaVersion(on: connection, logger: logger)
      if let problem = PostgresStore.schemaProblem(version: version, location: location) { throw StoreError(problem) }
      // The latest id first, the texts after: a text may be newer than the id (the next
      // catch-up reads it again), never older.
      let latest = try await Self.latestChange(on: connection, logger: logger)
      var read: [(app: String, text: String)] = []
      for try await (app, text) in try await connection.query("SELECT app, text FROM winnow_apps", logger: logger)
        .decode((String, String).self)
      {
        read.append((app, text))
      }
      return (latest, read)
    } catch let error as StoreError { throw error } catch {
      throw StoreError(
        "cannot read the lists of \(location): \(PostgresStore.cause(of: error))", isUnavailable: connection.isClosed)
    }
  }

  /// Follows the change log into `service` until cancelled (see the type's notes).
  ///
  /// Each connection is one session in a task of its own, and the follower waits for the
  /// session's first failure, not for its end: a session that fails is given up (its connection
  /// closed, its task cancelled) at once, and the follower reconnects. Nothing the database
  /// library awaits can hold the follower or the server's shutdown: a query on a connection
  /// that died under it, or a connect that never returns, is left to end on its own.
  public func follow(service: ModerationService) async {
    var backoff: Duration = .milliseconds(100)
    while !Task.isCancelled {
      let connection = SessionConnection()
      let caughtUp = Mutex(false)
      do {
        try await Self.firstOutcome { fail in
          try await self.session(service: service, connection: connection, fail: fail) {
            caughtUp.withLock { $0 = true }
          }
        }
      } catch {
        connection.abandon()
        if Task.isCancelled { break }
        lose(error)
        if caughtUp.withLock({ $0 }) { backoff = .milliseconds(100) }
        try? await Task.sleep(for: backoff)
        backoff = min(backoff * 2, .seconds(5))
      }
    }
  }

  /// One connection's following: connects, listens, catches up, then catches up again at each
  /// notification and every second. It reports its first failure through `fail` before it
  /// unwinds (unwinding waits for its child tasks, which may wait on the dead connection).
  private func session(
    service: ModerationService, connection opened: SessionConnection,
    fail: @escaping @Sendable (any Error) -> Void, caughtUp: @escaping @Sendable () -> Void
  ) async throws {
    // Connecting and starting to listen are bounded as a read is: a store that stops
    // answering while the follower (re)connects is lost after the limit, not never (the
    // replica counted as connected from its load, so edits waited their whole deadline).
    // The lock makes the watchdog's loss and the follower's arrival one or the other.
    let settled = Mutex(false)
    let watchdog = Task {
      try await Task.sleep(for: Self.catchUpLimit)
      let late = settled.withLock { settled in
        defer { settled = true }
        return !settled
      }
      if late {
        fail(StoreError("the store did not answer within \(Self.catchUpLimit) while connecting", isUnavailable: true))
      }
    }
    defer { watchdog.cancel() }
    let connection = try await PostgresConnection.connect(configuration: configuration, id: 3, logger: logger)
    guard opened.adopt(connection) else { throw CancellationError() }
    try await connection.listen(on: PostgresStore.channel) { notifications in
      let arrived = settled.withLock { settled in
        defer { settled = true }
        guard !settled else { return false }
        state.withLock { state in
          state.connected = true
          state.lastError = nil
        }
        return true
      }
      guard arrived else { throw CancellationError() }
      watchdog.cancel()
      // Listening first, then reading: a change committed in between is read now or
      // notified after.
      try await catchUp(on: connection, service: service, within: Self.catchUpLimit)
      caughtUp()
      // Wakes the catch-up: a notification came, or a second passed. A stream of this
      // connection's own: an AsyncStream ends for good when the task reading it is
      // cancelled, and one shared by all connections ended at the first reconnect, after
      // which every connection was dropped at once and made again, over and over.
      let (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
      try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask {
          for try await _ in notifications { wake.yield() }
          try Task.checkCancellation()
          throw StoreError("the store closed the connection", isUnavailable: true)
        }
        group.addTask {
          while true {
            try await Task.sleep(for: .seconds(1))
            wake.yield()
          }
        }
        group.addTask {
          for await _ in wakes {
            try await self.catchUp(on: connection, service: service, within: Self.catchUpLimit)
          }
        }
        do {
          try await group.next()
        } catch {
          // Edits fail at once from now on, and the follower moves on, whatever ending the
          // other children takes.
          fail(error)
          throw error
        }
        group.cancelAll()
      }
    }
    throw StoreError("the store closed the connection", isUnavailable: true)
  }

  /// The connection of one piece of work (a follower's session, a load), closed when the work
  /// is done or given up, and at once if it arrives after that.
  private final class SessionConnection: Sendable {
    private let state = Mutex<(connection: PostgresConnection?, abandoned: Bool)>((nil, false))

    /// Keeps `connection` to close later; false (and closes it) if the work was given up.
    func adopt(_ connection: PostgresConnection) -> Bool {
      let abandoned = state.withLock { state in
        if !state.abandoned { state.connection = connection }
        return state.abandoned
      }
      if abandoned { Self.close(connection) }
      return !abandoned
    }

    /// Closes the connection, if any, without waiting for it to close.
    func abandon() {
      let connection = state.withLock { state in
        state.abandoned = true
        return state.connection.take()
      }
      if let connection { Self.close(connection) }
    }

    private static func close(_ connection: PostgresConnection) {
      Task { try? await connection.close() }
    }
  }

  /// Runs `work` in a task of its own and returns when it ends or first calls its `fail`
  /// (then throwing that error), or throws `CancellationError` when the caller is cancelled.
  /// `work` is cancelled when it has not ended then, and never waited for: what it awaits may
  /// never end (a database library's future on a connection that died under it).
  static func firstOutcome<T: Sendable>(
    _ work: @escaping @Sendable (_ fail: @escaping @Sendable (any Error) -> Void) async throws -> T
  ) async throws -> T {
    let waiting = Mutex<CheckedContinuation<T, any Error>?>(nil)
    let outcome = Mutex<Result<T, any Error>?>(nil)
    // The first outcome is kept, and given to the waiting caller as soon as both exist.
    let settle: @Sendable (Result<T, any Error>) -> Void = { result in
      let first = outcome.withLock { kept -> Bool in
        guard kept == nil else { return false }
        kept = result
        return true
      }
      guard first else { return }
      waiting.withLock { $0.take() }?.resume(with: result)
    }
    let task = Task {
      do { settle(.success(try await work { settle(.failure($0)) })) } catch { settle(.failure(error)) }
    }
    defer { task.cancel() }
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        let kept = outcome.withLock { kept -> Result<T, any Error>? in
          if kept == nil { waiting.withLock { $0 = continuation } }
          return kept
        }
        if let kept { continuation.resume(with: kept) }
      }
    } onCancel: {
      settle(.failure(CancellationError()))
    }
  }

  /// The longest one read of the change log may take before the follower gives its connection
  /// up: a store that neither answers nor closes the connection is lost as one that closed it.
  static let catchUpLimit: Duration = .seconds(10)

  /// Marks the store lost (once per loss: counted in ``Status/reconnects`` and logged).
  private func lose(_ error: any Error) {
    let cause = error is StoreError ? "\(error)" : PostgresStore.cause(of: error)
    let wasConnected = state.withLock { state in
      defer {
        state.connected = false
        state.lastError = cause
      }
      if state.connected { state.reconnects += 1 }
      return state.connected
    }
    if wasConnected { logger.warning("lost the store, reconnecting: \(cause)") }
  }

  /// Reads the changes past the last applied one (the read bounded by `limit`: past it this
  /// throws, and the follower gives the connection up) and puts in the lists they touch (compiling them
  /// takes what it takes: ten thousand lists after an outage take seconds).
  private func catchUp(on connection: PostgresConnection, service: ModerationService, within limit: Duration)
    async throws
  {
    let since = state.withLock { $0.applied }
    let found = try await Self.firstOutcome { fail in
      let timer = Task {
        try await Task.sleep(for: limit)
        fail(StoreError("the store did not answer within \(limit)", isUnavailable: true))
      }
      defer { timer.cancel() }
      return try await self.changedApps(past: since, on: connection)
    }
    await apply(found, since: since, service: service)
  }

  /// An app changed past some change id: its last change and its current text (nil: deleted).
  private typealias ChangedApp = (app: String, change: Int64, text: String?)

  /// The apps changed past change `since`, each with its last change and current text, in one
  /// statement (one snapshot: the texts are at least as new as the ids).
  private func changedApps(past since: Int64, on connection: PostgresConnection) async throws -> [ChangedApp] {
    let rows = try await connection.query(
      """
      SELECT c.app, c.last, a.text
      FROM (SELECT app, max(id) AS last FROM winnow_changes WHERE id > \(since) GROUP BY app) c
      LEFT JOIN winnow_apps a USING (app)
      """, logger: logger)
    var found: [ChangedApp] = []
    for try await (app, change, text) in rows.decode((String, Int64, String?).self) {
      found.append((app, change, text))
    }
    return found
  }

  /// Compiles and puts in the lists of `found` that are newer than what this replica has.
  private func apply(_ found: [ChangedApp], since: Int64, service: ModerationService) async {
    guard !found.isEmpty else {
      state.withLock { $0.lastCaughtUp = .now }
      return
    }
    let newer = state.withLock { state in found.filter { $0.change > state.appChanges[$0.app, default: 0] } }
    let texts = newer.compactMap { item in item.text.map { (app: item.app, text: $0) } }
    let compiled = await Self.offThePool { service.compileAppLists(texts) }
    var lists: [String: ModerationService.CompiledAppList] = [:]
    var errors: [String] = []
    for (app, outcome) in compiled {
      switch outcome {
      case .success(let list): lists[app] = list
      case .failure(let error): errors += error.errors
      }
    }
    for error in errors { logger.error("a list in the store does not compile; the old one stays: store: \(error)") }
    let latest = found.map(\.change).max() ?? since
    state.withLock { state in
      var updates: [String: ModerationService.CompiledAppList?] = [:]
      for item in newer where item.change > state.appChanges[item.app, default: 0] {
        if item.text == nil {
          updates[item.app] = .some(nil)
        } else if let list = lists[item.app] {
          updates[item.app] = list
        } else {
          continue
        }
        state.appChanges[item.app] = item.change
      }
      service.setAppLists(updates)
      state.applied = max(state.applied, latest)
      state.lastCaughtUp = .now
      if !errors.isEmpty { state.lastError = "store: " + errors.joined(separator: "; ") }
    }
  }

  /// Changes the list of `app` with `change` in one transaction (see the type's notes) and puts
  /// the new list in `service`; returns what `change` counted. Nothing is written when the list
  /// does not change or `change` logs nothing.
  /// - Throws: ``ModerationServiceError`` when the list (or the changed list) has errors;
  ///   ``StoreError`` when the store cannot be reached or refuses (nothing is acknowledged).
  public func edit(
    app: String, origin: ChangeOrigin, service: ModerationService,
    _ change: @escaping @Sendable (inout WordListFile) -> (count: Int, changes: [ChangeLog.Pending])
  ) async throws -> Int {
    guard AppDirectory.isValidAppKey(app[...]) else {
      throw ModerationServiceError(errors: ["\(app): not an app key (letters, digits, - and _)"])
    }
    let logger = self.logger
    let outcome = try await withDeadline("change the list of \(app)") { [client] attempt in
      try await client.withTransaction(logger: logger) {
        connection -> (Int, (ModerationService.CompiledAppList, Int64)?) in
        try await connection.query("SELECT pg_advisory_xact_lock(\(PostgresStore.writeLock))", logger: logger)
        var text: String?
        for try await value in try await connection.query(
          "SELECT text FROM winnow_apps WHERE app = \(app)", logger: logger
        ).decode(String.self) {
          text = value
        }
        var file = WordListFile(parsing: text ?? "", path: app + ".txt")
        if !file.errors.isEmpty { throw ModerationServiceError(errors: file.errors.map(\.description)) }
        let before = file.text
        let (count, changes) = change(&file)
        guard file.text != before, !changes.isEmpty else { return (count, nil) }
        let compiled = try service.compileAppList(file)
        try await connection.query(
          """
          INSERT INTO winnow_apps (app, text) VALUES (\(app), \(file.text))
          ON CONFLICT (app) DO UPDATE SET text = EXCLUDED.text, updated = now()
          """, logger: logger)
        var last: Int64 = 0
        for change in changes {
          let rows = try await connection.query(
            """
            INSERT INTO winnow_changes (app, op, word, replace_word, replica, address, request_id)
            VALUES (\(app), \(change.op), \(change.word), \(change.replaceWord), \(origin.replica),
                    \(origin.address), \(origin.requestId))
            RETURNING id
            """, logger: logger)
          for try await id in rows.decode(Int64.self) { last = id }
        }
        try await connection.query("SELECT pg_notify(\(PostgresStore.channel), \(String(last)))", logger: logger)
        // The caller may have been answered unavailable meanwhile: then nothing is written.
        guard attempt.mayCommit() else { throw CancellationError() }
        return (count, (compiled, last))
      }
    }
    if let (compiled, id) = outcome.1 {
      state.withLock { state in
        // The follower may have put in a newer text already.
        guard id > state.appChanges[app, default: 0] else { return }
        state.appChanges[app] = id
        service.setAppLists([app: compiled])
      }
    }
    return outcome.0
  }

  /// The literal words of `app`'s list in the store, in list order.
  public func words(ofApp app: String) async throws -> [ModerationService.CustomWord] {
    let logger = self.logger
    let text = try await withDeadline("read the list of \(app)") { [client] _ in
      var text: String?
      for try await value in try await client.query("SELECT text FROM winnow_apps WHERE app = \(app)", logger: logger)
        .decode(String.self)
      {
        text = value
      }
      return text
    }
    guard let text else { return [] }
    return ModerationService.words(of: WordListFile(parsing: text, path: app + ".txt"))
  }

  /// The changes of `app` past `since`, oldest first.
  public func changes(app: String, since: Int64) async throws -> [ListChange] {
    let logger = self.logger
    return try await withDeadline("read the change log") { [client] _ in
      try await client.withConnection { connection in
        try await PostgresStore.changes(on: connection, app: app, since: since, after: .min, logger: logger)
      }
    }
  }

  private static func latestChange(on connection: PostgresConnection, logger: Logger) async throws -> Int64 {
    var latest: Int64 = 0
    for try await value in try await connection.query(
      "SELECT coalesce(max(id), 0)::bigint FROM winnow_changes", logger: logger
    ).decode(Int64.self) {
      latest = value
    }
    return latest
  }

  /// Runs `body`, or throws an unavailable ``StoreError`` after ``timeout``, or as soon as the
  /// follower has lost the store. The caller is answered then whatever `body` is doing (a
  /// connection that neither answers nor closes cannot hold a request): `body` is cancelled
  /// and, through the ``Attempt`` it is given, cannot commit any more. Once `body` has called
  /// ``Attempt/mayCommit()`` its outcome is awaited for up to ``commitGrace`` more; past that
  /// the caller is answered unavailable with the outcome unknown (the word API's edits are
  /// idempotent, so trying again is safe).
  private func withDeadline<T: Sendable>(
    _ what: String, _ body: @escaping @Sendable (Attempt) async throws -> T
  ) async throws -> T {
    let timeout = self.timeout
    let location = self.location
    let attempt = Attempt()
    let result: Result<T, any Error> = await withCheckedContinuation { outer in
      // Whichever comes first answers; the other finds nothing to resume.
      let once = Mutex<CheckedContinuation<Result<T, any Error>, Never>?>(outer)
      let finish: @Sendable (Result<T, any Error>) -> Void = { result in
        once.withLock { $0.take() }?.resume(returning: result)
      }
      let work = Task {
        do { finish(.success(try await body(attempt))) } catch { finish(.failure(error)) }
      }
      Task { [self] in
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline, once.withLock({ $0 != nil }) {
          try? await Task.sleep(for: .milliseconds(50))
          if !state.withLock({ $0.connected }) { break }
        }
        guard once.withLock({ $0 != nil }) else { return }
        let lost = !state.withLock { $0.connected }
        if !attempt.abandon() {
          // Committing: its answer is worth a little more waiting.
          let grace = ContinuousClock.now + Self.commitGrace
          while ContinuousClock.now < grace, once.withLock({ $0 != nil }) {
            try? await Task.sleep(for: .milliseconds(50))
          }
        }
        work.cancel()
        finish(
          .failure(
            StoreError(
              lost
                ? "cannot \(what): \(location) cannot be reached"
                : "cannot \(what): \(location) did not answer within \(timeout)", isUnavailable: true)))
      }
    }
    do {
      return try result.get()
    } catch let error as StoreError { throw error } catch let error as ModerationServiceError { throw error } catch {
      if let transaction = error as? PostgresTransactionError, let inner = transaction.closureError {
        if let list = inner as? ModerationServiceError { throw list }
        if let store = inner as? StoreError { throw store }
      }
      throw StoreError("cannot \(what) in \(location): \(PostgresStore.cause(of: error))", isUnavailable: true)
    }
  }

  /// How long an edit that has begun to commit is waited for past ``timeout``.
  static let commitGrace: Duration = .seconds(5)

  /// One call of ``withDeadline(_:_:)``: the body and the deadline agree through it on whether
  /// the body may still commit.
  private final class Attempt: Sendable {
    private enum Phase { case running, committing, abandoned }
    private let phase = Mutex(Phase.running)

    /// True, once, if the caller has not been answered: the body may commit. False if it was
    /// answered unavailable (the body must roll back).
    func mayCommit() -> Bool {
      phase.withLock { phase in
        guard phase == .running else { return false }
        phase = .committing
        return true
      }
    }

    /// True if the body had not begun to commit: it never will.
    func abandon() -> Bool {
      phase.withLock { phase in
        guard phase == .running else { return false }
        phase = .abandoned
        return true
      }
    }
  }

  /// Runs CPU work (compiling lists) on a dispatch queue, off the threads that answer requests.
  private static func offThePool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
      DispatchQueue.global(qos: .utility).async { continuation.resume(returning: work()) }
    }
  }
}
