import Foundation

/// A throwaway PostgreSQL cluster for a test: `initdb` into a temporary directory, listening
/// only on a Unix socket there, with `trust` authentication for the user `winnow`; stopped and
/// removed by ``stop()``. PostgreSQL refuses to run as root, so under root (CI) the cluster
/// runs as `nobody`. Debian's `postgresql` package provides the programs (`.ci/run` installs
/// it); a machine without them fails the test with a message saying so.
public final class TestPostgres: @unchecked Sendable {
  /// The directory of the cluster and its socket.
  public let directory: String
  /// `postgres://winnow@/postgres?host=DIRECTORY`.
  public var url: String { "postgres://winnow@/postgres?host=\(directory)" }
  private let binaries: String
  private var stopped = false

  public struct Failure: Error, CustomStringConvertible {
    public let description: String
  }

  /// Starts a cluster on a Dispatch thread (its programs are waited for, which must not hold a
  /// thread of the concurrency pool); throws ``Failure`` naming what is missing or what failed.
  public static func start() async throws -> TestPostgres {
    try await withCheckedThrowingContinuation { continuation in
      DispatchQueue.global().async { continuation.resume(with: Result { try TestPostgres() }) }
    }
  }

  private init() throws {
    guard let binaries = Self.binaries() else {
      throw Failure(
        description: "PostgreSQL's initdb and pg_ctl were not found: install Debian's postgresql (.ci/run does)")
    }
    self.binaries = binaries
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "winnow-pg-\(UUID().uuidString.prefix(8))"
    ).path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    self.directory = directory
    if getuid() == 0 {
      guard chown(directory, Self.nobody, gid_t.max) == 0 else {
        throw Failure(description: "cannot give \(directory) to nobody")
      }
    }
    try run(
      "\(binaries)/initdb", ["-D", "\(directory)/data", "-U", "winnow", "--auth=trust", "-E", "UTF8", "--no-locale"])
    try run(
      "\(binaries)/pg_ctl",
      [
        "-D", "\(directory)/data", "-o", "-k \(directory) -c listen_addresses='' -c fsync=off", "-l",
        "\(directory)/log", "-w", "start",
      ])
  }

  /// Stops the server (`-m fast`: connections are closed, as in a database restart), keeping
  /// its files for ``restart()``.
  public func pause() async throws {
    try await onThread {
      try self.run("\(self.binaries)/pg_ctl", ["-D", "\(self.directory)/data", "-m", "fast", "-w", "stop"])
    }
  }

  /// Takes `LOCK TABLE table IN ACCESS EXCLUSIVE MODE` in a transaction `psql` holds open until
  /// ``TableLock/release()``: every read of the table waits meanwhile, with the database up and
  /// answering nothing, as behind a migration that holds the table. Returns once the lock is
  /// held.
  public func lock(_ table: String) async throws -> TableLock {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "\(binaries)/psql")
    process.arguments = ["-X", "-h", directory, "-U", "winnow", "-d", "postgres"]
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    input.fileHandleForWriting.write(Data("BEGIN;\nLOCK TABLE \(table) IN ACCESS EXCLUSIVE MODE;\n".utf8))
    let handle = output.fileHandleForReading
    let locked = await withCheckedContinuation { continuation in
      DispatchQueue.global().async {
        var text = ""
        while !text.contains("LOCK TABLE") {
          let data = handle.availableData
          if data.isEmpty { break }
          text += String(decoding: data, as: UTF8.self)
        }
        continuation.resume(returning: text.contains("LOCK TABLE"))
      }
    }
    let lock = TableLock(process: process, input: input)
    guard locked else {
      await lock.release()
      throw Failure(description: "psql did not take the lock on \(table)")
    }
    return lock
  }

  /// A lock ``lock(_:)`` took.
  public final class TableLock: @unchecked Sendable {
    private let process: Process
    private let input: Pipe

    init(process: Process, input: Pipe) {
      self.process = process
      self.input = input
    }

    /// Ends `psql`'s input: it exits, and its transaction and lock end with its connection.
    public func release() async {
      try? input.fileHandleForWriting.close()
      _ = await process.ended()
    }
  }

  /// Stops (`SIGSTOP`) or resumes (`SIGCONT`) the server and all its processes: a database
  /// that neither answers nor closes its connections, as behind a network partition.
  ///
  /// The postmaster is stopped before its children are listed: listed first, a backend forked
  /// between the listing and the stop (a replica's follower connecting just then) was left
  /// running, answered its connection's reads, and the replica never found the store gone.
  public func freeze(_ frozen: Bool) throws {
    let pidFile = "\(directory)/data/postmaster.pid"
    guard let text = try? String(contentsOfFile: pidFile, encoding: .utf8),
      let first = text.split(separator: "\n").first, let postmaster = pid_t(first)
    else { throw Failure(description: "no server is running in \(directory)") }
    if frozen {
      kill(postmaster, SIGSTOP)
      for pid in children(of: postmaster) { kill(pid, SIGSTOP) }
    } else {
      for pid in children(of: postmaster) { kill(pid, SIGCONT) }
      kill(postmaster, SIGCONT)
    }
  }

  /// The processes whose parent is `parent`, from `/proc`.
  private func children(of parent: pid_t) -> [pid_t] {
    var out: [pid_t] = []
    for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
      guard let pid = pid_t(entry),
        let status = try? String(contentsOfFile: "/proc/\(entry)/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("PPid:") }),
        pid_t(line.dropFirst(5).trimmingCharacters(in: .whitespaces)) == parent
      else { continue }
      out.append(pid)
    }
    return out
  }

  /// Starts the server again after ``pause()``.
  public func restart() async throws {
    try await onThread {
      try self.run(
        "\(self.binaries)/pg_ctl",
        [
          "-D", "\(self.directory)/data", "-o", "-k \(self.directory) -c listen_addresses='' -c fsync=off", "-l",
          "\(self.directory)/log", "-w", "start",
        ])
    }
  }

  private func onThread(_ work: @escaping @Sendable () throws -> Void) async throws {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
      DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
    }
  }

  /// Stops the cluster at once and removes its files.
  public func stop() async {
    await withCheckedContinuation { continuation in
      DispatchQueue.global().async {
        self.stopNow()
        continuation.resume()
      }
    }
  }

  private func stopNow() {
    guard !stopped else { return }
    stopped = true
    try? run("\(binaries)/pg_ctl", ["-D", "\(directory)/data", "-m", "immediate", "-w", "stop"])
    try? FileManager.default.removeItem(atPath: directory)
  }

  deinit {
    // A test that failed before stopping it: stop the server without waiting for it.
    guard !stopped else { return }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: getuid() == 0 ? "/usr/sbin/runuser" : "\(binaries)/pg_ctl")
    let arguments = ["-D", "\(directory)/data", "-m", "immediate", "stop"]
    process.arguments = getuid() == 0 ? ["-u", "nobody", "--", "\(binaries)/pg_ctl"] + arguments : arguments
    try? process.run()
  }

  /// Runs a PostgreSQL program, as `nobody` under root, and waits for it with `waitpid`: its
  /// output goes to a file (the server `pg_ctl start` leaves running keeps it open, so a pipe
  /// would never end), and Foundation's `Process` did not see `runuser` end here.
  private func run(_ program: String, _ arguments: [String]) throws {
    let argv = (getuid() == 0 ? ["/usr/sbin/runuser", "-u", "nobody", "--", program] : [program]) + arguments
    let outputPath = "\(directory)/\((program as NSString).lastPathComponent)-\(UUID().uuidString.prefix(8)).out"
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    var cArguments = argv.map { strdup($0) } + [nil]
    defer { for argument in cArguments { free(argument) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, argv[0], &actions, nil, &cArguments, environ)
    guard spawned == 0 else {
      throw Failure(description: "cannot run \(argv[0]): \(String(cString: strerror(spawned)))")
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    // Exited normally with status 0: the low 7 bits (the signal) and the exit code are 0.
    guard status == 0 else {
      let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
      throw Failure(description: "\(program) failed (wait status \(status)): \(text.suffix(2000))")
    }
  }

  private static var nobody: uid_t { getpwnam("nobody")?.pointee.pw_uid ?? 65534 }

  /// The directory holding `initdb` and `pg_ctl`: Debian's `/usr/lib/postgresql/N/bin`
  /// (newest first), or the PATH's.
  private static func binaries() -> String? {
    let root = "/usr/lib/postgresql"
    let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [])
      .compactMap(Int.init).sorted(by: >)
    for version in versions where FileManager.default.isExecutableFile(atPath: "\(root)/\(version)/bin/initdb") {
      return "\(root)/\(version)/bin"
    }
    for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
    where FileManager.default.isExecutableFile(atPath: "\(directory)/initdb") {
      return String(directory)
    }
    return nil
  }
}
