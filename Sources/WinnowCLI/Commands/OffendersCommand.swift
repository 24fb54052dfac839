import ArgumentParser
import Foundation
@_spi(Tools) import Winnow

/// `winnow offenders`: the table of senders from `scan --offenders` files or `serve --events`
/// files, for a shell; merges the offenders files of a dump's parts.
struct OffendersCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "offenders",
    abstract: "Print the senders of offenders files (scan --offenders) or events files (serve --events).",
    discussion: """
      Offenders lines of the same sender (app and fromUserId) in several files, as the parts of \
      a dump give them, are added up, and the policy is applied again to all their messages: the \
      merged lines (--json) are those one scan of the whole dump writes. Events lines are \
      counted by sender and action. Worst first: most blocked, then flagged and replaced.

      Exit status: 0; 2 when a file cannot be read, a line is neither, or the policy is bad.
      """
  )

  @Argument(help: "Offenders or events files, JSON Lines; - for standard input.")
  var files: [String] = []

  @Option(help: ArgumentHelp("The offender policy (JSON); default: the built-in one.", valueName: "FILE"))
  var policy: String?

  @Option(
    name: .customLong("json"), help: ArgumentHelp("Also write the merged offenders lines to FILE.", valueName: "FILE"))
  var json: String?

  @Option(help: "Rows of the table (0: all).")
  var top = 20

  @Flag(name: .customLong("print-policy"), help: "Print the policy (the built-in one without --policy) and exit.")
  var printPolicy = false

  func validate() throws {
    guard top >= 0 else { throw ValidationError("--top must be 0 or more") }
  }

  func run() throws {
    var offenderPolicy = OffenderPolicy.builtIn
    do {
      if let policy { offenderPolicy = try loadPolicy(policy) }
    } catch {
      FileHandle.standardError.write(Data("winnow: \(error)\n".utf8))
      throw CLIError.exitCode
    }
    if printPolicy {
      print(offenderPolicy.json, terminator: "")
      return
    }
    var tally = OffenderTally()
    var events: [OffenderTally.Key: [String: Int]] = [:]
    try forEachNonBlankLine(of: files) { file, number, line in
      func fail(_ field: String, _ cause: String) -> ExitCode {
        FileHandle.standardError.write(
          Data("winnow: \(file):\(number): \(field.isEmpty ? "" : field + ": ")\(cause)\n".utf8))
        return CLIError.exitCode
      }
      var value: JSONValue
      do throws(JSONParseError) { value = try JSONValue(parsingUTF8: line) } catch {
        throw fail("", "not JSON: \(error.message)")
      }
      // A line of `scan --offenders -`: `{"offender":…}`.
      if let inner = value["offender"] { value = inner }
      if let kind = value["event"] {
        // Enforcement lines report a call's answer; the offender line before it counted the event.
        guard kind.stringValue == "offender" else { return }
        guard let user = value["userId"]?.stringValue, !user.isEmpty else {
          throw fail("userId", "an event names its user")
        }
        guard let action = value["operateType"]?.stringValue else { throw fail("operateType", "a string") }
        let key = OffenderTally.Key(appKey: value["appKey"]?.stringValue ?? "", fromUserId: user)
        events[key, default: [:]][action, default: 0] += 1
        return
      }
      switch OffenderTally.readLine(value) {
      case .success(let (key, sender)):
        if tally.senders[key] == nil { tally.senders[key] = sender } else { tally.senders[key]?.merge(sender) }
      case .failure(let problem):
        throw fail(problem.field, problem.cause + " (not an offenders line of scan --offenders)")
      }
    }
    let offenders = tally.offenders()
    if !offenders.isEmpty {
      print("app\tuser\tmessages\tblocked\treplaced\tflagged\trecommend")
      for (key, sender) in top == 0 ? offenders[...] : offenders.prefix(top) {
        let severest = OffenderTally.severest(of: OffenderTally.firings(of: sender, policy: offenderPolicy))
        let recommend =
          severest.map {
            $0.action.rawValue + ($0.action == .report ? "" : " \($0.minutes) min") + " (\($0.rule))"
          } ?? "none"
        print(
          "\(key.appKey.isEmpty ? "-" : key.appKey)\t\(key.fromUserId)\t\(sender.messages)\t\(sender.blocked)\t"
            + "\(sender.replaced)\t\(sender.flagged)\t\(recommend)")
      }
    }
    if !events.isEmpty {
      if !offenders.isEmpty { print("") }
      print("app\tuser\tevents")
      let ordered = events.sorted {
        let (left, right) = ($0.value.values.reduce(0, +), $1.value.values.reduce(0, +))
        return left != right ? left > right : $0.key < $1.key
      }
      for (key, actions) in top == 0 ? ordered[...] : ordered.prefix(top) {
        let counts = actions.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", ")
        print("\(key.appKey.isEmpty ? "-" : key.appKey)\t\(key.fromUserId)\t\(counts)")
      }
    }
    if let json {
      do {
        var writer = JSONWriter()
        for (key, sender) in offenders {
          OffenderTally.writeLine(key: key, sender: sender, policy: offenderPolicy, to: &writer)
        }
        var sink = try ResultSink(path: json, inputs: files)
        try sink.write(writer.bytes)
        try sink.commit()
      } catch {
        FileHandle.standardError.write(Data("winnow: \(error)\n".utf8))
        throw CLIError.exitCode
      }
    }
  }
}

/// Reads an offender policy file, or throws a ``CLIError`` naming the file, line and field.
func loadPolicy(_ path: String) throws(CLIError) -> OffenderPolicy {
  let data = try readWholeFile(path)
  guard let text = String(data: data, encoding: .utf8) else { throw CLIError("\(path): not UTF-8 text") }
  do { return try OffenderPolicy(json: text, file: path) } catch { throw CLIError(error.description) }
}
