/// The normalized lexicon's keys (``HanWordEdges/lexiconKey(_:)`` and its kin,
/// ``SyllableWordEdges/key(_:)``) and their Zipf frequencies in tenths, as one flat table.
///
/// A segmentation reads the lexicon about fifty times a candidate. A `Dictionary` hashed each
/// key with SipHash, about 150 instructions a lookup; this table multiplies the key by a
/// constant, keeps the top bits (Fibonacci hashing: the keys are packed scalars, whose low bits
/// alone cluster), and probes linearly in an array at most half full.
struct LexiconTable: Sendable {
  /// The keys by slot; ``emptyKey`` marks a free slot.
  private var keys: [UInt64]
  /// The weight of the key in the same slot.
  private var weights: [UInt8]
  /// The weight of the key that equals ``emptyKey``, which no slot can hold.
  private var emptyKeyWeight: UInt8?
  /// 64 minus the log2 of the slot count.
  private var shift: UInt64
  /// How many keys the table holds.
  private(set) var count: Int

  private static let emptyKey: UInt64 = 0
  private static let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15

  /// A table of `pairs`; a key given twice keeps its larger weight.
  init<S: Sequence<(UInt64, UInt8)>>(_ pairs: S) {
    let pairs = Array(pairs)
    var slots = 8
    while slots < pairs.count * 2 { slots *= 2 }
    keys = [UInt64](repeating: Self.emptyKey, count: slots)
    weights = [UInt8](repeating: 0, count: slots)
    emptyKeyWeight = nil
    shift = UInt64(64 - slots.trailingZeroBitCount)
    count = 0
    for (key, weight) in pairs { insert(key, weight) }
  }

  /// An empty table.
  init() { self.init(EmptyCollection()) }

  var isEmpty: Bool { count == 0 }

  /// The slots the table allocates (for a memory estimate).
  var capacity: Int { keys.count }

  /// Every key with its weight, in slot order.
  var pairs: [(key: UInt64, weight: UInt8)] {
    var out: [(key: UInt64, weight: UInt8)] = []
    out.reserveCapacity(count)
    if let emptyKeyWeight { out.append((Self.emptyKey, emptyKeyWeight)) }
    for slot in keys.indices where keys[slot] != Self.emptyKey { out.append((keys[slot], weights[slot])) }
    return out
  }

  /// The weight of `key`, nil when the table does not hold it.
  @inline(__always)
  subscript(key: UInt64) -> UInt8? {
    if key == Self.emptyKey { return emptyKeyWeight }
    return keys.withUnsafeBufferPointer { keys -> UInt8? in
      let mask = keys.count &- 1
      var slot = Int(truncatingIfNeeded: (key &* Self.multiplier) >> shift)
      while true {
        let found = keys[slot]
        if found == key { return weights.withUnsafeBufferPointer { $0[slot] } }
        if found == Self.emptyKey { return nil }
        slot = (slot &+ 1) & mask
      }
    }
  }

  private mutating func insert(_ key: UInt64, _ weight: UInt8) {
    if key == Self.emptyKey {
      if emptyKeyWeight == nil { count += 1 }
      emptyKeyWeight = max(emptyKeyWeight ?? 0, weight)
      return
    }
    let mask = keys.count - 1
    var slot = Int(truncatingIfNeeded: (key &* Self.multiplier) >> shift)
    while keys[slot] != Self.emptyKey && keys[slot] != key { slot = (slot + 1) & mask }
    if keys[slot] == key {
      weights[slot] = max(weights[slot], weight)
    } else {
      keys[slot] = key
      weights[slot] = weight
      count += 1
    }
  }
}
