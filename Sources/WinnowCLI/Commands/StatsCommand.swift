import ArgumentParser
import Foundation
@_spi(Tools) import Winnow

/// Loads list files and directories (their `*.txt`), reporting every bad line with file:line
/// (with what compiling would find in the lines that parse, see
/// ``withCompileErrors(_:inFiles:adjusting:)``).
func loadLists(_ paths: [String], origin: WordList.Origin) throws -> [WordList] {
  try loadLists([paths], origin: origin)[0]
}

/// ``loadLists(_:origin:)`` for several groups of paths at once (a diff's old and new lists),
/// their errors reported together.
func loadLists(_ groups: [[String]], origin: WordList.Origin) throws -> [[WordList]] {
  var errors: [WordListError] = []
  let lists = groups.map { paths in
    paths.flatMap { path -> [WordList] in
      do throws(WordListErrors) {
        return isDirectory(path)
          ? try WordList.load(directory: path, origin: origin) : [try WordList.load(path: path, origin: origin)]
      } catch {
        errors += error.errors
        return []
      }
    }
  }
  guard errors.isEmpty else { throw reportListErrors(errors, inFiles: groups.flatMap { $0 }) }
  return lists
}

/// Writes `errors`, and what compiling finds in `paths` (files, or directories of them), to
/// standard error as `winnow: …`; returns the exit status to throw.
func reportListErrors(_ errors: [WordListError], inFiles paths: [String]) -> ExitCode {
  let files = paths.flatMap { isDirectory($0) ? ListDirectory(path: $0).files() : [$0] }
  let all = withCompileErrors(errors, inFiles: files)
  FileHandle.standardError.write(Data(("winnow: " + all.map(\.description).joined(separator: "\n") + "\n").utf8))
  return CLIError.exitCode
}

private func isDirectory(_ path: String) -> Bool {
  var isDirectory: ObjCBool = false
  return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
}

/// Reads every line of `files` as dump items and calls `body` for each batch, batches processed
/// `jobs` at a time; the outputs come back in input order.
func forEachBatch<Output: Sendable>(
  of files: [String], jobs: Int, _ body: @escaping @Sendable (LineBatch) -> Output
) -> [Output] {
  var outputs: [Output] = []
  for file in files.isEmpty ? ["-"] : files {
    pipelineBatches(of: LineReader(file: file), jobs: jobs, map: body) { outputs += $0 }
  }
  return outputs
}

struct StatsCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "stats",
    abstract: "Count entries by category, kind and action; with --corpus, how often each entry fires.",
    discussion: """
      With --corpus DUMP (a JSON Lines dump in any format `winnow scan` reads), the lists alone \
      moderate every item, and the report adds the entries that fire most and every entry that \
      never fires.
      """
  )

  @Argument(help: "List files or directories.")
  var files: [String]

  @Option(help: "A dump to measure the entries on (repeatable).")
  var corpus: [String] = []

  @Option(help: "Parallel workers for --corpus (default: the number of cores).")
  var jobs = ProcessInfo.processInfo.activeProcessorCount

  func validate() throws { try validateJobs(jobs) }

  @Option(help: "How many of the entries that fire most to show.")
  var top = 20

  func run() throws {
    let lists = try loadLists(files, origin: .custom)
    var output = OutputBuffer()
    var byCategory: [String: Int] = [:]
    var byKind: [String: Int] = [:]
    var entries: [Entry] = []
    for list in lists {
      for entry in list.entries {
        entries.append(entry)
        byCategory[entry.category ?? "(none)", default: 0] += 1
        let action: String
        switch entry.action {
        case .block: action = "block"
        case .review: action = "review"
        case .replace: action = "replace"
        case .allow: action = "allow"
        case .lexicon: action = "lexicon"
        }
        byKind["\(entry.kind.rawValue) \(action)", default: 0] += 1
      }
    }
    output.write("\(entries.count) entries in \(lists.count) list\(lists.count == 1 ? "" : "s")\n")
    output.write("by category:\n")
    for (name, count) in byCategory.sorted(by: { ($1.value, $0.key) < ($0.value, $1.key) }) {
      output.write("  \(name) \(count)\n")
    }
    output.write("by kind:\n")
    for (name, count) in byKind.sorted(by: { $0.key < $1.key }) { output.write("  \(name) \(count)\n") }
    if !corpus.isEmpty {
      let engine: ModerationEngine
      do { engine = try ModerationEngine(global: [], custom: lists) } catch {
        FileHandle.standardError.write(Data("winnow: \(error)\n".utf8))
        throw CLIError.exitCode
      }
      let worker = ScanWorker(engine: engine, writeAll: false)
      var tally = ScanTally()
      for output in forEachBatch(
        of: corpus, jobs: jobs,
        { batch in worker.process(batch) })
      {
        tally.merge(output.tally)
      }
      output.write(
        "corpus: \(tally.read) items, \(tally.blocked) blocked, \(tally.replaced) replaced, \(tally.errors) errors\n")
      output.write("fire most:\n")
      let byEntry = tally.byEntry
      let fired = byEntry.sorted { ($1.value, $0.key.place) < ($0.value, $1.key.place) }
      for (key, count) in fired.prefix(top) { output.write("  \(count) \(jsonString(key.text)) \(key.place)\n") }
      let firedPlaces = Set(byEntry.keys.map(\.place))
      let never = entries.filter { entry in
        entry.action != .allow && entry.action != .lexicon
          && !firedPlaces.contains(entry.source.map { "\(ScanTally.shortName($0.file)):\($0.line)" } ?? "")
      }
      output.write(
        "never fire: \(never.count) of \(entries.filter { $0.action != .allow && $0.action != .lexicon }.count)\n")
      for entry in never {
        output.write("  \(entry.source.map(\.description) ?? "?"): \(entry.line)\n")
      }
    }
    output.flush()
  }
}
