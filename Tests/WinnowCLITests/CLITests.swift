import Foundation
import Synchronization
import Testing
import WinnowTestSupport

/// Runs the built `winnow` binary and compares standard output, standard error and exit status.
@Suite("winnow command line")
struct CLITests {
  struct Result {
    /// The exit status, or 128 plus the signal's number for a process a signal ended (as a
    /// shell reports it).
    var status: Int32
    var stdout: String
    var stderr: String
  }

  /// The `winnow` executable under test: `WINNOW_TEST_BINARY` when set (`scripts/test` runs
  /// these tests a second time against the release build, which is what users run), else the
  /// debug one beside the test bundle (SwiftPM builds it for this test target).
  static let executable: URL = {
    if let path = ProcessInfo.processInfo.environment["WINNOW_TEST_BINARY"], !path.isEmpty {
      return URL(fileURLWithPath: path)
    }
    return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("winnow")
  }()

  /// The directory that holds every file these tests write, removed when the test process
  /// exits: each run used to leave its files and compiled-list caches (17 MB each) behind.
  static let runDirectory: URL = {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "winnow-cli-tests-\(UUID().uuidString)")
    runDirectoryPath.withLock { $0 = directory.path }
    atexit {
      if let path = CLITests.runDirectoryPath.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
    }
    return directory
  }()

  /// ``runDirectory``'s path for the exit handler, which cannot capture it.
  private static let runDirectoryPath = Mutex<String?>(nil)

  /// A new, not yet created path inside ``runDirectory``.
  static func temporaryPath(_ prefix: String) -> URL {
    runDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
  }

  /// The compiled-list cache of this test run (`WINNOW_CACHE_DIR`), shared by every test, so
  /// that runs read back what earlier ones wrote, as they would on a user's machine.
  static let cacheDirectory = temporaryPath("cache")

  /// Runs winnow on a Dispatch thread, so that the blocking pipe reads and the wait keep no
  /// thread of the concurrency pool busy (other suites time things on it).
  static func run(
    _ arguments: [String], stdin: String = "", directory: URL? = nil, cache: URL = cacheDirectory
  ) async throws -> Result {
    try await withCheckedThrowingContinuation { continuation in
      DispatchQueue.global().async {
        continuation.resume(
          with: Swift.Result { try runBlocking(arguments, stdin: stdin, directory: directory, cache: cache) })
      }
    }
  }

  private static func runBlocking(_ arguments: [String], stdin: String, directory: URL?, cache: URL) throws -> Result {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(["WINNOW_CACHE_DIR": cache.path]) { $1 }
    if let directory { process.currentDirectoryURL = directory }
    let input = Pipe()
    let output = Pipe()
    let error = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = error
    try process.run()
    // The error output is read on a thread of its own: one pipe read to its end before the
    // other is opened deadlocks once the child fills the other's buffer.
    let reading = DispatchGroup()
    let errorData = Mutex(Data())
    DispatchQueue.global().async(group: reading) {
      let data = error.fileHandleForReading.readDataToEndOfFile()
      errorData.withLock { $0 = data }
    }
    input.fileHandleForWriting.write(Data(stdin.utf8))
    try input.fileHandleForWriting.close()
    let out = output.fileHandleForReading.readDataToEndOfFile()
    reading.wait()
    let err = errorData.withLock { $0 }
    let status: Int32
    switch process.waitForExit() {
    case .exited(let code): status = code
    case .signalled(let signal): status = 128 + signal
    }
    return Result(
      status: status, stdout: String(decoding: out, as: UTF8.self),
      stderr: String(decoding: err, as: UTF8.self))
  }

  static func temporaryFile(_ name: String, _ contents: String) throws -> String {
    let directory = temporaryPath("files")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let path = directory.appendingPathComponent(name).path
    try contents.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  @Test func matchReportsOverlappingMatchesAsJSON() async throws {
    let patterns = try Self.temporaryFile("p.json", #"["he","she","his","hers"]"#)
    let result = try await Self.run(["match", "--patterns", patterns, "--overlapping", "--json"], stdin: "ushers")
    #expect(result.status == 1, "1 when something matched, as for every command")
    #expect(
      result.stdout == """
        {"pattern":1,"start":1,"end":4}
        {"pattern":0,"start":2,"end":4}
        {"pattern":3,"start":2,"end":6}

        """)
    #expect(result.stderr.isEmpty)
  }

  @Test func matchSemanticsAndCharacterOffsets() async throws {
    let patterns = try Self.temporaryFile("p.txt", "傻逼\n傻逼玩意\n")
    let longest = try await Self.run(
      ["match", "--patterns", patterns, "--patterns-format", "lines", "--semantics", "leftmost-longest"],
      stdin: "你傻逼玩意")
    #expect(longest.stdout == "1\t3\t15\n")
    let chars = try await Self.run(
      ["match", "--patterns", patterns, "--patterns-format", "lines", "--offsets", "chars"], stdin: "你傻逼玩意")
    #expect(chars.stdout == "0\t1\t3\n")
  }

  @Test func matchNormalizesOnRequestAndKeepsOriginalOffsets() async throws {
    let patterns = try Self.temporaryFile("p.json", #"["fuck"]"#)
    let raw = try await Self.run(["match", "--patterns", patterns], stdin: "ｆ.u.c.k")
    #expect(raw.status == 0, "0 when nothing matched")
    #expect(raw.stdout.isEmpty)
    let normalized = try await Self.run(["match", "--patterns", patterns, "--normalize"], stdin: "ｆ.u.c.k")
    #expect(normalized.stdout == "0\t0\t9\n")
    #expect(normalized.status == 1)
  }

  /// A line in a script the patterns do not write is not normalized (the alphabet filter);
  /// one where a listed word sits among such characters, folded or not, still matches.
  @Test func matchPerLineSkipsOnlyLinesThatCannotMatch() async throws {
    let patterns = try Self.temporaryFile("p.txt", "fuck\n傻逼\n")
    let result = try await Self.run(
      ["match", "--patterns", patterns, "--patterns-format", "lines", "--normalize", "--per-line", "--count"],
      stdin: "नमस्ते दुनिया\nनमस्ते ｆｕｃｋ\nשלום 傻 逼\n𐑣𐑧𐑤𐑴 𐑦𐑯\n")
    #expect(result.stdout == "2\n")
    #expect(result.status == 1)
  }

  /// `--normalize-only` counts the lines it normalized, the line no pattern's characters can
  /// come from left out, matches nothing, and times it like a scan.
  @Test func matchNormalizeOnlyCountsTheTextsNormalized() async throws {
    let patterns = try Self.temporaryFile("p.txt", "fuck\n傻逼\n")
    let result = try await Self.run(
      [
        "match", "--patterns", patterns, "--patterns-format", "lines", "--normalize", "--per-line", "--count",
        "--normalize-only", "--stats",
      ],
      stdin: "नमस्ते दुनिया\nनमस्ते ｆｕｃｋ\n傻 逼\n")
    #expect(result.stdout == "2\n")
    #expect(result.status == 0)
    let stats = try #require(JSONSerialization.jsonObject(with: Data(result.stderr.utf8)) as? [String: Any])
    #expect(stats["messages"] as? Int == 3)
    #expect(stats["scan_seconds"] as? Double != nil)
    let alone = try await Self.run(["match", "--patterns", patterns, "--normalize-only", "--count"])
    #expect(alone.status == 64)
    #expect(alone.stderr.contains("--normalize-only needs --normalize and --per-line"))
  }

  @Test func matchRejectsInvalidCombinationsAndEmptyPatterns() async throws {
    let patterns = try Self.temporaryFile("p.txt", "a\n\nb\n")
    let combination = try await Self.run([
      "match", "--patterns", patterns, "--semantics", "leftmost-first", "--overlapping",
    ])
    #expect(combination.status == 64)
    #expect(combination.stderr.contains("--overlapping works with --semantics standard only, not leftmost-first"))
    let empty = try await Self.run(["match", "--patterns", patterns, "--patterns-format", "lines"])
    #expect(empty.status == 64)
    #expect(empty.stderr.contains("\(patterns):2 is empty; every pattern needs at least one character"))
  }

  @Test func matchStatsAreOneJSONObject() async throws {
    let patterns = try Self.temporaryFile("p.json", #"["a"]"#)
    let result = try await Self.run(["match", "--patterns", patterns, "--stats"], stdin: "banana")
    let stats = try #require(JSONSerialization.jsonObject(with: Data(result.stderr.utf8)) as? [String: Any])
    #expect(stats["patterns"] as? Int == 1)
    #expect(stats["bytes"] as? Int == 6)
    #expect(stats["matches"] as? Int == 3)
    #expect(stats["build_seconds"] is Double && stats["scan_seconds"] is Double)
  }

  @Test func checkExplainsEachMatchAsJSON() async throws {
    let list = try Self.temporaryFile("custom.txt", "[drugs]\nk粉\n秒杀 => **\n")
    let result = try await Self.run(["check", "--no-global", "--custom", list, "--json", "卖k粉，秒 杀"])
    #expect(result.status == 1)
    #expect(
      result.stdout == """
        {"text":"卖k粉，秒 杀","matches":[\
        {"text":"k粉","start":3,"end":7,"entry":"k粉","kind":"literal","action":"block","origin":"custom",\
        "list":"\(list)","file":"\(list)","line":2,"category":"drugs"},\
        {"text":"秒 杀","start":10,"end":17,"entry":"秒杀","kind":"literal","action":"replace","replacement":"**",\
        "origin":"custom","list":"\(list)","file":"\(list)","line":3,"category":"drugs"}],\
        "masked":"卖**，**","warnings":[]}

        """)
  }

  @Test func checkSuppressedSaysWhyAnEntryWasNotReported() async throws {
    let list = try Self.temporaryFile("custom.txt", "ass\nsub:cla\nallow:class\n")
    let result = try await Self.run(["check", "--no-global", "--custom", list, "--suppressed", "a class act"])
    #expect(result.status == 0)
    #expect(
      result.stdout == """
        a class act
        suppressed: "cla" bytes 2..<5: cla (block) custom \(list):2 — inside allowed "class" (\(list):3)
        suppressed: "ass" bytes 4..<7: ass (block) custom \(list):1 — a word character right before it \
        (a whole-word entry)
        no match

        """)
    let plain = try await Self.run(["check", "--no-global", "--custom", list, "a class act"])
    #expect(plain.stdout == "a class act\nno match\n")
    let json = try await Self.run(["check", "--no-global", "--custom", list, "--suppressed", "--json", "bass"])
    #expect(json.stdout.contains(#""suppressed":[{"text":"ass","start":1,"end":4,"entry":"ass""#))
    #expect(json.stdout.contains(#""reason":"a word character right before it (a whole-word entry)"}]"#))
  }

  /// Arabic-script entries in the binary users run: a clitic joined to the word, vowel marks,
  /// tatweels and spelled-out letters still match; the letters inside a longer word do not.
  @Test func checkReadsArabicWordsAsTheyAreWritten() async throws {
    let list = try Self.temporaryFile("ar.txt", "طيز\nلعق\n")
    for text in ["وبالطيز", "طيزها", "طَـيـز", "ط ي ز"] {
      let result = try await Self.run(["check", "--no-global", "--custom", list, text])
      #expect(result.status == 1, "\(text): \(result.stdout)")
    }
    let inside = try await Self.run(["check", "--no-global", "--custom", list, "العقل"])  // the mind
    #expect(inside.status == 0, "\(inside.stdout)")
  }

  @Test func checkNamesTheFileAndLineOfABadList() async throws {
    let list = try Self.temporaryFile("bad.txt", "ok\nre:(\n")
    let result = try await Self.run(["check", "--no-global", "--custom", list, "text"])
    #expect(result.status == 2)
    #expect(result.stdout.isEmpty)
    #expect(result.stderr.hasPrefix("winnow: \(list):2: invalid regex at offset 1: missing closing parenthesis"))
  }

  /// A file that cannot be read or written is an error (status 2, not 1, which means a match)
  /// that names the file and the system's cause.
  @Test func unreadableAndUnwritableFilesNameTheCause() async throws {
    let list = try Self.temporaryFile("app.txt", "badword\n")
    let lines = try await Self.run(["check", "--no-global", "--custom", list, "--lines", "/nonexistent/in.txt"])
    #expect(lines.status == 2)
    #expect(lines.stderr == "winnow: cannot read /nonexistent/in.txt: No such file or directory\n")
    let directory = try await Self.run(["check", "--no-global", "--custom", list, "--lines", "/"])
    #expect(directory.status == 2)
    #expect(directory.stderr == "winnow: cannot read /: Is a directory\n")
    let output = try await Self.run([
      "scan", "--no-global", "--custom", list, "--output", "/nonexistent/o.jsonl",
    ])
    #expect(output.status == 2)
    #expect(output.stderr == "winnow: cannot write /nonexistent/o.jsonl: No such file or directory\n")
  }

  /// A line that does not parse keeps its list from being compiled; the errors only compiling
  /// finds (a bad regex) in that list's other lines, and in the other lists, come out with it
  /// in one run, in file and line order, so a list is fixed in one pass.
  @Test func everyBadLineOfEveryListIsReportedAtOnce() async throws {
    let directory = Self.temporaryPath("lists")
    let global = directory.appendingPathComponent("global")
    try FileManager.default.createDirectory(at: global, withIntermediateDirectories: true)
    try "ok\n[bad\n".write(to: global.appendingPathComponent("a.txt"), atomically: true, encoding: .utf8)
    try "re:(\nfine\n".write(to: global.appendingPathComponent("b.txt"), atomically: true, encoding: .utf8)
    let custom = directory.appendingPathComponent("app.txt").path
    try "re:x(\nallow:a => b\nre:*\n".write(toFile: custom, atomically: true, encoding: .utf8)
    let result = try await Self.run(["check", "--global", global.path, "--custom", custom, "text"])
    #expect(result.status == 2)
    #expect(
      result.stderr == """
        winnow: \(global.path)/a.txt:2: invalid section header "[bad" (expected [name] or [name: options], the name of letters, digits, - or _, the options review, block, name or lang=CODE)
        \(global.path)/b.txt:1: invalid regex at offset 1: missing closing parenthesis
        \(custom):1: invalid regex at offset 2: missing closing parenthesis
        \(custom):2: allow entries cannot have a replacement
        \(custom):3: invalid regex at offset 0: quantifier does not follow a repeatable item

        """)
  }

  @Test func checkFindsTheBuiltInGlobalListFromAnyDirectory() async throws {
    let result = try await Self.run(["check", "傻 逼"], directory: URL(fileURLWithPath: "/"))
    #expect(result.status == 1)
    #expect(result.stdout.hasPrefix("[[傻 逼]]\n\"傻 逼\" bytes 0..<7: 傻逼 (block) global "))
    let clean = try await Self.run(["check", "hello there"], directory: URL(fileURLWithPath: "/"))
    #expect(clean.status == 0)
    #expect(clean.stdout == "hello there\nno match\n")
  }

  @Test func checkLinesCountsEveryLine() async throws {
    let list = try Self.temporaryFile("custom.txt", "spam\n")
    let result = try await Self.run(
      ["check", "--no-global", "--custom", list, "--lines", "-"], stdin: "ok\nbuy spam\n\nfine\n")
    #expect(result.status == 1)
    #expect(result.stdout.hasPrefix("2: buy [[spam]]\n"))
    #expect(result.stderr == "4 lines, 1 with matches\n")
  }

  @Test func checkItemPrintsTheVerdictAndRecord() async throws {
    let global = try Self.temporaryFile("zh.txt", "[sensitive]\n傻逼\n")
    let directory = URL(fileURLWithPath: global).deletingLastPathComponent().path
    let item =
      #"{"msgUID":"M1","targetId":"g1","conversationType":10,"channelId":"c1","#
      + #""content":{"content":"你是傻 逼"},"sentTime":1700000000000}"#
    let result = try await Self.run(["check", "--global", directory, "--item", item])
    #expect(result.status == 1)
    #expect(
      result.stdout == """
        verdict: blocked (blockType 1), sensitiveType 1
        content: 你是[[傻 逼]]
            "傻 逼" bytes 6..<13: 傻逼 (block) global \(global):2 [sensitive]
        record: {"type":10,"targetId":"g1","channelId":"c1","blockedMsgUId":"M1","blockType":1,\
        "extra":"sensitive",\
        "sentTime":1700000000000,"sourceType":0,"sourceContent":null}

        """)
  }

  @Test func checkItemJSONFromStandardInputForAnEdit() async throws {
    let custom = try Self.temporaryFile("app.txt", "秒杀 => **\n")
    let item =
      #"{"kind":"edit","msgUID":"M2","targetId":"g1","conversationType":"GROUP","#
      + #""sourceContent":"{\"content\":\"限时秒杀\"}","sentTime":5}"#
    let result = try await Self.run(["check", "--no-global", "--custom", custom, "--json", "--item", "-"], stdin: item)
    #expect(result.status == 1)
    #expect(
      result.stdout == #"{"verdict":"replaced","blockType":null,"sensitiveType":2,"content":{"content":"限时**"},"#
        + #""matches":[{"field":"content","text":"秒杀","start":6,"end":12,"entry":"秒杀","kind":"literal","#
        + #""action":"replace","replacement":"**","origin":"custom","list":"\#(custom)","file":"\#(custom)","#
        + #""line":1,"category":null}]}"# + "\n")
  }

  @Test func checkItemWithBadContentIsAnError() async throws {
    let custom = try Self.temporaryFile("app.txt", "x\n")
    let result = try await Self.run(["check", "--no-global", "--custom", custom, "--item", #"{"content":"{bad"}"#])
    #expect(result.status == 2)
    #expect(result.stdout.isEmpty)
    #expect(result.stderr == "winnow: item: content: invalid JSON at byte 1: expected a string key in an object\n")
    let pass = try await Self.run([
      "check", "--no-global", "--custom", custom, "--item", #"{"content":{"content":"ok"}}"#,
    ])
    #expect(pass.status == 0)
    #expect(pass.stdout == "verdict: pass, sensitiveType 0\n")
  }

  @Test func matchCountsPerLineLikeAServer() async throws {
    let patterns = try Self.temporaryFile("p.txt", "he\r\nshe\r\nhis\r\nhers\r\n")
    let arguments = ["match", "--patterns", patterns, "--patterns-format", "lines", "--overlapping", "--count"]
    let whole = try await Self.run(arguments, stdin: "ushers\nhis\n")
    #expect(whole.stdout == "4\n", "CRLF pattern files are read line by line")
    let perLine = try await Self.run(arguments + ["--per-line", "--stats"], stdin: "ushers\nhis\n")
    #expect(perLine.stdout == "4\n")
    #expect(perLine.status == 1)
    let none = try await Self.run(arguments + ["--per-line"], stdin: "nothing\n")
    #expect(none.stdout == "0\n" && none.status == 0)
    let stats = try JSONSerialization.jsonObject(with: Data(perLine.stderr.utf8)) as? [String: Any]
    #expect(stats?["messages"] as? Int == 2)
    #expect(stats?["matches"] as? Int == 4)
    let usage = try await Self.run(["match", "--patterns", patterns, "--per-line"], stdin: "x")
    #expect(usage.status == 64)
  }
}
