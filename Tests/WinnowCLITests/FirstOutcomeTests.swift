import Foundation
import Synchronization
import Testing
@_spi(Tools) @testable import WinnowStore

/// The store follower's way of waiting for a session: the first outcome, never the end of a
/// task that may wait forever on a database library's future.
@Suite("the follower's first outcome")
struct FirstOutcomeTests {
  struct Failure: Error, Equatable { let name: String }

  /// A wait that ignores cancellation, as a future on a dead connection does; released by the
  /// test (or after a time, so that an implementation that waits for it fails the test instead
  /// of hanging it). Whether it was released when the caller returned is what a test checks:
  /// elapsed time is not, since other suites may hold the concurrency pool's threads a while.
  final class Stuck: Sendable {
    private let waiting = Mutex<CheckedContinuation<Void, Never>?>(nil)
    private let released = Mutex(false)
    let cancelled = Mutex(false)

    func wait() async {
      await withCheckedContinuation { continuation in
        let now = released.withLock { released in
          if !released { waiting.withLock { $0 = continuation } }
          return released
        }
        if now { continuation.resume() }
      }
      cancelled.withLock { $0 = Task.isCancelled }
    }

    var isReleased: Bool { released.withLock { $0 } }

    func release() {
      released.withLock { $0 = true }
      waiting.withLock { $0.take() }?.resume()
    }

    func release(after limit: Duration) {
      Task { [self] in
        try? await Task.sleep(for: limit)
        release()
      }
    }
  }

  @Test func aFailureIsReturnedWithoutWaitingForTheWorkToEnd() async throws {
    let stuck = Stuck()
    stuck.release(after: .seconds(60))
    await #expect(throws: Failure(name: "lost")) {
      try await StoreReplica.firstOutcome { fail -> Int in
        fail(Failure(name: "lost"))
        await stuck.wait()
        throw Failure(name: "later")
      }
    }
    #expect(!stuck.isReleased, "the caller waited for the work to end")
    stuck.release()
  }

  @Test func aCancelledCallerDoesNotWaitAndTheWorkIsCancelled() async throws {
    let stuck = Stuck()
    stuck.release(after: .seconds(60))
    let caller = Task {
      let outcome: Result<Int, any Error>
      do {
        outcome = .success(
          try await StoreReplica.firstOutcome { _ -> Int in
            await stuck.wait()
            return 1
          })
      } catch {
        outcome = .failure(error)
      }
      return (outcome, stuck.isReleased)
    }
    try await Task.sleep(for: .milliseconds(100))
    caller.cancel()
    let (outcome, releasedFirst) = await caller.value
    #expect(!releasedFirst, "the cancelled caller waited for the work to end")
    #expect(throws: CancellationError.self) { try outcome.get() }
    stuck.release()
    // The work, released, sees that it was cancelled.
    for _ in 0..<3000 where !stuck.cancelled.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(10)) }
    #expect(stuck.cancelled.withLock { $0 })
  }

  @Test func theWorksOwnEndIsItsOutcome() async throws {
    #expect(try await StoreReplica.firstOutcome { _ in 7 } == 7)
    await #expect(throws: Failure(name: "thrown")) {
      try await StoreReplica.firstOutcome { _ -> Int in throw Failure(name: "thrown") }
    }
    // Only the first outcome counts: a failure reported after the end, or a second one, is not.
    #expect(
      try await StoreReplica.firstOutcome { fail -> Int in
        Task {
          try? await Task.sleep(for: .milliseconds(20))
          fail(Failure(name: "late"))
        }
        return 8
      } == 8)
    await #expect(throws: Failure(name: "first")) {
      try await StoreReplica.firstOutcome { fail -> Int in
        fail(Failure(name: "first"))
        fail(Failure(name: "second"))
        throw Failure(name: "thrown")
      }
    }
  }
}
