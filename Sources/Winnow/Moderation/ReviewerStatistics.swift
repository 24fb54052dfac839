import Dispatch
import Synchronization

/// Counters of reviewer calls, shared by every task that uses an engine. Read them for metrics;
/// each property is a snapshot.
public final class ReviewerStatistics: Sendable {
  private let counters = Mutex(Counts())

  /// A snapshot of the counters.
  public struct Counts: Sendable, Hashable {
    /// Calls made.
    public var calls = 0
    /// Answers of each outcome.
    public var passed = 0
    public var reviewed = 0
    public var rejected = 0
    /// Calls that did not answer in time.
    public var timeouts = 0
    /// Calls that threw (unreachable, malformed answer, …).
    public var failures = 0
  }

  public init() {}

  /// The counters now.
  public var counts: Counts { counters.withLock { $0 } }

  func record(_ update: (inout Counts) -> Void) {
    counters.withLock { update(&$0) }
  }
}

/// When a deadline-bounded call was decided (answered, failed or timed out), read after the call.
final class DecisionTime: Sendable {
  private let instant = Mutex<ContinuousClock.Instant?>(nil)

  func mark() { instant.withLock { if $0 == nil { $0 = ContinuousClock.now } } }

  var value: ContinuousClock.Instant? { instant.withLock { $0 } }
}

/// Runs `operation` and returns its result, or throws ``ReviewTimeoutError`` once `timeout` has
/// passed, whether or not the operation honours cancellation (it is cancelled, and its late
/// result dropped). The timer runs on a Dispatch queue, not in the concurrency pool, so it fires
/// on time even when the pool's threads are all busy; `decided` records when the outcome was
/// settled.
func withDeadline<T: Sendable>(
  _ timeout: Duration, decided: DecisionTime, _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
  let once = ResumeOnce<T>(decided: decided)
  return try await withTaskCancellationHandler {
    try await withCheckedThrowingContinuation { continuation in
      once.start(continuation)
      let timer = DispatchWorkItem { once.resume(with: .failure(ReviewTimeoutError(timeout: timeout))) }
      let nanoseconds = timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000
      DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds)), execute: timer)
      let work = Task {
        let result: Result<T, any Error>
        do { result = .success(try await operation()) } catch { result = .failure(error) }
        timer.cancel()
        once.resume(with: result)
      }
      once.onFinish { work.cancel() }
    }
  } onCancel: {
    once.resume(with: .failure(CancellationError()))
  }
}

/// A continuation resumed by whichever of several tasks finishes first.
private final class ResumeOnce<T: Sendable>: Sendable {
  private struct State {
    var continuation: CheckedContinuation<T, any Error>?
    var pending: Result<T, any Error>?
    var finished = false
    var cleanup: (@Sendable () -> Void)?
  }

  private let state = Mutex(State())
  private let decided: DecisionTime

  init(decided: DecisionTime) { self.decided = decided }

  func start(_ continuation: CheckedContinuation<T, any Error>) {
    let early = state.withLock { state -> Result<T, any Error>? in
      if let pending = state.pending { return pending }
      state.continuation = continuation
      return nil
    }
    if let early { continuation.resume(with: early) }
  }

  func onFinish(_ cleanup: @escaping @Sendable () -> Void) {
    let runNow = state.withLock { state -> Bool in
      if state.finished { return true }
      state.cleanup = cleanup
      return false
    }
    if runNow { cleanup() }
  }

  func resume(with result: Result<T, any Error>) {
    let (continuation, cleanup) = state.withLock {
      state -> (CheckedContinuation<T, any Error>?, (@Sendable () -> Void)?) in
      guard !state.finished else { return (nil, nil) }
      state.finished = true
      decided.mark()
      let cleanup = state.cleanup
      state.cleanup = nil
      guard let continuation = state.continuation else {
        state.pending = result
        return (nil, cleanup)
      }
      state.continuation = nil
      return (continuation, cleanup)
    }
    continuation?.resume(with: result)
    cleanup?()
  }
}
