import Synchronization

/// The signatures a server has accepted within the signature window, so that each is accepted
/// once: a nonce seen again with the same app and timestamp is a replay, whichever endpoint it
/// comes to (a callback URL's query signature, which proxies log, must not also authorize a
/// word edit).
///
/// A signature is remembered for twice the window from when it was first accepted: its
/// timestamp is at most one window from that moment, and it is valid until one window after
/// its timestamp. Keys are 64-bit hashes of app, nonce and timestamp (seeded per process), so
/// memory stays about 32 bytes a signature; at `capacity` remembered signatures a new one is
/// refused rather than an old one forgotten early, because forgetting would let it be replayed.
final class NonceRegistry: Sendable {
  /// What ``admit(app:nonce:timestamp:now:)`` decided.
  enum Outcome: Equatable {
    /// Not seen within the window: accepted and remembered.
    case fresh
    /// Seen within the window: a replay.
    case repeated
    /// `capacity` signatures are remembered and none has expired.
    case full
  }

  private struct State {
    var seen: Set<UInt64> = []
    /// Keys with the second they may be forgotten, in the order accepted (and so of expiry).
    var queue: [(expiry: Int64, key: UInt64)] = []
    /// The first live element of `queue`.
    var head = 0
  }

  /// The most signatures remembered at once.
  let capacity: Int
  /// Seconds a signature is remembered.
  let lifetime: Int64
  private let state = Mutex(State())

  /// A registry for a signature window of `window` seconds (more than 0).
  init(window: Int64, capacity: Int = 1 << 21) {
    self.capacity = capacity
    let (doubled, overflow) = window.multipliedReportingOverflow(by: 2)
    lifetime = overflow ? Int64.max : doubled
  }

  /// Accepts a signature's app, nonce and timestamp once within its lifetime; `now` in seconds.
  func admit(app: String, nonce: String, timestamp: String, now: Int64) -> Outcome {
    var hasher = Hasher()
    hasher.combine(app)
    hasher.combine(nonce)
    hasher.combine(timestamp)
    let key = UInt64(bitPattern: Int64(hasher.finalize()))
    let (expiry, overflow) = now.addingReportingOverflow(lifetime)
    return state.withLock { state in
      while state.head < state.queue.count && state.queue[state.head].expiry <= now {
        state.seen.remove(state.queue[state.head].key)
        state.head += 1
      }
      if state.head > 4096 && state.head * 2 > state.queue.count {
        state.queue.removeFirst(state.head)
        state.head = 0
      }
      guard !state.seen.contains(key) else { return .repeated }
      guard state.seen.count < capacity else { return .full }
      state.seen.insert(key)
      state.queue.append((overflow ? Int64.max : expiry, key))
      return .fresh
    }
  }

  /// Signatures remembered now (for `/v1/status`).
  var count: Int { state.withLock { $0.seen.count } }
}
