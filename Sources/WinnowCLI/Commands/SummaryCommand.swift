import ArgumentParser
import Foundation

/// `winnow summary`: adds up the summaries of scans of a dump's parts.
struct SummaryCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "summary",
    abstract: "Add up the --summary-json summaries of scans of a dump's parts.",
    discussion: """
      Each file holds summaries, one JSON object a line: what `winnow scan --summary-json FILE` \
      writes, or its `{"summary":…}` line. Prints the sum as `winnow scan` prints a summary; the \
      counts equal those of one scan of the whole dump.

      Exit status: what a scan of the whole dump would give (0, 1 or 3, see `winnow scan --help`); \
      2 when a file cannot be read or a line is not a summary (a count that is negative or past \
      2^48, lines that do not add up: read = passed + replaced + blocked + errors).
      """
  )

  @Argument(help: "Files of summaries, one JSON object a line; - for standard input.")
  var files: [String] = []

  @Option(name: .customLong("json"), help: ArgumentHelp("Also write the sum as JSON to FILE.", valueName: "FILE"))
  var json: String?

  /// A line of a summaries file: a summary, or one wrapped as a scan's last output line.
  private struct Wrapped: Decodable {
    var summary: ScanSummary
  }

  func run() throws {
    var total: ScanSummary?
    try forEachNonBlankLine(of: files) { file, number, line in
      let decoder = JSONDecoder()
      let summary: ScanSummary
      if let wrapped = try? decoder.decode(Wrapped.self, from: Data(line)) {
        summary = wrapped.summary
      } else {
        do { summary = try decoder.decode(ScanSummary.self, from: Data(line)) } catch {
          FileHandle.standardError.write(
            Data("winnow: \(file):\(number): not a scan summary: \(Self.describe(error))\n".utf8))
          throw CLIError.exitCode
        }
      }
      if let problem = summary.problem(limit: ScanSummary.countLimit) {
        FileHandle.standardError.write(Data("winnow: \(file):\(number): not a scan summary: \(problem)\n".utf8))
        throw CLIError.exitCode
      }
      if total == nil { total = summary } else { total?.add(summary) }
      if let problem = total?.problem(limit: ScanSummary.totalLimit) {
        FileHandle.standardError.write(Data("winnow: \(file):\(number): the sum cannot be: \(problem)\n".utf8))
        throw CLIError.exitCode
      }
    }
    guard let total else {
      FileHandle.standardError.write(Data("winnow: no summaries in \(files.joined(separator: ", "))\n".utf8))
      throw CLIError.exitCode
    }
    FileHandle.standardError.write(Data(total.text.utf8))
    if let json {
      do {
        var sink = try ResultSink(path: json, inputs: files)
        try sink.write(Array(total.json()))
        try sink.commit()
      } catch {
        FileHandle.standardError.write(Data("winnow: \(error)\n".utf8))
        throw CLIError.exitCode
      }
    }
    if total.exitStatus != 0 { throw ExitCode(total.exitStatus) }
  }

  /// A decoding error as a short cause: the missing or mistyped key and where.
  private static func describe(_ error: Error) -> String {
    guard let error = error as? DecodingError else { return "\(error)" }
    func path(_ context: DecodingError.Context) -> String {
      context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
    }
    switch error {
    case .keyNotFound(let key, let context):
      return "no \"\(key.stringValue)\"" + (context.codingPath.isEmpty ? "" : " in \(path(context))")
    case .typeMismatch(_, let context), .valueNotFound(_, let context):
      return "\(path(context)): \(context.debugDescription)"
    case .dataCorrupted(let context):
      return context.codingPath.isEmpty ? "not JSON" : "\(path(context)): \(context.debugDescription)"
    @unknown default:
      return "\(error)"
    }
  }
}
