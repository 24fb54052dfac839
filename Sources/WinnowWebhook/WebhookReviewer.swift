import AsyncHTTPClient
import Foundation
import NIOCore
@_spi(Tools) import Winnow

/// A third-party reviewer over HTTP: each item is POSTed to a URL and the answer decides.
///
/// Two protocols:
/// - ``Mode/messageCallback(appKey:)`` speaks the IM platform's **message callback**: a form
///   POST (`application/x-www-form-urlencoded`) of `appKey, fromUserId, targetId, toUserIds,
///   msgType, content, pushContent, extraContent, channelType, msgTimeStamp, messageId,
///   originalMsgUID, busChannel`, answered by JSON
///   `{"pass":0|1|2,"replaceContent":"…","replaceExtraContent":"…","extra":"…"}` — 0 blocks,
///   1 delivers, 2 delivers (and, on the platform, stops further callbacks). `replaceContent` is
///   the new content JSON; `replaceExtraContent` the new extension key/values. An existing
///   callback service works unchanged.
/// - ``Mode/json`` POSTs `{"item":{…},"fields":[{"field":…,"text":…}],"sensitiveType":n,
///   "flagged":[{…}]}` (the item in Winnow's item JSON; `flagged`, the matches of review entries
///   the reviewer is asked to judge, as `matches` of a result are written) and expects
///   `{"decision":"pass"|"review"|"reject","replacementContent":{…},"labels":[…],"extra":"…"}`.
///
/// Connections are reused (one `HTTPClient`, pooled); at most `maximumConcurrentRequests` calls
/// are in flight, later ones wait their turn. The engine's ``ReviewPolicy`` bounds each call with
/// its timeout (the wait for a turn included) and decides what a failure does. A non-2xx
/// status, a redirect, an unreachable server and a malformed answer throw ``WebhookError``.
/// ``problem(with:)`` tells a URL that can never be called (check it at start: with fail-open,
/// every call failing delivers everything).
public final class WebhookReviewer: ContentReviewer {
  /// The protocol spoken.
  public enum Mode: Sendable, Hashable {
    /// The platform's message callback, with the app key sent in `appKey` (an item's own
    /// ``MessageItem/appKey`` wins).
    case messageCallback(appKey: String)
    /// Winnow's JSON protocol.
    case json
  }

  /// Where items are POSTed.
  public let url: String
  /// The protocol.
  public let mode: Mode
  private let client: HTTPClient
  private let limiter: ConcurrencyLimiter
  private let requestTimeout: Duration
  /// The app secret message callbacks are signed with, if any.
  private let signingSecret: String?

  /// Creates a reviewer.
  /// - Parameters:
  ///   - client: the HTTP client (its connection pool is reused); `HTTPClient.shared` by default.
  ///   - maximumConcurrentRequests: the most calls in flight at once.
  ///   - requestTimeout: a last-resort limit per request, from sending the item to reading
  ///     the last byte of the answer (a call over it fails with
  ///     ``WebhookError/requestTimedOut(_:)``); the engine's policy timeout is normally shorter
  ///     and applies first.
  ///   - signingSecret: the app secret to sign message callbacks with, as the platform does:
  ///     the query parameters `nonce`, `signTimestamp` (Unix milliseconds) and `signature` =
  ///     ``PlatformSignature`` of them (`winnow serve` checks them).
  public init(
    url: String, mode: Mode, client: HTTPClient = .shared, maximumConcurrentRequests: Int = 64,
    requestTimeout: Duration = .seconds(30), signingSecret: String? = nil
  ) {
    self.signingSecret = signingSecret
    self.url = url
    self.mode = mode
    self.client = client
    self.limiter = ConcurrencyLimiter(limit: max(1, maximumConcurrentRequests))
    self.requestTimeout = requestTimeout
  }

  /// A client for reviewers that should fail fast: a refused connection fails the call at once
  /// instead of being retried until the policy's timeout, and connecting may take at most
  /// `connectTimeout`, and redirects are not followed (with another client a followed redirect
  /// is still refused, but only after it was followed). The caller owns it and must
  /// `shutdown()` it when done.
  /// (`HTTPClient.shared` retries connecting with backoff, which rides out flaky networks but
  /// turns a reviewer that is down into a timeout on every call.)
  public static func makeFailFastClient(connectTimeout: TimeAmount = .seconds(1)) -> HTTPClient {
    var configuration = HTTPClient.Configuration()
    configuration.connectionPool.retryConnectionEstablishment = false
    configuration.redirectConfiguration = .disallow
    configuration.timeout.connect = connectTimeout
    return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
  }

  /// Why `url` cannot be a reviewer's address, or nil when it can: it must be an absolute
  /// `http` or `https` URL with a host.
  public static func problem(with url: String) -> String? {
    guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased() else {
      return "not an absolute URL"
    }
    guard scheme == "http" || scheme == "https" else { return "the scheme must be http or https, not \(scheme)" }
    guard let host = parsed.host, !host.isEmpty else { return "no host" }
    return nil
  }

  /// Posts the request and reads the answer (see the protocol above); throws on a non-2xx status, a refused connection or an answer that cannot be read.
  public func review(_ request: ReviewRequest) async throws -> ReviewDecision {
    var httpRequest = HTTPClientRequest(url: url)
    httpRequest.method = .POST
    switch mode {
    case .messageCallback(let appKey):
      if let signingSecret { httpRequest.url = Self.signed(url, secret: signingSecret) }
      httpRequest.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
      httpRequest.body = .bytes(ByteBuffer(string: Self.formBody(Self.callbackFields(request, appKey: appKey))))
    case .json:
      httpRequest.headers.add(name: "Content-Type", value: "application/json")
      httpRequest.body = .bytes(ByteBuffer(string: Self.jsonBody(request).jsonString))
    }
    let prepared = httpRequest
    let body = try await limiter.run { try await exchange(prepared) }
    switch mode {
    case .messageCallback: return try Self.decodeCallbackAnswer(body, for: request.item)
    case .json: return try Self.decodeJSONAnswer(body)
    }
  }

  /// Sends `request` and reads the whole answer, within `requestTimeout` from the first byte
  /// sent to the last byte read. (The client's own timeout ends when the response head arrives,
  /// so a server that sends a head and then stalls the body would otherwise hold the call until
  /// the engine's policy timeout.)
  private func exchange(_ request: HTTPClientRequest) async throws -> String {
    let client = self.client
    let limit = requestTimeout
    return try await withThrowingTaskGroup(of: String?.self) { group in
      group.addTask {
        let response: HTTPClientResponse
        do {
          response = try await client.execute(request, timeout: TimeAmount(limit))
        } catch {
          throw WebhookError.unreachable("\(error)")
        }
        let body: ByteBuffer
        do {
          body = try await response.body.collect(upTo: Self.maximumAnswerBytes)
        } catch is NIOTooManyBytesError {
          throw WebhookError.malformedAnswer("the answer is longer than \(Self.maximumAnswerBytes) bytes")
        } catch {
          throw WebhookError.unreachable("the answer broke off: \(error)")
        }
        // A redirect is never an answer: followed, a POST turns into a GET whose answer, from
        // wherever it led, would decide.
        if response.history.count > 1 || (300..<400).contains(response.status.code) {
          let target =
            response.history.count > 1 ? response.history[1].request.url : response.headers.first(name: "Location")
          throw WebhookError.redirected(target ?? "")
        }
        guard (200..<300).contains(response.status.code) else {
          throw WebhookError.status(Int(response.status.code))
        }
        return String(buffer: body)
      }
      group.addTask {
        try await Task.sleep(for: limit)
        return nil
      }
      defer { group.cancelAll() }
      guard let first = try await group.next(), let body = first else {
        throw WebhookError.requestTimedOut(limit)
      }
      return body
    }
  }

  /// The longest answer read; a longer one is a malformed answer.
  static let maximumAnswerBytes = 1 << 20

  // MARK: Message callback

  /// The form fields of a message callback, in the platform's order.
  static func callbackFields(_ request: ReviewRequest, appKey: String) -> [(String, String)] {
    let item = request.item
    var extraContent = ""
    if item.sourceType == .extension, let put = item.content["put"] { extraContent = put.jsonString }
    return [
      ("appKey", item.appKey ?? appKey),
      ("fromUserId", item.fromUserId),
      ("targetId", item.targetId),
      ("toUserIds", item.toUserIds.joined(separator: ",")),
      ("msgType", item.objectName),
      ("content", item.content.jsonString),
      ("pushContent", item.pushContent ?? ""),
      ("extraContent", extraContent),
      ("channelType", item.conversationType.channelTypeName ?? String(item.conversationType.rawValue)),
      ("msgTimeStamp", String(item.sentTime)),
      ("messageId", item.msgUID),
      ("originalMsgUID", item.sourceType == .edit ? item.msgUID : ""),
      ("busChannel", item.channelId),
    ]
  }

  /// `url` with the platform's signature query parameters of a new nonce and the time now.
  static func signed(_ url: String, secret: String, now: Date = Date()) -> String {
    let nonce = String(UInt64.random(in: 0...UInt64.max), radix: 36)
    let timestamp = String(Int64(now.timeIntervalSince1970 * 1000))
    let signature = PlatformSignature.signature(secret: secret, nonce: nonce, timestamp: timestamp)
    let separator = url.contains("?") ? "&" : "?"
    return url + separator + "nonce=\(nonce)&signTimestamp=\(timestamp)&signature=\(signature)"
  }

  static func formBody(_ fields: [(String, String)]) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    return fields.map { name, value in
      "\(name)=\(value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")"
    }.joined(separator: "&")
  }

  static func decodeCallbackAnswer(_ body: String, for item: MessageItem) throws -> ReviewDecision {
    let answer = try parseAnswer(body)
    guard let pass = answer["pass"]?.int64Value, (0...2).contains(pass) else {
      throw WebhookError.malformedAnswer("\"pass\" must be 0, 1 or 2")
    }
    var decision = ReviewDecision(outcome: pass == 0 ? .reject : .pass, extra: answer["extra"]?.stringValue)
    if pass != 0 {
      var content = item.content
      var replaced = false
      if let text = answer["replaceContent"]?.stringValue, !text.isEmpty {
        do { content = try JSONValue(parsing: text) } catch {
          throw WebhookError.malformedAnswer("replaceContent is not JSON: \(error)")
        }
        replaced = true
      }
      if item.sourceType == .extension, let text = answer["replaceExtraContent"]?.stringValue, !text.isEmpty {
        do { content["put"] = try JSONValue(parsing: text) } catch {
          throw WebhookError.malformedAnswer("replaceExtraContent is not JSON: \(error)")
        }
        replaced = true
      }
      if replaced { decision.replacementContent = content }
    }
    return decision
  }

  // MARK: JSON

  static func jsonBody(_ request: ReviewRequest) -> JSONValue {
    [
      "item": request.item.json,
      "fields": .array(
        request.fields.map { ["field": .string($0.location.description), "text": .string($0.text)] }),
      "sensitiveType": .number(String(request.sensitiveType.rawValue)),
      "flagged": .array(request.flagged.map(\.json)),
    ]
  }

  static func decodeJSONAnswer(_ body: String) throws -> ReviewDecision {
    let answer = try parseAnswer(body)
    guard let name = answer["decision"]?.stringValue, let outcome = ReviewDecision.Outcome(rawValue: name) else {
      throw WebhookError.malformedAnswer("\"decision\" must be \"pass\", \"review\" or \"reject\"")
    }
    var labels: [String] = []
    if case .array(let values)? = answer["labels"] { labels = values.compactMap(\.stringValue) }
    var replacement = answer["replacementContent"]
    if replacement == .null { replacement = nil }
    if case .string(let text)? = replacement {
      do { replacement = try JSONValue(parsing: text) } catch {
        throw WebhookError.malformedAnswer("replacementContent is not JSON: \(error)")
      }
    }
    return ReviewDecision(
      outcome: outcome, replacementContent: replacement, labels: labels, extra: answer["extra"]?.stringValue)
  }

  private static func parseAnswer(_ body: String) throws -> JSONValue {
    let answer: JSONValue
    do { answer = try JSONValue(parsing: body) } catch { throw WebhookError.malformedAnswer("\(error)") }
    guard case .object = answer else { throw WebhookError.malformedAnswer("the answer is not a JSON object") }
    return answer
  }
}

/// Why a webhook call gave no usable answer.
public enum WebhookError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The server could not be reached or the connection failed (the client's message).
  case unreachable(String)
  /// The server answered with a status other than 2xx.
  case status(Int)
  /// The server redirected the call (to this URL): redirects are not followed.
  case redirected(String)
  /// The answer is not what the protocol expects.
  case malformedAnswer(String)
  /// The exchange (sending the item, reading the whole answer) took longer than the reviewer's
  /// `requestTimeout`.
  case requestTimedOut(Duration)

  /// The failure as one line.
  public var description: String {
    switch self {
    case .unreachable(let message): "reviewer unreachable: \(message)"
    case .status(let code): "reviewer answered HTTP \(code)"
    case .redirected(let target): "reviewer redirected the call to \(target); redirects are not followed"
    case .malformedAnswer(let message): "malformed reviewer answer: \(message)"
    case .requestTimedOut(let limit): "reviewer gave no complete answer within its request timeout of \(limit)"
    }
  }
}

/// At most `limit` operations at once; the others wait in order. Waiting honours cancellation.
actor ConcurrencyLimiter {
  private let limit: Int
  private var running = 0
  private var waiting: [(id: Int, continuation: CheckedContinuation<Void, any Error>)] = []
  private var nextID = 0

  init(limit: Int) { self.limit = limit }

  func run<T: Sendable>(_ operation: @Sendable () async throws -> T) async throws -> T {
    try await acquire()
    defer { release() }
    return try await operation()
  }

  private func acquire() async throws {
    if running < limit {
      running += 1
      return
    }
    let id = nextID
    nextID += 1
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        waiting.append((id, continuation))
      }
    } onCancel: {
      Task { await self.cancel(id) }
    }
  }

  private func cancel(_ id: Int) {
    guard let index = waiting.firstIndex(where: { $0.id == id }) else { return }
    waiting.remove(at: index).continuation.resume(throwing: CancellationError())
  }

  private func release() {
    if waiting.isEmpty {
      running -= 1
    } else {
      waiting.removeFirst().continuation.resume()
    }
  }
}
