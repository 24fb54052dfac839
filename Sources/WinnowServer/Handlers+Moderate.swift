import Hummingbird
import NIOCore
@_spi(Tools) import Winnow

extension Handlers {
  /// `POST /v1/moderate`: one item, or NDJSON items answered line for line.
  func moderate(_ request: Request) async -> Reply {
    let (service, buffer): (ModerationService, ByteBuffer)
    switch await serviceAndBody(of: request) {
    case .success(let ready): (service, buffer) = ready
    case .failure(let refusal): return refusal.reply
    }
    let engine = service.engine
    let contentType = request.headers[.contentType]?.lowercased() ?? ""
    if contentType.hasPrefix("application/x-ndjson") || contentType.hasPrefix("application/jsonl") {
      var lines = String(buffer: buffer).split(separator: "\n", omittingEmptySubsequences: false)
      // The empty piece after a final newline is no line.
      if lines.last?.isEmpty == true { lines.removeLast() }
      guard lines.count <= configuration.maximumBatchLines else {
        return .error(
          .contentTooLarge,
          "\(lines.count) lines in one NDJSON request; at most \(configuration.maximumBatchLines) (--max-lines): send fewer at a time"
        )
      }
      guard let answers = await moderateLines(lines.map(String.init), engine: engine) else {
        return .error(
          .contentTooLarge,
          "the answers exceed \(configuration.maximumAnswerBytes) bytes (--max-answer): send fewer lines at a time")
      }
      return Reply(status: .ok, body: answers.joined(), contentType: "application/x-ndjson")
    }
    // Parsed from the body's bytes: no string of the whole body is made.
    let parsed = buffer.withUnsafeReadableBytes { raw in
      Result { () throws(JSONParseError) in try JSONValue(parsingUTF8: raw.bindMemory(to: UInt8.self)) }
    }
    let item: MessageItem
    do { item = try MessageItem(json: parsed.mapError { ItemError(.invalidJSON($0)) }.get()) } catch {
      return .json(Self.errorAnswer(error), status: .badRequest)
    }
    switch await moderateItem(item, engine: engine) {
    case .success(let result): return .result(result)
    case .failure(let error): return .json(Self.errorAnswer(error), status: .badRequest)
    }
  }

  /// One item through the whole pipeline, counted. A blank line is the error `scan` gives it.
  private func moderateItem(_ text: String, engine: ModerationEngine) async -> Result<ModerationResult, ItemError> {
    if text.allSatisfy(\.isWhitespace) {
      return .failure(ItemError(.invalidField("line", "a JSON object (the line is empty)")))
    }
    do { return await moderateItem(try MessageItem(json: text), engine: engine) } catch { return .failure(error) }
  }

  private func moderateItem(_ item: MessageItem, engine: ModerationEngine) async -> Result<ModerationResult, ItemError>
  {
    do {
      let result = try await engine.moderate(item)
      metrics.result(result)
      offenders.record(result)
      recent.record(result)
      return .success(result)
    } catch { return .failure(error) }
  }

  /// The answer lines of NDJSON items, in order: a result, or an error naming the line. A
  /// blank line is an error, as it is in `winnow scan`: every line sent gets its answer. At
  /// most `batchConcurrency` items at once. Nil once the answers pass
  /// ``ServerConfiguration/maximumAnswerBytes`` (the rest are not moderated).
  private func moderateLines(_ lines: [String], engine: ModerationEngine) async -> [String]? {
    let items = Array(lines.enumerated())
    var answers = [String](repeating: "", count: items.count)
    var size = 0
    await withTaskGroup(of: (Int, String).self) { group in
      var next = 0
      func start() {
        let (index, (lineIndex, text)) = (next, items[next])
        next += 1
        group.addTask {
          switch await moderateItem(text, engine: engine) {
          case .success(let result):
            var writer = JSONWriter()
            result.write(to: &writer)
            writer.endLine()
            return (index, String(decoding: writer.bytes, as: UTF8.self))
          case .failure(let error):
            var answer = Self.errorAnswer(error)
            if case .object(var members) = answer {
              members.append(JSONMember(key: "line", value: .number(String(lineIndex + 1))))
              answer = .object(members)
            }
            return (index, answer.jsonString + "\n")
          }
        }
      }
      while next < items.count && next < max(1, configuration.batchConcurrency) { start() }
      while let (index, answer) = await group.next() {
        answers[index] = answer
        size += answer.utf8.count
        if size > configuration.maximumAnswerBytes {
          group.cancelAll()
          return
        }
        if next < items.count { start() }
      }
    }
    return size > configuration.maximumAnswerBytes ? nil : answers
  }

  /// The error answer of an item, as `winnow check --item --json` writes it.
  static func errorAnswer(_ error: ItemError) -> JSONValue {
    ["verdict": "error", "error": .string(error.description)]
  }
}
