import ArgumentParser
import Foundation
@_spi(Tools) import Winnow

/// `winnow check`: one text against the word lists, every match explained.
struct CheckCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "check",
    abstract: "Check one text against the global and custom word lists and explain each match.",
    discussion: """
      Prints the text with its matches highlighted (on a terminal) or marked [[like this]], \
      then one line per match: the original text, the entry, its list, file:line and category. \
      Exit status 0: nothing matched; 1: something matched, or a regex could not finish its \
      check (unless --on-incomplete pass).

      With --item, moderates one message item (Winnow's item JSON: a message, an extension or \
      an edit) through the whole pipeline, the third-party reviewer included, and prints the \
      verdict. Exit status 0: pass; 1: replaced, blocked or flagged for review; 2: the item \
      cannot be read.
      """
  )

  @Argument(help: "The text to check (default: standard input, one trailing newline removed).")
  var text: String?

  @Option(name: .customLong("lines"), help: "Check each line of this file (- for standard input) as its own text.")
  var linesFile: String?

  @Option(name: .customLong("item"), help: "Moderate one item given as JSON (- for standard input).")
  var item: String?

  @OptionGroup var lists: ListOptions

  @OptionGroup(title: "Items") var moderation: ModerationOptions

  @Flag(help: "Print one JSON object: the matches with offsets, and the masked text.")
  var json = false

  @Flag(help: "Report every match, overlapping ones included (default: the ones that decide).")
  var overlapping = false

  @Flag(
    help: """
      Also list where an entry was found but not reported, and why: inside an allowed span, \
      inside a longer word (whole-word entries), cut from two lexicon words (word: entries), \
      or fewer repeated letters than the entry writes.
      """)
  var suppressed = false

  func validate() throws {
    if [text != nil, linesFile != nil, item != nil].filter({ $0 }).count > 1 {
      throw ValidationError("give one of TEXT, --lines FILE and --item JSON")
    }
    if item == nil && moderation.reviewerURL != nil { throw ValidationError("--reviewer-url needs --item") }
  }

  func run() async throws {
    if let item { return try await checkItem(item) }
    let matcher: Matcher
    do { matcher = try lists.matcher() } catch let error as CLIError {
      FileHandle.standardError.write(Data("winnow: \(error)\n".utf8))
      throw CLIError.exitCode
    }
    if let linesFile { return try checkLines(of: linesFile, with: matcher) }
    let text = self.text ?? Self.standardInputText()
    let (report, suppressed) = scan(text, with: matcher, actions: lists.categoryActions)
    var output = OutputBuffer()
    if json {
      output.write(Self.json(text: text, report: report, suppressed: suppressed))
    } else {
      output.write(Self.highlighted(text, report.matches, color: isatty(STDOUT_FILENO) == 1) + "\n")
      for match in report.matches { output.write(Self.describe(match) + "\n") }
      for item in suppressed { output.write(Self.describe(item) + "\n") }
      for warning in report.warnings { output.write("warning: \(warning)\n") }
      let count = "\(report.matches.count) match\(report.matches.count == 1 ? "" : "es")"
      if report.warnings.isEmpty {
        output.write(report.matches.isEmpty ? "no match\n" : count + "\n")
      } else {
        // A stopped regex leaves the answer unknown: never "no match".
        output.write("\(report.matches.isEmpty ? "no match found" : count), but the check is incomplete\n")
      }
    }
    output.flush()
    // An incomplete check is not a clean one, unless --on-incomplete pass says it is.
    if !report.matches.isEmpty || (!report.warnings.isEmpty && moderation.onIncomplete != .pass) {
      throw ExitCode(1)
    }
  }

  /// Checks every line of a file; prints the lines that match and a count of all lines.
  private func checkLines(of path: String, with matcher: Matcher) throws {
    let data: Data
    if path == "-" {
      data = readStandardInput()
    } else {
      do { data = try readWholeFile(path) } catch {
        FileHandle.standardError.write(Data("winnow: \(error)\n".utf8))
        throw CLIError.exitCode
      }
    }
    var output = OutputBuffer()
    var lineCount = 0
    var matchedLines = 0
    let color = isatty(STDOUT_FILENO) == 1
    let actions = lists.categoryActions
    for (index, bytes) in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
      if bytes.isEmpty && index > 0 && bytes.endIndex == data.endIndex { break }
      lineCount += 1
      let line = String(decoding: bytes, as: UTF8.self)
      let (report, suppressed) = scan(line, with: matcher, actions: actions)
      guard !report.matches.isEmpty || !report.warnings.isEmpty || !suppressed.isEmpty else { continue }
      if !report.matches.isEmpty { matchedLines += 1 }
      if json {
        output.write(
          "{\"line\":\(index + 1)," + Self.json(text: line, report: report, suppressed: suppressed).dropFirst())
      } else {
        output.write("\(index + 1): \(Self.highlighted(line, report.matches, color: color))\n")
        for match in report.matches { output.write("    " + Self.describe(match) + "\n") }
        for item in suppressed { output.write("    " + Self.describe(item) + "\n") }
        for warning in report.warnings { output.write("    warning: \(warning)\n") }
      }
    }
    output.flush()
    var errors = OutputBuffer(.standardError)
    errors.write("\(lineCount) lines, \(matchedLines) with matches\n")
    errors.flush()
    if matchedLines > 0 { throw ExitCode(1) }
  }

  /// The report of one text, its matches given the `--category-action` actions, and with
  /// --suppressed what was found but not reported.
  private func scan(_ text: String, with matcher: Matcher, actions: [String: ModerationEngine.CategoryAction]) -> (
    MatchReport, [SuppressedMatch]
  ) {
    Explanation.explain(text, matcher: matcher, actions: actions, suppressed: suppressed, overlapping: overlapping)
  }

  private static func standardInputText() -> String {
    var text = String(decoding: readStandardInput(), as: UTF8.self)
    if text.hasSuffix("\n") { text.removeLast() }
    return text
  }

  static func describe(_ match: Match) -> String {
    let entry = match.entry
    let place = entry.source.map(\.description) ?? match.list
    let category = entry.category.map { " [\($0)]" } ?? ""
    let action: String
    switch entry.action {
    case .block: action = "block"
    case .review: action = "review"
    case .replace(let replacement): action = "replace with \(jsonString(replacement))"
    case .allow: action = "allow"
    case .lexicon: action = "lexicon"
    }
    return "\(jsonString(match.text)) bytes \(match.range.lowerBound)..<\(match.range.upperBound): "
      + "\(entry.kind == .literal && entry.boundary == .dictionaryWord ? "word:" : "")\(entry.prefixedText) (\(action)) \(match.origin.rawValue) \(place)\(category)"
  }

  /// `suppressed: <the match as describe(_:) writes it> — <why>`.
  static func describe(_ item: SuppressedMatch) -> String {
    "suppressed: \(describe(item.match)) — \(reason(item.reason))"
  }

  static func reason(_ reason: SuppressedMatch.Reason) -> String { Explanation.reason(reason) }

  /// The text with each match wrapped in reverse video (terminal) or `[[…]]`.
  static func highlighted(_ text: String, _ matches: [Match], color: Bool) -> String {
    let bytes = Array(text.utf8)
    var result = ""
    var position = 0
    for match in matches.sorted(by: { $0.range.lowerBound < $1.range.lowerBound })
    where match.range.lowerBound >= position {
      result += String(decoding: bytes[position..<match.range.lowerBound], as: UTF8.self)
      result += color ? "\u{1B}[1;7;31m\(match.text)\u{1B}[0m" : "[[\(match.text)]]"
      position = match.range.upperBound
    }
    return result + String(decoding: bytes[position...], as: UTF8.self)
  }

  static func json(text: String, report: MatchReport, suppressed: [SuppressedMatch] = []) -> String {
    Explanation.json(text: text, report: report, suppressed: suppressed).jsonString + "\n"
  }
}
