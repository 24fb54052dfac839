import Foundation
import Synchronization
import Winnow

/// The service once its lists are loaded: the server listens at once and answers 503 (and
/// `/readyz` says not ready) until then.
final class ServiceHolder: Sendable {
  enum State: Sendable {
    case loading
    case ready(ModerationService)
    case failed(ModerationServiceError)
  }

  private let state = Mutex(State.loading)

  var current: State { state.withLock { $0 } }

  var service: ModerationService? {
    if case .ready(let service) = current { return service }
    return nil
  }

  /// Loads the lists on a thread of its own (compiling is not work for the request threads),
  /// then runs `prepare` (the store's lists go in there); ready once both are done.
  func load(
    _ make: @escaping @Sendable () throws(ModerationServiceError) -> ModerationService,
    prepare: @Sendable (ModerationService) async throws(ModerationServiceError) -> Void = { _ in }
  ) async {
    var result = await offThePool { () -> State in
      do throws(ModerationServiceError) { return .ready(try make()) } catch { return .failed(error) }
    }
    if case .ready(let service) = result {
      do throws(ModerationServiceError) { try await prepare(service) } catch { result = .failed(error) }
    }
    state.withLock { $0 = result }
  }
}

/// Runs `work` on a dispatch queue, not on a thread of Swift's cooperative pool, whose two
/// threads (on two cores) also serve requests: compiling lists there would stall them.
func offThePool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
  await withCheckedContinuation { continuation in
    DispatchQueue.global(qos: .utility).async { continuation.resume(returning: work()) }
  }
}
