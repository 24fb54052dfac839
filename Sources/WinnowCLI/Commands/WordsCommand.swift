import ArgumentParser
import Foundation
@_spi(Tools) import Winnow

/// `winnow words`: lint, edit, sort and measure word-list files.
struct WordsCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "words",
    abstract: "Lint, edit, sort and measure word-list files.",
    discussion: """
      Edits (add, rm, sort) rewrite the file atomically: the new text goes to a temporary file \
      beside it, which is renamed over the list, so a crash never truncates a list. Comments, \
      blank lines, sections and line endings are kept.
      """,
    subcommands: [LintCommand.self, AddCommand.self, RemoveCommand.self, SortCommand.self, StatsCommand.self]
  )
}

/// Reads a list file or exits with status 2 naming it.
func readListFile(_ path: String) throws -> WordListFile {
  do { return try WordListFile(contentsOf: path) } catch {
    FileHandle.standardError.write(Data("winnow: \(error)\n".utf8))
    throw CLIError.exitCode
  }
}

/// Takes the lock every edit of a list file holds (``ListFileLock``, which `winnow serve`'s
/// word API takes too), for the rest of the process: the read, the change and the write of
/// this command are one edit. The descriptor is closed, and the lock released, at exit.
func lockListFile(_ path: String) throws {
  do { _ = try ListFileLock.lock(path) } catch {
    FileHandle.standardError.write(Data("winnow: \(error)\n".utf8))
    throw CLIError.exitCode
  }
}

/// Writes `text` to `path` durably through a temporary file in the same directory and a rename
/// (``AtomicFile``), keeping the list's permissions.
func writeAtomically(_ text: String, to path: String) throws {
  do { try AtomicFile.write(Array(text.utf8), to: path) } catch {
    FileHandle.standardError.write(Data("winnow: cannot write \(path): \(error.cause)\n".utf8))
    throw CLIError.exitCode
  }
}

/// The origin of lists named on the command line: `--global` lints them as the global list.
struct OriginOption: ParsableArguments {
  @Flag(help: "The files are a global list (default: a custom list).")
  var global = false

  var origin: WordList.Origin { global ? .global : .custom }
}

struct LintCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "lint",
    abstract: "Report bad, duplicate, redundant, too short or too long entries as file:line: message.",
    discussion: "Exit status 0: no findings; 1: findings; 2: a file cannot be read."
  )

  @Argument(help: "List files.")
  var files: [String]

  @OptionGroup var origin: OriginOption

  func run() throws {
    let lists = try files.map(readListFile)
    let findings = WordListLint.lint(lists, origin: origin.origin)
    var output = OutputBuffer()
    for finding in findings { output.write("\(finding)\n") }
    output.flush()
    if !findings.isEmpty {
      FileHandle.standardError.write(Data("\(findings.count) finding\(findings.count == 1 ? "" : "s")\n".utf8))
      throw ExitCode(1)
    }
  }
}

struct AddCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "add",
    abstract: "Append entries to a list (written as list lines: `word`, `word => ***`, `re:…`, `allow:…`).",
    discussion: """
      New entries go at the end, under the file's last section. An entry already in the list is \
      left alone and reported. A bad entry is an error and nothing is written.
      """
  )

  @Argument(help: "The list file (created when missing).")
  var file: String

  @Argument(help: "Entries, one per argument.")
  var entries: [String]

  func run() throws {
    try lockListFile(file)
    var list =
      FileManager.default.fileExists(atPath: file) ? try readListFile(file) : WordListFile(parsing: "", path: file)
    let parsed = WordListFile(parsing: entries.joined(separator: "\n"), path: "argument")
    var bad: [String] = []
    for (index, line) in parsed.lines.enumerated() {
      if case .invalid(let error) = line.content {
        bad.append("winnow: entry \(index + 1) \(jsonString(line.text)): \(error.cause)")
      }
      if case .blank = line.content { bad.append("winnow: entry \(index + 1) is empty") }
      if case .comment = line.content { bad.append("winnow: entry \(index + 1) \(jsonString(line.text)) is a comment") }
      if case .section = line.content { bad.append("winnow: entry \(index + 1) \(jsonString(line.text)) is a section") }
      if case .entry(let entry) = line.content, let problem = WordListLint.regexProblem(entry) {
        bad.append("winnow: entry \(index + 1) \(jsonString(line.text)): \(problem)")
      }
    }
    guard bad.isEmpty else {
      FileHandle.standardError.write(Data((bad.joined(separator: "\n") + "\n").utf8))
      throw CLIError.exitCode
    }
    var output = OutputBuffer(.standardError)
    var added = 0
    for entry in parsed.entries {
      if let existing = list.entries.first(where: { Self.same($0, entry) }) {
        output.write("already in \(file):\(existing.source?.line ?? 0): \(entry.line)\n")
        continue
      }
      list.append(entry)
      added += 1
    }
    if added > 0 { try writeAtomically(list.text, to: file) }
    output.write("added \(added) entr\(added == 1 ? "y" : "ies") to \(file)\n")
  }

  static func same(_ a: Entry, _ b: Entry) -> Bool {
    a.text == b.text && a.kind == b.kind && a.action == b.action && a.boundary == b.boundary
  }
}

struct RemoveCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "rm",
    abstract: "Remove entries from a list (matched by entry text and kind, e.g. `word` or `re:…`).",
    discussion: "Exit status 0: every entry was found and removed; 1: some were not in the list."
  )

  @Argument(help: "The list file.")
  var file: String

  @Argument(help: "Entries to remove, one per argument.")
  var entries: [String]

  func run() throws {
    try lockListFile(file)
    var list = try readListFile(file)
    let parsed = WordListFile(parsing: entries.joined(separator: "\n"), path: "argument").entries
    var output = OutputBuffer(.standardError)
    var removed = 0
    var missing = 0
    for entry in parsed {
      let count = list.removeEntries { $0.text == entry.text && $0.kind == entry.kind }
      if count == 0 {
        output.write("not in \(file): \(entry.line)\n")
        missing += 1
      }
      removed += count
    }
    if removed > 0 { try writeAtomically(list.text, to: file) }
    output.write("removed \(removed) line\(removed == 1 ? "" : "s") from \(file)\n")
    output.flush()
    if missing > 0 { throw ExitCode(1) }
  }
}

struct SortCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "sort",
    abstract: "Sort each run of entry lines by entry text; comments, blank lines and sections stay where they are.",
    discussion: "Order is by Unicode scalar values (as `LC_ALL=C sort`). --unique drops repeated identical lines."
  )

  @Argument(help: "The list file.")
  var file: String

  @Flag(help: "Drop a line identical to the one before it after sorting.")
  var unique = false

  func run() throws {
    try lockListFile(file)
    let list = try readListFile(file)
    var lines: [String] = []
    var run: [(key: [UInt32], text: String)] = []
    func flush() {
      var previous: String?
      for line in run.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
        if unique && line.text == previous { continue }
        lines.append(line.text)
        previous = line.text
      }
      run = []
    }
    for line in list.lines {
      if case .entry(let entry) = line.content {
        run.append((entry.text.unicodeScalars.map(\.value), line.text))
      } else {
        flush()
        lines.append(line.text)
      }
    }
    flush()
    let text = lines.joined(separator: "\n") + (list.endsWithNewline && !lines.isEmpty ? "\n" : "")
    if text != list.text { try writeAtomically(text, to: file) }
  }
}
