import ArgumentParser
import Foundation
@_spi(Tools) import Winnow

/// `winnow store`: the stores of app lists; for now the file store's audit log.
struct StoreCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "store",
    abstract: "The app lists' store: its audit log of changes.",
    subcommands: [StoreLogCommand.self]
  )
}

/// `winnow store log`: the changes of an app directory's lists, as `winnow serve` logged them.
struct StoreLogCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "log",
    abstract: "Print the audit log of list changes (DIR/changes.jsonl), oldest first.",
    discussion: """
      Each change made through winnow serve's sensitive-word API (or ModerationService) is \\
      logged with its id, app, op (add, update, delete), word, replaceWord, time, the replica, \\
      and the caller's address and request id. See Docs/serving.md.

      Exit status: 0; 2 when the log cannot be read or --since is neither an id nor a time.
      """
  )

  @Option(help: ArgumentHelp("The app directory (as for serve --apps).", valueName: "DIR"))
  var apps: String

  @Option(help: ArgumentHelp("Only this app's changes.", valueName: "APPKEY"))
  var app: String?

  @Option(
    help: ArgumentHelp(
      "Only changes after this id, or at or after this time (ISO 8601: 2026-11-22T00:00:00Z).",
      valueName: "ID|TIME"))
  var since: String?

  @Flag(help: "One JSON object a line, as the log and GET /v1/apps/APPKEY/changes write them.")
  var json = false

  func run() throws {
    var afterID: Int64 = 0
    var afterTime = Int64.min
    if let since {
      if let id = Int64(since), id >= 0 {
        afterID = id
      } else if let time = ChangeLog.milliseconds(isoTime: since) {
        afterTime = time
      } else {
        FileHandle.standardError.write(
          Data("winnow: --since \(since): neither a change id nor an ISO 8601 time (2026-11-22T00:00:00Z)\n".utf8))
        throw CLIError.exitCode
      }
    }
    let changes: [ListChange]
    do { changes = try ChangeLog.read(directory: apps, app: app, since: afterID, after: afterTime) } catch {
      FileHandle.standardError.write(Data("winnow: \(error)\n".utf8))
      throw CLIError.exitCode
    }
    for change in changes {
      if json {
        print(change.json.jsonString)
      } else {
        let value = change.json
        let replacement = change.replaceWord.map { " => \($0)" } ?? ""
        print(
          "\(change.id)\t\(value["time"]?.stringValue ?? "")\t\(change.app)\t\(change.op)\t\(change.word)\(replacement)\t"
            + "\(change.origin.replica)\t\(change.origin.address ?? "-")\t\(change.origin.requestId ?? "-")")
      }
    }
  }
}
