import Synchronization

/// Result slots filled from several threads, read once all are filled.
final class ResultSlots<Value: Sendable>: Sendable {
  private let slots: Mutex<[Value?]>

  init(count: Int) { slots = Mutex(Array(repeating: nil, count: count)) }

  func set(_ index: Int, _ value: Value) { slots.withLock { $0[index] = value } }

  /// The values; every slot must be set.
  var values: [Value] { slots.withLock { $0.map { $0! } } }
}

/// Hands out 0, 1, 2, … to whichever thread asks next.
final class IndexCounter: Sendable {
  private let next = Atomic<Int>(0)

  func take(below limit: Int) -> Int? {
    let index = next.add(1, ordering: .relaxed).oldValue
    return index < limit ? index : nil
  }
}
