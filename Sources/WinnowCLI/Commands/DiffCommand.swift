import ArgumentParser
import Foundation
@_spi(Tools) import Winnow

/// `winnow diff`: what a change to a word list does to a corpus.
struct DiffCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "diff",
    abstract: "Show what changing a word list does to a corpus: items newly blocked, passed or replaced.",
    discussion: """
      Moderates every item of the dumps twice, with the old lists and with the new ones (a \
      directory means its *.txt files), and reports the items whose verdict changed, with \
      counts, a sample of each kind and the entries responsible. Lists are read as custom lists \
      over the built-in global list, as they would run, so a word the global list blocks anyway \
      changes nothing; --alone compares them alone. With --global they are the whole global \
      list, compared alone. Exit status 0: no verdict changed; 1: some changed.
      """
  )

  @Option(help: "The list before the change (file or directory; repeatable).")
  var old: [String]

  @Option(help: "The list after the change (file or directory; repeatable).")
  var new: [String]

  @Argument(help: "JSON Lines dumps; - or nothing for standard input.")
  var dumps: [String] = []

  @OptionGroup var origin: OriginOption

  @Flag(help: "Compare the custom lists alone, without the built-in global list under them.")
  var alone = false

  @Option(help: "Items shown per kind of change.")
  var samples = 5

  @Option(help: "Parallel workers (default: the number of cores).")
  var jobs = ProcessInfo.processInfo.activeProcessorCount

  func validate() throws { try validateJobs(jobs) }

  struct Change: Sendable {
    var kind: String
    var file: String
    var line: Int
    var text: String
    var entries: [String]
  }

  func run() throws {
    let lists = try loadLists([old, new], origin: origin.origin)
    // The custom lists run over the global list in effect: the built-in one (and the contact
    // list), read as every command reads it.
    let global = origin.global || alone ? try Matcher(lists: []) : try ListOptions.parse([]).matcher()
    let (oldEngine, newEngine) = try (engine(lists[0], over: global), engine(lists[1], over: global))
    let batches = forEachBatch(of: dumps, jobs: jobs) { batch -> (changes: [Change], read: Int, errors: Int) in
      var changes: [Change] = []
      var errors = 0
      batch.bytes.withUnsafeBufferPointer { bytes in
        for (offset, range) in batch.lines.enumerated() {
          guard let line = try? DumpLine(utf8: UnsafeBufferPointer(rebasing: bytes[range])),
            let before = try? oldEngine.screen(line.item), let after = try? newEngine.screen(line.item)
          else {
            errors += 1
            continue
          }
          guard before.verdict != after.verdict else { continue }
          let kind: String
          let responsible: ModerationResult
          switch after.verdict {
          case .blocked: (kind, responsible) = ("newly blocked", after)
          case .replaced: (kind, responsible) = ("newly replaced", after)
          case .pass: (kind, responsible) = ("newly passed", before)
          }
          let fields = (try? newEngine.configuration.extractor.fields(of: line.item)) ?? []
          changes.append(
            Change(
              kind: kind, file: batch.file, line: batch.firstLine + offset,
              text: fields.map(\.text).joined(separator: " | "),
              // The entries of the lists compared (not the global list under custom ones).
              entries: responsible.matches.filter { origin.global || $0.match.origin == .custom }.map { match in
                let place = match.match.entry.source.map { " \(ScanTally.shortName($0.file)):\($0.line)" } ?? ""
                return match.match.entry.text + place
              }))
        }
      }
      return (changes, batch.lines.count, errors + (batch.failure == nil ? 0 : 1))
    }
    let changes = batches.flatMap(\.changes)
    let read = batches.reduce(0) { $0 + $1.read }
    let errors = batches.reduce(0) { $0 + $1.errors }
    var output = OutputBuffer()
    output.write("\(read) items read, \(errors) unreadable, \(changes.count) changed verdict\n")
    for kind in ["newly blocked", "newly passed", "newly replaced"] {
      let ofKind = changes.filter { $0.kind == kind }
      output.write("\(kind): \(ofKind.count)\n")
      var byEntry: [String: Int] = [:]
      for change in ofKind { for entry in Set(change.entries) { byEntry[entry, default: 0] += 1 } }
      for (entry, count) in byEntry.sorted(by: { ($1.value, $0.key) < ($0.value, $1.key) }).prefix(10) {
        output.write("  \(count) × \(entry)\n")
      }
      for change in ofKind.prefix(samples) {
        output.write("  e.g. \(change.file):\(change.line): \(jsonString(change.text))\n")
      }
    }
    output.flush()
    if !changes.isEmpty { throw ExitCode(1) }
  }

  /// An engine of `lists` (custom ones over `global`); when they do not compile, every error
  /// of the old and the new lists.
  private func engine(_ lists: [WordList], over global: Matcher) throws -> ModerationEngine {
    do throws(WordListErrors) {
      return origin.global
        ? try ModerationEngine(global: lists) : try ModerationEngine(global: global, custom: lists)
    } catch {
      throw reportListErrors(error.errors, inFiles: old + new)
    }
  }
}
