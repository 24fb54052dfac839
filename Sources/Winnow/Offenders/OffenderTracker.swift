import Synchronization

/// The sliding windows of every sender a server has seen blocked, replaced or flagged, by app
/// and user, in bounded memory: a sender is forgotten once nothing of theirs is recent enough
/// for any rule (``OffenderPolicy/memory``), and past ``capacity`` senders the ones seen
/// longest ago are forgotten first. Only senders with an incident are held; a clean message
/// costs nothing here.
@_spi(Tools) public final class OffenderTracker: Sendable {
  /// The policy the windows apply.
  public let policy: OffenderPolicy
  /// The most senders held at once.
  public let capacity: Int

  private struct Key: Hashable, Sendable {
    var app: String
    var user: String
  }

  private struct Sender: Sendable {
    var windows = OffenderWindows()
    var lastSeen: Int64 = 0
  }

  private struct State: Sendable {
    var senders: [Key: Sender] = [:]
    /// When idle senders were last dropped.
    var lastSweep: Int64 = .min
    /// Senders dropped for room, not for age.
    var evicted = 0
  }

  private let state = Mutex(State())

  /// A tracker of `policy`, holding at most `capacity` senders.
  public init(policy: OffenderPolicy, capacity: Int = 1_000_000) {
    self.policy = policy
    self.capacity = max(1, capacity)
  }

  /// Senders held now.
  public var count: Int { state.withLock { $0.senders.count } }

  /// Senders dropped so far to stay within ``capacity``.
  public var evicted: Int { state.withLock { $0.evicted } }

  /// Records an incident of `user` of `app` at `incident.time`; returns what fires.
  public func record(_ incident: OffenderIncident, app: String, user: String) -> OffenderFiring? {
    let key = Key(app: app, user: user)
    let now = incident.time
    return state.withLock { state in
      var sender = state.senders.removeValue(forKey: key) ?? Sender()
      let firing = sender.windows.record(incident, policy: policy)
      sender.lastSeen = max(sender.lastSeen, now)
      state.senders[key] = sender
      // At most once a window's length, and whenever the capacity is passed: dropping the
      // idle ones is a pass over all senders.
      if state.senders.count > capacity || OffenderWindows.age(of: state.lastSweep, at: now) > policy.memory {
        sweep(&state, now: now)
      }
      return firing
    }
  }

  /// Drops the senders that nothing recent keeps (see the type's documentation) at `now`.
  public func expire(at now: Int64) {
    state.withLock { sweep(&$0, now: now) }
  }

  private func sweep(_ state: inout State, now: Int64) {
    state.lastSweep = now
    let memory = policy.memory
    state.senders = state.senders.filter { OffenderWindows.age(of: $0.value.lastSeen, at: now) < memory }
    guard state.senders.count > capacity else { return }
    // Still full of recent senders: the tenth seen longest ago go.
    let excess = state.senders.count - capacity + capacity / 10
    let oldest = state.senders.sorted { $0.value.lastSeen < $1.value.lastSeen }.prefix(excess)
    for (key, _) in oldest { state.senders[key] = nil }
    state.evicted &+= excess
  }
}
