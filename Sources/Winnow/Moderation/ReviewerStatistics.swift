import Synchronization

/// Counters of reviewer calls, shared by every task that uses an engine. Read them for metrics;
/// each property is a snapshot.
public final class ReviewerStatistics: Sendable {
  private let counters = Mutex(Counts())

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
    /// Calls that did not answer in time.
    public var timeouts = 0
    /// Calls that threw (unreachable, malformed answer, too many in flight, …).
    public var failures = 0
    /// Calls started whose reviewer has not yet returned, timed-out ones included (a reviewer
    /// that ignores cancellation keeps them here until it does return).
    public var inFlight = 0
  }

  /// Creates counters at zero.
  public init() {}

  /// The counters now.
  public var counts: Counts { counters.withLock { $0 } }

  func record(_ update: (inout Counts) -> Void) {
    counters.withLock { update(&$0) }
  }

  /// Counts a call in flight, unless `limit` are already: then false, and the call is not made.
  func startCall(limit: Int) -> Bool {
    counters.withLock { counts in
      guard counts.inFlight < limit else { return false }
      counts.inFlight += 1
      return true
    }
  }

  /// A call's reviewer has returned (answered, thrown or, after a timeout, given up at last).
  func endCall() { counters.withLock { $0.inFlight -= 1 } }
}
