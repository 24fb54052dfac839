import Foundation
import Hummingbird
import NIOCore
@_spi(Tools) import Winnow

extension Handlers {
  /// `POST /callback/message`: the platform's message callback, server side. The form POST is
  /// signed in the query (`nonce`, `signTimestamp`, `signature` = SHA1(appSecret + nonce +
  /// signTimestamp)) with the secret of its `appKey`; the answer is
  /// `{"pass":0|1,"replaceContent":"…","replaceExtraContent":"…","extra":"…"}`: 0 blocks, 1
  /// delivers (with the replaced content, when a replace word matched). `pushContent` is
  /// moderated as a field of the message: a block match there blocks it, and so does a replace
  /// match (the answer has no field for a rewritten push text). `extra` is the record's (see
  /// ``RecordExtra``), or the replace words' categories.
  func callback(_ request: Request) async -> Reply {
    let (service, buffer): (ModerationService, ByteBuffer)
    switch await serviceAndBody(of: request) {
    case .success(let ready): (service, buffer) = ready
    case .failure(let refusal): return refusal.reply
    }
    guard let fields = FormFields(String(buffer: buffer)) else {
      return .error(.badRequest, "the body is not a form (application/x-www-form-urlencoded)")
    }
    let query = request.uri.queryParameters
    let appKey = fields["appKey"] ?? ""
    if let refusal = signatureRefusal(
      service: service, appKey: appKey, nonce: query["nonce"].map(String.init),
      timestamp: query["signTimestamp"].map(String.init), signature: query["signature"].map(String.init),
      names: ("nonce", "signTimestamp", "signature"))
    {
      return .error(.unauthorized, refusal)
    }
    // Signed by the platform from here on: the platform delivers a message whose callback
    // fails, so an error answer would be a pass in disguise. What cannot be read is answered
    // by `--callback-on-error`, in the platform's own answer.
    let item: MessageItem
    do { item = try MessageItem(callbackFields: fields.pairs) } catch {
      return unreadable(appKey: appKey, cause: error.description)
    }
    let engine = service.engine
    let result: ModerationResult
    do { result = try await engine.moderate(item) } catch {
      return unreadable(appKey: appKey, cause: error.description)
    }
    metrics.result(result)
    offenders.record(result)
    recent.record(result)
    // What the sender is shown: the record's `extra` (by default the deciding categories).
    var extra = result.verdict == .blocked ? result.record?.extra ?? "" : nil
    // The item's push text and title are moderated with it. The platform's answer cannot carry
    // a rewritten push text or title, so a replace word there blocks: the lock screen never
    // shows the word.
    if extra == nil, result.verdict == .replaced,
      case let inPush = result.matches.filter({ $0.field.part != .content && $0.match.action.isReplace }),
      !inPush.isEmpty
    {
      var categories: [String] = []
      for found in inPush {
        let category = found.match.category ?? "blocked"
        if !categories.contains(category) { categories.append(category) }
      }
      extra = categories.joined(separator: ",")
    }
    if let extra { return .json(["pass": 0, "extra": .string(extra)]) }
    var answer: [JSONMember] = [JSONMember(key: "pass", value: 1)]
    if let replaced = result.replacedContent {
      if item.sourceType == .extension, let put = replaced["put"] {
        answer.append(JSONMember(key: "replaceExtraContent", value: .string(put.jsonString)))
      } else if case .string(let text) = replaced {
        // Plain-text content (a custom type's) is answered as plain text.
        answer.append(JSONMember(key: "replaceContent", value: .string(text)))
      } else {
        answer.append(JSONMember(key: "replaceContent", value: .string(replaced.jsonString)))
      }
    }
    return .json(.object(answer))
  }

  /// The answer to a signed callback whose message cannot be read or moderated (malformed
  /// content of a built-in type, content over the limit): by `--callback-on-error`, blocked
  /// (`{"pass":0,"extra":"unreadable"}`, the default) or delivered; logged and counted either way.
  private func unreadable(appKey: String, cause: String) -> Reply {
    let blocks = configuration.callbackOnError == .block
    configuration.logger.warning(
      "callback message unreadable",
      metadata: ["appKey": "\(appKey)", "error": "\(cause)", "answer": "\(blocks ? "block" : "pass")"])
    metrics.unreadableCallback()
    return blocks ? .json(["pass": 0, "extra": "unreadable"]) : .json(["pass": 1])
  }

  /// Why a signed request is refused, or nil when its signature is the app's: all three parts
  /// present, the app has a secret, the signature matches, the timestamp (seconds or
  /// milliseconds) is within the configured window of now, and the same nonce and timestamp
  /// were not accepted before within the window, at this endpoint or another (see
  /// ``NonceRegistry``). With a window of 0, neither time nor repeats are checked.
  func signatureRefusal(
    service: ModerationService, appKey: String, nonce: String?, timestamp: String?, signature: String?,
    names: (String, String, String)
  ) -> String? {
    guard let nonce, !nonce.isEmpty else { return "\(names.0) is missing" }
    guard let timestamp, !timestamp.isEmpty else { return "\(names.1) is missing" }
    guard let signature, !signature.isEmpty else { return "\(names.2) is missing" }
    guard !appKey.isEmpty, let secret = service.secret(ofApp: appKey) else {
      return "no secret for app \(JSONValue.string(appKey).jsonString) in the apps' secrets.json"
    }
    guard PlatformSignature.isValid(signature, secret: secret, nonce: nonce, timestamp: timestamp) else {
      return "\(names.2) does not match: SHA1(appSecret + \(names.0) + \(names.1)) expected"
    }
    if configuration.signatureWindowSeconds > 0 {
      guard let value = Int64(timestamp), value >= 0 else { return "\(names.1) is not a number" }
      // Platform timestamps are milliseconds in callbacks and seconds in the server API.
      let seconds = value > 100_000_000_000 ? value / 1000 : value
      let now = Int64(Date().timeIntervalSince1970)
      let (difference, overflow) = now.subtractingReportingOverflow(seconds)
      if overflow || difference.magnitude > UInt64(configuration.signatureWindowSeconds) {
        return "\(names.1) is more than \(configuration.signatureWindowSeconds) s from now"
      }
      switch nonces?.admit(app: appKey, nonce: nonce, timestamp: timestamp, now: now) {
      case .repeated:
        return "\(names.0) was used already with this \(names.1): a signed request is accepted once"
      case .full:
        return "too many signed requests within \(configuration.signatureWindowSeconds) s to remember them all"
      case .fresh, nil: break
      }
    }
    return nil
  }
}

/// The fields of an `application/x-www-form-urlencoded` body, in order (a name may repeat).
struct FormFields: Sendable {
  let pairs: [(name: String, value: String)]

  /// Nil when a field is not valid percent-encoded UTF-8.
  init?(_ body: String) {
    var pairs: [(name: String, value: String)] = []
    var body = body
    let parsed = body.withUTF8 { bytes -> Bool in
      for field in bytes.split(separator: UInt8(ascii: "&")) where !field.isEmpty {
        let equals = field.firstIndex(of: UInt8(ascii: "=")) ?? field.endIndex
        guard let name = Self.decode(field[..<equals]),
          let value = Self.decode(equals < field.endIndex ? field[(equals + 1)...] : field[field.endIndex...])
        else { return false }
        pairs.append((name, value))
      }
      return true
    }
    guard parsed else { return nil }
    self.pairs = pairs
  }

  /// The first value of `name`.
  subscript(name: String) -> String? { pairs.first { $0.name == name }?.value }

  /// Every value of `name`, in order.
  func values(of name: String) -> [String] { pairs.filter { $0.name == name }.map(\.value) }

  /// `+` as a space and `%XX` as a byte; nil for a malformed escape or bytes that are not
  /// UTF-8.
  private static func decode(_ text: Slice<UnsafeBufferPointer<UInt8>>) -> String? {
    guard text.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else {
      return String(validating: text, as: UTF8.self)
    }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(text.count)
    var index = text.startIndex
    while index < text.endIndex {
      let byte = text[index]
      if byte == UInt8(ascii: "+") {
        bytes.append(UInt8(ascii: " "))
      } else if byte == UInt8(ascii: "%") {
        guard index + 2 < text.endIndex, let high = hexValue(text[index + 1]), let low = hexValue(text[index + 2])
        else { return nil }
        bytes.append(high << 4 | low)
        index += 2
      } else {
        bytes.append(byte)
      }
      index += 1
    }
    return String(validating: bytes, as: UTF8.self)
  }

  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
  }
}
