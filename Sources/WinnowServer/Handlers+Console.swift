import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
@_spi(Tools) import Winnow

/// The console (`GET /console`) and the admin endpoints it is made of: `POST /v1/explain`,
/// `GET /v1/apps`, `GET|POST|DELETE /v1/apps/APPKEY/words`, `GET /v1/recent`. Every endpoint but
/// the page itself needs the admin token; the page holds no data and no token.
extension Handlers {
  func registerConsole(on router: Router<WinnowRequestContext>) {
    router.get("/console") { request, _ in
      await handle(.console, request) { _ in
        Reply(status: .ok, body: ConsolePage.html, contentType: "text/html; charset=utf-8")
      }
    }
    router.post("/v1/explain") { request, _ in
      await handle(.console, request) { request in
        if let refusal = adminRefusal(request, optional: false) { return refusal }
        return await explain(request)
      }
    }
    router.get("/v1/apps") { request, _ in
      await handle(.console, request) { request in
        if let refusal = adminRefusal(request, optional: false) { return refusal }
        guard let service = holder.service else { return .error(.serviceUnavailable, "the lists are still loading") }
        return .json(["apps": .array(service.engine.appKeys.map { .string($0) })])
      }
    }
    for (method, call) in [(HTTPRequest.Method.get, WordsCall.list), (.post, .add), (.delete, .delete)] {
      router.on("/v1/apps/:app/words", method: method) { request, context in
        await handle(.console, request) { request in
          if let refusal = adminRefusal(request, optional: false) { return refusal }
          return await consoleWords(call, app: context.parameters.get("app") ?? "", request, context)
        }
      }
    }
    router.get("/v1/recent") { request, _ in
      await handle(.console, request) { request in
        if let refusal = adminRefusal(request, optional: false) { return refusal }
        return .json(recent.json)
      }
    }
  }

  /// `POST /v1/explain`: `{"text": "…", "app": "APPKEY"}` (a text message of that app) or
  /// `{"item": {…item JSON…}}`. Answers `{"result": <the item's result, as /v1/moderate
  /// answers it>, "fields": [{"field": "content", <what check --json --suppressed prints for
  /// the field's text>}…]}`. Nothing is counted as traffic: the metrics, the offenders and the
  /// recent decisions do not see it.
  private func explain(_ request: Request) async -> Reply {
    let (service, buffer): (ModerationService, ByteBuffer)
    switch await serviceAndBody(of: request) {
    case .success(let ready): (service, buffer) = ready
    case .failure(let refusal): return refusal.reply
    }
    guard let body = try? JSONValue(parsing: String(buffer: buffer)), case .object = body else {
      return .error(.badRequest, "expected JSON {\"text\":…,\"app\":…} or {\"item\":{…}}")
    }
    let item: MessageItem
    do {
      if let given = body["item"] {
        item = try MessageItem(json: given)
      } else if case .string(let text)? = body["text"] {
        var app: String?
        if let given = body["app"], given != .null {
          guard case .string(let key) = given else { return .error(.badRequest, "app must be a string") }
          app = key.isEmpty ? nil : key
        }
        item = MessageItem(
          msgUID: "console", targetId: "console", conversationType: .privateChat, content: ["content": .string(text)],
          sentTime: Int64(Date().timeIntervalSince1970 * 1000), appKey: app)
      } else {
        return .error(.badRequest, "expected JSON {\"text\":…,\"app\":…} or {\"item\":{…}}")
      }
    } catch {
      return .json(Self.errorAnswer(error), status: .badRequest)
    }
    let engine = service.engine
    let result: ModerationResult
    let fields: [TextField]
    do {
      result = try await engine.moderate(item)
      fields = try engine.configuration.extractor.fields(of: item)
    } catch {
      return .json(Self.errorAnswer(error), status: .badRequest)
    }
    let matcher = engine.matcher(for: item)
    let actions = engine.categoryActions(for: item)
    let explained: [JSONValue] = fields.map { field in
      let (report, suppressed) = Explanation.explain(field.text, matcher: matcher, actions: actions, suppressed: true)
      guard case .object(let members) = Explanation.json(text: field.text, report: report, suppressed: suppressed)
      else { return .null }
      return .object([JSONMember(key: "field", value: .string(field.location.description))] + members)
    }
    return .json(["result": result.json, "fields": .array(explained)])
  }

  private enum WordsCall { case list, add, delete }

  /// The console's edits of an app's list, through the sensitive-word API's own code path:
  /// list `{"words": [{"word", "replaceWord"}…]}`; add `{"word", "replaceWord"}` (a word
  /// already listed gets the new replacement); delete `?word=…`. Answers `{"code":200}` or the
  /// platform's error answer.
  private func consoleWords(_ call: WordsCall, app: String, _ request: Request, _ context: WinnowRequestContext)
    async -> Reply
  {
    let service: ModerationService
    switch readyService() {
    case .success(let ready): service = ready
    case .failure(let refusal): return refusal.reply
    }
    guard AppDirectory.isValidAppKey(app[...]) else {
      return Self.platformError(.parameterError, "\(app): not an app key (letters, digits, - and _)")
    }
    let origin = origin(of: request, context)
    do throws(PlatformError) {
      switch call {
      case .list:
        let words = try await words(ofApp: app, service: service)
        return .json([
          "code": 200,
          "words": .array(
            words.map { word in ["word": .string(word.word), "replaceWord": .string(word.replacement ?? "")] }),
        ])
      case .add:
        var request = request
        let buffer: ByteBuffer
        switch await body(of: &request) {
        case .success(let read): buffer = read
        case .failure(let refusal): return refusal.reply
        }
        guard let body = try? JSONValue(parsing: String(buffer: buffer)), case .string(let word)? = body["word"],
          !word.isEmpty
        else { throw PlatformError(.parameterError, "expected JSON {\"word\":…,\"replaceWord\":…}") }
        var replacement: String?
        if let given = body["replaceWord"], given != .null {
          guard case .string(let text) = given else {
            throw PlatformError(.parameterError, "replaceWord must be a string")
          }
          replacement = text.isEmpty ? nil : text
        }
        let custom = ModerationService.CustomWord(word: word, replacement: replacement)
        if let problem = custom.problem { throw PlatformError(.parameterError, "\(word): \(problem)") }
        try await add([custom], app: app, origin: origin, service: service)
      case .delete:
        guard let word = request.uri.queryParameters["word"].map(String.init), !word.isEmpty else {
          throw PlatformError(.parameterError, "word is required (?word=…)")
        }
        let removed = try await remove([word], app: app, origin: origin, service: service)
        guard removed > 0 else {
          throw PlatformError(
            .parameterError, "the word is not in the app's list: \(JSONValue.string(word).jsonString)")
        }
      }
    } catch {
      return Self.platformError(
        error.code, redactingPaths(error.message, service: service), unavailable: error.isUnavailable)
    }
    return .json(["code": 200])
  }
}
