import CoreMetrics
import Metrics
import Prometheus
import Synchronization
import Winnow

/// The server's metrics, through swift-metrics into a Prometheus registry of the server's own
/// (not the process-wide bootstrap, so several servers can live in one process, as in tests).
///
/// - `winnow_requests_total{endpoint,status}` and `winnow_request_duration_seconds{endpoint}`;
/// - `winnow_verdicts_total{verdict,block_type,source_type}`, and `winnow_flagged_total`;
/// - `winnow_reviewer_calls{outcome}` (read from the engine's counters at each scrape);
/// - `winnow_reloads_total{result}`, `winnow_lists_version`, `winnow_list_entries{list}`.
final class ServerMetrics: Sendable {
  let registry = PrometheusCollectorRegistry()
  private let factory: PrometheusMetricsFactory
  private let requestCounters = Mutex<[String: CoreMetrics.Counter]>([:])
  private let verdictCounters = Mutex<[String: CoreMetrics.Counter]>([:])
  private let timers = Mutex<[String: CoreMetrics.Timer]>([:])

  init() {
    var factory = PrometheusMetricsFactory(registry: registry)
    factory.defaultDurationHistogramBuckets = [
      .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2),
      .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(100), .milliseconds(500), .seconds(1),
      .seconds(3), .seconds(10),
    ]
    self.factory = factory
  }

  /// Counts a request and its duration.
  func request(endpoint: String, status: Int, duration: Duration) {
    let key = endpoint + " " + String(status)
    let counter = requestCounters.withLock { counters in
      if let counter = counters[key] { return counter }
      let counter = CoreMetrics.Counter(
        label: "winnow_requests_total", dimensions: [("endpoint", endpoint), ("status", String(status))],
        factory: factory)
      counters[key] = counter
      return counter
    }
    counter.increment()
    let timer = timers.withLock { timers in
      if let timer = timers[endpoint] { return timer }
      let timer = CoreMetrics.Timer(
        label: "winnow_request_duration_seconds", dimensions: [("endpoint", endpoint)], factory: factory)
      timers[endpoint] = timer
      return timer
    }
    let (seconds, attoseconds) = duration.components
    timer.recordNanoseconds(seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000)
  }

  /// Counts a moderation result.
  func result(_ result: ModerationResult) {
    let verdict = result.verdict.rawValue
    let blockType = result.blockType.map { String($0.rawValue) } ?? "none"
    let sourceType = String(result.item.sourceType.rawValue)
    let key = verdict + " " + blockType + " " + sourceType + (result.flagged ? " flagged" : "")
    let counter = verdictCounters.withLock { counters in
      if let counter = counters[key] { return counter }
      let counter = CoreMetrics.Counter(
        label: "winnow_verdicts_total",
        dimensions: [
          ("verdict", verdict), ("block_type", blockType), ("source_type", sourceType),
          ("flagged", result.flagged ? "true" : "false"),
        ], factory: factory)
      counters[key] = counter
      return counter
    }
    counter.increment()
  }

  /// Counts a reload.
  func reload(_ report: ModerationService.ReloadReport) {
    CoreMetrics.Counter(
      label: "winnow_reloads_total", dimensions: [("result", report.succeeded ? "ok" : "failed")], factory: factory
    )
    .increment()
  }

  /// The Prometheus text, with the gauges that are read at each scrape brought up to date.
  func exposition(service: ModerationService?) -> [UInt8] {
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
      ] {
        CoreMetrics.Gauge(label: "winnow_reviewer_calls", dimensions: [("outcome", outcome)], factory: factory).record(
          value)
      }
    }
    return registry.emitToBuffer()
  }
}
