import CoreMetrics
import Metrics
import Prometheus
import Synchronization
@_spi(Tools) import Winnow
@_spi(Tools) import WinnowStore

/// The server's metrics, through swift-metrics into a Prometheus registry of the server's own
/// (not the process-wide bootstrap, so several servers can live in one process, as in tests).
///
/// - `winnow_requests_total{endpoint,status}` and `winnow_request_duration_seconds{endpoint}`;
/// - `winnow_verdicts_total{verdict,block_type,source_type}`, and `winnow_flagged_total`;
/// - `winnow_reviewer_calls{outcome}` (read from the engine's counters at each scrape);
/// - `winnow_enforcements_total{action,result}`: offender rules fired, by what became of them;
/// - `winnow_reloads_total{result}`, `winnow_lists_version`, `winnow_list_entries{list}`.
final class ServerMetrics: Sendable {
  /// The endpoints, as the `endpoint` label names them.
  enum Endpoint: String, CaseIterable, Sendable {
    case healthz, readyz, metrics, status, reload, moderate, callback, sensitiveword, offenders, changes, console
  }

  let registry = PrometheusCollectorRegistry()
  private let factory: PrometheusMetricsFactory
  /// Counters made on first use, keyed by small integers (no string is built per request).
  private let requestCounters = Mutex<[Int: CoreMetrics.Counter]>([:])
  private let verdictCounters = Mutex<[Int: CoreMetrics.Counter]>([:])
  private let timers: [Endpoint: CoreMetrics.Timer]

  init() {
    var factory = PrometheusMetricsFactory(registry: registry)
    factory.defaultDurationHistogramBuckets = [
      .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2),
      .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(100), .milliseconds(500), .seconds(1),
      .seconds(3), .seconds(10),
    ]
    self.factory = factory
    var timers: [Endpoint: CoreMetrics.Timer] = [:]
    for endpoint in Endpoint.allCases {
      timers[endpoint] = CoreMetrics.Timer(
        label: "winnow_request_duration_seconds", dimensions: [("endpoint", endpoint.rawValue)], factory: factory)
    }
    self.timers = timers
  }

  /// Counts a request and its duration.
  func request(endpoint: Endpoint, status: Int, duration: Duration) {
    let key = status &* 16 &+ (Endpoint.allCases.firstIndex(of: endpoint) ?? 0)
    let counter = requestCounters.withLock { counters in
      if let counter = counters[key] { return counter }
      let counter = CoreMetrics.Counter(
        label: "winnow_requests_total", dimensions: [("endpoint", endpoint.rawValue), ("status", String(status))],
        factory: factory)
      counters[key] = counter
      return counter
    }
    counter.increment()
    let (seconds, attoseconds) = duration.components
    timers[endpoint]?.recordNanoseconds(seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000)
  }

  /// Counts a moderation result.
  func result(_ result: ModerationResult) {
    let verdicts = ModerationResult.Verdict.allCases
    let verdict = verdicts.firstIndex(of: result.verdict) ?? 0
    let blockType = result.blockType.map { Int($0.rawValue) } ?? 0
    let key = ((verdict * 8 + blockType) * 8 + Int(result.item.sourceType.rawValue)) * 2 + (result.flagged ? 1 : 0)
    let counter = verdictCounters.withLock { counters in
      if let counter = counters[key] { return counter }
      let counter = CoreMetrics.Counter(
        label: "winnow_verdicts_total",
        dimensions: [
          ("verdict", result.verdict.rawValue), ("block_type", result.blockType.map { String($0.rawValue) } ?? "none"),
          ("source_type", String(result.item.sourceType.rawValue)), ("flagged", result.flagged ? "true" : "false"),
        ], factory: factory)
      counters[key] = counter
      return counter
    }
    counter.increment()
    if result.incomplete {
      CoreMetrics.Counter(label: "winnow_incomplete_checks_total", factory: factory).increment()
    }
  }

  /// Counts a fired offender rule by its action and what became of it: `event` (no platform
  /// call to make), `ok`, `failed`, `skipped` (no secret for the app), `dropped` (too many calls
  /// waiting).
  func enforcement(action: String, result: String) {
    CoreMetrics.Counter(
      label: "winnow_enforcements_total", dimensions: [("action", action), ("result", result)], factory: factory
    ).increment()
  }

  /// Counts a signed message callback whose message could not be read or moderated.
  func unreadableCallback() {
    CoreMetrics.Counter(label: "winnow_callbacks_unreadable_total", factory: factory).increment()
  }

  /// Counts a reload.
  func reload(_ report: ModerationService.ReloadReport) {
    CoreMetrics.Counter(
      label: "winnow_reloads_total", dimensions: [("result", report.succeeded ? "ok" : "failed")], factory: factory
    )
    .increment()
  }

  /// The Prometheus text, with the gauges that are read at each scrape brought up to date.
  func exposition(service: ModerationService?, store: StoreReplica.Status? = nil) -> [UInt8] {
    if let store {
      CoreMetrics.Gauge(label: "winnow_store_up", factory: factory).record(store.connected ? 1 : 0)
      CoreMetrics.Gauge(label: "winnow_store_applied_change", factory: factory).record(store.appliedChange)
      CoreMetrics.Gauge(label: "winnow_store_lag_seconds", factory: factory).record(store.lagSeconds ?? -1)
      CoreMetrics.Gauge(label: "winnow_store_reconnects", factory: factory).record(store.reconnects)
    }
    if let service {
      let status = service.status
      CoreMetrics.Gauge(label: "winnow_lists_version", factory: factory).record(status.version)
      CoreMetrics.Gauge(label: "winnow_list_entries", dimensions: [("list", "global")], factory: factory)
        .record(status.globalEntryCount)
      CoreMetrics.Gauge(label: "winnow_list_entries", dimensions: [("list", "apps")], factory: factory)
        .record(status.appEntryCounts.values.reduce(0, +))
      CoreMetrics.Gauge(label: "winnow_apps", factory: factory).record(status.appEntryCounts.count)
      let counts = service.engine.reviewerStatistics.counts
      for (outcome, value) in [
        ("pass", counts.passed), ("review", counts.reviewed), ("reject", counts.rejected),
        ("timeout", counts.timeouts), ("failure", counts.failures), ("in_flight", counts.inFlight),
        ("waiting", counts.waiting),
      ] {
        CoreMetrics.Gauge(label: "winnow_reviewer_calls", dimensions: [("outcome", outcome)], factory: factory).record(
          value)
      }
    }
    return registry.emitToBuffer()
  }
}
