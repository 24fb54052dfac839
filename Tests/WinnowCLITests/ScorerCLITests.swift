import Foundation
import Testing
@_spi(Tools) import Winnow

/// `--scorer` in `check` and `scan`, and `winnow score`, run as the built binary.
@Suite("winnow scorer")
struct ScorerCLITests {
  /// A model file of zero weights: every text scores the logistic of `bias` (3 gives 0.9526),
  /// so the verdicts depend on the thresholds alone. Written in format 1.
  static func constantModel(bias: Float, block: Float = 0.99, review: Float = 0.5, damage: Bool = false) throws
    -> String
  {
    try modelFile(
      name: "model", version: 1, floats: [bias, 0.01, block, review], description: "constant",
      weights: [Int8](repeating: 0, count: 1 << 10), damage: damage)
  }

  /// A model file written as Docs/scorer.md states the format: `floats` are the bias, the scale
  /// and the thresholds (two in format 1, three in format 2); `weights` has 2^bits entries.
  static func modelFile(
    name: String, version: UInt32, floats: [Float], description: String, weights: [Int8], damage: Bool = false
  ) throws -> String {
    var bytes = Array("WNSCORER".utf8)
    func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
    u32(version)
    u32(1)
    u32(UInt32(weights.count.trailingZeroBitCount))
    for value in floats { u32(value.bitPattern) }
    for text in ["abuse", description] {
      u32(UInt32(text.utf8.count))
      bytes += text.utf8
    }
    bytes += weights.map { UInt8(bitPattern: $0) }
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
    withUnsafeBytes(of: hash.littleEndian) { bytes += $0 }
    if damage { bytes[40] ^= 0xFF }
    let path = CLITests.temporaryPath(name).path + ".wnsc"
    try FileManager.default.createDirectory(at: CLITests.runDirectory, withIntermediateDirectories: true)
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return path
  }

  static func item(_ text: String, id: String = "M1") -> String {
    #"{"msgUID":"\#(id)","targetId":"g1","conversationType":3,"content":{"content":"\#(text)"},"sentTime":5}"#
  }

  @Test func aScoreAtTheBlockThresholdBlocksWithBlockTypeThree() async throws {
    let global = try ScanTests.globalList()
    let model = try Self.constantModel(bias: 3)
    let blocked = try await CLITests.run([
      "check", "--global", global, "--scorer", model, "--score-block", "0.95", "--json", "--item", Self.item("hello"),
    ])
    #expect(blocked.status == 1)
    #expect(blocked.stdout.contains(#""verdict":"blocked","blockType":3,"sensitiveType":0,"score":0.9526"#))
    #expect(blocked.stdout.contains(#""blockType":3,"extra":"abuse""#))
    // Under the block threshold and over the review one: delivered, flagged.
    let flagged = try await CLITests.run(["check", "--global", global, "--scorer", model, "--item", Self.item("hello")])
    #expect(flagged.status == 1)
    #expect(flagged.stdout.hasPrefix("verdict: pass, sensitiveType 0, flagged for review\n"))
    #expect(flagged.stdout.contains("scorer: 0.9526 -> flagged\n"))
    // The lists decide first: a list block is type 1 and carries no score.
    let listed = try await CLITests.run([
      "check", "--global", global, "--scorer", model, "--score-block", "0.5", "--json", "--item", Self.item("傻逼"),
    ])
    #expect(listed.stdout.contains(#""blockType":1"#) && !listed.stdout.contains(#""score""#))
  }

  @Test func badModelsAndThresholdsAreRefusedWithTheirCause() async throws {
    let global = try ScanTests.globalList()
    let damaged = try Self.constantModel(bias: 3, damage: true)
    let result = try await CLITests.run(["check", "--global", global, "--scorer", damaged, "--item", Self.item("x")])
    #expect(result.status != 0 && result.status != 1)
    #expect(result.stderr.contains("--scorer \(damaged): checksum does not match"))
    let missing = try await CLITests.run(["score", "--scorer", "/nonexistent/model.wnsc"], stdin: "x\n")
    #expect(missing.stderr.contains("/nonexistent/model.wnsc: cannot be read"))
    let range = try await CLITests.run(["check", "--scorer", "builtin", "--score-block", "1.5", "--item", "{}"])
    #expect(range.stderr.contains("--score-block must be a number from 0 to 1"))
    let alone = try await CLITests.run(["check", "--score-review", "0.5", "--item", "{}"])
    #expect(alone.stderr.contains("--score-review needs --scorer builtin or --scorer FILE"))
  }

  /// A scan with a scorer reads and scores every line, and accounts for each.
  @Test func aScanWithAScorerScoresEveryLine() async throws {
    let global = try ScanTests.globalList()
    let model = try Self.constantModel(bias: 3)
    let lines = [Self.item("hello", id: "A"), Self.item("傻逼", id: "B"), "not json", Self.item("fine", id: "C")]
    let dump = try CLITests.temporaryFile("dump.jsonl", lines.joined(separator: "\n") + "\n")
    let result = try await CLITests.run([
      "scan", "--global", global, "--no-progress", "--scorer", model, "--score-block", "0.95", dump,
    ])
    #expect(result.status == 3, "one line is not an item")
    let records = result.stdout.split(separator: "\n")
    #expect(records.count == 4, "three blocked items and the error")
    #expect(records.filter { $0.contains(#""blockType":3"#) }.count == 2)
    #expect(records.filter { $0.contains(#""blockType":1"#) }.count == 1)
  }

  /// A scan scores each text as the scorer alone would, whether it reads the text the matcher
  /// has just normalized (the in-place check) or normalizes it itself: a model that knows one
  /// word blocks the lines holding it under the evasions the matcher folds, in any order, and
  /// passes the lines around them.
  @Test func aScanScoresWhatTheMatcherNormalized() async throws {
    let global = try ScanTests.globalList()
    let features = try await CLITests.run(["score", "--features", "12"], stdin: "zorkle\n")
    var weights = [Int8](repeating: 0, count: 1 << 12)
    for item in features.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
      let parts = item.split(separator: ":")
      guard parts.count == 2, let index = Int(parts[0]), weights.indices.contains(index) else { continue }
      weights[index] = parts[1] == "1" ? 127 : -127
    }
    let model = try Self.modelFile(
      name: "one-word", version: 2, floats: [-3, 0.05, 0.9, 0.5, 0], description: "one word", weights: weights)
    let texts = ["hello there", "ZORKLE day", "hello there", "ｚｏｒｋｌｅ", "fine", "z.o.r.k.l.e", "ok", "傻逼", "zorkle"]
    let dump = try CLITests.temporaryFile(
      "scored.jsonl",
      texts.enumerated().map { Self.item($0.element, id: "M\($0.offset)") }.joined(separator: "\n") + "\n")
    let result = try await CLITests.run(["scan", "--global", global, "--no-progress", "--scorer", model, dump])
    #expect(result.status == 1, "\(result.stderr)")
    let records = result.stdout.split(separator: "\n")
    let scored = records.filter { $0.contains(#""blockType":3"#) }.map { String($0) }
    #expect(scored.count == 4, "\(records)")
    for id in ["M1", "M3", "M5", "M8"] { #expect(scored.contains { $0.contains(#""\#(id)""#) }, "\(id)") }
    #expect(records.filter { $0.contains(#""blockType":1"#) }.count == 1)
    #expect(result.stderr.contains("9 lines read = 4 passed + 0 replaced + 5 blocked + 0 errors"), "\(result.stderr)")
  }

  /// The shipped model: loads, scores one line per line in order, and scores a plain insult
  /// above an ordinary sentence in each of its languages.
  @Test func theBuiltInModelScoresLinesInOrder() async throws {
    let texts = ["you are a stupid worthless bitch", "the weather is nice today", "", "你这个贱人去死吧", "今天天气很好"]
    let result = try await CLITests.run(["score"], stdin: texts.joined(separator: "\n") + "\n")
    #expect(result.status == 0, "\(result.stderr)")
    let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
    #expect(lines.count == texts.count)
    let scores = lines.compactMap { Double($0.split(separator: "\t", omittingEmptySubsequences: false)[0]) }
    #expect(scores.count == texts.count)
    guard scores.count == 5 else { return }
    #expect(scores[0] > scores[1] + 0.5 && scores[3] > scores[4] + 0.5, "\(scores)")
    let features = try await CLITests.run(["score", "--features", "12"], stdin: "ab 你好\n")
    #expect(features.stdout.split(separator: " ").count == 4 + 3, "a word: its unigram, <ab ab> <ab>; 你 好 你好")
  }
}

extension ScorerCLITests {
  /// `winnow serve --scorer`: the service blocks what the scorer blocks, as `check` does.
  @Test func theServerAsksTheScorerAfterTheLists() async throws {
    let model = try Self.constantModel(bias: 3)
    let server = try await ServeTests.Server(arguments: ["--scorer", model, "--score-block", "0.95"])
    let scored = try await server.moderate("hello")
    #expect(scored["verdict"] == "blocked" && scored["blockType"]?.int64Value == 3)
    #expect(scored["score"] != nil && scored["record"]?["extra"] == "abuse")
    let listed = try await server.moderate("you fucking idiot")
    #expect(listed["blockType"]?.int64Value == 1 && listed["score"] == nil)
    await server.stop()
  }
}

extension ScorerCLITests {
  /// A format 2 model (Docs/scorer.md) that knows two words: `傻逼` (+127 on each of its
  /// features, from `winnow score --features`) and `你好` (−127), with the given thresholds.
  static func twoWordModel(block: Float = 0.99, review: Float = 0.5, clear: Float = 0.3) async throws -> String {
    let features = try await CLITests.run(["score", "--features", "12"], stdin: "傻逼\n你好\n")
    var weights = [Int8](repeating: 0, count: 1 << 12)
    for (line, weight) in zip(features.stdout.split(separator: "\n"), [Int8(127), -127]) {
      for item in line.split(separator: " ") {
        let parts = item.split(separator: ":")
        guard parts.count == 2, let index = Int(parts[0]), weights.indices.contains(index) else { continue }
        weights[index] = parts[1] == "1" ? weight : -weight
      }
    }
    return try modelFile(
      name: "two-words", version: 2, floats: [0, 0.05, block, review, clear], description: "two words",
      weights: weights)
  }

  /// `--score-clear`: a global block in a text the model reads as benign is delivered, flagged;
  /// the word alone, or with clearing off, stays blocked.
  @Test func theScorerClearsAGlobalBlockInABenignText() async throws {
    let global = try ScanTests.globalList()
    let model = try await Self.twoWordModel()
    let benign = "你好你好你好傻逼你好你好你好"
    let scores = try await CLITests.run(["score", "--scorer", model], stdin: "傻逼\n\(benign)\n")
    let values = scores.stdout.split(separator: "\n").compactMap { Double($0.split(separator: "\t")[0]) }
    #expect(values.count == 2 && values[0] >= 0.5 && values[1] < 0.3, "the model must know the word: \(values)")
    let cleared = try await CLITests.run([
      "check", "--global", global, "--scorer", model, "--json", "--item", Self.item(benign),
    ])
    #expect(cleared.status == 1, "flagged")
    #expect(cleared.stdout.contains(#""verdict":"pass","blockType":null,"sensitiveType":0,"flagged":true"#))
    #expect(cleared.stdout.contains(#""cleared":true"#) && cleared.stdout.contains(#""action":"review""#))
    let off = try await CLITests.run([
      "check", "--global", global, "--scorer", model, "--score-clear", "0", "--json", "--item", Self.item(benign),
    ])
    #expect(off.stdout.contains(#""blockType":1"#) && !off.stdout.contains("cleared"))
    let text = try await CLITests.run(["check", "--global", global, "--scorer", model, "--item", Self.item(benign)])
    #expect(text.stdout.contains("-> cleared the global list's block"))
    // A scan accounts for the cleared line as delivered, and still blocks the word alone.
    let dump = try CLITests.temporaryFile(
      "clear.jsonl", [Self.item(benign, id: "A"), Self.item("傻逼", id: "B")].joined(separator: "\n") + "\n")
    let scan = try await CLITests.run(["scan", "--global", global, "--no-progress", "--scorer", model, dump])
    #expect(scan.stderr.contains("2 lines read = 1 passed + 0 replaced + 1 blocked + 0 errors"), "\(scan.stderr)")
    // Out of order: refused with the cause.
    let order = try await CLITests.run([
      "check", "--scorer", model, "--score-review", "0.4", "--score-clear", "0.6", "--item", "{}",
    ])
    #expect(order.stderr.contains("--score-clear must not be more than --score-review or --score-block"))
    let over = try await CLITests.run(["check", "--scorer", model, "--score-clear", "0.7", "--item", "{}"])
    #expect(over.stderr.contains("--score-clear 0.7 is more than the review threshold 0.5"), "\(over.stderr)")
  }
}
