import Dispatch
import Synchronization

/// When a deadline-bounded call was decided (answered, failed or timed out), read after the call.
final class DecisionTime: Sendable {
  private let instant = Mutex<ContinuousClock.Instant?>(nil)

  func mark() { instant.withLock { if $0 == nil { $0 = ContinuousClock.now } } }

  var value: ContinuousClock.Instant? { instant.withLock { $0 } }
}

/// The queue deadline timers fire on: a serial queue of its own, which Dispatch gives a thread
/// even when every thread of its global queue is busy. A timer put on `DispatchQueue.global()`
/// waited for a free thread there (on Linux the concurrency pool's jobs run on Dispatch's
/// worker threads too): a 0.3 s review deadline fired after 8 s in a loaded test run.
private let deadlineQueue = DispatchQueue(label: "winnow.deadlines")

/// Runs `operation` and returns its result, or throws ``ReviewTimeoutError`` once `timeout` has
/// passed, whether or not the operation honours cancellation (it is cancelled, and its late
/// result dropped). The timer runs on ``deadlineQueue``, not in the concurrency pool, so it
/// fires on time even when the pool's threads are all busy; `decided` records when the outcome
/// was settled.
func withDeadline<T: Sendable>(
  _ timeout: Duration, decided: DecisionTime, _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
  let once = ResumeOnce<T>(decided: decided)
  return try await withTaskCancellationHandler {
    try await withCheckedThrowingContinuation { continuation in
      once.start(continuation)
      let timer = DispatchWorkItem { once.resume(with: .failure(ReviewTimeoutError(timeout: timeout))) }
      // Saturated (see `nanoseconds`); Dispatch makes a deadline past its clock's end "never".
      deadlineQueue.asyncAfter(deadline: .now() + .nanoseconds(Int(timeout.nanoseconds)), execute: timer)
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
    // The work is cancelled before the caller goes on: a call still waiting for a free place
    // (``ReviewerStatistics``) leaves the queue before the caller reads the counters.
    cleanup?()
    continuation?.resume(with: result)
  }
}

extension Duration {
  /// The duration in whole nanoseconds (rounded down), saturated to `0...Int64.max`: a negative
  /// duration is 0 and one too long for 64 bits (some 292 years) is `Int64.max`, so that a
  /// timeout taken from input can never trap.
  var nanoseconds: Int64 {
    let (seconds, attoseconds) = components
    if seconds < 0 || (seconds == 0 && attoseconds <= 0) { return 0 }
    let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
    if overflow { return .max }
    let (total, carry) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
    return carry ? .max : total
  }
}
