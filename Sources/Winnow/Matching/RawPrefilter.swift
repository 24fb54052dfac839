/// Which `raw:` regexes of a layer can match a text, told in one pass over its bytes.
///
/// A raw regex runs on the original text of every message, where the automaton cannot stand in
/// front of it as it does for `re:` entries. So each raw regex's pattern is read for sets of
/// literals that every match must contain one of (``requirements(of:)``): `@` for an e-mail
/// address, one of `.com`, `.net`, … for a domain, one of `qq`, `扣扣`, … for a QQ number.
/// A text holding no literal of a set cannot match, and the regex is not run on it. A raw
/// regex with no such set (a phone number is digits in any of several scripts) is skipped on a
/// text with fewer digits than its matches hold (``digitsNeeded``, `RawPrefilter+Digits.swift`).
struct RawPrefilter: Sendable {
  /// One literal of one set: its bytes (ASCII letters lowercased when caseless) and its set's
  /// bit.
  struct Needle: Sendable {
    var bytes: [UInt8]
    var bit: UInt64
  }

  /// The needles of two bytes or more by their first byte: those of byte `b` are
  /// `needles[starts[b]..<starts[b + 1]]`, shortest first.
  private let starts: [Int32]
  let needles: [Needle]
  /// The tables ``scan(_:digitOffsets:)`` reads, in one array (one lent buffer, one bounds): from
  /// ``firstBytes``, a bit per byte that begins something (a needle, a one-byte literal, a
  /// digit) or a scalar of three bytes, as written (a letter of either case when caseless);
  /// the other tables by folded byte. From ``singlesAt``, per byte, the bits of the sets that
  /// have that byte as a one-byte literal; from ``pairsAt``, a bit for each pair of bytes (first byte × 256 +
  /// second byte) that begins a needle; from ``digitPairsAt``, one for each pair that may begin
  /// a digit (``digitPairs``; zero when no regex needs digits); from ``digitBlocksAt``,
  /// ``digitBlocks``; from ``scalarStartsAt``, a bit for each scalar of three bytes that a
  /// needle begins with (by the same index as ``digitBlocks``); from ``scalarsToReadAt``, the
  /// same bits and those of ``digitBlocks`` when a regex needs digits: the scalars of three
  /// bytes the scan looks at further; from ``afterScalarAt``, per lead byte of three (its low 4
  /// bits × 4 words), a bit for each byte that follows the first scalar in a needle beginning
  /// with a scalar of that lead byte (every bit when a needle is that scalar alone); from
  /// ``fourByteDigitsAt``, the blocks of scalars of four bytes that hold a digit; from
  /// ``decimalBlocksAt``, ``decimalBlocks``.
  private let tables: [UInt64]
  private static let firstBytes = 0
  private static let singlesAt = 4
  private static let pairsAt = 260
  private static let digitPairsAt = 1284
  /// From here, ``digitBlocks``: per block of 64 three-byte scalars, which may be digits.
  private static let digitBlocksAt = 2308
  private static let scalarStartsAt = 3332
  private static let scalarsToReadAt = 4356
  private static let afterScalarAt = 5380
  /// From here, a bit for each block of 64 scalars of four bytes beginning with F0 (U+10000 to
  /// U+3FFFF, by scalar >> 6) that holds a digit (``supplementaryDigitBlocks``).
  private static let fourByteDigitsAt = 5444
  /// From here, ``decimalBlocks``: per block of 64 three-byte scalars, which are decimal digits.
  private static let decimalBlocksAt = 5508
  /// Per raw regex, the bits of the sets it needs (0: none).
  let needed: [UInt64]
  /// Per raw regex, the fewest scalars that may be digits its matches hold (0: none needed).
  let digitsNeeded: [Int]
  /// Per raw regex, the fewest decimal digits (``isDecimalDigit(_:)``, what `\d` matches) its
  /// matches hold: a regex whose digits are all `\d` or `[0-9]` does not run on a text whose
  /// only numerals are Chinese (`一`, `三`), which ``digitsNeeded`` counts. Asked only of a
  /// text with enough digits (``RawPrefilter/digitsFit(regex:in:scanned:offsets:read:)``).
  let decimalsNeeded: [Int]
  /// Per raw regex that needs digits, the most bytes one of its matches can span (four a
  /// scalar of ``maximumLength(of:)``): its ``digitsNeeded`` digits begin within that many
  /// bytes of each other (``hasDigits(_:within:at:)``). `Int.max` when it needs no digits or
  /// its matches have no bound. Asked only of a text with enough digits.
  let digitWindows: [Int]
  /// Per raw regex that needs two digits or more, the most bytes from the start of one to the
  /// start of the next (``digitGap(of:)``): its ``digitsNeeded`` digits follow each other at
  /// most that far apart (``hasDigits(_:chainedWithin:at:)``). `Int.max` when there is no such
  /// bound. Asked only of a text with enough digits.
  let digitGaps: [Int]
  /// The largest of ``digitsNeeded``: how far a text's digits need counting.
  let mostDigitsNeeded: Int
  /// Whether ASCII letters are compared without case (the regexes are caseless).
  private let caseless: Bool
  /// Whether any raw regex has a set or needs digits: whether ``scan(_:digitOffsets:)`` is worth its pass.
  let isUseful: Bool
  /// The bits of every set.
  private let all: UInt64

  /// The prefilter of raw regexes with these patterns, in order.
  init(patterns: [String], caseless: Bool) {
    // Most layers have no raw regex: no tables to build and drop.
    guard !patterns.isEmpty else {
      (starts, needles, tables, needed, digitsNeeded, decimalsNeeded, digitWindows) = ([], [], [], [], [], [], [])
      digitGaps = []
      (mostDigitsNeeded, self.caseless, isUseful, all) = (0, caseless, false, 0)
      return
    }
    var byByte = [[Needle]](repeating: [], count: 256)
    var pairs = [UInt64](repeating: 0, count: 1024)
    var singles = [UInt64](repeating: 0, count: 256)
    var needed: [UInt64] = []
    var nextBit = 0
    for pattern in patterns {
      var mask: UInt64 = 0
      // A set with a literal of one common character (`.`, a digit, a letter) would be found
      // in most texts and only cost the scan time: not used. Caseless, a non-ASCII letter with
      // case would need Unicode folding to be found: such a set is not used either.
      let sets = Self.requirements(of: pattern).filter { set in
        set.allSatisfy(Self.isSelective)
          && (!caseless
            || set.allSatisfy { literal in
              literal.unicodeScalars.allSatisfy {
                $0.isASCII || $0.properties.lowercaseMapping == $0.properties.uppercaseMapping
              }
            })
      }
      // One set a regex is enough to skip it: the one whose literals begin with the fewest
      // bytes, since every byte that begins a literal costs the scan more than a test
      // (`(?:点|。|dot)(?:com|net|…)` is found by `点`, `。`, `dot`, not by `com`, `net` …).
      // Between sets that begin with as many bytes, the one with the longest shortest literal
      // (`。com` … rather than `。`): it is in fewer texts.
      let best = sets.min {
        (Self.firstByteCount($0, caseless: caseless), -Self.shortest($0))
          < (Self.firstByteCount($1, caseless: caseless), -Self.shortest($1))
      }
      for set in best.map({ [$0] }) ?? [] where nextBit < 64 {
        let bit = UInt64(1) << UInt64(nextBit)
        nextBit += 1
        mask |= bit
        for literal in set {
          var bytes = Array(literal.utf8)
          if caseless { bytes = bytes.map { $0 &- 65 < 26 ? $0 | 0x20 : $0 } }
          if bytes.count == 1 {
            singles[Int(bytes[0])] |= bit
          } else {
            let pair = Int(bytes[0]) << 8 | Int(bytes[1])
            pairs[pair >> 6] |= UInt64(1) << UInt64(pair & 63)
            byByte[Int(bytes[0])].append(Needle(bytes: bytes, bit: bit))
          }
        }
      }
      needed.append(mask)
    }
    let all = needed.reduce(0, |)
    if caseless && all != 0 {
      // Caseless, `s` and `k` also match the long s (C5 BF) and the Kelvin sign (E2 84 AA): a
      // text with either runs every regex.
      for bytes: [UInt8] in [[0xC5, 0xBF], [0xE2, 0x84, 0xAA]] {
        let pair = Int(bytes[0]) << 8 | Int(bytes[1])
        pairs[pair >> 6] |= UInt64(1) << UInt64(pair & 63)
        byByte[Int(bytes[0])].append(Needle(bytes: bytes, bit: all))
      }
    }
    var starts: [Int32] = [0]
    var needles: [Needle] = []
    // Shortest first within a first byte, so that the comparison stops at the first needle
    // too long for the rest of the text (a Chinese text ending in `。` had every needle of
    // `。com`, `。net`, … tried).
    for list in byByte {
      needles += list.sorted { $0.bytes.count < $1.bytes.count }
      starts.append(Int32(needles.count))
    }
    self.needles = needles
    self.needed = needed
    digitsNeeded = patterns.map { Self.minimumDigits(of: $0) }
    mostDigitsNeeded = digitsNeeded.max() ?? 0
    decimalsNeeded = patterns.map { Self.minimumDigits(of: $0, decimal: true) }
    digitWindows = zip(patterns, digitsNeeded).map { pattern, digits in
      guard digits > 0, let length = Self.maximumLength(of: pattern) else { return Int.max }
      return length * 4
    }
    digitGaps = zip(patterns, digitsNeeded).map { pattern, digits in
      guard digits > 1, let gap = Self.digitGap(of: pattern) else { return Int.max }
      return gap
    }
    let useful = all != 0 || mostDigitsNeeded > 0
    // A layer without raw regexes (every app's list, most of the time) keeps no tables: 26 KiB
    // each, a quarter of a gigabyte over ten thousand apps, that ``scan(_:digitOffsets:)`` never reads
    // unless ``isUseful``.
    self.starts = useful ? starts : []
    let digitPairs = mostDigitsNeeded > 0 ? Self.digitPairs : [UInt64](repeating: 0, count: 1024)
    var firstBytes = [UInt64](repeating: 0, count: 4)
    // Every first byte of a scalar of three bytes: the scan reads a run of them in a loop of its
    // own.
    firstBytes[3] |= 0xFFFF << 32
    for byte in 0..<256 {
      let words = byte * 4..<byte * 4 + 4
      if singles[byte] != 0 || words.contains(where: { pairs[$0] | digitPairs[$0] != 0 }) {
        firstBytes[byte >> 6] |= 1 << UInt64(byte & 63)
      }
    }
    // Read by the byte as written, before folding: an upper-case letter has its lower case's
    // bit (the other tables hold folded bytes only).
    if caseless {
      for upper in 65...90 where firstBytes[(upper | 0x20) >> 6] >> UInt64((upper | 0x20) & 63) & 1 != 0 {
        firstBytes[upper >> 6] |= 1 << UInt64(upper & 63)
      }
    }
    // Needles that begin with a scalar of three bytes, by that scalar.
    var scalarStarts = [UInt64](repeating: 0, count: 1024)
    var afterScalar = [UInt64](repeating: 0, count: 64)
    for needle in needles where needle.bytes.count >= 3 && needle.bytes[0] & 0xF0 == 0xE0 {
      let code = Int(needle.bytes[0] & 0x0F) << 12 | Int(needle.bytes[1] & 0x3F) << 6 | Int(needle.bytes[2] & 0x3F)
      scalarStarts[code >> 6] |= 1 << UInt64(code & 63)
      let words = Int(needle.bytes[0] & 0x0F) * 4
      if needle.bytes.count == 3 {
        for word in words..<words + 4 { afterScalar[word] = .max }
      } else {
        afterScalar[words + Int(needle.bytes[3] >> 6)] |= 1 << UInt64(needle.bytes[3] & 63)
      }
    }
    let countsDigits = mostDigitsNeeded > 0
    let scalarsToRead = zip(scalarStarts, Self.digitBlocks).map { $0 | (countsDigits ? $1 : 0) }
    var fourByteDigits = [UInt64](repeating: 0, count: 64)
    for block in Self.supplementaryDigitBlocks where block < 4096 {
      fourByteDigits[block >> 6] |= 1 << UInt64(block & 63)
    }
    let scalarTables =
      Self.digitBlocks + scalarStarts + scalarsToRead + afterScalar + fourByteDigits + Self.decimalBlocks
    tables = useful ? firstBytes + singles + pairs + digitPairs + scalarTables : []
    self.caseless = caseless
    isUseful = useful
    self.all = all
  }

  /// What ``scan(_:digitOffsets:)`` found in a text.
  struct Scanned {
    /// The bits of the sets that have a literal in the text.
    var sets: UInt64 = 0
    /// How many of its scalars may be digits (``mayBeDigit(_:)``; counted only when a regex
    /// needs digits, and then at least up to ``mostDigitsNeeded``).
    var digits = 0
    /// How many of those are decimal digits (``isDecimalDigit(_:)``).
    var decimals = 0
    /// Whether the offsets written are every digit's, and ``digits`` and ``decimals`` count
    /// them all: false where the scan stopped early (with every set found and the most digits
    /// any regex needs), where the text has more digits than there was room for, and where no
    /// room was given.
    var wroteOffsets = false
  }

  /// The bits of the sets that have a literal in `text`, and its digits. A scalar of three
  /// bytes (CJK, kana, most punctuation of Chinese text) is read whole, and one bit says whether
  /// a needle may begin with it or it may be a digit; only then is it looked at further
  /// (``readScalar``). Any other byte costs a lookup or two: only where a pair of bytes begins
  /// a needle is the needle compared, and only where it may begin a digit is the scalar read.
  ///
  /// Each digit's byte offset is written to `digitOffsets`, in order, while there is room (the
  /// text no longer than `Int32.max` bytes): what ``readDigits(in:)`` reads in a pass of its
  /// own, which cost a Chinese review that had enough numerals (`一`, `三`) for the
  /// mobile-number regex as much again as this pass.
  @inline(__always)
  func scan(_ text: UnsafeBufferPointer<UInt8>, digitOffsets: UnsafeMutableBufferPointer<Int32>? = nil) -> Scanned {
    guard let base = text.baseAddress, !text.isEmpty else { return Scanned(wroteOffsets: digitOffsets != nil) }
    let count = text.count
    let caseless = caseless
    let mostDigitsNeeded = mostDigitsNeeded
    let all = all
    @inline(__always) func fold(_ byte: UInt8) -> UInt8 { caseless && byte &- 65 < 26 ? byte | 0x20 : byte }
    return tables.withUnsafeBufferPointer { tables in
      var scanned = Scanned()
      var index = 0
      while index < count {
        let byte = base[index]
        // Most bytes but the first of a scalar of three begin nothing: one test each, of the
        // byte as written (``firstBytes`` has an upper-case letter's bit where its lower case
        // has one), before any folding.
        guard tables[Self.firstBytes &+ Int(byte &>> 6)] & (1 &<< UInt64(byte & 63)) != 0 else {
          index &+= 1
          continue
        }
        let folded = fold(byte)
        if byte & 0xF0 == 0xE0 {
          // A run of scalars of three bytes, read four bytes at a time (the last scalar of a
          // text, which has no fourth byte, goes the way of other bytes): most begin nothing
          // and are no digit, one test each.
          var at = index
          while true {
            let (next, block) = Self.skipThreeByteRun(base, count: count, from: at, tables: tables)
            at = next
            guard block >= 0 else { break }
            let third = UInt64(truncatingIfNeeded: base[at &+ 2] & 0x3F)
            readScalar(
              at: at, block: block, bit: 1 &<< third, in: text, tables: tables, scanned: &scanned,
              digitOffsets: digitOffsets)
            if scanned.sets == all && scanned.digits >= mostDigitsNeeded { return scanned }
            at &+= 3
          }
          if at != index {
            index = at
            continue
          }
        }
        index &+= 1
        let at = index &- 1
        scanned.sets |= tables[Self.singlesAt &+ Int(folded)]
        let next = index < count ? fold(base[index]) : 0
        let pair = Int(folded) &<< 8 | Int(next)
        let bit: UInt64 = 1 &<< UInt64(pair & 63)
        if tables[Self.pairsAt &+ pair &>> 6] & bit != 0 {
          scanned.sets |= matchNeedles(at: at, first: folded, in: text, skipping: scanned.sets)
          if scanned.sets == all && scanned.digits >= mostDigitsNeeded { return scanned }
        }
        // Case folding changes no digit, and no byte of a multi-byte scalar.
        if tables[Self.digitPairsAt &+ pair &>> 6] & bit != 0 {
          if folded < 0x80 {
            Self.count(digitAt: at, decimal: 1, in: &scanned, offsets: digitOffsets)
          } else if byte & 0xF0 == 0xE0, index &+ 1 < count, next & 0xC0 == 0x80, base[index &+ 1] & 0xC0 == 0x80 {
            // The last scalar of a text, when it has three bytes: its block's mask answers.
            let block = Int(byte & 0x0F) &<< 6 &+ Int(next & 0x3F)
            let third = UInt64(base[index &+ 1] & 0x3F)
            if tables[Self.digitBlocksAt &+ block] &>> third & 1 != 0 {
              let decimal = Int(truncatingIfNeeded: tables[Self.decimalBlocksAt &+ block] &>> third & 1)
              Self.count(digitAt: at, decimal: decimal, in: &scanned, offsets: digitOffsets)
            }
          } else if byte == 0xF0, index &+ 1 < count, next & 0xC0 == 0x80, base[index &+ 1] & 0xC0 == 0x80 {
            // Four bytes from U+10000 to U+3FFFF (emoji among them): Unicode is asked only in
            // a block that holds a digit.
            let block = Int(next & 0x3F) &<< 6 | Int(base[index &+ 1] & 0x3F)
            if tables[Self.fourByteDigitsAt &+ block &>> 6] &>> UInt64(block & 63) & 1 != 0 {
              Self.countIfDigit(at: at, in: text, scanned: &scanned, offsets: digitOffsets)
            }
          } else {
            Self.countIfDigit(at: at, in: text, scanned: &scanned, offsets: digitOffsets)
          }
        }
      }
      scanned.wroteOffsets = digitOffsets.map { scanned.digits <= $0.count } ?? false
      return scanned
    }
  }

  /// Decodes the scalar at byte `offset` of `text` and counts it (``count(digitAt:decimal:in:offsets:)``)
  /// if it may be a digit: for the scalars the pass does not answer from its tables.
  private static func countIfDigit(
    at offset: Int, in text: UnsafeBufferPointer<UInt8>, scanned: inout Scanned,
    offsets: UnsafeMutableBufferPointer<Int32>?
  ) {
    let value = UTF8Decoding.decode(text, at: offset).value
    guard mayBeDigit(value) else { return }
    count(digitAt: offset, decimal: isDecimalDigit(value) ? 1 : 0, in: &scanned, offsets: offsets)
  }

  /// Counts a digit at byte `offset` in `scanned` (a decimal one when `decimal` is 1), and
  /// writes its offset to `offsets` if there is room. (A function of the scan's own that did
  /// this, capturing `scanned`, had every access to it checked for exclusivity at run time.)
  @inline(__always)
  private static func count(
    digitAt offset: Int, decimal: Int, in scanned: inout Scanned, offsets: UnsafeMutableBufferPointer<Int32>?
  ) {
    if let offsets, scanned.digits < offsets.count { offsets[scanned.digits] = Int32(truncatingIfNeeded: offset) }
    scanned.digits &+= 1
    scanned.decimals &+= decimal
  }

  /// Moves over the scalars of three bytes from `index` on that are followed by a fourth byte
  /// (the last scalar of a text goes the way of other bytes) and that begin nothing and are no
  /// digit: where the run ends (block -1), or the next scalar to read (``readScalar``) and its
  /// block of ``scalarsToReadAt``. A loop of its own, with few values to hold: inside
  /// ``scan(_:digitOffsets:)``, which holds many, each step read the text's address, its length and the
  /// tables' back from the stack.
  @inline(never)
  private static func skipThreeByteRun(
    _ base: UnsafePointer<UInt8>, count: Int, from index: Int, tables: UnsafeBufferPointer<UInt64>
  ) -> (index: Int, block: Int) {
    var at = index
    // Two scalars a step while eight bytes can be read (so the second has a fourth byte after
    // it); the loop below takes a run's last one, or a pair that is not two such scalars.
    while at &+ 8 <= count {
      let word = UInt64(littleEndian: UnsafeRawPointer(base + at).loadUnaligned(as: UInt64.self))
      guard word & 0xC0C0_F0C0_C0F0 == 0x8080_E080_80E0 else { break }
      let first = Int(truncatingIfNeeded: (word & 0x0F) &<< 6 | (word &>> 8) & 0x3F)
      if tables[scalarsToReadAt &+ first] &>> ((word &>> 16) & 0x3F) & 1 != 0 { return (at, first) }
      let second = Int(truncatingIfNeeded: (word &>> 24 & 0x0F) &<< 6 | (word &>> 32) & 0x3F)
      if tables[scalarsToReadAt &+ second] &>> ((word &>> 40) & 0x3F) & 1 != 0 { return (at &+ 3, second) }
      at &+= 6
    }
    while at &+ 3 < count {
      let word = UInt32(littleEndian: UnsafeRawPointer(base + at).loadUnaligned(as: UInt32.self))
      guard word & 0xC0_C0F0 == 0x80_80E0 else { break }
      let block = Int(truncatingIfNeeded: (word & 0x0F) &<< 6 | (word &>> 8) & 0x3F)
      let third = UInt64(truncatingIfNeeded: (word &>> 16) & 0x3F)
      if tables[scalarsToReadAt &+ block] &>> third & 1 != 0 { return (at, block) }
      at &+= 3
    }
    return (at, -1)
  }

  /// Reads a scalar of three bytes at `index` that a needle may begin with or that may be a
  /// digit (its bit of ``scalarsToReadAt`` is set): adds to `scanned` the sets of the needles
  /// there, and the scalar if it may be a digit (its offset to `digitOffsets`). (Kept out of
  /// ``scan(_:digitOffsets:)``'s loop, whose every other scalar needs fewer registers than this.)
  @inline(never)
  private func readScalar(
    at index: Int, block: Int, bit: UInt64, in text: UnsafeBufferPointer<UInt8>, tables: UnsafeBufferPointer<UInt64>,
    scanned: inout Scanned, digitOffsets: UnsafeMutableBufferPointer<Int32>?
  ) {
    if tables[Self.scalarStartsAt &+ block] & bit != 0 {
      // Only when the byte after the scalar may continue a needle: 。 begins a needle of the
      // contact list, 。 before a Chinese character none. At the end of the text, a needle
      // must be the scalar alone, whose lead byte has every bit of the table set: the end is
      // read as byte 0 (a Chinese text ending in 。 compared the needles there).
      let lead = text[index]
      var after = index &+ 3 < text.count ? text[index &+ 3] : 0
      if caseless && after &- 65 < 26 { after |= 0x20 }
      let gate = tables[Self.afterScalarAt &+ Int(lead & 0x0F) &* 4 &+ Int(after &>> 6)] &>> UInt64(after & 63) & 1
      if gate != 0 { scanned.sets = matchNeedles(at: index, first: lead, in: text, skipping: scanned.sets) }
    }
    guard mostDigitsNeeded > 0, tables[Self.digitBlocksAt &+ block] & bit != 0 else { return }
    Self.count(
      digitAt: index, decimal: tables[Self.decimalBlocksAt &+ block] & bit != 0 ? 1 : 0, in: &scanned,
      offsets: digitOffsets)
  }

  /// The bits of the sets that have `byte` (folded) as a literal of one byte.
  func singleLiteralBits(_ byte: UInt8) -> UInt64 { tables.isEmpty ? 0 : tables[Self.singlesAt + Int(byte)] }

  /// How many different bytes the literals of a set begin with (ASCII letters folded when
  /// caseless).
  private static func firstByteCount(_ set: [String], caseless: Bool) -> Int {
    Set(set.compactMap { $0.utf8.first.map { caseless && $0 &- 65 < 26 ? $0 | 0x20 : $0 } }).count
  }

  /// The bits of the needles of first byte `first` that are in `text` at `index`, but for
  /// those of sets already `found`.
  @inline(never)
  private func matchNeedles(
    at index: Int, first: UInt8, in text: UnsafeBufferPointer<UInt8>, skipping found: UInt64
  ) -> UInt64 {
    var found = found
    for needle in Int(starts[Int(first)])..<Int(starts[Int(first) + 1]) {
      guard found & needles[needle].bit != needles[needle].bit else { continue }
      let bytes = needles[needle].bytes
      // The rest are no shorter (see ``starts``).
      guard index + bytes.count <= text.count else { break }
      var matches = true
      for offset in 1..<bytes.count {
        var other = text[index + offset]
        if caseless && other &- 65 < 26 { other |= 0x20 }
        if other != bytes[offset] {
          matches = false
          break
        }
      }
      if matches { found |= needles[needle].bit }
    }
    return found
  }

  /// Whether a literal is rare enough to tell texts apart: two bytes or more, or one ASCII
  /// character that is not a letter, a digit, white space or common punctuation (`@`, `+`).
  /// (Leaving out two-letter literals too, `qq` or `me`, made the contact list's regexes run on
  /// more texts, not fewer: HISTORY, "Contact details".)
  static func isSelective(_ literal: String) -> Bool {
    let bytes = Array(literal.utf8)
    guard bytes.count == 1 else { return bytes.count > 1 }
    let byte = bytes[0]
    let isAlphanumeric = byte &- 48 < 10 || (byte | 0x20) &- 97 < 26
    return !isAlphanumeric && !" \t.,;:!?'\"-_()/".utf8.contains(byte)
  }

  /// Sets of literals every match of `pattern` contains one of, read as simply as
  /// ``RegexProgram/requiredLiteral(of:)`` reads a pattern and giving up (no set) on anything
  /// it does not understand, so that every set is a true requirement.
  ///
  /// A run of plain characters is a set of one (a character before `?`, `*` or `{0,…}` left
  /// out); a group that is not made optional by its quantifier gives the union of what each of
  /// its alternatives requires, when each requires something (`(?:qq|扣扣)` → {qq, 扣扣};
  /// `(?:\.|点| ?dot ?)` → {., 点, dot}); lookarounds require nothing (they match no text).
  /// A top-level `|`, inline options, `\Q` and escapes with arguments give up. Sets whose
  /// literals are all shorter than another set's are kept too: a text needs one of each.
  /// Pieces that follow each other with nothing between also give the set of their joined
  /// literals (``joinedSets(of:)``).
  static func requirements(of pattern: String) -> [[String]] {
    guard !pattern.contains("\\Q") else { return [] }
    let characters = Array(pattern.unicodeScalars)[...]
    guard let sets = requirements(characters) else { return [] }
    return sets + joinedSets(of: characters)
  }

  /// The most literals a joined set holds; longer products are not made.
  static let mostJoinedLiterals = 256

  /// Sets of literals made by joining pieces at the top level of a pattern that follow each
  /// other with nothing between: runs of plain characters and groups whose every alternative is
  /// plain text, with no quantifier (`(?:点|。)(?:com|net)` → {点com, 点net, 。com, 。net};
  /// `\.(?:com|net)` → {.com, .net}). Only where a group meets another piece, since a run alone
  /// is already a set; anything else between pieces (a class, an optional character, a group
  /// with a quantifier or with an alternative that is not plain text) separates them. Every
  /// match holds one literal of such a set, since each piece matches exactly one of its
  /// literals and the next piece begins where it ends.
  static func joinedSets(of characters: ArraySlice<Unicode.Scalar>) -> [[String]] {
    var sets: [[String]] = []
    var joined: [String]? = nil
    var hasGroup = false
    var pieces = 0
    func end() {
      if let joined, hasGroup, pieces >= 2, joined.count <= mostJoinedLiterals { sets.append(joined) }
      joined = nil
      hasGroup = false
      pieces = 0
    }
    func append(_ literals: [String], isGroup: Bool) {
      // A product past the cap starts again from this piece; a piece past it alone separates.
      if (joined?.count ?? 1) * literals.count > mostJoinedLiterals { end() }
      guard literals.count <= mostJoinedLiterals else { return }
      let product = (joined ?? [""]).flatMap { head in literals.map { head + $0 } }
      joined = product
      hasGroup = hasGroup || isGroup
      pieces += 1
    }
    var atoms = Atoms(characters)
    while let atom = atoms.next() {
      var literal: Unicode.Scalar? = nil
      var group: [String]? = nil
      switch atom {
      case .alternation, .stray, .unclosed:
        return []  // an alternative at the top level, or not what we read
      case .escape(let escaped):
        if !(escaped.properties.isAlphabetic || ("0"..."9").contains(escaped)) { literal = escaped }
      case .characterClass, .dot, .anchor:
        break
      case .group(var body):
        if body.starts(with: ["?", ":"]) {
          body = body.dropFirst(2)
          group = plainAlternatives(of: body)
        } else if body.first != "?" {
          group = plainAlternatives(of: body)
        }
      case .literal(let character):
        literal = character
      }
      if let quantifier = atoms.quantifier {
        guard let quantifierEnd = quantifier.end else { return [] }
        atoms.index = quantifierEnd
        // A character needed at least once ends the piece it joins; anything else quantified
        // separates.
        if let literal, let minimum = quantifier.minimum, minimum > 0 { append([String(literal)], isGroup: false) }
        end()
      } else if let literal {
        append([String(literal)], isGroup: false)
      } else if let group {
        append(group, isGroup: true)
      } else {
        end()
      }
    }
    end()
    return sets
  }

  /// A group body's alternatives when each is plain text (characters and escaped punctuation
  /// only), else nil.
  private static func plainAlternatives(of body: ArraySlice<Unicode.Scalar>) -> [String]? {
    var literals: [String] = []
    for alternative in split(body) {
      var text = String.UnicodeScalarView()
      var index = alternative.startIndex
      while index < alternative.endIndex {
        var character = alternative[index]
        if character == "\\" {
          index += 1
          guard index < alternative.endIndex else { return nil }
          character = alternative[index]
          if character.properties.isAlphabetic || ("0"..."9").contains(character) { return nil }
        } else if "[](){}|?*+.^$".unicodeScalars.contains(character) {
          return nil
        }
        text.append(character)
        index += 1
      }
      literals.append(String(text))
    }
    return literals
  }

  private static func requirements(_ characters: ArraySlice<Unicode.Scalar>) -> [[String]]? {
    var sets: [[String]] = []
    var run: [Unicode.Scalar] = []
    func endRun() {
      if !run.isEmpty { sets.append([String(String.UnicodeScalarView(run))]) }
      run = []
    }
    var atoms = Atoms(characters)
    while let atom = atoms.next() {
      var literal: Unicode.Scalar? = nil
      var group: [[String]]? = nil
      switch atom {
      case .alternation, .stray, .unclosed:
        return nil  // a top-level alternative, or not what we read
      case .escape(let escaped):
        if escaped.properties.isAlphabetic || ("0"..."9").contains(escaped) {
          endRun()
          if ["x", "p", "P", "N", "g", "k", "o", "c", "Q", "E"].contains(escaped) { return nil }
        } else {
          literal = escaped
        }
      case .characterClass, .dot, .anchor:
        endRun()
      case .group(var body):
        endRun()
        if body.first == "?" {
          let rest = body.dropFirst()
          if rest.starts(with: ["="]) || rest.starts(with: ["!"]) || rest.starts(with: ["<", "="])
            || rest.starts(with: ["<", "!"])
          {
            body = body[body.startIndex..<body.startIndex]  // a lookaround: nothing required
          } else if rest.first == ":" {
            body = rest.dropFirst()
          } else {
            return nil  // options, named groups, atomic groups …: not read
          }
          if body.isEmpty { break }
        }
        group = alternatives(of: body)
      case .literal(let character):
        literal = character
      }
      // A quantifier after the atom.
      var optional = false
      if let quantifier = atoms.quantifier {
        guard let end = quantifier.end else { return nil }
        // A minimum it cannot read (`{x}`, which PCRE2 reads as text) is not taken as 0.
        optional = quantifier.minimum == 0
        atoms.index = end
        if !optional, let literal { run.append(literal) }
        endRun()
      } else if let literal {
        run.append(literal)
      }
      if let group, !optional { sets += group.isEmpty ? [] : group }
    }
    endRun()
    return sets
  }

  /// What a group's body requires: one set, the union over its alternatives of one set each
  /// requires (the one with the longest shortest literal); empty when an alternative requires
  /// nothing; nil when the body cannot be read.
  private static func alternatives(of body: ArraySlice<Unicode.Scalar>) -> [[String]]? {
    var union: [String] = []
    for alternative in split(body) {
      guard let sets = requirements(alternative) else { return nil }
      guard let best = sets.max(by: { shortest($0) < shortest($1) }) else { return [] }
      union += best
    }
    return union.isEmpty ? [] : [union]
  }

  private static func shortest(_ set: [String]) -> Int { set.map(\.unicodeScalars.count).min() ?? 0 }

  /// The body's top-level alternatives.
  private static func split(_ body: ArraySlice<Unicode.Scalar>) -> [ArraySlice<Unicode.Scalar>] {
    var parts: [ArraySlice<Unicode.Scalar>] = []
    var start = body.startIndex
    var depth = 0
    var cursor = body.startIndex
    while cursor < body.endIndex {
      switch body[cursor] {
      case "\\": cursor += 1
      case "[": cursor = RegexProgram.endOfClass(body, from: cursor + 1) ?? body.endIndex
      case "(": depth += 1
      case ")": depth -= 1
      case "|" where depth == 0:
        parts.append(body[start..<cursor])
        start = cursor + 1
      default: break
      }
      cursor += 1
    }
    parts.append(body[start..<body.endIndex])
    return parts
  }

  /// The atoms of a pattern at one level, in order, as the readers of patterns take them
  /// (``requirements(of:)``, ``joinedSets(of:)``, ``minimumDigits(of:decimal:)``,
  /// ``maximumLength(of:)``, ``digitGap(of:)``): each reader decides what it reads of an atom and
  /// its quantifier, and on what it gives up, and the atoms are found in one place.
  struct Atoms {
    enum Atom {
      /// `|`: the next alternative begins.
      case alternation
      /// `\` and the scalar after it.
      case escape(Unicode.Scalar)
      /// A class: its body, between `[` and `]`.
      case characterClass(ArraySlice<Unicode.Scalar>)
      /// A group: its body between `(` and `)` as written (`?:`, `?=` and the like included).
      case group(ArraySlice<Unicode.Scalar>)
      /// `.`.
      case dot
      /// `^` or `$`.
      case anchor
      /// A character that stands for itself.
      case literal(Unicode.Scalar)
      /// `)`, `?`, `*`, `+` or `{` where an atom would start.
      case stray
      /// A `\` that ends the pattern, or a class or group never closed: the rest cannot be read.
      case unclosed
    }

    let characters: ArraySlice<Unicode.Scalar>
    /// After ``next()``, the index just past the atom, where its quantifier would be: a reader
    /// that reads the quantifier moves it past that.
    var index: Int

    init(_ characters: ArraySlice<Unicode.Scalar>) {
      self.characters = characters
      index = characters.startIndex
    }

    /// The next atom, nil at the end (and after ``Atom/unclosed``).
    mutating func next() -> Atom? {
      guard index < characters.endIndex else { return nil }
      let character = characters[index]
      index += 1
      switch character {
      case "|": return .alternation
      case "\\":
        guard index < characters.endIndex else { return .unclosed }
        index += 1
        return .escape(characters[index - 1])
      case "[":
        guard let close = RegexProgram.endOfClass(characters, from: index) else {
          index = characters.endIndex
          return .unclosed
        }
        defer { index = close + 1 }
        return .characterClass(characters[index..<close])
      case "(":
        guard let close = endOfGroup(characters, from: index) else {
          index = characters.endIndex
          return .unclosed
        }
        defer { index = close + 1 }
        return .group(characters[index..<close])
      case ".": return .dot
      case "^", "$": return .anchor
      case ")", "?", "*", "+", "{": return .stray
      default: return .literal(character)
      }
    }

    /// The quantifier at ``index`` (see ``RegexProgram/quantifier(_:at:)``), if any.
    var quantifier: (minimum: Int?, end: Int?)? { RegexProgram.quantifier(characters, at: index) }
  }

  /// The index of the `)` closing a group whose body starts at `start`; nil when unclosed.
  static func endOfGroup(_ characters: ArraySlice<Unicode.Scalar>, from start: Int) -> Int? {
    var depth = 1
    var cursor = start
    while cursor < characters.endIndex {
      switch characters[cursor] {
      case "\\": cursor += 1
      case "[":
        guard let close = RegexProgram.endOfClass(characters, from: cursor + 1) else { return nil }
        cursor = close
      case "(": depth += 1
      case ")":
        depth -= 1
        if depth == 0 { return cursor }
      default: break
      }
      cursor += 1
    }
    return nil
  }
}
