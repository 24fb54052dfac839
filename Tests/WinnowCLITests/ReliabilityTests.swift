import Foundation
import Testing
import WinnowTestSupport

/// What `winnow` promises whatever its input: no signal death, no hang, no line lost. These run
/// against the release binary too (`scripts/test`), since that is what users run, and a path
/// that works in a debug build has trapped in release before.
@Suite("winnow under hostile input")
struct ReliabilityTests {
  static func run(_ arguments: [String], stdin: String = "") async throws -> CLITests.Result {
    try await CLITests.run(arguments, stdin: stdin)
  }

  /// A dump of `count` lines, the sample dump's lines over and over (every format and kind).
  static func sampleDump(lines count: Int) throws -> String {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let sample = try String(contentsOf: root.appendingPathComponent("samples/messages.jsonl"), encoding: .utf8)
      .split(separator: "\n", omittingEmptySubsequences: true)
    #expect(sample.count > 1000)
    let lines = (0..<count).map { sample[$0 % sample.count] }
    return try CLITests.temporaryFile("dump.jsonl", lines.joined(separator: "\n") + "\n")
  }

  /// Whether the binary under test is the release build. Wall-clock bounds are checked on it
  /// alone: the debug suite runs dozens of debug processes at once on two cores, and one
  /// command's few seconds have stretched past a minute there.
  static let isReleaseBinary = ProcessInfo.processInfo.environment["WINNOW_TEST_BINARY"] != nil

  /// A new, empty directory of this test run.
  static func emptyDirectory(_ prefix: String) throws -> URL {
    let directory = CLITests.temporaryPath(prefix)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
  }

  /// The first number of `read = …` in a scan's summary.
  static func linesRead(_ stderr: String) -> Int? {
    guard let line = stderr.split(separator: "\n").first(where: { $0.contains(" lines read = ") }) else { return nil }
    return Int(line.split(separator: " ")[2])
  }

  // MARK: - The reviewer

  enum Behaviour: String, CaseIterable {
    case refused, passes, rejects, malformed, serverError, slow
  }

  /// Every line of a reviewer scan gets its result, whatever the reviewer does and whichever
  /// the failure policy, with one job and with two: 10,000 lines against the release binary,
  /// 2,000 against the slower debug one. The behaviours run one after another: twelve scans at
  /// once starved the other suites' reviewer timeouts on two cores.
  @Test func aReviewerScanAccountsForEveryLine() async throws {
    let count = Self.isReleaseBinary ? 10_000 : 2_000
    let dump = try Self.sampleDump(lines: count)
    var checked = 0
    for behaviour in Behaviour.allCases {
      let server: TestHTTPServer? =
        behaviour == .refused
        ? nil
        : try await TestHTTPServer { _ in
          switch behaviour {
          case .refused, .passes: .init(body: #"{"pass":1}"#)
          case .rejects: .init(body: #"{"pass":0,"extra":"no"}"#)
          case .malformed: .init(body: "not json")
          case .serverError: .init(status: 500, body: "{}")
          case .slow: .init(body: #"{"pass":1}"#, delay: .seconds(5))
          }
        }
      // Nothing listens on port 9 of 127.0.0.1: every call is refused at once.
      let url = server?.url ?? "http://127.0.0.1:9/review"
      for (policy, jobs) in [("--fail-open", "1"), ("--fail-closed", "2")] {
        var arguments = ["scan", "--all", "--no-progress", "--jobs", jobs, "--reviewer-url", url, policy, dump]
        if behaviour == .slow { arguments += ["--timeout", "0.05", "--reviewer-concurrency", "256"] }
        let result = try await Self.run(arguments)
        #expect(result.status == 1, "\(behaviour) \(policy): \(result.stderr.suffix(300))")
        let records = result.stdout.split(separator: "\n")
        #expect(records.count == count, "\(behaviour) \(policy)")
        #expect(Self.linesRead(result.stderr) == count, "\(behaviour) \(policy)")
        #expect(records.allSatisfy { $0.contains(#""verdict":"#) })
        if let last = records.last { #expect(last.hasPrefix(#"{"file":"\#(dump)","line":\#(count),"#)) }
        // And each call's outcome is the behaviour's: a fast reviewer answers every call (the
        // cap on calls in flight refuses none), a failing one fails every call, and the policy
        // decides those items' verdicts.
        let reviewer = Self.reviewerCounts(result.stderr)
        let calls = reviewer["calls"] ?? 0
        #expect(calls > count / 2, "\(behaviour) \(policy): \(reviewer)")
        let expected: String =
          switch behaviour {
          case .passes: "passed"
          case .rejects: "rejected"
          case .refused, .malformed, .serverError: "failed"
          case .slow: "timed out"
          }
        if behaviour == .slow {
          // No answer comes in time, so every call ends timed out or failed. Most time out; a
          // connection attempt the loaded server does not accept within the client's connect
          // timeout fails the calls that were waiting for it (seen in CI: 39 of 9,999).
          let timedOut = reviewer["timed out"] ?? 0
          #expect(timedOut + (reviewer["failed"] ?? 0) == calls, "\(behaviour) \(policy): \(reviewer)")
          #expect(timedOut > calls * 9 / 10, "\(behaviour) \(policy): \(reviewer)")
        } else {
          #expect(reviewer[expected] == calls, "\(behaviour) \(policy): \(reviewer)")
        }
        let thirdParty = records.count { $0.contains(#""blockType":3"#) }
        let blocksByReviewer = behaviour == .rejects || (behaviour != .passes && policy == "--fail-closed")
        #expect(thirdParty == (blocksByReviewer ? calls : 0), "\(behaviour) \(policy)")
        checked += 1
      }
      try await server?.shutdown()
    }
    #expect(checked == 2 * Behaviour.allCases.count)
  }

  /// The counts of a scan summary's reviewer line (`reviewer: 9 calls, 9 passed, 0 review, …`),
  /// by name.
  static func reviewerCounts(_ stderr: String) -> [String: Int] {
    guard let line = stderr.split(separator: "\n").first(where: { $0.contains("reviewer: ") }),
      let range = line.range(of: "reviewer: ")
    else { return [:] }
    var counts: [String: Int] = [:]
    for part in line[range.upperBound...].split(separator: ",") {
      let words = part.split(separator: " ", maxSplits: 1)
      if words.count == 2, let value = Int(words[0]) { counts[String(words[1])] = value }
    }
    return counts
  }

  // MARK: - Values that could overflow

  /// An absurd history-log time is one error record: the lines after it are scanned and the
  /// summary is written, in `scan`, `diff` and `words stats --corpus`.
  @Test func anAbsurdTimeIsOneErrorRecord() async throws {
    let good =
      #"{"classname":"RC:TxtMsg","targetType":1,"targetId":"u","content":{"content":"hi"},"dateTime":"2024-01-02 03:04:05.678"}"#
    let absurd = [
      "99999999999999-01-02 03:04:05.678", "2024-01-02 99999999999999:04:05.678",
      "2024-01-02 03:04:05.99999999999999999", "2024-01-02 03:04:99999999999999", "2024-13-02 03:04:05",
    ].map { good.replacingOccurrences(of: "2024-01-02 03:04:05.678", with: $0) }
    let dump = try CLITests.temporaryFile("times.jsonl", ([good] + absurd + [good]).joined(separator: "\n") + "\n")
    let scan = try await Self.run(["scan", "--no-progress", dump])
    #expect(scan.status == 3)
    let records = scan.stdout.split(separator: "\n")
    #expect(records.count == absurd.count)
    #expect(records.allSatisfy { $0.contains(#""error":"field \"dateTime\" must be yyyy-MM-dd HH:mm:ss.SSS""#) })
    #expect(Self.linesRead(scan.stderr) == absurd.count + 2)
    let list = try CLITests.temporaryFile("list.txt", "hello\n")
    let diff = try await Self.run(["diff", "--old", list, "--new", list, dump])
    #expect(diff.status == 0, "\(diff.stderr)")
    #expect(diff.stdout.hasPrefix("\(absurd.count + 2) items read, \(absurd.count) unreadable, 0 changed verdict\n"))
    let stats = try await Self.run(["words", "stats", list, "--corpus", dump])
    #expect(stats.status == 0, "\(stats.stderr)")
    #expect(stats.stdout.contains("corpus: \(absurd.count + 2) items, 0 blocked, 0 replaced, \(absurd.count) errors\n"))
  }

  @Test(arguments: ["nan", "inf", "-inf", "1e300", "1e10", "0", "-1", "86401"])
  func anUnusableTimeoutIsAUsageError(_ value: String) async throws {
    let result = try await Self.run([
      "check", "--item", "-", "--reviewer-url", "http://127.0.0.1:9/", "--timeout=\(value)",
    ])
    #expect(result.status == 64)
    #expect(result.stderr.contains("--timeout must be a number of seconds more than 0 and at most 86400"))
  }

  @Test func aReviewerURLThatCanNeverBeCalledIsAUsageError() async throws {
    // A scheme forgotten: with fail-open, every call failing would have delivered everything.
    let result = try await Self.run(["scan", "--reviewer-url", "localhost:8080", "-"])
    #expect(result.status == 64)
    #expect(result.stderr.contains("--reviewer-url localhost:8080: the scheme must be http or https, not localhost"))
  }

  /// The default mode (blocked and replaced lines only, clean lines counted in place) writes
  /// the same results and the same summary whatever the jobs: only the timing line differs.
  @Test func jobsChangeNeitherTheResultsNorTheSummary() async throws {
    let dump = try Self.sampleDump(lines: 20_000)
    var outputs: [(stdout: String, summary: [String])] = []
    for jobs in ["1", "2", "3"] {
      let result = try await Self.run(["scan", "--no-progress", "--jobs", jobs, dump])
      #expect(result.status == 1)
      outputs.append(
        (result.stdout, result.stderr.split(separator: "\n").map(String.init).filter { !$0.contains(" MB in ") }))
    }
    #expect(outputs.count == 3)
    #expect(outputs[0].stdout.split(separator: "\n").count > 20, "blocked lines are written")
    #expect(outputs[0].summary.first?.hasPrefix("winnow scan: 20000 lines read = ") == true)
    for output in outputs.dropFirst() {
      #expect(output.stdout == outputs[0].stdout)
      #expect(output.summary == outputs[0].summary)
    }
  }

  @Test func tooManyJobsIsAUsageErrorAndEveryAllowedCountFinishes() async throws {
    let dump = try Self.sampleDump(lines: 3000)
    let refused = try await Self.run(["scan", "--jobs", "40000", dump])
    #expect(refused.status == 64)
    #expect(refused.stderr.contains("--jobs must be from 1 to 256"))
    let most = try await Self.run(["scan", "--no-progress", "--jobs", "256", dump])
    #expect(most.status == 1)
    #expect(Self.linesRead(most.stderr) == 3000)
  }

  // MARK: - Word lists

  @Test func anOverlongEntryIsAnErrorNamingItsLine() async throws {
    let long = String(repeating: "长", count: 400)
    let list = try CLITests.temporaryFile("long.txt", "ok\n\(long)\nre:\(String(repeating: "a", count: 2000))\n")
    let start = ContinuousClock.now
    let result = try await Self.run(["check", "--custom", list, "hello"])
    #expect(result.status == 2)
    #expect(
      result.stderr.contains(
        "\(list):2: entry is 1200 bytes long; the most is 1024 (a longer one costs time and memory growing"))
    #expect(result.stderr.contains("\(list):3: entry is 2000 bytes long"))
    let lint = try await Self.run(["words", "lint", list])
    #expect(lint.status == 1)
    #expect(lint.stdout.contains("\(list):2: entry is 1200 bytes long"))
    if Self.isReleaseBinary { #expect(ContinuousClock.now - start < .seconds(60)) }
  }

  // MARK: - Custom lists

  /// An app's `allow:` entry cannot un-block a global word unless the operator allows it.
  @Test func aCustomAllowCannotUnblockAGlobalWordByDefault() async throws {
    let global = try CLITests.temporaryFile("zh.txt", "[profanity]\nsub:ass\n")
    let directory = URL(fileURLWithPath: global).deletingLastPathComponent().path
    let app = try CLITests.temporaryFile("app.txt", "allow:assessment\n")
    let item = #"{"msgUID":"M1","content":{"content":"the assessment"}}"#
    let strict = try await Self.run(["check", "--global", directory, "--custom", app, "--item", item])
    #expect(strict.status == 1)
    #expect(strict.stdout.hasPrefix("verdict: blocked (blockType 1)"))
    let permissive = try await Self.run([
      "check", "--global", directory, "--custom", app, "--custom-allow-global", "--item", item,
    ])
    #expect(permissive.status == 0)
    #expect(permissive.stdout.hasPrefix("verdict: pass"))
  }

  // MARK: - Regexes

  /// A regex that backtracks or rescans without bound over a 100 KB text is stopped within its
  /// budget, and the stopped check is written and counted, never a silent pass.
  @Test func anUnboundedRegexIsStoppedAndReported() async throws {
    let list = try CLITests.temporaryFile("regexes.txt", "re:(\\w+)\\s\\1\nre:\\w*\\w*\\w*\\w*\\w*z\n")
    let word = String(repeating: "ab", count: 50_000)
    let lines = [
      #"{"msgUID":"R1","content":{"content":"\#(word)"}}"#, #"{"msgUID":"R2","content":{"content":"\#(word) z"}}"#,
      #"{"msgUID":"R3","content":{"content":"hello hello"}}"#,
    ]
    let dump = try CLITests.temporaryFile("long.jsonl", lines.joined(separator: "\n") + "\n")
    let start = ContinuousClock.now
    let result = try await Self.run([
      "scan", "--no-progress", "--no-global", "--content-limit", "200000", "--custom", list, dump,
    ])
    if Self.isReleaseBinary { #expect(ContinuousClock.now - start < .seconds(60)) }
    #expect(result.status == 3, "\(result.stderr)")
    let records = result.stdout.split(separator: "\n")
    try #require(records.count == 3)
    #expect(records[0].contains(#""msgUID":"R1""#) && records[0].contains(#""verdict":"pass""#))
    #expect(records[0].contains(#"stopped: time budget of 0.2 seconds exceeded"#))
    #expect(records[1].contains(#"stopped: match limit exceeded"#))
    #expect(records[2].contains(#""verdict":"blocked""#))
    #expect(result.stderr.contains("  checks stopped by regex limits: 2 (their results carry \"warnings\")"))
  }

  @Test func lintWarnsOfRegexesThatMayBacktrackWithoutBound() async throws {
    let list = try CLITests.temporaryFile("regexes.txt", "re:(\\w+)\\s\\1\nre:(a+)+b\nre:\\d{11}\n")
    let result = try await Self.run(["words", "lint", list])
    #expect(result.status == 1)
    let warning = "regex may backtrack without bound: it has"
    let limit = "; on a long text its check stops at its limits"
    #expect(
      result.stdout == """
        \(list):1: \(warning) a backreference\(limit)
        \(list):2: \(warning) a repeated group that holds a repeat\(limit)

        """)
  }

  // MARK: - The output file

  @Test func anUnwritableOutputExitsTwoAndLeavesNothingBehind() async throws {
    let dump = try Self.sampleDump(lines: 100)
    let directory = try Self.emptyDirectory("out")
    let target = directory.appendingPathComponent("results")
    try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
    let result = try await Self.run(["scan", "--no-progress", "--output", target.path, dump])
    #expect(result.status == 2)
    #expect(result.stderr.contains("winnow: cannot write \(target.path): Is a directory"))
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["results"])
    let missing = try await Self.run(["scan", "--no-progress", "--output", "/nonexistent/dir/out.jsonl", dump])
    #expect(missing.status == 2)
    #expect(missing.stderr.contains("cannot write /nonexistent/dir/out.jsonl: No such file or directory"))
  }

  @Test func aWrittenOutputIsWholeAndReadable() async throws {
    let dump = try Self.sampleDump(lines: 500)
    let directory = try Self.emptyDirectory("out")
    let target = directory.appendingPathComponent("results.jsonl")
    let result = try await Self.run(["scan", "--no-progress", "--all", "--output", target.path, dump])
    #expect(result.status == 1)
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["results.jsonl"])
    let written = try String(contentsOf: target, encoding: .utf8)
    #expect(written.split(separator: "\n").count == 500)
    let mode = try FileManager.default.attributesOfItem(atPath: target.path)[.posixPermissions] as? Int
    #expect(mode.map { $0 & 0o600 } == 0o600)
  }

  /// A list edit goes through a new temporary file too: the list keeps its permissions, and
  /// nothing else is left beside it.
  @Test func aListEditKeepsThePermissionsAndLeavesNothingBehind() async throws {
    let directory = try Self.emptyDirectory("edit")
    let list = directory.appendingPathComponent("app.txt").path
    try "alpha\n".write(toFile: list, atomically: false, encoding: .utf8)
    try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: list)
    let add = try await Self.run(["words", "add", list, "beta"])
    #expect(add.status == 0, "\(add.stderr)")
    #expect(try String(contentsOfFile: list, encoding: .utf8) == "alpha\nbeta\n")
    #expect(try FileManager.default.attributesOfItem(atPath: list)[.posixPermissions] as? Int == 0o640)
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["app.txt"])
  }

  /// SIGINT or SIGTERM in the middle of a scan removes the temporary output file.
  @Test(arguments: [SIGINT, SIGTERM])
  func aSignalRemovesTheTemporaryOutput(_ signalNumber: Int32) async throws {
    let directory = try Self.emptyDirectory("signal")
    let process = Process()
    process.executableURL = CLITests.executable
    process.arguments = ["scan", "--no-progress", "--output", directory.appendingPathComponent("out.jsonl").path, "-"]
    process.environment = ProcessInfo.processInfo.environment.merging([
      "WINNOW_CACHE_DIR": CLITests.cacheDirectory.path
    ]) { $1 }
    let input = Pipe()
    process.standardInput = input
    process.standardError = FileHandle.nullDevice
    try process.run()
    // The scan is under way (its temporary file exists) and waits for more input.
    input.fileHandleForWriting.write(Data(#"{"msgUID":"A","content":{"content":"hello"}}"#.utf8 + [10]))
    var waited = 0
    while try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty, waited < 1200 {
      try await Task.sleep(for: .milliseconds(50))
      waited += 1
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).count == 1)
    kill(process.processIdentifier, signalNumber)
    #expect(try await Self.endsOnSignal(process))
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    try? input.fileHandleForWriting.close()
  }

  /// Whether `process`, sent a signal, ends on one (see `Process.waitForExit(grace:)`).
  static func endsOnSignal(_ process: Process) async throws -> Bool {
    if case .signalled = await process.ended() { return true }
    return false
  }

  /// The harness's own wait (`Process.waitForExit`), which every command-line test's run ends
  /// in: an exit's status, a signal's number, and a child still running at the limit killed
  /// and reaped.
  @Test func theHarnessReadsHowAChildEnded() async throws {
    func shell(_ script: String) throws -> Process {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: "/bin/sh")
      process.arguments = ["-c", script]
      try process.run()
      return process
    }
    #expect(try shell("exit 3").waitForExit() == .exited(3))
    #expect(try shell("kill -KILL $$").waitForExit() == .signalled(SIGKILL))
    let sleeper = try shell("exec sleep 30")
    let start = ContinuousClock.now
    #expect(sleeper.waitForExit(orKillAfter: .milliseconds(200)) == nil)
    #expect(ContinuousClock.now - start < .seconds(10))
    // Reaped: no process of that id is left (a zombie would still answer signal 0).
    #expect(kill(sleeper.processIdentifier, 0) == -1)
  }
}
