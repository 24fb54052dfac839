import Foundation
import Testing

/// Runs the built `winnow` binary and compares standard output, standard error and exit status.
@Suite("winnow command line")
struct CLITests {
  struct Result {
    var status: Int32
    var stdout: String
    var stderr: String
  }

  /// The `winnow` executable beside the test bundle (SwiftPM builds it for this test target).
  static let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    .appendingPathComponent("winnow")

  static func run(_ arguments: [String], stdin: String = "", directory: URL? = nil) throws -> Result {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    let input = Pipe()
    let output = Pipe()
    let error = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = error
    try process.run()
    input.fileHandleForWriting.write(Data(stdin.utf8))
    try input.fileHandleForWriting.close()
    let out = output.fileHandleForReading.readDataToEndOfFile()
    let err = error.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Result(
      status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
      stderr: String(decoding: err, as: UTF8.self))
  }

  static func temporaryFile(_ name: String, _ contents: String) throws -> String {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("winnow-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let path = directory.appendingPathComponent(name).path
    try contents.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  @Test func matchReportsOverlappingMatchesAsJSON() throws {
    let patterns = try Self.temporaryFile("p.json", #"["he","she","his","hers"]"#)
    let result = try Self.run(["match", "--patterns", patterns, "--overlapping", "--json"], stdin: "ushers")
    #expect(result.status == 0)
    #expect(
      result.stdout == """
        {"pattern":1,"start":1,"end":4}
        {"pattern":0,"start":2,"end":4}
        {"pattern":3,"start":2,"end":6}

        """)
    #expect(result.stderr.isEmpty)
  }

  @Test func matchSemanticsAndCharacterOffsets() throws {
    let patterns = try Self.temporaryFile("p.txt", "傻逼\n傻逼玩意\n")
    let longest = try Self.run(
      ["match", "--patterns", patterns, "--patterns-format", "lines", "--semantics", "leftmost-longest"],
      stdin: "你傻逼玩意")
    #expect(longest.stdout == "1\t3\t15\n")
    let chars = try Self.run(
      ["match", "--patterns", patterns, "--patterns-format", "lines", "--offsets", "chars"], stdin: "你傻逼玩意")
    #expect(chars.stdout == "0\t1\t3\n")
  }

  @Test func matchNormalizesOnRequestAndKeepsOriginalOffsets() throws {
    let patterns = try Self.temporaryFile("p.json", #"["fuck"]"#)
    let raw = try Self.run(["match", "--patterns", patterns], stdin: "ｆ.u.c.k")
    #expect(raw.status == 1)
    #expect(raw.stdout.isEmpty)
    let normalized = try Self.run(["match", "--patterns", patterns, "--normalize"], stdin: "ｆ.u.c.k")
    #expect(normalized.stdout == "0\t0\t9\n")
  }

  @Test func matchRejectsInvalidCombinationsAndEmptyPatterns() throws {
    let patterns = try Self.temporaryFile("p.txt", "a\n\nb\n")
    let combination = try Self.run(["match", "--patterns", patterns, "--semantics", "leftmost-first", "--overlapping"])
    #expect(combination.status == 64)
    #expect(combination.stderr.contains("--overlapping works with --semantics standard only, not leftmost-first"))
    let empty = try Self.run(["match", "--patterns", patterns, "--patterns-format", "lines"])
    #expect(empty.status == 64)
    #expect(empty.stderr.contains("\(patterns):2 is empty; every pattern needs at least one character"))
  }

  @Test func matchStatsAreOneJSONObject() throws {
    let patterns = try Self.temporaryFile("p.json", #"["a"]"#)
    let result = try Self.run(["match", "--patterns", patterns, "--stats"], stdin: "banana")
    let stats = try #require(JSONSerialization.jsonObject(with: Data(result.stderr.utf8)) as? [String: Any])
    #expect(stats["patterns"] as? Int == 1)
    #expect(stats["bytes"] as? Int == 6)
    #expect(stats["matches"] as? Int == 3)
    #expect(stats["build_seconds"] is Double && stats["scan_seconds"] is Double)
  }

  @Test func checkExplainsEachMatchAsJSON() throws {
    let list = try Self.temporaryFile("custom.txt", "[drugs]\nk粉\n秒杀 => **\n")
    let result = try Self.run(["check", "--no-global", "--custom", list, "--json", "卖k粉，秒 杀"])
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

  @Test func checkNamesTheFileAndLineOfABadList() throws {
    let list = try Self.temporaryFile("bad.txt", "ok\nre:(\n")
    let result = try Self.run(["check", "--no-global", "--custom", list, "text"])
    #expect(result.status == 2)
    #expect(result.stdout.isEmpty)
    #expect(result.stderr.hasPrefix("winnow: \(list):2: invalid regex at offset 1: missing closing parenthesis"))
  }

  @Test func checkFindsTheBuiltInGlobalListFromAnyDirectory() throws {
    let result = try Self.run(["check", "傻 逼"], directory: URL(fileURLWithPath: "/"))
    #expect(result.status == 1)
    #expect(result.stdout.hasPrefix("[[傻 逼]]\n\"傻 逼\" bytes 0..<7: 傻逼 (block) global "))
    let clean = try Self.run(["check", "hello there"], directory: URL(fileURLWithPath: "/"))
    #expect(clean.status == 0)
    #expect(clean.stdout == "hello there\nno match\n")
  }

  @Test func checkLinesCountsEveryLine() throws {
    let list = try Self.temporaryFile("custom.txt", "spam\n")
    let result = try Self.run(
      ["check", "--no-global", "--custom", list, "--lines", "-"], stdin: "ok\nbuy spam\n\nfine\n")
    #expect(result.status == 1)
    #expect(result.stdout.hasPrefix("2: buy [[spam]]\n"))
    #expect(result.stderr == "4 lines, 1 with matches\n")
  }
}
