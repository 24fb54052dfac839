import Foundation
import Testing

@testable import Winnow

/// The README's library example, verbatim between the two marker comments: it compiles with
/// the tests, and ``ReadmeExampleTests/theReadmeShowsThisExample()`` fails when the README's
/// copy differs from it (but for its `import Winnow`). It is compiled, not run: its paths are
/// the repository's.
enum ReadmeExample {
  static func run(line: String) async throws {
    // README example begins
    var lists = ListSet(globalDirectories: ["wordlists/global", "wordlists/contact"])
    let matcher = try lists.matcher()  // build once, share across threads
    let app = try Matcher(
      lists: [WordList(name: "app-42", origin: .custom, parsing: "秒杀 => **")],
      over: matcher)  // reuses the compiled global list
    if app.isClean("hello") { print("deliver") }  // the cheap yes/no question
    let matches = app.matches(in: "秒 杀 fuuuck")  // leftmost-longest
    print(Match.mask("秒 杀 fuuuck", matches: matches))  // "** ******"

    // Whole items: verdicts, records, per-app custom lists (apps/APPKEY.txt), a reviewer.
    lists.apps = AppDirectory(path: "apps")
    let engine = try lists.engine()
    let result = try await engine.moderate(try MessageItem(json: line))  // or engine.screen(_:) without the reviewer
    switch result.verdict {
    case .pass: print(result.flagged)  // flagged: a review entry matched
    case .replaced: print(result.item.content.jsonString)  // rewritten in its own shape
    case .blocked: print(result.record!)  // BlockedMessageInfo, Codable
    }
    // README example ends
  }
}

@Suite("The README")
struct ReadmeExampleTests {
  /// The lines of `text` between the line that contains `start` and the one that contains `end`.
  static func lines(of text: String, between start: String, and end: String) -> [String] {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    guard let first = lines.firstIndex(where: { $0.contains(start) }),
      let last = lines[(first + 1)...].firstIndex(where: { $0.contains(end) })
    else { return [] }
    return Array(lines[(first + 1)..<last])
  }

  @Test func theReadmeShowsThisExample() throws {
    let source = try String(contentsOfFile: #filePath, encoding: .utf8)
    let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let readme = try String(contentsOf: repository.appendingPathComponent("README.md"), encoding: .utf8)
    let library = readme.components(separatedBy: "## The library").dropFirst().first ?? ""
    // The example without its `import Winnow` line and the blank line after it.
    let shown = Array(
      Self.lines(of: library, between: "```swift", and: "```").drop { $0.hasPrefix("import ") || $0.isEmpty })
    let compiled = Self.lines(of: source, between: "// README example begins", and: "// README example ends")
      .map { $0.hasPrefix("    ") ? String($0.dropFirst(4)) : $0 }
    #expect(!shown.isEmpty)
    #expect(shown == compiled)
  }
}
