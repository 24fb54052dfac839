import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
@_spi(Tools) import Winnow
@_spi(Tools) import WinnowStore

/// The platform's sensitive-word server API, for each app's custom list.
enum SensitiveWordAPI: Sendable {
  case add, batchAdd, list, delete, batchDelete

  static let paths: [(String, SensitiveWordAPI)] = [
    ("/sensitiveword/add.json", .add), ("/sensitiveword/batch/add.json", .batchAdd),
    ("/sensitiveword/list.json", .list), ("/sensitiveword/delete.json", .delete),
    ("/sensitiveword/batch/delete.json", .batchDelete),
  ]

  /// The most words of one batch call, as on the platform.
  static let maximumBatch = 50

  /// The platform's answer codes.
  enum Code: Int {
    case success = 200
    case internalError = 1000
    case parameterError = 1002
    case signatureError = 1004
  }
}

private let appKeyHeader = HTTPField.Name("App-Key")!
private let nonceHeader = HTTPField.Name("Nonce")!
private let timestampHeader = HTTPField.Name("Timestamp")!
private let signatureHeader = HTTPField.Name("Signature")!

extension Handlers {
  /// One call of the sensitive-word API: signed with the headers `App-Key, Nonce, Timestamp,
  /// Signature` (= SHA1(appSecret + Nonce + Timestamp)); answered `{"code":200,…}` or
  /// `{"code":1002|1004|1000,"errorMessage":"…"}` (HTTP 400, 401, 500). Edits are durable and in
  /// effect when answered.
  func sensitiveWord(_ api: SensitiveWordAPI, _ request: Request, origin: ChangeOrigin) async -> Reply {
    var request = request
    let service: ModerationService
    switch readyService() {
    case .success(let ready): service = ready
    case .failure(let refusal): return refusal.reply
    }
    let appKey = request.headers[appKeyHeader] ?? ""
    if let refusal = signatureRefusal(
      service: service, appKey: appKey, nonce: request.headers[nonceHeader],
      timestamp: request.headers[timestampHeader], signature: request.headers[signatureHeader],
      names: ("Nonce", "Timestamp", "Signature"))
    {
      return Self.platformError(.signatureError, refusal)
    }
    let buffer: ByteBuffer
    switch await body(of: &request) {
    case .success(let read): buffer = read
    case .failure(let refusal): return refusal.reply
    }
    let text = String(buffer: buffer)
    do throws(PlatformError) {
      switch api {
      case .add:
        let fields = try Self.form(text)
        guard let word = fields["word"], !word.isEmpty else { throw PlatformError(.parameterError, "word is required") }
        let replacement = fields["replaceWord"].flatMap { $0.isEmpty ? nil : $0 }
        try await add(
          [ModerationService.CustomWord(word: word, replacement: replacement)], app: appKey, origin: origin,
          service: service)
      case .batchAdd:
        let words = try Self.batchWords(text)
        try await add(words, app: appKey, origin: origin, service: service)
      case .list:
        let fields = try Self.form(text)
        let type = fields["type"].flatMap { $0.isEmpty ? nil : $0 } ?? "1"
        guard ["0", "1", "2"].contains(type) else { throw PlatformError(.parameterError, "type must be 0, 1 or 2") }
        let words = try await words(ofApp: appKey, service: service).filter { word in
          type == "2" || (type == "0") == (word.replacement != nil)
        }
        let listed: [JSONValue] = words.map { word in
          var members = [
            JSONMember(key: "type", value: .string(word.replacement == nil ? "1" : "0")),
            JSONMember(key: "word", value: .string(word.word)),
          ]
          // Block words too carry `replaceWord`, empty, as the platform's SDKs document.
          members.append(JSONMember(key: "replaceWord", value: .string(word.replacement ?? "")))
          return .object(members)
        }
        return .json(["code": 200, "words": .array(listed)])
      case .delete, .batchDelete:
        let name = api == .delete ? "word" : "words"
        let words = try Self.form(text).values(of: name).flatMap(Self.listedWords).filter { !$0.isEmpty }
        guard !words.isEmpty else { throw PlatformError(.parameterError, "\(name) is required") }
        guard words.count <= SensitiveWordAPI.maximumBatch else {
          throw PlatformError(.parameterError, "more than \(SensitiveWordAPI.maximumBatch) words")
        }
        let removed = try await remove(words, app: appKey, origin: origin, service: service)
        // An edit that did nothing is not a success: the caller's word is not what is listed.
        guard removed > 0 else {
          throw PlatformError(
            .parameterError,
            "\(words.count == 1 ? "the word is" : "none of the words is") not in the app's list: "
              + words.map { JSONValue.string($0).jsonString }.joined(separator: ", "))
        }
      }
    } catch {
      return Self.platformError(
        error.code, redactingPaths(error.message, service: service), unavailable: error.isUnavailable)
    }
    return .json(["code": 200])
  }

  /// Adds words to the app's list, in the store when there is one.
  func add(
    _ words: [ModerationService.CustomWord], app: String, origin: ChangeOrigin, service: ModerationService
  )
    async throws(PlatformError)
  {
    if let store = configuration.store {
      for word in words {
        if let problem = word.problem { throw PlatformError(.parameterError, "\(word.word): \(problem)") }
      }
      try await storeEdit {
        try await store.edit(app: app, origin: origin, service: service) { file in
          let (added, changes) = ModerationService.add(words, toApp: app, in: &file)
          return (added, changes)
        }
      }
      return
    }
    try await edit { () throws(ModerationServiceError) -> Int in
      try service.addWords(words, toApp: app, origin: origin)
    }
  }

  /// Removes words from the app's list, in the store when there is one; returns how many went.
  func remove(_ words: [String], app: String, origin: ChangeOrigin, service: ModerationService)
    async throws(PlatformError) -> Int
  {
    if let store = configuration.store {
      return try await storeEdit {
        try await store.edit(app: app, origin: origin, service: service) { file in
          let (removed, changes) = ModerationService.remove(words, fromApp: app, in: &file)
          return (removed, changes)
        }
      }
    }
    return try await edit { () throws(ModerationServiceError) -> Int in
      try service.removeWords(words, fromApp: app, origin: origin)
    }
  }

  /// The app's words, from the store when there is one.
  func words(ofApp app: String, service: ModerationService) async throws(PlatformError)
    -> [ModerationService.CustomWord]
  {
    guard let store = configuration.store else { return service.words(ofApp: app) }
    return try await storeEdit { try await store.words(ofApp: app) }
  }

  /// Runs a call of the store: a list problem is a parameter error; a store that cannot be
  /// reached is the platform's internal error, answered 503 (nothing was acknowledged).
  @discardableResult
  private func storeEdit<T>(_ body: () async throws -> T) async throws(PlatformError) -> T {
    do { return try await body() } catch let error as ModerationServiceError {
      throw PlatformError(.parameterError, error.description)
    } catch let error as StoreError {
      configuration.logger.warning("a word edit failed: \(error)")
      throw PlatformError(
        .internalError, error.isUnavailable ? "the list store is unavailable; try again" : "\(error)",
        unavailable: true)
    } catch {
      throw PlatformError(.internalError, "\(error)", unavailable: true)
    }
  }

  /// Runs an edit off the request threads (it writes and fsyncs a file and compiles a list):
  /// a word list problem is a parameter error, anything else an internal one.
  @discardableResult
  private func edit(_ body: @escaping @Sendable () throws(ModerationServiceError) -> Int) async throws(PlatformError)
    -> Int
  {
    let outcome = await offThePool { () -> Result<Int, ModerationServiceError> in
      do throws(ModerationServiceError) { return .success(try body()) } catch { return .failure(error) }
    }
    switch outcome {
    case .success(let count): return count
    case .failure(let error):
      throw PlatformError(error.isWriteFailure ? .internalError : .parameterError, error.description)
    }
  }

  /// `message` with the server's directories left out: a caller is told `app1.txt:3: …`, never
  /// where the server keeps its files.
  func redactingPaths(_ message: String, service: ModerationService) -> String {
    guard let directory = service.apps?.path, !directory.isEmpty else { return message }
    var absolute = directory
    if !absolute.hasPrefix("/") { absolute = FileManager.default.currentDirectoryPath + "/" + absolute }
    var redacted = message
    for path in [absolute, directory] where !path.isEmpty {
      redacted = redacted.replacingOccurrences(of: path + "/", with: "")
      redacted = redacted.replacingOccurrences(of: path, with: "the apps directory")
    }
    return redacted
  }

  /// The words of one form value: itself, or, for a value written as a list, `['秒杀', '代购']`
  /// (what the platform's Python SDK sends when given a list) or `["秒杀"]`, its quoted items. A
  /// word is letters and digits, so a value in brackets is never a word itself.
  static func listedWords(_ value: String) -> [String] {
    let trimmed = value.trimmingCharacters(in: .whitespaces)
    guard trimmed.hasPrefix("["), trimmed.hasSuffix("]"), trimmed.count >= 2 else { return [value] }
    return trimmed.dropFirst().dropLast().split(separator: ",").map { item in
      var word = item.trimmingCharacters(in: .whitespaces)[...]
      if word.count >= 2, let first = word.first, first == "'" || first == "\"", word.last == first {
        word = word.dropFirst().dropLast()
      }
      return String(word)
    }
  }

  private static func form(_ text: String) throws(PlatformError) -> FormFields {
    guard let fields = FormFields(text) else {
      throw PlatformError(.parameterError, "the body is not a form (application/x-www-form-urlencoded)")
    }
    return fields
  }

  /// `{"words":[{"word":"…","replaceWord":"…"},…]}`, at most 50.
  private static func batchWords(_ text: String) throws(PlatformError) -> [ModerationService.CustomWord] {
    guard let value = try? JSONValue(parsing: text), case .array(let entries)? = value["words"] else {
      throw PlatformError(.parameterError, "expected JSON {\"words\":[{\"word\":…,\"replaceWord\":…},…]}")
    }
    guard !entries.isEmpty else { throw PlatformError(.parameterError, "words is required") }
    guard entries.count <= SensitiveWordAPI.maximumBatch else {
      throw PlatformError(.parameterError, "more than \(SensitiveWordAPI.maximumBatch) words")
    }
    var words: [ModerationService.CustomWord] = []
    for entry in entries {
      guard case .string(let word)? = entry["word"], !word.isEmpty else {
        throw PlatformError(.parameterError, "every word needs \"word\"")
      }
      var replacement: String? = nil
      if let given = entry["replaceWord"], given != .null {
        guard case .string(let text) = given else {
          throw PlatformError(.parameterError, "replaceWord must be a string")
        }
        replacement = text.isEmpty ? nil : text
      }
      words.append(ModerationService.CustomWord(word: word, replacement: replacement))
    }
    return words
  }

  static func platformError(_ code: SensitiveWordAPI.Code, _ message: String, unavailable: Bool = false) -> Reply {
    let status: HTTPResponse.Status =
      switch code {
      case .signatureError: .unauthorized
      case .parameterError: .badRequest
      case .internalError, .success: unavailable ? .serviceUnavailable : .internalServerError
      }
    return .json(["code": .number(String(code.rawValue)), "errorMessage": .string(message)], status: status)
  }
}

/// A platform error code and its message.
struct PlatformError: Error {
  let code: SensitiveWordAPI.Code
  let message: String
  /// Whether the list store could not be reached (answered 503: try again).
  let isUnavailable: Bool
  init(_ code: SensitiveWordAPI.Code, _ message: String, unavailable: Bool = false) {
    self.code = code
    self.message = message
    self.isUnavailable = unavailable
  }
}
