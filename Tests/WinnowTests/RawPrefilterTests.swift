import Foundation
import Testing
import WinnowTestSupport

@testable import Winnow

/// The literals a `raw:` regex's matches must contain, read from its pattern, and the prefilter
/// that skips a raw regex on a text without them: it must never skip a text the regex matches.
@Suite("Raw regex prefilter")
struct RawPrefilterTests {
  /// Sets read from patterns: runs of plain characters (a character made optional left out),
  /// groups by their alternatives, lookarounds and optional groups skipped; anything not read
  /// gives no set.
  @Test(arguments: [
    (#"\S+@\S+\.com"#, [["@"], [".com"]]),
    (#"(?:qq|扣扣)\d+"#, [["qq", "扣扣"]]),
    (#"(?<![a-z])qq\d{5}"#, [["qq"]]),
    ("colou?r", [["colo"], ["r"]]),
    ("a{0,2}b", [["b"]]),
    ("a{2}b", [["a"], ["b"]]),
    ("x(?:ab)?y", [["x"], ["y"]]),
    ("(?:x|y*)z", [["z"]]),
    (#"(?:\.| ?dot ?)(?:com|net)"#, [[".", "dot"], ["com", "net"]]),
    ("(?:https?|ftp)://", [["http", "ftp"], ["://"]]),
    ("a|b", []),
    ("(?i)abc", []),
    (#"\Qa.b\E"#, []),
    (#"[0-9]{11}"#, []),
  ])
  func requirementsAreRead(_ pattern: String, _ expected: [[String]]) {
    #expect(RawPrefilter.requirements(of: pattern) == expected)
  }

  /// A non-ASCII letter with case is not compared without case: its set is not used, and the
  /// regex always runs.
  @Test func casedNonASCIILiteralsAreNotUsed() {
    let prefilter = RawPrefilter(patterns: ["Ягода", "ягода", "@x"], caseless: true)
    #expect(prefilter.needed[0] == 0 && prefilter.needed[1] == 0 && prefilter.needed[2] != 0)
    let exact = RawPrefilter(patterns: ["ягода"], caseless: false)
    #expect(exact.needed[0] != 0)
  }

  /// Only sets that tell texts apart are used: a lone letter, digit or `.` is in most texts.
  @Test func onlySelectiveSetsAreUsed() {
    let patterns = [#"\w+@\w+\.\w+"#, #"\w\.\w"#, "x[0-9]+y", "qq[0-9]+", "扣扣[0-9]+", "(?:qq|扣扣)[0-9]+", "www[.]"]
    let prefilter = RawPrefilter(patterns: patterns, caseless: true)
    #expect(prefilter.needed.map(\.nonzeroBitCount) == [1, 0, 0, 1, 1, 1, 1])
  }

  /// Property: for each pattern of the contact list and random texts made of the pieces those
  /// patterns are built from, a text on which the prefilter would skip a regex is one the regex
  /// does not match (the regex run by itself is the reference). Case and the two non-ASCII
  /// letters that match `k` and `s` without case are among the pieces.
  @Test func neverSkipsAMatch() throws {
    let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("wordlists/contact/contact.txt").path
    let patterns = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
      .filter { $0.hasPrefix("raw:") }.map { String($0.dropFirst(4)) }
    let prefilter = RawPrefilter(patterns: patterns, caseless: true)
    let programs = try patterns.map { try RegexProgram(pattern: $0, caseless: true) }
    let pieces = [
      "a", "B", "qq", "QQ", "扣扣", "微信", "wx", "vx:", " ", "-", ".", "。", "点", "@", "＠", "(at)", "[dot]", " dot ",
      "com", "CN", ".ME", "shop", "www.", "http", "://", "1", "38", "0755", "1234", "5678", "一", "三八", "①", "１",
      "+86 ", "(555) ", "ſ", "\u{212A}", "example", "_", "x9",
    ]
    var generator = SeededGenerator(state: 37)
    var scratch = RegexScratch()
    var skipped = 0
    for _ in 0..<3000 {
      let text = (0..<Int.random(in: 1...14, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }
        .joined()
      let bytes = Array(text.utf8)
      let found = bytes.withUnsafeBufferPointer { prefilter.found(in: $0) }
      for (index, program) in programs.enumerated() where found & prefilter.needed[index] != prefilter.needed[index] {
        skipped += 1
        var matched = false
        bytes.withUnsafeBufferPointer { buffer in
          program.forEachMatch(in: buffer, scratch: &scratch) { _ in matched = true }
        }
        #expect(!matched, "\(patterns[index]) matches \(text), which the prefilter skips")
      }
    }
    // The property says something only if texts were skipped.
    #expect(skipped > 3000)
  }
}
