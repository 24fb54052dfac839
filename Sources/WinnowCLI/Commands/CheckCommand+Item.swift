import ArgumentParser
import Foundation
@_spi(Tools) import Winnow

extension CheckCommand {
  /// `winnow check --item JSON`: one item through the whole pipeline.
  func checkItem(_ argument: String) async throws {
    let (configuration, client) = try moderation.configuration()
    do {
      try await checkItem(argument, configuration: configuration)
    } catch {
      try? await client?.shutdown()
      throw error
    }
    try? await client?.shutdown()
  }

  private func checkItem(_ argument: String, configuration: ModerationEngine.Configuration) async throws {
    let engine: ModerationEngine
    do { engine = try lists.engine(configuration: configuration) } catch let error as CLIError {
      FileHandle.standardError.write(Data("winnow: \(error)\n".utf8))
      throw CLIError.exitCode
    }
    let text = argument == "-" ? String(decoding: readStandardInput(), as: UTF8.self) : argument
    let result: ModerationResult
    var texts: [FieldLocation: String] = [:]
    do {
      let item = try MessageItem(json: text)
      result = try await engine.moderate(item)
      for field in try engine.configuration.extractor.fields(of: item) { texts[field.location] = field.text }
    } catch {
      if json {
        var output = OutputBuffer()
        let object: JSONValue = ["verdict": "error", "error": .string(error.description)]
        output.write(object.jsonString + "\n")
      } else {
        FileHandle.standardError.write(Data("winnow: item: \(error)\n".utf8))
      }
      throw CLIError.exitCode
    }
    var output = OutputBuffer()
    if json {
      output.write(result.json.jsonString + "\n")
    } else {
      output.write(Self.describe(result, texts: texts, color: isatty(STDOUT_FILENO) == 1))
    }
    output.flush()
    if result.verdict != .pass || result.flagged { throw ExitCode(1) }
  }

  /// The verdict in lines for people: the verdict, each field with matches highlighted, each
  /// match, the reviewer's part, the replaced content or the record.
  static func describe(_ result: ModerationResult, texts: [FieldLocation: String], color: Bool) -> String {
    var lines: [String] = []
    var head = "verdict: \(result.verdict.rawValue)"
    if let blockType = result.blockType { head += " (blockType \(blockType.rawValue))" }
    head += ", sensitiveType \(result.sensitiveType.rawValue)"
    if result.flagged { head += ", flagged for review" }
    if result.incomplete { head += ", check incomplete (a regex stopped at its limits)" }
    lines.append(head)
    var fields: [FieldLocation] = []
    for match in result.matches where !fields.contains(match.field) { fields.append(match.field) }
    for field in fields {
      let matches = result.matches.filter { $0.field == field }.map(\.match)
      if let text = texts[field] {
        lines.append("\(field): \(highlighted(text, matches, color: color))")
      }
      for match in matches { lines.append("    " + describe(match)) }
    }
    for warning in result.warnings { lines.append("warning: \(warning)") }
    if let score = result.score {
      let outcome =
        result.scoreBlocked
        ? " -> blocked"
        : result.scoreCleared ? " -> cleared the global list's block" : (result.flagged ? " -> flagged" : "")
      lines.append("scorer: \(ModerationEngine.scoreText(score))\(outcome)")
    }
    if let review = result.review {
      var line = "reviewer: "
      if let decision = review.decision {
        line += decision.outcome.rawValue
        if !decision.labels.isEmpty { line += " [\(decision.labels.joined(separator: ", "))]" }
        if let extra = decision.extra { line += " extra \(jsonString(extra))" }
      } else {
        line += "failed: \(review.failure ?? "unknown")"
      }
      lines.append(line + (review.blocked ? " -> blocked" : ""))
    }
    if let content = result.replacedContent { lines.append("delivered content: \(content.jsonString)") }
    if let record = result.record { lines.append("record: \(record.json.jsonString)") }
    return lines.joined(separator: "\n") + "\n"
  }

}
