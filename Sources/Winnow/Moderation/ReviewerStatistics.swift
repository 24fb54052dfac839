import Synchronization

/// Counters of reviewer calls, shared by every task that uses an engine. Read them for metrics;
/// each property is a snapshot.
@_spi(Tools) public final class ReviewerStatistics: Sendable {
  private struct State {
    var counts = Counts()
    /// Calls waiting for one in flight to end, first come first served.
    var waiters: [Waiter] = []
    /// Calls whose wait was cancelled before it began.
    var cancelled: Set<UInt64> = []
    var nextID: UInt64 = 0
    /// The limit the latest call asked for (one engine's policy; its apps share it).
    var limit = Int.max
  }

  private struct Waiter {
    let id: UInt64
    let continuation: CheckedContinuation<Void, any Error>
  }

  private let state = Mutex(State())

  /// A snapshot of the counters.
  public struct Counts: Sendable, Hashable {
    /// Calls made.
    public var calls = 0
    /// Answers of `pass`.
    public var passed = 0
    /// Answers of `review`.
    public var reviewed = 0
    /// Answers of `reject`.
    public var rejected = 0
    /// Calls that did not answer in time (waiting for a free call included).
    public var timeouts = 0
    /// Calls that threw (unreachable, malformed answer, …).
    public var failures = 0
    /// Calls started whose reviewer has not yet returned, timed-out ones included (a reviewer
    /// that ignores cancellation keeps them here until it does return).
    public var inFlight = 0
    /// Calls waiting for one in flight to end (``ReviewPolicy/maximumCallsInFlight``).
    public var waiting = 0
  }

  /// Creates counters at zero.
  public init() {}

  /// The counters now.
  public var counts: Counts { state.withLock { $0.counts } }

  func record(_ update: (inout Counts) -> Void) {
    state.withLock { update(&$0.counts) }
  }

  /// Waits until fewer than `limit` calls are in flight, then counts this one; calls wait in
  /// the order they came. Throws `CancellationError` when the task is cancelled while waiting
  /// (the deadline of the call passed), and the call is then not counted.
  func startCall(limit: Int) async throws {
    let id = state.withLock { state in
      state.nextID &+= 1
      return state.nextID
    }
    defer { state.withLock { _ = $0.cancelled.remove(id) } }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
        let outcome = state.withLock { state -> Result<Void, any Error>? in
          if state.cancelled.contains(id) { return .failure(CancellationError()) }
          state.limit = limit
          if state.counts.inFlight < limit && state.waiters.isEmpty {
            state.counts.inFlight += 1
            return .success(())
          }
          state.waiters.append(Waiter(id: id, continuation: continuation))
          state.counts.waiting += 1
          return nil
        }
        if let outcome { continuation.resume(with: outcome) }
      }
    } onCancel: {
      let waiter = state.withLock { state -> Waiter? in
        guard let index = state.waiters.firstIndex(where: { $0.id == id }) else {
          state.cancelled.insert(id)
          return nil
        }
        state.counts.waiting -= 1
        return state.waiters.remove(at: index)
      }
      waiter?.continuation.resume(throwing: CancellationError())
    }
  }

  /// A call's reviewer has returned (answered, thrown or, after a timeout, given up at last):
  /// its place goes to the first call waiting, if any.
  func endCall() {
    let next = state.withLock { state -> Waiter? in
      if !state.waiters.isEmpty && state.counts.inFlight <= state.limit {
        state.counts.waiting -= 1
        return state.waiters.removeFirst()
      }
      state.counts.inFlight -= 1
      return nil
    }
    next?.continuation.resume()
  }
}
