/// The patterns of a ``StartFilter`` by their window, exactly: where the filter's Bloom filters
/// say a window's bytes may start a pattern, one probe of that window's table finds the
/// patterns it keys, and the bytes each has past its window are compared with the text's.
/// Internal to ``StartFilter``.
///
/// This replaces walking the trie from the position, one dependent read per character (the
/// first read of each state entered was the scan's hottest instruction), with one probe, and
/// for most patterns nothing more: what Hyperscan's FDR does after its filter, with a table per
/// window length instead of its buckets. A window that keys more than ``largestRun`` patterns
/// (a list of URLs all starting `https://`) asks the caller to walk the trie instead, so that
/// no text position costs more than that many comparisons.
///
/// Layout: `slots` starts with three words per window length (the key's byte mask, the shift
/// that takes a hashed key to a slot, and where the table starts), then the tables, each an
/// open-addressing array of (key, value) pairs at most half full. A value is 0 for an empty
/// slot; otherwise its top two bits say what the key holds:
///
/// - ``Kind/run``: the run of `candidates` to compare, its start in bits 32 to 61 and its
///   length below. A candidate is four words: the pattern, the length of its remaining bytes,
///   where they start in `rest`, and the first four of them (little-endian), so that a short
///   remainder is compared without reading `rest`. A run is sorted by length, then pattern.
/// - ``Kind/walk``: the caller walks the trie.
/// - ``Kind/inline``: one pattern (bits 32 to 58) with at most four remaining bytes, their count
///   in bits 59 to 61 and the bytes in the low 32 bits: nothing to read but the slot. A key of
///   the comparison list holds one pattern in four cases of five, and three in five of those
///   have at most four bytes past their window (a CJK word of two to four characters).
/// - ``Kind/single``: one pattern (bits 32 to 61) whose remaining bytes are at `rest[n + 1...]`,
///   where `n` is the low 32 bits and `rest[n]` their count.
struct WindowPatterns: Sendable {
  /// What a slot's value holds, in its top two bits (see above).
  enum Kind: UInt64 {
    /// A run of candidates.
    case run = 0
    /// Too many patterns: the caller walks the trie.
    case walk
    /// One pattern and its remaining bytes, in the value.
    case inline
    /// One pattern, its remaining bytes in `rest`.
    case single
  }
  /// The most patterns a window's run may hold before the window is walked instead.
  static let largestRun = 64

  private let slots: [UInt64]
  private let candidates: [UInt32]
  private let rest: [UInt8]

  /// Words of `slots` before the tables: three per window length.
  private static let headerWords = 3 * StartFilter.windowLengths.count

  /// Builds the tables for patterns given as UTF-8 bytes (none empty), grouped per window
  /// length (as ``StartFilter/windowLengths``) by their key: the indices of the patterns keyed
  /// by it. A key whose patterns do not fit the fields above (more than ``largestRun`` of them,
  /// or offsets past 32 bits) is walked.
  init(patterns: [[UInt8]], groups: [[UInt64: [Int]]]) {
    let lengths = StartFilter.windowLengths
    var slots = [UInt64](repeating: 0, count: Self.headerWords)
    var candidates: [UInt32] = []
    var rest: [UInt8] = []
    for (slot, length) in lengths.enumerated() {
      var bits = 1
      while 1 << bits < 2 * groups[slot].count { bits += 1 }
      let offset = slots.count
      slots[3 * slot] = length == 8 ? .max : (1 << UInt64(8 * length)) - 1
      slots[3 * slot + 1] = UInt64(64 - bits)
      slots[3 * slot + 2] = UInt64(offset)
      slots += [UInt64](repeating: 0, count: 2 << bits)
      // Sorted by key so that a build lays the same list out the same way.
      for (key, members) in groups[slot].sorted(by: { $0.key < $1.key }) {
        let run = members.sorted { (patterns[$0].count, $0) < (patterns[$1].count, $1) }
        let remainders = run.map { patterns[$0][length...] }
        let value: UInt64
        if run.count == 1 && remainders[0].count <= 4 && run[0] < 1 << 27 {
          value =
            Kind.inline.rawValue << 62 | UInt64(remainders[0].count) << 59 | UInt64(run[0]) << 32
            | UInt64(Self.firstFour(remainders[0]))
        } else if run.count == 1 && remainders[0].count <= 255 && run[0] < 1 << 30 && rest.count < 1 << 32 {
          value = Kind.single.rawValue << 62 | UInt64(run[0]) << 32 | UInt64(rest.count)
          rest.append(UInt8(remainders[0].count))
          rest += remainders[0]
        } else if run.count > Self.largestRun || candidates.count / 4 >= 1 << 30
          || rest.count + remainders.reduce(0, { $0 + $1.count }) >= 1 << 32
        {
          value = Kind.walk.rawValue << 62
        } else {
          value = UInt64(candidates.count / 4) << 32 | UInt64(run.count)
          for (member, remainder) in zip(run, remainders) {
            candidates += [
              UInt32(member), UInt32(remainder.count), UInt32(rest.count), Self.firstFour(remainder),
            ]
            rest += remainder
          }
        }
        var index = Int((key &* BlockedBloom.multiplier) >> UInt64(64 - bits))
        while slots[offset + 2 * index + 1] != 0 { index = (index + 1) & ((1 << bits) - 1) }
        slots[offset + 2 * index] = key
        slots[offset + 2 * index + 1] = value
      }
    }
    self.slots = slots
    self.candidates = candidates
    self.rest = rest
  }

  /// The first four of `bytes` (fewer when it is shorter), little-endian.
  private static func firstFour(_ bytes: ArraySlice<UInt8>) -> UInt32 {
    var word: UInt32 = 0
    for (shift, byte) in zip(stride(from: 0, to: 32, by: 8), bytes) { word |= UInt32(byte) << UInt32(shift) }
    return word
  }

  /// Bytes of memory the tables hold.
  var memoryFootprint: Int { slots.capacity * 8 + candidates.capacity * 4 + rest.capacity }

  /// Reports every pattern keyed by a window in `windows` (bit `n` for
  /// `StartFilter.windowLengths[n]`) that occurs at `start` in `bytes`, whose eight bytes from
  /// `start` (zeros past the end) are `value`: `body(pattern, start, end)`, shortest first.
  /// Returns false, having reported nothing, when one of those windows is walked instead.
  @inline(__always)
  func report(
    at start: Int, value: UInt64, windows: UInt8, in bytes: UnsafeBufferPointer<UInt8>,
    _ body: (Int, Int, Int) -> Void
  ) -> Bool {
    slots.withUnsafeBufferPointer { slots in
      // Every window's value is found before any is reported, so that a walked window never
      // follows patterns already reported. At most three are kept: a fourth (patterns of four
      // window lengths, each a prefix of the next, at one position) walks the position.
      var values: (UInt64, UInt64, UInt64) = (0, 0, 0)
      var lengths: (Int, Int, Int) = (0, 0, 0)
      var count = 0
      var remaining = windows
      while remaining != 0 {
        let window = remaining.trailingZeroBitCount
        remaining &= remaining &- 1
        let length = StartFilter.windowLength(window)
        // Windows come shortest first: once one runs past the text, so do the rest.
        guard start &+ length <= bytes.count else { break }
        let found = Self.probe(value, window: window, slots)
        if found == 0 { continue }
        if found &>> 62 == Kind.walk.rawValue { return false }
        switch count {
        case 0: (values.0, lengths.0) = (found, length)
        case 1: (values.1, lengths.1) = (found, length)
        case 2: (values.2, lengths.2) = (found, length)
        default: return false
        }
        count &+= 1
      }
      if count > 0 { reportPatterns(of: values.0, at: start, length: lengths.0, bytes, body) }
      if count > 1 { reportPatterns(of: values.1, at: start, length: lengths.1, bytes, body) }
      if count > 2 { reportPatterns(of: values.2, at: start, length: lengths.2, bytes, body) }
      return true
    }
  }

  /// The value of `value`'s key in window `window`'s table, or 0.
  @inline(__always)
  private static func probe(_ value: UInt64, window: Int, _ slots: UnsafeBufferPointer<UInt64>) -> UInt64 {
    let key = value & slots[3 &* window]
    let shift = slots[3 &* window &+ 1]
    let offset = Int(truncatingIfNeeded: slots[3 &* window &+ 2])
    let mask = (1 &<< (64 &- Int(truncatingIfNeeded: shift))) &- 1
    var index = Int(truncatingIfNeeded: (key &* BlockedBloom.multiplier) &>> shift)
    while true {
      let found = slots[offset &+ 2 &* index &+ 1]
      if found == 0 || slots[offset &+ 2 &* index] == key { return found }
      index = (index &+ 1) & mask
    }
  }

  /// Reports the patterns of `value` (a slot's value, not a walk) that occur at `start`, whose
  /// window of `length` bytes the text holds there.
  @inline(__always)
  private func reportPatterns(
    of value: UInt64, at start: Int, length: Int, _ bytes: UnsafeBufferPointer<UInt8>, _ body: (Int, Int, Int) -> Void
  ) {
    let from = start &+ length
    switch value &>> 62 {
    case Kind.inline.rawValue:
      let count = Int(truncatingIfNeeded: value &>> 59 & 7)
      if Self.firstFourEqual(bytes, from, count, UInt32(truncatingIfNeeded: value)) {
        body(Int(truncatingIfNeeded: value &>> 32 & 0x7FF_FFFF), start, from &+ count)
      }
    case Kind.single.rawValue:
      rest.withUnsafeBufferPointer { rest in
        let at = Int(truncatingIfNeeded: value & 0xFFFF_FFFF)
        let count = Int(truncatingIfNeeded: rest[at])
        if Self.equal(bytes, from, rest, at &+ 1, count) {
          body(Int(truncatingIfNeeded: value &>> 32 & 0x3FFF_FFFF), start, from &+ count)
        }
      }
    default:
      let first = Int(truncatingIfNeeded: value &>> 32)
      let count = Int(truncatingIfNeeded: value & 0xFFFF_FFFF)
      candidates.withUnsafeBufferPointer { candidates in
        rest.withUnsafeBufferPointer { rest in
          for candidate in first..<first &+ count {
            let base = 4 &* candidate
            let restLength = Int(truncatingIfNeeded: candidates[base &+ 1])
            // Sorted by length: none after this one fits either.
            if from &+ restLength > bytes.count { return }
            guard Self.firstFourEqual(bytes, from, min(restLength, 4), candidates[base &+ 3]) else { continue }
            if restLength <= 4
              || Self.equal(
                bytes, from &+ 4, rest, Int(truncatingIfNeeded: candidates[base &+ 2]) &+ 4, restLength &- 4)
            {
              body(Int(truncatingIfNeeded: candidates[base]), start, from &+ restLength)
            }
          }
        }
      }
    }
  }

  /// Whether `bytes` holds `count` (at most 4) bytes from `from` and they are the low `count`
  /// bytes of `word`.
  @inline(__always)
  private static func firstFourEqual(_ bytes: UnsafeBufferPointer<UInt8>, _ from: Int, _ count: Int, _ word: UInt32)
    -> Bool
  {
    if count == 0 { return true }
    if from &+ 4 <= bytes.count {
      let loaded = UnsafeRawPointer(bytes.baseAddress! + from).loadUnaligned(as: UInt32.self)
      let mask: UInt32 = count == 4 ? .max : (1 &<< UInt32(8 &* count)) &- 1
      return (UInt32(littleEndian: loaded) ^ word) & mask == 0
    }
    if from &+ count > bytes.count { return false }
    var offset = 0
    while offset < count {
      if bytes[from &+ offset] != UInt8(truncatingIfNeeded: word &>> UInt32(8 &* offset)) { return false }
      offset &+= 1
    }
    return true
  }

  /// Whether `bytes` holds `count` bytes from `from` equal to `rest[at..<at + count]`.
  @inline(__always)
  private static func equal(
    _ bytes: UnsafeBufferPointer<UInt8>, _ from: Int, _ rest: UnsafeBufferPointer<UInt8>, _ at: Int, _ count: Int
  ) -> Bool {
    if from &+ count > bytes.count { return false }
    var offset = 0
    while offset &+ 8 <= count {
      let text = UnsafeRawPointer(bytes.baseAddress! + (from &+ offset)).loadUnaligned(as: UInt64.self)
      let pattern = UnsafeRawPointer(rest.baseAddress! + (at &+ offset)).loadUnaligned(as: UInt64.self)
      if text != pattern { return false }
      offset &+= 8
    }
    while offset < count {
      if bytes[from &+ offset] != rest[at &+ offset] { return false }
      offset &+= 1
    }
    return true
  }
}

extension WindowPatterns {
  /// Writes the tables for ``init(decoding:)``.
  func encode(into writer: inout CompiledWriter) {
    writer.write(slots)
    writer.write(candidates)
    writer.write(rest)
  }

  /// Reads the tables back. Every table must lie inside `slots` and every run and remainder
  /// inside its array, since a scan reads them unchecked; the patterns themselves are trusted
  /// as the checksummed output of the same build.
  init(decoding reader: inout CompiledReader) throws(CompiledMatcherError) {
    slots = try reader.readArray()
    candidates = try reader.readArray()
    rest = try reader.readArray()
    guard slots.count >= Self.headerWords, candidates.count % 4 == 0 else {
      throw CompiledMatcherError(.malformed("window tables"))
    }
    for window in 0..<StartFilter.windowLengths.count {
      let (shift, offset) = (slots[3 * window + 1], slots[3 * window + 2])
      guard shift >= 1 && shift <= 63, offset >= Self.headerWords, offset <= slots.count,
        (slots.count - Int(offset)) >> 1 >= 1 << (64 - shift)
      else { throw CompiledMatcherError(.malformed("window table")) }
      for index in 0..<1 << (64 - Int(shift)) {
        let value = slots[Int(offset) + 2 * index + 1]
        let low = Int(value & 0xFFFF_FFFF)
        switch value >> 62 {
        case Kind.run.rawValue:
          guard Int(value >> 32) + low <= candidates.count / 4 else {
            throw CompiledMatcherError(.malformed("window run"))
          }
        case Kind.single.rawValue:
          guard low < rest.count && low + 1 + Int(rest[low]) <= rest.count else {
            throw CompiledMatcherError(.malformed("window remainder"))
          }
        default: break
        }
      }
    }
    for candidate in 0..<candidates.count / 4
    where Int(candidates[4 * candidate + 1]) + Int(candidates[4 * candidate + 2]) > rest.count {
      throw CompiledMatcherError(.malformed("window remainder"))
    }
  }
}
