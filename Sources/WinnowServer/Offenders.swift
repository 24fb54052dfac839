import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization
@_spi(Tools) import Winnow

/// How `winnow serve` tracks repeat offenders and what it does when a rule fires.
public struct OffenderConfiguration: Sendable {
  /// The policy (``OffenderPolicy/builtIn`` by default).
  @_spi(Tools) public var policy = OffenderPolicy.builtIn
  /// The most senders tracked at once.
  public var capacity = 1_000_000
  /// A JSON Lines file each event (and each enforcement's answer) is appended to; nil: none.
  public var eventsPath: String?
  /// Events kept in memory for `GET /v1/offenders`.
  public var recentEvents = 10_000
  /// Platform calls waiting at most; past it an event's call is dropped (`result` `dropped`),
  /// so that a platform down under a flood of firings cannot grow the server without bound.
  public var queuedCalls = 10_000
  /// The platform's server API (`https://api.example.com`): with it, a fired rule calls the
  /// platform's mute or ban, signed with the app's secret. Nil: events only.
  public var platformURL: String?
  /// Calls to the platform per event at most, the first included.
  public var attempts = 8
  /// The wait before the first retry; doubled for each further one, at most ``maximumBackoff``.
  public var backoff: Duration = .milliseconds(500)
  /// The longest wait between retries.
  public var maximumBackoff: Duration = .seconds(30)
  /// How long one call may take.
  public var callTimeout: Duration = .seconds(5)

  /// The defaults: the built-in policy, no events file, no platform calls.
  public init() {}
}

/// One fired rule, as the server reports it: shaped after the platform's chatroom member
/// events (the app, the chatroom or conversation, `userIds`, `operateType`, `durationTime` in
/// milliseconds), with the rule and the messages that made it fire.
struct OffenderEvent: Sendable {
  var id: Int
  var appKey: String
  var userId: String
  var firing: OffenderFiring
  /// What the platform call gave: nil while none was made (or none is to be made).
  var enforcement: Enforcement?

  struct Enforcement: Sendable {
    /// `ok`, `failed`, `skipped` (no call: no secret for the app), `pending`.
    var result: String
    var attempts: Int
    var status: Int?
    var answer: String?
    var error: String?
  }

  /// The event's JSON members, for the events file and `GET /v1/offenders`.
  func write(to writer: inout JSONWriter) {
    writer.beginObject()
    writer.key("event")
    writer.string("offender")
    writer.key("id")
    writer.number(id)
    writer.key("time")
    writer.number(Int(firing.time))
    writer.key("appKey")
    writer.string(appKey)
    writer.key("userId")
    writer.string(userId)
    writer.key("userIds")
    writer.beginArray()
    writer.string(userId)
    writer.endArray()
    writer.key("operateType")
    writer.string(firing.action.rawValue)
    if let type = firing.conversationType, let target = firing.targetId {
      writer.key("conversationType")
      writer.number(type.rawValue)
      writer.key(type == .chatroom ? "chatroomId" : "targetId")
      writer.string(target)
    }
    writer.key("durationTime")
    writer.number(firing.minutes &* 60_000)
    writer.key("minutes")
    writer.number(firing.minutes)
    writer.key("rule")
    writer.string(firing.rule)
    writer.key("repeats")
    writer.number(firing.repeats)
    writer.key("messages")
    writer.beginArray()
    for message in firing.messages { writer.string(message) }
    writer.endArray()
    if let enforcement {
      writer.key("enforcement")
      enforcement.write(to: &writer)
    }
    writer.endObject()
  }
}

extension OffenderEvent.Enforcement {
  func write(to writer: inout JSONWriter) {
    writer.beginObject()
    writer.key("result")
    writer.string(result)
    writer.key("attempts")
    writer.number(attempts)
    if let status {
      writer.key("status")
      writer.number(status)
    }
    if let answer {
      writer.key("answer")
      writer.string(answer)
    }
    if let error {
      writer.key("error")
      writer.string(error)
    }
    writer.endObject()
  }
}

/// Tracks offenders for the server: each blocked, replaced or flagged result goes through the
/// policy's windows; a firing becomes an event (events file, recent events, metric) and, with
/// a platform URL, a platform call made off the request's path by ``run()``.
final class OffenderService: Sendable {
  let configuration: OffenderConfiguration
  let tracker: OffenderTracker
  private let metrics: ServerMetrics
  private let logger: Logger
  /// The app secrets, read at call time (the lists' service may be reloaded).
  private let secret: @Sendable (String) -> String?

  private struct State {
    var nextID = 1
    /// A ring of the last events: `recent[recentStart...]` then `recent[..<recentStart]`.
    var recent: [OffenderEvent] = []
    var recentStart = 0
    var eventsFile: FileHandle?
    var eventsFailure: String?
  }
  private let state: Mutex<State>
  private let calls: AsyncStream<OffenderEvent>
  private let callQueue: AsyncStream<OffenderEvent>.Continuation
  private let client: HTTPClient?

  init(
    configuration: OffenderConfiguration, metrics: ServerMetrics, logger: Logger,
    secret: @escaping @Sendable (String) -> String?
  ) throws {
    self.configuration = configuration
    self.tracker = OffenderTracker(policy: configuration.policy, capacity: configuration.capacity)
    self.metrics = metrics
    self.logger = logger
    self.secret = secret
    var initial = State()
    if let path = configuration.eventsPath {
      let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o640)
      guard descriptor >= 0 else {
        throw OffenderEventsError(description: "cannot open \(path): \(String(cString: strerror(errno)))")
      }
      initial.eventsFile = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }
    state = Mutex(initial)
    (calls, callQueue) = AsyncStream.makeStream(
      of: OffenderEvent.self, bufferingPolicy: .bufferingOldest(max(1, configuration.queuedCalls)))
    if configuration.platformURL != nil {
      var http = HTTPClient.Configuration()
      http.timeout.connect = .seconds(2)
      // A refused connection fails the attempt at once: the retries here, with their backoff,
      // are the only ones (the client's own would spend each attempt's timeout on them).
      http.connectionPool.retryConnectionEstablishment = false
      // The calls carry the app's signature: never sent on to another address.
      http.redirectConfiguration = .disallow
      client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: http)
    } else {
      client = nil
    }
  }

  /// Records `result` (the server's clock decides the windows); returns the event when a
  /// rule fired. Never waits for the platform.
  @discardableResult
  func record(_ result: ModerationResult) -> OffenderEvent? {
    let item = result.item
    guard !item.fromUserId.isEmpty,
      let incident = OffenderIncident(result, time: Int64((Date().timeIntervalSince1970 * 1000).rounded()))
    else { return nil }
    let app = item.appKey ?? ""
    guard let firing = tracker.record(incident, app: app, user: item.fromUserId) else { return nil }
    let calls = client != nil && firing.action != .report
    let event = state.withLock { state -> OffenderEvent in
      var event = OffenderEvent(id: state.nextID, appKey: app, userId: item.fromUserId, firing: firing)
      state.nextID += 1
      if calls { event.enforcement = .init(result: "pending", attempts: 0) }
      remember(event, in: &state)
      append(event, in: &state)
      return event
    }
    // A call is counted by its result, once it has one.
    if !calls { metrics.enforcement(action: firing.action.rawValue, result: "event") }
    logger.notice(
      "offender rule fired",
      metadata: [
        "app": "\(app)", "user": "\(item.fromUserId)", "rule": "\(firing.rule)", "action": "\(firing.action.rawValue)",
        "minutes": "\(firing.minutes)",
      ])
    if calls, case .dropped = callQueue.yield(event) {
      finishEnforcement(
        event.id, .init(result: "dropped", attempts: 0, error: "too many platform calls waiting"),
        action: firing.action)
    }
    return event
  }

  /// The recent events of `app` (all apps when nil), oldest first.
  func events(app: String?) -> [OffenderEvent] {
    state.withLock { state in
      let ordered = state.recent[state.recentStart...] + state.recent[..<state.recentStart]
      return app.map { app in ordered.filter { $0.appKey == app } } ?? Array(ordered)
    }
  }

  /// Why the events file could not be written, if it could not.
  var eventsFailure: String? { state.withLock { $0.eventsFailure } }

  private func remember(_ event: OffenderEvent, in state: inout State) {
    if state.recent.count < max(1, configuration.recentEvents) {
      state.recent.append(event)
    } else {
      state.recent[state.recentStart] = event
      state.recentStart = (state.recentStart + 1) % state.recent.count
    }
  }

  private func append(_ event: OffenderEvent, in state: inout State) {
    var writer = JSONWriter()
    event.write(to: &writer)
    writer.endLine()
    appendLine(writer.bytes, in: &state)
  }

  private func appendLine(_ bytes: [UInt8], in state: inout State) {
    guard let file = state.eventsFile else { return }
    do { try file.write(contentsOf: bytes) } catch {
      let cause = "\(error)"
      if state.eventsFailure != cause { logger.error("cannot write the events file", metadata: ["error": "\(cause)"]) }
      state.eventsFailure = cause
    }
  }

  /// Makes the platform calls of fired rules, one event at a time, each retried with backoff,
  /// until the stream ends (``finish()``).
  func run() async {
    guard let client, let base = configuration.platformURL else { return }
    await withTaskGroup(of: Void.self) { group in
      var running = 0
      for await event in calls {
        // A few events at once, so that one app's slow retries do not hold up the others.
        if running == 8 {
          await group.next()
          running -= 1
        }
        group.addTask { await self.enforce(event, client: client, base: base) }
        running += 1
      }
    }
    try? await client.shutdown()
  }

  /// Ends ``run()`` once the queued calls are made.
  func finish() { callQueue.finish() }

  private func enforce(_ event: OffenderEvent, client: HTTPClient, base: String) async {
    let id = event.id
    let firing = event.firing
    guard let secret = secret(event.appKey) else {
      finishEnforcement(
        id, .init(result: "skipped", attempts: 0, error: "no secret for the app in secrets.json"),
        action: firing.action)
      return
    }
    let path: String
    var fields = [("userId", event.userId), ("minute", String(firing.minutes))]
    switch firing.action {
    case .report: return
    case .chatroomMute:
      path = "/chatroom/user/gag/add.json"
      fields.insert(("chatroomId", firing.targetId ?? ""), at: 1)
    case .chatroomBan: path = "/chatroom/user/ban/add.json"
    case .block: path = "/user/block.json"
    }
    let body = fields.map { "\(Self.formEncode($0.0))=\(Self.formEncode($0.1))" }.joined(separator: "&")
    let url = (base.hasSuffix("/") ? String(base.dropLast()) : base) + path
    var delay = configuration.backoff
    var last = OffenderEvent.Enforcement(result: "failed", attempts: 0)
    for attempt in 1...max(1, configuration.attempts) {
      last.attempts = attempt
      var request = HTTPClientRequest(url: url)
      request.method = .POST
      let nonce = String(UInt64.random(in: 0...UInt64.max), radix: 36)
      let timestamp = String(Int64(Date().timeIntervalSince1970))
      request.headers.add(name: "App-Key", value: event.appKey)
      request.headers.add(name: "Nonce", value: nonce)
      request.headers.add(name: "Timestamp", value: timestamp)
      request.headers.add(
        name: "Signature", value: PlatformSignature.signature(secret: secret, nonce: nonce, timestamp: timestamp))
      request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
      request.body = .bytes(ByteBuffer(string: body))
      do {
        let response = try await client.execute(request, timeout: TimeAmount(configuration.callTimeout))
        let answer = try await response.body.collect(upTo: 64 << 10)
        let text = String(buffer: answer)
        last.status = Int(response.status.code)
        last.answer = text
        last.error = nil
        // The platform answers `{"code":200}` when done.
        if response.status.code == 200, (try? JSONValue(parsing: text))?["code"]?.int64Value == 200 {
          last.result = "ok"
          break
        }
      } catch {
        last.error = "\(error)"
      }
      guard attempt < configuration.attempts else { break }
      // A server stopping does not wait out the backoff: the call is left failed, and said so.
      guard !Task.isShuttingDownGracefully else {
        last.error = (last.error ?? "") + " (the server stopped before a retry)"
        break
      }
      let pause = delay
      await cancelWhenGracefulShutdown { try? await Task.sleep(for: pause) }
      delay = min(delay * 2, configuration.maximumBackoff)
    }
    finishEnforcement(id, last, action: firing.action)
  }

  private func finishEnforcement(_ id: Int, _ enforcement: OffenderEvent.Enforcement, action: OffenderPolicy.Action) {
    state.withLock { state in
      if let index = state.recent.lastIndex(where: { $0.id == id }) { state.recent[index].enforcement = enforcement }
      var writer = JSONWriter()
      writer.beginObject()
      writer.key("event")
      writer.string("enforcement")
      writer.key("id")
      writer.number(id)
      writer.key("time")
      writer.number(Int((Date().timeIntervalSince1970 * 1000).rounded()))
      writer.key("enforcement")
      enforcement.write(to: &writer)
      writer.endObject()
      writer.endLine()
      appendLine(writer.bytes, in: &state)
    }
    metrics.enforcement(action: action.rawValue, result: enforcement.result)
    if enforcement.result != "ok" {
      logger.warning(
        "offender enforcement did not succeed",
        metadata: ["event": "\(id)", "result": "\(enforcement.result)", "error": "\(enforcement.error ?? "")"])
    }
  }

  /// `application/x-www-form-urlencoded` escaping: unreserved characters kept, the rest `%XX`.
  static func formEncode(_ text: String) -> String {
    var out = ""
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
        UInt8(ascii: "~"):
        out.unicodeScalars.append(Unicode.Scalar(byte))
      default:
        out += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true)
      }
    }
    return out
  }
}

/// The events file cannot be opened.
public struct OffenderEventsError: Error, CustomStringConvertible, Sendable {
  /// Why: the path and the system's reason.
  public var description: String
}
