import Synchronization

/// The per-scalar part of normalization for one set of rules, flattened into one lookup.
///
/// For a BMP scalar the answer is one array read: the folded scalar with its ``ScalarClass``
/// (one read rather than two: on a large word list both tables miss the cache), a deletion, or
/// a slice of a pool for the few scalars that fold to several (`㎏` → `kg`, `ß` → `ss`).
/// Scalars outside the BMP use a dictionary of the ones that change. Tables are built once per distinct rule
/// set and shared; they are immutable after construction.
final class FoldTable: Sendable {
  private static let deleted: UInt32 = 0xFFFF_FFFF
  private static let multiFlag: UInt32 = 0x8000_0000
  /// A single folded scalar takes the low 21 bits of an entry, its class the bits from here.
  private static let classShift: UInt32 = 24

  private let bmp: [UInt32]
  private let pool: [UInt32]
  private let supplementary: [UInt32: [UInt32]]
  /// The keys of `supplementary`, as bits. Most supplementary scalars of a text (emoji, the
  /// lowercase letters of a plane 1 script) fold to themselves, and a look in the dictionary,
  /// hashing the scalar, cost about 150 instructions; a bit, two reads.
  private let supplementaryKeys: ScalarBits
  /// Whether no entry below U+0800 or of a surrogate folds to one unspaced unit (checked when
  /// the table is made, not assumed): three bytes that decode to such a value are overlong or a
  /// surrogate, and a loop that reads CJK characters (``SinglePassShaper``'s run) may then let
  /// the entry stop it rather than test the value.
  let stopsInvalidUnspacedRuns: Bool

  private static let cache = Mutex<[Normalization: FoldTable]>([:])

  /// The rules a fold table applies: those that map one scalar at a time.
  static let perScalarRules: Normalization = [
    .compatibility, .caseFolding, .traditionalToSimplified, .invisibleCharacters, .lookalikes,
  ]

  /// The shared table for a rule set (only the per-scalar rules matter).
  static func shared(for rules: Normalization) -> FoldTable {
    let key = rules.intersection(perScalarRules)
    if let table = cache.withLock({ $0[key] }) { return table }
    return share(FoldTable(rules: key), for: key)
  }

  /// The shared table for `key`: `table`, unless another thread shared one first.
  private static func share(_ table: FoldTable, for key: Normalization) -> FoldTable {
    cache.withLock { cache in
      if let existing = cache[key] { return existing }
      cache[key] = table
      return table
    }
  }

  /// A table from its parts, as read back from a compiled matcher.
  private init(bmp: [UInt32], pool: [UInt32], supplementary: [UInt32: [UInt32]]) {
    self.bmp = bmp
    self.pool = pool
    self.supplementary = supplementary
    supplementaryKeys = ScalarBits(supplementary.keys)
    stopsInvalidUnspacedRuns = Self.stopsInvalidUnspacedRuns(bmp)
  }

  /// See ``stopsInvalidUnspacedRuns``.
  private static func stopsInvalidUnspacedRuns(_ bmp: [UInt32]) -> Bool {
    bmp.count == 0x10000
      && [0..<0x800, 0xD800..<0xE000].allSatisfy { values in
        values.allSatisfy { unspacedFold(bmp[$0]) == nil }
      }
  }

  private init(rules: Normalization) {
    // Every scalar first folds to itself; then only the scalars some table of the rules
    // changes are folded (about 12,000 of 65,536: folding each scalar cost five dictionary
    // lookups and an array, a tenth of loading the global list).
    var bmp = (0..<UInt32(0x10000)).map { $0 | UInt32(ScalarClass.of($0).rawValue) << Self.classShift }
    var pool: [UInt32] = []
    var supplementary: [UInt32: [UInt32]] = [:]
    for value in Self.changedScalars(rules: rules) {
      let folded = Self.fold(value, rules: rules)
      guard value < 0x10000 else {
        if folded != [value] { supplementary[value] = folded }
        continue
      }
      switch folded.count {
      case 0: bmp[Int(value)] = Self.deleted
      case 1: bmp[Int(value)] = folded[0] | UInt32(ScalarClass.of(folded[0]).rawValue) << Self.classShift
      default:
        bmp[Int(value)] = Self.multiFlag | UInt32(pool.count) << 5 | UInt32(folded.count)
        pool.append(contentsOf: folded)
      }
    }
    self.bmp = bmp
    self.pool = pool
    self.supplementary = supplementary
    supplementaryKeys = ScalarBits(supplementary.keys)
    stopsInvalidUnspacedRuns = Self.stopsInvalidUnspacedRuns(bmp)
  }

  /// Calls `body` with the table's entries for the BMP, one per scalar, for a loop that reads
  /// the common case itself (``singleFold(_:)``) and sends the rest to ``forEachFolded(_:_:)``.
  @inline(__always)
  func withBMPEntries<Result>(_ body: (UnsafeBufferPointer<UInt32>) -> Result) -> Result {
    bmp.withUnsafeBufferPointer(body)
  }

  /// The folded scalar a BMP entry holds when it is one unit of class
  /// ``ScalarClass/unspaced`` (a CJK character, most of a Chinese text), or nil.
  @inline(__always)
  static func unspacedFold(_ entry: UInt32) -> UInt32? { fold(entry, ofClass: ScalarClass.unspaced.rawValue) }

  /// The folded scalar a BMP entry holds when it is one unit of the class whose raw value is
  /// `rawClass`, or nil.
  @inline(__always)
  static func fold(_ entry: UInt32, ofClass rawClass: UInt8) -> UInt32? {
    entry & (multiFlag | 0x7F00_0000) == UInt32(rawClass) << classShift ? entry & 0x1F_FFFF : nil
  }

  /// The class of a scalar of plane 1 (U+10000 to U+1FFFF) that folds to itself, or nil for
  /// one that folds to something else and for every other scalar: most plane 1 scalars of a
  /// text (emoji, the letters of an uncased script such as Shavian) are such, and a loop that
  /// reads the BMP's entries itself (``fold(_:ofClass:)``) takes them too.
  @inline(__always)
  func planeOneClass(ofUnfolded value: UInt32) -> ScalarClass? {
    guard value &>> 16 == 1, !supplementaryKeys.contains(value) else { return nil }
    return ScalarClass.of(value)
  }

  /// The folded scalar and its class that a BMP entry holds, or nil when the scalar is deleted
  /// or folds to several.
  @inline(__always)
  static func singleFold(_ entry: UInt32) -> (scalar: UInt32, scalarClass: ScalarClass)? {
    guard entry & multiFlag == 0 else { return nil }
    return (entry & 0x1F_FFFF, ScalarClass(rawValue: UInt8(truncatingIfNeeded: entry >> classShift))!)
  }

  /// Calls `body` with each scalar that `value` folds to and its class (none when it is deleted).
  @inline(__always)
  func forEachFolded(_ value: UInt32, _ body: (UInt32, ScalarClass) -> Void) {
    if value < 0x10000 {
      let folded = bmp.withUnsafeBufferPointer { $0[Int(value)] }
      if folded & Self.multiFlag == 0 {
        body(folded & 0x1F_FFFF, ScalarClass(rawValue: UInt8(truncatingIfNeeded: folded >> Self.classShift))!)
      } else if folded != Self.deleted {
        let start = Int((folded & ~Self.multiFlag) >> 5)
        for index in start..<start + Int(folded & 31) { body(pool[index], ScalarClass.of(pool[index])) }
      }
    } else if supplementaryKeys.contains(value), let folded = supplementary[value] {
      for scalar in folded { body(scalar, ScalarClass.of(scalar)) }
    } else {
      body(value, ScalarClass.of(value))
    }
  }

  /// Calls `body(value, folded)` for every scalar `value` outside the BMP that folds to
  /// something other than itself, with what it folds to (every other scalar of those planes
  /// folds to itself).
  func forEachSupplementaryChange(_ body: (UInt32, [UInt32]) -> Void) {
    for (value, folded) in supplementary { body(value, folded) }
  }

  /// The scalars that `rules` may fold to something other than themselves: the keys of their
  /// tables. Every other scalar folds to itself (``fold(_:rules:)`` looks only in these tables).
  static func changedScalars(rules: Normalization) -> Set<UInt32> {
    var keys = Set<UInt32>()
    if rules.contains(.compatibility) { keys.formUnion(UnicodeTables.compatibility.keys) }
    if rules.contains(.caseFolding) { keys.formUnion(UnicodeTables.caseFolding.keys) }
    if rules.contains(.invisibleCharacters) { keys.formUnion(UnicodeTables.invisible) }
    if rules.contains(.traditionalToSimplified) { keys.formUnion(UnicodeTables.traditionalToSimplified.keys) }
    if rules.contains(.lookalikes) { keys.formUnion(UnicodeTables.lookalikeLetters.keys) }
    return keys
  }

  /// Bytes of memory the table holds.
  var memoryFootprint: Int {
    bmp.capacity * 4 + pool.capacity * 4 + supplementary.count * 48 + supplementaryKeys.memoryFootprint
  }

  /// What `value` folds to under `rules`, computed from the tables: the reference the flattened
  /// table is built from (and tested against).
  static func fold(_ value: UInt32, rules: Normalization) -> [UInt32] {
    if rules.contains(.invisibleCharacters), UnicodeTables.invisible.contains(value) { return [] }
    let compatibility = rules.contains(.compatibility) ? UnicodeTables.compatibility[value] : nil
    if compatibility == nil && (!rules.contains(.caseFolding) || UnicodeTables.caseFolding[value] == nil) {
      // One scalar in, one out (most of the BMP): no intermediate arrays.
      return [mapCharacter(value, rules: rules)]
    }
    var scalars = [value]
    if rules.contains(.compatibility) {
      scalars = scalars.flatMap { UnicodeTables.compatibility[$0] ?? [$0] }
    }
    if rules.contains(.caseFolding) {
      scalars = scalars.flatMap { UnicodeTables.caseFolding[$0] ?? [$0] }
    }
    return scalars.map { mapCharacter($0, rules: rules) }
  }

  /// The one-to-one steps, after compatibility and case folding: Traditional → Simplified,
  /// then look-alike letters.
  private static func mapCharacter(_ value: UInt32, rules: Normalization) -> UInt32 {
    var scalar = value
    if rules.contains(.traditionalToSimplified) { scalar = UnicodeTables.traditionalToSimplified[scalar] ?? scalar }
    if rules.contains(.lookalikes) { scalar = UnicodeTables.lookalikeLetters[scalar] ?? scalar }
    return scalar
  }
}

extension FoldTable {
  /// Writes the table for ``shareDecoded(from:for:)``: a compiled matcher carries its fold
  /// table, whose building (the Unicode tables parsed and 12,000 scalars folded) was a third of
  /// reading the rest back.
  func encode(into writer: inout CompiledWriter) {
    writer.write(bmp)
    writer.write(pool)
    let supplementary = self.supplementary.sorted { $0.key < $1.key }
    writer.write(supplementary.map(\.key))
    writer.write(supplementary.map { UInt32($0.value.count) })
    writer.write(supplementary.flatMap(\.value))
  }

  /// Reads a table back and shares it as the table of `rules`, unless one is shared already.
  static func shareDecoded(from reader: inout CompiledReader, for rules: Normalization) throws(CompiledMatcherError) {
    let bmp: [UInt32] = try reader.readArray()
    let pool: [UInt32] = try reader.readArray()
    let keys: [UInt32] = try reader.readArray()
    let counts: [UInt32] = try reader.readArray()
    let values: [UInt32] = try reader.readArray()
    guard bmp.count == 0x10000, counts.count == keys.count, counts.reduce(0, { $0 + Int($1) }) == values.count,
      bmp.allSatisfy({ $0 == deleted || $0 & multiFlag == 0 || Int(($0 & ~multiFlag) >> 5 + $0 & 31) <= pool.count })
    else { throw CompiledMatcherError(.malformed("fold table")) }
    var supplementary: [UInt32: [UInt32]] = [:]
    var start = 0
    for (key, count) in zip(keys, counts) {
      supplementary[key] = Array(values[start..<start + Int(count)])
      start += Int(count)
    }
    _ = share(FoldTable(bmp: bmp, pool: pool, supplementary: supplementary), for: rules.intersection(perScalarRules))
  }
}

/// A set of scalars as bits, for a set of few scalars spread over all the planes: a slot per
/// page of 256 scalars (0 when the page holds none), and 256 bits for each page that holds some.
struct ScalarBits: Sendable {
  private let slots: [UInt16]
  private let bits: [UInt64]

  init(_ scalars: some Sequence<UInt32>) {
    var slots = [UInt16](repeating: 0, count: 0x110000 >> 8)
    var bits: [UInt64] = []
    for scalar in scalars where scalar < 0x110000 {
      let page = Int(scalar >> 8)
      if slots[page] == 0 {
        bits += [0, 0, 0, 0]
        slots[page] = UInt16(truncatingIfNeeded: bits.count / 4)
      }
      bits[(Int(slots[page]) - 1) * 4 + Int(scalar >> 6 & 3)] |= 1 << UInt64(scalar & 63)
    }
    self.slots = slots
    self.bits = bits
  }

  /// Bytes of memory the set holds.
  var memoryFootprint: Int { slots.capacity * 2 + bits.capacity * 8 }

  /// Whether `scalar` is in the set.
  @inline(__always)
  func contains(_ scalar: UInt32) -> Bool {
    guard scalar < 0x110000 else { return false }
    let slot = Int(slots[Int(scalar >> 8)])
    return slot != 0 && bits[(slot &- 1) &* 4 &+ Int(scalar >> 6 & 3)] &>> UInt64(scalar & 63) & 1 != 0
  }
}
