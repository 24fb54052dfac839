import CWinnowFilter

/// The short ASCII patterns that need a repeated letter (`ass`, normalized `as` with its `s`
/// written at least twice), looked up only where a text's letter is repeated. Internal to
/// ``ASCIIWalkFilter``.
///
/// Normalization writes a run of one letter once (`asss` is `as`, its `s` standing for three),
/// so such a pattern of a word of three or four letters is two or three bytes long, and common
/// in ordinary text: kept in the start filter, `as`, `to` and `al` passed it at every `as`,
/// `was`, `total` and `also`, only to be rejected for too few repeats after the exact tables
/// and the pattern's checks. A match of one needs a unit that stands for two letters or more
/// where the pattern needs it, and an ordinary line has about one such unit or none. So each
/// pattern is keyed here by its bytes and the offset of the first letter it needs repeated (its
/// *anchor*), and at each repeated unit of a text the few spans that could put an anchor
/// there are looked up in one small hash table. Longer patterns stay in the start filter,
/// whose four-byte prefixes rarely pass for them.
struct ShortRepeats: Sendable {
  /// The longest pattern kept here, in bytes.
  static let longest = 3

  /// An open-addressing table, at most half full, of words `key | index << 32` (0 for an empty
  /// slot), where a key is the pattern's bytes (little-endian), its length (bits 24 to 25) and
  /// its anchor (bits 26 to 27), and `patterns[index]` is how many patterns have the key,
  /// their automaton numbers following.
  let slots: [UInt64]
  /// Runs of patterns: a count, then that many automaton numbers.
  let patterns: [UInt32]
  /// By byte (0 to 127), its *shapes*: bit `4 * length + anchor` set when some pattern of that
  /// length needs the byte repeated at that anchor. Most repeated letters of a text are few
  /// patterns' anchors or none, and only their shapes are looked up.
  let shapesByByte: [UInt16]

  /// The key of `length` bytes (1 to 3) read little-endian in `bytes`, with its `anchor`.
  @inline(__always)
  static func key(_ bytes: UInt32, length: Int, anchor: Int) -> UInt32 {
    bytes & ((1 &<< UInt32(8 &* length)) &- 1) | UInt32(length) &<< 24 | UInt32(anchor) &<< 26
  }

  /// The first slot probed for `key`, in a table of `1 << bits` slots.
  @inline(__always)
  static func slot(_ key: UInt32, bits: Int) -> Int {
    Int(truncatingIfNeeded: (UInt64(key) &* BlockedBloom.multiplier) &>> UInt64(64 &- bits))
  }

  /// Splits `patterns` (ASCII bytes, none empty, the automaton's number of each in `numbers`)
  /// by `anchors` (for each, the index of the first byte it needs repeated, or nil): returns the
  /// table of the short anchored ones, nil when there are none, and the indices into `patterns`
  /// of the others, in order.
  static func split(patterns: [[UInt8]], numbers: [UInt32], anchors: [Int?]) -> (ShortRepeats?, plain: [Int]) {
    var plain: [Int] = []
    var byKey: [UInt32: [UInt32]] = [:]
    var shapesByByte = [UInt16](repeating: 0, count: 128)
    for index in patterns.indices {
      let bytes = patterns[index]
      guard let anchor = anchors[index], bytes.count <= longest, anchor < bytes.count else {
        plain.append(index)
        continue
      }
      let word = bytes.enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << UInt32(8 * $1.offset) }
      byKey[key(word, length: bytes.count, anchor: anchor), default: []].append(numbers[index])
      shapesByByte[Int(bytes[anchor] & 0x7F)] |= 1 << UInt16(4 * bytes.count + anchor)
    }
    guard !byKey.isEmpty else { return (nil, Array(patterns.indices)) }
    var bits = 1
    while 1 << bits < 2 * byKey.count { bits += 1 }
    var slots = [UInt64](repeating: 0, count: 1 << bits)
    var runs: [UInt32] = []
    // Sorted by key so that a build lays the same list out the same way.
    for (key, members) in byKey.sorted(by: { $0.key < $1.key }) {
      var slot = Self.slot(key, bits: bits)
      while slots[slot] != 0 { slot = (slot + 1) & (slots.count - 1) }
      slots[slot] = UInt64(key) | UInt64(runs.count) << 32
      runs.append(UInt32(members.count))
      runs += members.sorted()
    }
    return (ShortRepeats(slots: slots, patterns: runs, shapesByByte: shapesByByte), plain)
  }

  /// Calls `body(pattern, end)` (the automaton's number, an exclusive end) for every pattern
  /// here whose anchor is at a unit of `bytes` (followed in memory by ``StartFilter/padding``
  /// readable bytes, one a unit) that `infos` says stands for two letters or more (`run`).
  /// Whether the text's units there repeat as the pattern needs is the caller's check.
  @inline(__always)
  func forEachMatch(
    inPadded bytes: UnsafeBufferPointer<UInt8>, infos: UnsafeBufferPointer<NormalizedText.UnitInfo>,
    _ body: (Int, Int) -> Void
  ) {
    guard let units = infos.baseAddress, let base = bytes.baseAddress else { return }
    let count = min(infos.count, bytes.count)
    slots.withUnsafeBufferPointer { slots in
      patterns.withUnsafeBufferPointer { patterns in
        shapesByByte.withUnsafeBufferPointer { shapesByByte in
          // The repeated units, 64 at a time, found in C (sixteen a step with AVX-512): a loop
          // over the records here read one a unit, with a branch.
          var block = 0
          while block < count {
            let records = UnsafeRawPointer(units + block)
            let length = min(64, count &- block)
            var repeated =
              Self.wide ? winnow_repeated_units_wide(records, length) : winnow_repeated_units(records, length)
            while repeated != 0 {
              let offset = repeated.trailingZeroBitCount
              repeated &= repeated &- 1
              forEachMatch(
                at: block &+ offset, count: count, base: base, slots: slots, patterns: patterns,
                shapesByByte: shapesByByte, body)
            }
            block &+= 64
          }
        }
      }
    }
  }

  /// Whether the repeated units are found with AVX-512 (the start filter's widest stage).
  private static let wide = StartFilter.firstStage == .avx512

  /// Calls `body(pattern, end)` for every pattern here whose anchor is at `anchor` of the
  /// `count` bytes at `base` (followed in memory by ``StartFilter/padding`` readable bytes),
  /// with the table's arrays read through the buffers given.
  @inline(__always)
  func forEachMatch(
    at anchor: Int, count: Int, base: UnsafePointer<UInt8>, slots: UnsafeBufferPointer<UInt64>,
    patterns: UnsafeBufferPointer<UInt32>, shapesByByte: UnsafeBufferPointer<UInt16>, _ body: (Int, Int) -> Void
  ) {
    var shapes = shapesByByte[Int(truncatingIfNeeded: base[anchor] & 0x7F)]
    if shapes == 0 { return }
    let bits = 64 &- slots.count.leadingZeroBitCount &- 1
    while shapes != 0 {
      let shape = shapes.trailingZeroBitCount
      shapes &= shapes &- 1
      let (length, offset) = (shape &>> 2, shape & 3)
      let start = anchor &- offset
      guard start >= 0, start &+ length <= count else { continue }
      let key = Self.key(
        UInt32(littleEndian: UnsafeRawPointer(base + start).loadUnaligned(as: UInt32.self)), length: length,
        anchor: offset)
      var slot = Self.slot(key, bits: bits)
      while true {
        let found = slots[slot]
        if found == 0 { break }
        if UInt32(truncatingIfNeeded: found) == key {
          let index = Int(truncatingIfNeeded: found &>> 32)
          for member in 0..<Int(truncatingIfNeeded: patterns[index]) {
            body(Int(truncatingIfNeeded: patterns[index &+ 1 &+ member]), start &+ length)
          }
          break
        }
        slot = (slot &+ 1) & (slots.count &- 1)
      }
    }
  }

  /// Bytes of memory the table holds.
  var memoryFootprint: Int { slots.capacity * 8 + patterns.capacity * 4 + shapesByByte.capacity * 2 }
}
