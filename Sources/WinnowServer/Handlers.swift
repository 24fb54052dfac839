import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization
@_spi(Tools) import Winnow
@_spi(Tools) import WinnowStore

/// The answer of an endpoint before it becomes a response.
struct Reply: Sendable {
  var status: HTTPResponse.Status
  var body: [UInt8]
  var contentType = "application/json; charset=utf-8"

  init(status: HTTPResponse.Status, body: [UInt8], contentType: String = "application/json; charset=utf-8") {
    self.status = status
    self.body = body
    self.contentType = contentType
  }

  init(status: HTTPResponse.Status, body: String, contentType: String = "application/json; charset=utf-8") {
    self.init(status: status, body: Array(body.utf8), contentType: contentType)
  }

  static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Reply {
    var bytes: [UInt8] = []
    value.write(to: &bytes)
    bytes.append(0x0A)
    return Reply(status: status, body: bytes)
  }

  /// A moderation result, written straight from the result (as `check --item --json` does).
  static func result(_ result: ModerationResult) -> Reply {
    var writer = JSONWriter()
    result.write(to: &writer)
    writer.endLine()
    return Reply(status: .ok, body: writer.bytes)
  }

  /// A JSON error naming its cause: `{"error":"…"}`.
  static func error(_ status: HTTPResponse.Status, _ cause: String) -> Reply {
    json(["error": .string(cause)], status: status)
  }

  static func text(_ text: String, status: HTTPResponse.Status = .ok) -> Reply {
    Reply(status: status, body: text, contentType: "text/plain; charset=utf-8")
  }
}

/// Every endpoint, timed and counted.
struct Handlers: Sendable {
  let holder: ServiceHolder
  let metrics: ServerMetrics
  let configuration: ServerConfiguration
  /// The signatures accepted within the window (nil when the window is 0).
  let nonces: NonceRegistry?
  /// The errors the last look for changed files found (logged once until they change).
  let watchedErrors = WatchedErrors()
  /// Repeat offenders: windows, events and platform calls.
  let offenders: OffenderService
  /// The console's recent decisions.
  let recent: RecentDecisions

  init(holder: ServiceHolder, metrics: ServerMetrics, configuration: ServerConfiguration, offenders: OffenderService) {
    self.holder = holder
    self.metrics = metrics
    self.configuration = configuration
    self.offenders = offenders
    recent = RecentDecisions(capacity: configuration.recentDecisions)
    nonces =
      configuration.signatureWindowSeconds > 0 ? NonceRegistry(window: configuration.signatureWindowSeconds) : nil
  }

  func register(on router: Router<WinnowRequestContext>) {
    router.get("/healthz") { request, _ in await handle(.healthz, request) { _ in .text("ok\n") } }
    router.get("/readyz") { request, _ in
      await handle(.readyz, request) { _ in
        switch holder.current {
        case .ready: .text("ready\n")
        case .loading: .text("loading lists\n", status: .serviceUnavailable)
        case .failed: .text("lists failed to load\n", status: .serviceUnavailable)
        }
      }
    }
    router.get("/metrics") { request, _ in
      await handle(.metrics, request) { _ in
        Reply(
          status: .ok,
          body: String(
            decoding: metrics.exposition(service: holder.service, store: configuration.store?.status), as: UTF8.self),
          contentType: "text/plain; version=0.0.4; charset=utf-8")
      }
    }
    router.get("/v1/status") { request, _ in
      await handle(.status, request) { request in
        if let refusal = adminRefusal(request, optional: true) { return refusal }
        return status()
      }
    }
    router.get("/v1/offenders") { request, _ in
      await handle(.offenders, request) { request in
        if let refusal = adminRefusal(request, optional: false) { return refusal }
        return offenderEvents(app: request.uri.queryParameters["app"].map(String.init))
      }
    }
    router.post("/admin/reload") { request, _ in
      await handle(.reload, request) { request in
        if let refusal = adminRefusal(request, optional: false) { return refusal }
        guard holder.service != nil else { return .error(.serviceUnavailable, "the lists are still loading") }
        let report = await reload(trigger: "admin endpoint")
        return .json(Self.json(report), status: report.succeeded ? .ok : .unprocessableContent)
      }
    }
    router.post("/v1/moderate") { request, _ in
      await handle(.moderate, request) { request in
        if configuration.moderateNeedsToken, let refusal = adminRefusal(request, optional: false) {
          return refusal
        }
        return await moderate(request)
      }
    }
    router.post("/callback/message") { request, _ in
      await handle(.callback, request) { request in await callback(request) }
    }
    for (path, endpoint) in SensitiveWordAPI.paths {
      router.post(RouterPath(path)) { request, context in
        await handle(.sensitiveword, request) { request in
          await sensitiveWord(endpoint, request, origin: origin(of: request, context))
        }
      }
    }
    router.get("/v1/apps/:app/changes") { request, context in
      await handle(.changes, request) { request in
        if let refusal = adminRefusal(request, optional: false) { return refusal }
        return await changes(app: context.parameters.get("app") ?? "", query: request.uri.queryParameters)
      }
    }
    registerConsole(on: router)
  }

  /// Runs an endpoint, turning its reply into a response, and counts it.
  func handle(_ endpoint: ServerMetrics.Endpoint, _ request: Request, _ body: (inout Request) async -> Reply)
    async -> Response
  {
    let start = ContinuousClock.now
    var request = request
    let reply = await body(&request)
    metrics.request(endpoint: endpoint, status: Int(reply.status.code), duration: ContinuousClock.now - start)
    var headers = HTTPFields()
    headers[.contentType] = reply.contentType
    return Response(
      status: reply.status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: reply.body)))
  }

  /// The body, or the reply that refuses it (413 when it is over the limit).
  func body(of request: inout Request) async -> Result<ByteBuffer, ReplyError> {
    let limit = configuration.maximumBodyBytes
    let timeout = configuration.bodyTimeout
    let incoming = request
    // The body, or the timeout, whichever comes first: a body sent a byte at a time never
    // counts as idle, so the idle timeout alone would keep it open.
    let outcome = await withTaskGroup(of: BodyOutcome.self) { group in
      group.addTask {
        var reading = incoming
        do { return .body(try await reading.collectBody(upTo: limit)) } catch { return .tooLarge }
      }
      group.addTask {
        try? await Task.sleep(for: timeout)
        return .timedOut
      }
      let first = await group.next() ?? .timedOut
      group.cancelAll()
      return first
    }
    switch outcome {
    case .body(let buffer): return .success(buffer)
    case .tooLarge:
      return .failure(ReplyError(.error(.contentTooLarge, "the body is over the limit of \(limit) bytes")))
    case .timedOut:
      return .failure(
        ReplyError(.error(.requestTimeout, "the body did not arrive within \(timeout) (--body-timeout)")))
    }
  }

  /// The refusal of an admin request, or nil when it may go on: it must carry
  /// `Authorization: Bearer TOKEN` with the configured token. Without a configured token,
  /// `optional` endpoints are open and the others refused.
  func adminRefusal(_ request: Request, optional: Bool) -> Reply? {
    guard let token = configuration.adminToken else {
      return optional ? nil : .error(.forbidden, "no admin token is configured (--admin-token-file)")
    }
    guard let given = request.headers[.authorization], given.hasPrefix("Bearer "),
      constantTimeEqual(String(given.dropFirst(7)), token)
    else { return .error(.unauthorized, "an admin bearer token is needed (Authorization: Bearer TOKEN)") }
    return nil
  }

  /// Looks for list files changed by another process (another server, `winnow words`, an
  /// editor) and reloads what changed; logs only changes, and errors once until they change.
  func watch() async {
    guard let service = holder.service else { return }
    let report = await offThePool { service.reload(quietly: true) }
    await reloadStoreLists(after: report, service: service)
    let errorsAreNew = watchedErrors.errors.withLock { last in
      defer { last = report.errors }
      return !report.errors.isEmpty && report.errors != last
    }
    if report.changed {
      metrics.reload(report)
      configuration.logger.info(
        "reloaded lists (a file changed)",
        metadata: ["global": "\(report.globalReloaded)", "apps": "\(report.changedApps.count)"])
    } else if errorsAreNew {
      metrics.reload(report)
      for error in report.errors { configuration.logger.error("a changed list kept the old lists: \(error)") }
    }
  }

  /// Reloads the lists off the request threads, logs and counts the outcome.
  @discardableResult
  func reload(trigger: String) async -> ModerationService.ReloadReport {
    guard let service = holder.service else { return ModerationService.ReloadReport() }
    let report = await offThePool { service.reload() }
    await reloadStoreLists(after: report, service: service)
    metrics.reload(report)
    if report.succeeded {
      configuration.logger.info(
        "reloaded lists (\(trigger))",
        metadata: ["global": "\(report.globalReloaded)", "apps": "\(report.changedApps.count)"])
    } else {
      for error in report.errors { configuration.logger.error("reload (\(trigger)) kept the old lists: \(error)") }
    }
    return report
  }

  /// The store's lists compiled again after the global list changed (an app's list is compiled
  /// over it); a failure keeps the old ones and is logged.
  private func reloadStoreLists(after report: ModerationService.ReloadReport, service: ModerationService) async {
    guard report.globalReloaded, let store = configuration.store else { return }
    do { try await store.load(into: service) } catch {
      configuration.logger.error("the store's lists were not compiled again over the new global list: \(error)")
    }
  }

  /// Who makes a change through `request`: this replica, the caller's address and the
  /// request's `X-Request-Id` (or a new id).
  func origin(of request: Request, _ context: WinnowRequestContext) -> ChangeOrigin {
    let given = request.headers[HTTPField.Name("X-Request-Id")!].map { String($0.prefix(128)) }
    return ChangeOrigin(
      replica: configuration.replica, address: context.remoteAddress?.ipAddress,
      requestId: given ?? UUID().uuidString.lowercased())
  }

  /// `GET /v1/apps/APPKEY/changes?since=ID`: the app's changes after the id, oldest first, from
  /// the audit log beside the lists.
  func changes(app: String, query: Parameters) async -> Reply {
    guard let service = holder.service else { return .error(.serviceUnavailable, "the lists are still loading") }
    var since: Int64 = 0
    if let text = query["since"] {
      guard let value = Int64(text), value >= 0 else { return .error(.badRequest, "since must be a change id") }
      since = value
    }
    if let store = configuration.store {
      do {
        let found = try await store.changes(app: app, since: since)
        return .json(["changes": .array(found.map(\.json))])
      } catch {
        return .error(.serviceUnavailable, "\(error)")
      }
    }
    guard let directory = service.apps?.path else { return .error(.notFound, "no app directory (--apps)") }
    do {
      let found = try ChangeLog.read(directory: directory, app: app, since: since)
      return .json(["changes": .array(found.map(\.json))])
    } catch {
      return .error(.internalServerError, redactingPaths(error.description, service: service))
    }
  }

  /// `GET /v1/offenders?app=K`: the recent events (of app K), oldest first, and how many
  /// senders are tracked.
  private func offenderEvents(app: String?) -> Reply {
    var writer = JSONWriter()
    writer.beginObject()
    writer.key("tracked")
    writer.number(offenders.tracker.count)
    writer.key("evicted")
    writer.number(offenders.tracker.evicted)
    if let failure = offenders.eventsFailure {
      writer.key("eventsFileError")
      writer.string(failure)
    }
    writer.key("events")
    writer.beginArray()
    for event in offenders.events(app: app) { event.write(to: &writer) }
    writer.endArray()
    writer.endObject()
    writer.endLine()
    return Reply(status: .ok, body: writer.bytes)
  }

  private func status() -> Reply {
    switch holder.current {
    case .loading: return .json(["state": "loading"], status: .serviceUnavailable)
    case .failed(let error):
      return .json(
        ["state": "failed", "errors": .array(error.errors.map { .string($0) })], status: .serviceUnavailable)
    case .ready(let service):
      let status = service.status
      var object: [JSONMember] = [
        JSONMember(key: "state", value: "ready"),
        JSONMember(key: "version", value: .number(String(status.version))),
        JSONMember(key: "loadedAt", value: .string(ISO8601DateFormatter().string(from: status.loadedAt))),
        JSONMember(key: "globalEntries", value: .number(String(status.globalEntryCount))),
        JSONMember(key: "apps", value: .number(String(status.appEntryCounts.count))),
        JSONMember(key: "appEntries", value: .number(String(status.appEntryCounts.values.reduce(0, +)))),
        JSONMember(key: "appsWithSecrets", value: .number(String(status.appsWithSecrets))),
        JSONMember(key: "failedReloads", value: .number(String(status.failedReloads))),
      ]
      if let last = status.lastReload { object.append(JSONMember(key: "lastReload", value: Self.json(last))) }
      if let store = configuration.store {
        let state = store.status
        var members: [JSONMember] = [
          JSONMember(key: "location", value: .string(store.location.description)),
          JSONMember(key: "connected", value: .bool(state.connected)),
          JSONMember(key: "appliedChange", value: .number(String(state.appliedChange))),
          JSONMember(key: "reconnects", value: .number(String(state.reconnects))),
        ]
        if let lag = state.lagSeconds {
          members.append(JSONMember(key: "lagSeconds", value: .number(String(format: "%.3f", lag))))
        }
        if let error = state.lastError { members.append(JSONMember(key: "lastError", value: .string(error))) }
        object.append(JSONMember(key: "store", value: .object(members)))
      }
      return .json(.object(object))
    }
  }

  static func json(_ report: ModerationService.ReloadReport) -> JSONValue {
    [
      "succeeded": .bool(report.succeeded),
      "finishedAt": .string(ISO8601DateFormatter().string(from: report.finishedAt)),
      "globalReloaded": .bool(report.globalReloaded),
      "changedApps": .array(report.changedApps.map { .string($0) }),
      "errors": .array(report.errors.map { .string($0) }),
    ]
  }

  /// The ready service and the whole body, or the reply that refuses the request (503 while
  /// the lists load, 413 for a body over the limit).
  func serviceAndBody(of request: Request) async -> Result<(ModerationService, ByteBuffer), ReplyError> {
    var request = request
    switch readyService() {
    case .failure(let refusal): return .failure(refusal)
    case .success(let service): return await body(of: &request).map { (service, $0) }
    }
  }

  /// The service, or the 503 reply while the lists load.
  func readyService() -> Result<ModerationService, ReplyError> {
    if let service = holder.service { return .success(service) }
    return .failure(ReplyError(.error(.serviceUnavailable, "the lists are still loading")))
  }
}

/// A reply carried as an error, for early returns.
struct ReplyError: Error {
  let reply: Reply
  init(_ reply: Reply) { self.reply = reply }
}

/// Compares two secrets in time that does not depend on where they differ.
func constantTimeEqual(_ a: String, _ b: String) -> Bool {
  let left = Array(a.utf8)
  let right = Array(b.utf8)
  guard left.count == right.count else { return false }
  var difference: UInt8 = 0
  for index in left.indices { difference |= left[index] ^ right[index] }
  return difference == 0
}

/// The errors the last look for changed list files found.
final class WatchedErrors: Sendable {
  let errors = Mutex<[String]>([])
}

/// How reading a request body ended.
enum BodyOutcome: Sendable {
  case body(ByteBuffer)
  case tooLarge
  case timedOut
}
