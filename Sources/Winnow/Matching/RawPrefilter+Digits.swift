/// The second requirement a `raw:` regex's pattern can state: how many digits every match holds.
///
/// A phone number has no literal every match must contain (its digits may be ASCII, full-width,
/// circled or Chinese numerals), but it has many digits: a text with fewer scalars that may be
/// digits (``mayBeDigit(_:)``) than a pattern needs cannot match it, and the regex is not run
/// on it. A pattern's count is read conservatively (``minimumDigits(of:)``), so that a skipped
/// text is one the regex cannot match.
extension RawPrefilter {
  /// Whether a scalar is one of the digits phone numbers are written with: ASCII and full-width
  /// digits, circled digits (①–⑨, ⓪, ❶–❾, ➀–➈) and the Chinese numerals 〇零一二三四五六七八九
  /// and 幺 (read for 1 in phone numbers).
  static func isDigitLike(_ value: UInt32) -> Bool {
    switch value {
    case 0x30...0x39, 0xFF10...0xFF19, 0x2460...0x2468, 0x24EA, 0x2776...0x277E, 0x2780...0x2788: return true
    case 0x3007, 0x96F6, 0x4E00, 0x4E8C, 0x4E09, 0x56DB, 0x4E94, 0x516D, 0x4E03, 0x516B, 0x4E5D, 0x5E7A: return true
    default: return false
    }
  }

  /// The digit-like scalars that are no decimal digit: the circled digits and the Chinese
  /// numerals, which `\d` does not match (a phone number regex names them in its classes).
  static let nonDecimalDigitLikes: [ClosedRange<UInt32>] = [
    0x2460...0x2468, 0x24EA...0x24EA, 0x2776...0x277E, 0x2780...0x2788, 0x3007...0x3007, 0x96F6...0x96F6,
    0x4E00...0x4E00, 0x4E8C...0x4E8C, 0x4E09...0x4E09, 0x56DB...0x56DB, 0x4E94...0x4E94, 0x516D...0x516D,
    0x4E03...0x4E03, 0x516B...0x516B, 0x4E5D...0x4E5D, 0x5E7A...0x5E7A,
  ]

  /// Whether a scalar is one of ``nonDecimalDigitLikes``. (Asked only of the few scalars a text
  /// scan decodes, and of patterns: every one of these scalars has three bytes, which
  /// ``decimalBlocks`` answers.)
  static func isNonDecimalDigitLike(_ value: UInt32) -> Bool {
    nonDecimalDigitLikes.contains { $0.contains(value) }
  }

  /// Whether a scalar is a decimal digit of any script (general category Nd), what `\d`
  /// matches with Unicode properties: one that may be a digit (``mayBeDigit(_:)``) but for
  /// ``isNonDecimalDigitLike(_:)``.
  static func isDecimalDigit(_ value: UInt32) -> Bool { mayBeDigit(value) && !isNonDecimalDigitLike(value) }

  /// Whether a scalar may be a digit to a raw regex: digit-like, or a decimal digit of any
  /// script (`\d` matches those, raw regexes being compiled with Unicode properties). Only in
  /// the ranges of ``asksProperties(_:)`` is Unicode asked; the rest of the text (Latin,
  /// Cyrillic, punctuation, CJK, kana, Hangul) holds no decimal digit but the two-byte ones.
  static func mayBeDigit(_ value: UInt32) -> Bool {
    if isDigitLike(value) { return true }
    switch value {
    case 0x660...0x669, 0x6F0...0x6F9, 0x7C0...0x7C9: return true  // Arabic-Indic, Persian, N'Ko
    default: return asksProperties(value) && Unicode.Scalar(value)?.properties.generalCategory == .decimalNumber
    }
  }

  /// The ranges where ``mayBeDigit(_:)`` asks Unicode's properties: the scripts of South and
  /// South-East Asia and others (U+0900–U+1FFF), of U+A000–U+ABFF, private use, and everything
  /// past the BMP. Each begins and ends on a block of 64 scalars (see ``digitBlocks``).
  static func asksProperties(_ value: UInt32) -> Bool {
    switch value {
    case 0x900...0x1FFF, 0xA000...0xABFF, 0xE000...0xF8FF, 0x10000...: true
    default: false
    }
  }

  /// Per block of 64 scalars of three UTF-8 bytes (the lead byte's low 4 bits × 64 + the second
  /// byte's low 6 bits), a bit for each scalar ``mayBeDigit(_:)`` says yes to, by the third
  /// byte's low 6 bits: exact, so that a scan never asks Unicode's properties about a scalar of
  /// three bytes. The digit-like scalars are read from ``isDigitLike(_:)``, the decimal digits
  /// from ``decimalDigitBlocks``.
  static let digitBlocks: [UInt64] = {
    var blocks = (0..<1024).map { block in
      let first = UInt32(block) << 6
      guard first >= 0x800 else { return UInt64(0) }  // not three bytes
      var mask: UInt64 = 0
      for offset in UInt32(0)..<64 where isDigitLike(first | offset) { mask |= 1 << UInt64(offset) }
      return mask
    }
    for (block, mask) in decimalDigitBlocks { blocks[block] |= mask }
    return blocks
  }()

  /// ``digitBlocks`` with only the decimal digits (``isDecimalDigit(_:)``) set: the bits of
  /// ``nonDecimalDigitLikes`` cleared.
  static let decimalBlocks: [UInt64] = {
    var blocks = digitBlocks
    for value in nonDecimalDigitLikes.joined() { blocks[Int(value >> 6)] &= ~(1 << UInt64(value & 63)) }
    return blocks
  }()

  /// The decimal digits (general category Nd) among the scalars of three bytes, by block as in
  /// ``digitBlocks``, from this toolchain's Unicode data: written out, since asking the
  /// properties of the 15,000 scalars of the blocks where ``mayBeDigit(_:)`` asks them cost 14
  /// million instructions at the start of every run. `everyDecimalDigitIsCounted` checks the
  /// table against the properties; a toolchain with new digits fails it until the table is
  /// written again (the test's comment says how).
  static let decimalDigitBlocks: [(block: Int, mask: UInt64)] = [
    (0x25, 0xFFC0_0000_0000), (0x27, 0xFFC0_0000_0000), (0x29, 0xFFC0_0000_0000), (0x2B, 0xFFC0_0000_0000),
    (0x2D, 0xFFC0_0000_0000), (0x2F, 0xFFC0_0000_0000), (0x31, 0xFFC0_0000_0000), (0x33, 0xFFC0_0000_0000),
    (0x35, 0xFFC0_0000_0000), (0x37, 0xFFC0_0000_0000), (0x39, 0x3FF_0000), (0x3B, 0x3FF_0000),
    (0x3C, 0x3FF_0000_0000), (0x41, 0x3FF), (0x42, 0x3FF_0000), (0x5F, 0x3FF_0000_0000), (0x60, 0x3FF_0000),
    (0x65, 0xFFC0), (0x67, 0x3FF_0000), (0x6A, 0x3FF_03FF), (0x6D, 0x3FF_0000), (0x6E, 0x3FF_0000_0000_0000),
    (0x71, 0x3FF_03FF), (0x298, 0x3FF_0000_0000), (0x2A3, 0x3FF_0000), (0x2A4, 0x3FF), (0x2A7, 0x3FF_0000_03FF_0000),
    (0x2A9, 0x3FF_0000), (0x2AF, 0x3FF_0000_0000_0000), (0x3FC, 0x3FF_0000),
  ]

  /// The blocks of 64 scalars past the BMP (scalar >> 6) that hold a decimal digit, from this
  /// toolchain's Unicode data (all in plane 1: Osmanya, Brahmi, … the mathematical digits);
  /// `everyDecimalDigitIsCounted` checks them. A scan asks Unicode's properties about a scalar
  /// of four bytes only in these blocks, not about every emoji.
  static let supplementaryDigitBlocks: [Int] = [
    0x412, 0x434, 0x435, 0x441, 0x443, 0x444, 0x447, 0x44B, 0x451, 0x453, 0x459, 0x45B, 0x45C, 0x463, 0x465, 0x46F,
    0x471, 0x475, 0x476, 0x477, 0x47D, 0x584, 0x5A9, 0x5AB, 0x5AD, 0x5B5, 0x733, 0x75F, 0x785, 0x78B, 0x793, 0x797,
    0x7A5, 0x7EF,
  ]

  /// A bit for each pair of bytes (first × 256 + second) that begins the UTF-8 form of a
  /// scalar ``mayBeDigit(_:)`` may say yes to: exactly for one and two bytes; for three, each
  /// block of ``digitBlocks`` that is not empty; for four (all asked about), every pair.
  static let digitPairs: [UInt64] = {
    var bits = [UInt64](repeating: 0, count: 1024)
    func set(_ first: Int, _ second: Int) {
      bits[(first << 8 | second) >> 6] |= 1 << UInt64((first << 8 | second) & 63)
    }
    for digit in 0x30...0x39 {
      for second in 0..<256 { set(digit, second) }
    }
    for value in UInt32(0x80)..<0x800 where mayBeDigit(value) {
      set(0xC0 | Int(value >> 6), 0x80 | Int(value & 0x3F))
    }
    for (block, mask) in digitBlocks.enumerated() where mask != 0 {
      set(0xE0 | block >> 6, 0x80 | block & 0x3F)
    }
    for first in 0xF0...0xF4 {
      for second in 0x80...0xBF { set(first, second) }
    }
    return bits
  }()

  /// Whether the pair of bytes `first`, `second` may begin a digit, by ``digitPairs``.
  static func mayBeginDigit(_ first: UInt8, _ second: UInt8) -> Bool {
    let pair = Int(first) << 8 | Int(second)
    return digitPairs[pair >> 6] & (1 << UInt64(pair & 63)) != 0
  }

  /// The fewest digit-like scalars a match of `pattern` can hold: a class or character counts
  /// when everything it matches is digit-like (`\d`, `[0-9]`, `[1１一①]`, `0`), repeated as often
  /// as its quantifier's minimum (with `decimal`, the fewest decimal digits, counting a class
  /// or character when everything it matches is one: `\d`, `[0-9]`, `[３-９]`, not `[1一]`); a
  /// group counts its alternative with the fewest; lookarounds and everything else count
  /// nothing. A pattern with a construct it does not read (inline
  /// options, `\Q`, backreferences, an unclosed group) needs 0, so the count never says more
  /// than the regex requires.
  static func minimumDigits(of pattern: String, decimal: Bool = false) -> Int {
    guard !pattern.contains("\\Q") else { return 0 }
    return minimumDigits(Array(pattern.unicodeScalars)[...], counts: decimal ? isDecimalDigit : isDigitLike) ?? 0
  }

  /// The count of ``minimumDigits(of:decimal:)``, of the scalars `counts` says yes to.
  private static func minimumDigits(_ characters: ArraySlice<Unicode.Scalar>, counts: (UInt32) -> Bool) -> Int? {
    var branches: [Int] = []
    var total = 0
    var atoms = Atoms(characters)
    while let atom = atoms.next() {
      var count = 0
      switch atom {
      case .alternation:
        branches.append(total)
        total = 0
        continue
      case .stray, .unclosed:
        return nil
      case .escape(let escaped):
        if escaped == "d" {
          count = 1
        } else if escaped.properties.isAlphabetic || ("0"..."9").contains(escaped) {
          // Classes (`\s`, `\w`), anchors (`\b`) and escapes with arguments are not read, but
          // for those that take one.
          if ["x", "p", "P", "N", "g", "k", "o", "c", "E"].contains(escaped) || ("1"..."9").contains(escaped) {
            return nil
          }
        }
      case .characterClass(let body):
        count = isDigitClass(body, counts: counts) ? 1 : 0
      case .group(let written):
        guard let body = groupBody(written), let inside = minimumDigits(body, counts: counts) else { return nil }
        count = inside
      case .dot, .anchor:
        break
      case .literal(let character):
        count = counts(character.value) ? 1 : 0
      }
      // The atom's quantifier: its minimum repetition.
      var repeats = 1
      if let quantifier = atoms.quantifier {
        guard let minimum = quantifier.minimum, let end = quantifier.end else { return nil }
        repeats = minimum
        atoms.index = end
      }
      // Capped, so that nested counts cannot overflow; a pattern needing this many is rare.
      total = min(total + min(count, 1 << 20) * repeats, 1 << 20)
    }
    branches.append(total)
    return branches.min()
  }

  /// What a group matches, from its body as written (``Atoms/Atom/group(_:)``): the body of a
  /// plain, non-capturing or atomic group; nothing for a lookaround, which holds no text; nil
  /// for a group not read (options, named groups, conditions).
  private static func groupBody(_ written: ArraySlice<Unicode.Scalar>) -> ArraySlice<Unicode.Scalar>? {
    guard written.first == "?" else { return written }
    let rest = written.dropFirst()
    if rest.first == "=" || rest.first == "!" || rest.starts(with: ["<", "="]) || rest.starts(with: ["<", "!"]) {
      return written[written.startIndex..<written.startIndex]
    }
    return rest.first == ":" || rest.first == ">" ? rest.dropFirst() : nil
  }

  /// Whether every scalar a class body (between `[` and `]`) matches is one `counts` says yes
  /// to: no negation, and each item such a scalar, a range of them, or `\d`.
  private static func isDigitClass(_ body: ArraySlice<Unicode.Scalar>, counts: (UInt32) -> Bool) -> Bool {
    guard let first = body.first, first != "^" else { return false }
    var index = body.startIndex
    while index < body.endIndex {
      var low = body[index]
      if low == "\\" {
        guard index + 1 < body.endIndex, body[index + 1] == "d" else { return false }
        index += 2
        continue
      }
      index += 1
      var high = low
      if index + 1 < body.endIndex, body[index] == "-" {
        high = body[index + 1]
        guard high != "\\", low.value <= high.value else { return false }
        index += 2
      }
      guard high.value - low.value <= 64 else { return false }
      while low.value <= high.value {
        guard counts(low.value) else { return false }
        guard let following = Unicode.Scalar(low.value + 1) else { break }
        low = following
      }
    }
    return true
  }
}

/// The third requirement: where the digits are. A phone number's eleven digits lie within one
/// match, so a text whose digits are spread over more bytes than a match can span (Chinese
/// prose, where `一` and `三` are words) cannot match, however many it has.
extension RawPrefilter {
  /// How ``maximumLength(of:)`` and ``digitGap(of:)`` read `\` and the scalar after it: a
  /// class of one scalar (`\d`, `\s`), an anchor that matches nothing (`\b`), punctuation that
  /// stands for itself, or nil for any other letter or digit (a construct not read: an escape
  /// with arguments, a backreference).
  enum EscapeReading { case scalarClass, zeroWidth, literal }

  static func escapeReading(_ escaped: Unicode.Scalar) -> EscapeReading? {
    switch escaped {
    case "d", "D", "w", "W", "s", "S", "h", "H", "v", "V": .scalarClass
    case "b", "B", "A", "z", "Z", "G": .zeroWidth
    default: escaped.properties.isAlphabetic || ("0"..."9").contains(escaped) ? nil : .literal
    }
  }

  /// The most scalars a match of `pattern` can span (lookarounds and anchors span none), or nil
  /// when there is no bound (`*`, `+`, `{n,}`) or the pattern holds a construct not read here
  /// (inline options, `\Q`, backreferences, `\R`, `\X`, escapes with arguments, an unclosed
  /// group or class), so that the bound never says less than the regex can match.
  static func maximumLength(of pattern: String) -> Int? {
    guard !pattern.contains("\\Q") else { return nil }
    return maximumLength(Array(pattern.unicodeScalars)[...])
  }

  private static func maximumLength(_ characters: ArraySlice<Unicode.Scalar>) -> Int? {
    let cap = 1 << 20  // beyond it, no bound worth having; keeps the sums from overflowing
    var branches: [Int] = []
    var total = 0
    var atoms = Atoms(characters)
    while let atom = atoms.next() {
      var length = 1
      switch atom {
      case .alternation:
        branches.append(total)
        total = 0
        continue
      case .stray, .unclosed:
        return nil
      case .escape(let escaped):
        guard let reading = escapeReading(escaped) else { return nil }
        length = reading == .zeroWidth ? 0 : 1
      case .characterClass, .dot, .literal:
        length = 1
      case .group(let written):
        guard let body = groupBody(written), let inside = maximumLength(body) else { return nil }
        length = inside
      case .anchor:
        length = 0
      }
      var repeats = 1
      let next = atoms.index
      if next < characters.endIndex, ["?", "*", "+", "{"].contains(characters[next]) {
        guard let (maximum, end) = maximumRepeats(characters, at: next) else { return nil }
        repeats = maximum
        atoms.index = end
      }
      total = min(total + min(length, cap) * min(repeats, cap), cap)
    }
    branches.append(total)
    return branches.max()
  }

  /// The most bytes from the start of one scalar that may be a digit to the start of the next
  /// in any match of `pattern`, counting only the digits every match holds (the atoms
  /// ``minimumDigits(of:decimal:)`` counts); nil when a match need not hold two, or the
  /// pattern holds a construct not read (as for ``maximumLength(of:)``). Other digits of a
  /// match lie between those and only shorten the gaps. A scalar is counted 4 bytes unless it
  /// is written out; what may be left out (`?`, `{0,n}`, an alternative without a digit) is
  /// counted as its most bytes, with no digit. The mobile-number regex's eleven digits are each
  /// at most two separators apart, 12 bytes: a text's numerals must come in such a chain
  /// (``hasDigits(_:chainedWithin:at:)``), where a window of 144 bytes let most long Chinese
  /// reviews through.
  static func digitGap(of pattern: String) -> Int? {
    guard !pattern.contains("\\Q"), let gaps = digitGaps(Array(pattern.unicodeScalars)[...]), gaps.hasDigit,
      gaps.gap < DigitGaps.cap
    else { return nil }
    return gaps.gap
  }

  /// What ``digitGap(of:)`` knows of a piece of a pattern: whether it must hold a digit, and
  /// then the most bytes from its start to the start of its first digit (`lead`), from the
  /// start of its last digit to its end (`trail`) and between the starts of two of its digits
  /// in a row (`gap`); and its most bytes (`bytes`). All capped, as unbounded.
  private struct DigitGaps {
    static let cap = 1 << 20
    var hasDigit = false
    var lead = 0
    var trail = 0
    var gap = 0
    var bytes = 0

    /// A piece that holds no digit it must.
    static func span(_ bytes: Int) -> DigitGaps { DigitGaps(bytes: min(bytes, cap)) }

    /// This piece, then `next`.
    func then(_ next: DigitGaps) -> DigitGaps {
      let bytes = min(self.bytes + next.bytes, Self.cap)
      switch (hasDigit, next.hasDigit) {
      case (false, false): return .span(bytes)
      case (true, false):
        return DigitGaps(hasDigit: true, lead: lead, trail: min(trail + next.bytes, Self.cap), gap: gap, bytes: bytes)
      case (false, true):
        return DigitGaps(
          hasDigit: true, lead: min(self.bytes + next.lead, Self.cap), trail: next.trail, gap: next.gap, bytes: bytes)
      case (true, true):
        return DigitGaps(
          hasDigit: true, lead: lead, trail: next.trail, gap: max(gap, next.gap, min(trail + next.lead, Self.cap)),
          bytes: bytes)
      }
    }

    /// This piece repeated at least `minimum` and at most `maximum` times.
    func repeated(minimum: Int, maximum: Int) -> DigitGaps {
      let bytes = min(self.bytes * min(maximum, Self.cap), Self.cap)
      guard hasDigit && minimum > 0 else { return .span(bytes) }
      let between = maximum > 1 ? min(trail + lead, Self.cap) : 0
      return DigitGaps(hasDigit: true, lead: lead, trail: trail, gap: max(gap, between), bytes: bytes)
    }

    /// One of `branches`: each must hold a digit for the group to.
    static func either(_ branches: [DigitGaps]) -> DigitGaps {
      let bytes = branches.map(\.bytes).max() ?? 0
      guard !branches.isEmpty, branches.allSatisfy(\.hasDigit) else { return .span(bytes) }
      return DigitGaps(
        hasDigit: true, lead: branches.map(\.lead).max() ?? 0, trail: branches.map(\.trail).max() ?? 0,
        gap: branches.map(\.gap).max() ?? 0, bytes: bytes)
    }
  }

  private static func digitGaps(_ characters: ArraySlice<Unicode.Scalar>) -> DigitGaps? {
    var branches: [DigitGaps] = []
    var sequence = DigitGaps()
    var atoms = Atoms(characters)
    while let atom = atoms.next() {
      var piece = DigitGaps.span(4)
      switch atom {
      case .alternation:
        branches.append(sequence)
        sequence = DigitGaps()
        continue
      case .stray, .unclosed:
        return nil
      case .escape(let escaped):
        switch escapeReading(escaped) {
        case nil: return nil
        case .scalarClass: if escaped == "d" { piece = DigitGaps(hasDigit: true, trail: 4, bytes: 4) }
        case .zeroWidth: piece = .span(0)
        case .literal: piece = .span(String(escaped).utf8.count)
        }
      case .characterClass(let body):
        if isDigitClass(body, counts: isDigitLike) { piece = DigitGaps(hasDigit: true, trail: 4, bytes: 4) }
      case .group(let written):
        guard let body = groupBody(written), let inside = digitGaps(body) else { return nil }
        piece = inside
      case .anchor:
        piece = .span(0)
      case .dot:
        break
      case .literal(let character):
        let length = String(character).utf8.count
        piece = isDigitLike(character.value) ? DigitGaps(hasDigit: true, trail: length, bytes: length) : .span(length)
      }
      if let quantifier = atoms.quantifier {
        guard let minimum = quantifier.minimum, let end = quantifier.end else { return nil }
        let maximum = maximumRepeats(characters, at: atoms.index)?.0 ?? DigitGaps.cap
        piece = piece.repeated(minimum: minimum, maximum: maximum)
        atoms.index = end
      }
      sequence = sequence.then(piece)
    }
    branches.append(sequence)
    return .either(branches)
  }

  /// The most repetitions of the quantifier at `start` (`?`, `{n}`, `{n,m}`, `{,m}`, each
  /// maybe lazy or possessive) and where it ends; nil for one without a bound or not read.
  private static func maximumRepeats(_ characters: ArraySlice<Unicode.Scalar>, at start: Int) -> (Int, Int)? {
    var end = start + 1
    let maximum: Int
    switch characters[start] {
    case "?":
      maximum = 1
    case "{":
      guard let close = characters[start...].firstIndex(of: "}") else { return nil }
      let body = String(String.UnicodeScalarView(characters[(start + 1)..<close]))
      let parts = body.split(separator: ",", omittingEmptySubsequences: false)
      guard parts.count <= 2, let last = parts.last, !last.isEmpty, let value = Int(last), value <= 100_000,
        parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) })
      else { return nil }
      maximum = value
      end = close + 1
    default:
      return nil
    }
    if end < characters.endIndex, characters[end] == "?" || characters[end] == "+" { end += 1 }
    return (maximum, end)
  }

  /// The byte offsets, in order, of the scalars of `text` that may be digits
  /// (``mayBeDigit(_:)``), and how many of them are decimal digits (``isDecimalDigit(_:)``):
  /// what ``decimalsNeeded`` and ``digitWindows`` ask, and what ``scan(_:digitOffsets:)``
  /// writes as it goes; read in a pass of its own where the scan stopped early (with every set
  /// found and enough digits), and the reference the scan is tested against. Read as that pass reads a text: a scalar of
  /// three bytes (most of Chinese text) whole, answered by its blocks of ``digitBlocks`` and
  /// ``decimalBlocks``; an ASCII byte by itself; any other scalar decoded only where its first
  /// two bytes may begin a digit (``digitPairs``). (Decoding every scalar cost more, on the long
  /// texts that get here, than the regexes it saved.)
  static func readDigits(in text: UnsafeBufferPointer<UInt8>) -> (offsets: [Int], decimals: Int) {
    var offsets: [Int] = []
    var decimals = 0
    let count = text.count
    digitPairs.withUnsafeBufferPointer { pairs in
      digitBlocks.withUnsafeBufferPointer { blocks in
        decimalBlocks.withUnsafeBufferPointer { decimalBlocks in
          var index = 0
          while index < count {
            let first = text[index]
            if first < 0x80 {
              if first &- 0x30 < 10 {
                offsets.append(index)
                decimals &+= 1
              }
              index &+= 1
              continue
            }
            if first & 0xF0 == 0xE0, index &+ 2 < count, text[index &+ 1] & 0xC0 == 0x80,
              text[index &+ 2] & 0xC0 == 0x80
            {
              let block = Int(first & 0x0F) &<< 6 | Int(text[index &+ 1] & 0x3F)
              let third = UInt64(text[index &+ 2] & 0x3F)
              if blocks[block] &>> third & 1 != 0 {
                offsets.append(index)
                decimals &+= Int(truncatingIfNeeded: decimalBlocks[block] &>> third & 1)
              }
              index &+= 3
              continue
            }
            let second = index &+ 1 < count ? text[index &+ 1] : 0
            let pair = Int(first) &<< 8 | Int(second)
            if first & 0xC0 != 0x80, pairs[pair &>> 6] &>> UInt64(pair & 63) & 1 != 0 {
              let value = UTF8Decoding.decode(text, at: index).value
              if mayBeDigit(value) {
                offsets.append(index)
                decimals &+= isDecimalDigit(value) ? 1 : 0
              }
            }
            index &+= 1
          }
        }
      }
    }
    return (offsets, decimals)
  }

  /// Whether the digits of `text` are as many decimal digits, and as close together, as raw
  /// regex `regex` needs (``decimalsNeeded``, ``digitWindows``), once ``scan(_:digitOffsets:)``
  /// has found enough of them: answered from what the scan counted (`scanned`) and wrote
  /// (`offsets`, the first `scanned.digits`) when it wrote every digit's offset, else from
  /// ``readDigits(in:)``, which `read` keeps for the next regex that asks. Not inlined: in the
  /// loop over a text's regexes, this rare path cost every line of a dump some 70 instructions.
  @inline(never)
  func digitsFit(
    regex: Int, in text: UnsafeBufferPointer<UInt8>, scanned: Scanned, offsets: UnsafeBufferPointer<Int32>,
    read: inout (offsets: [Int], decimals: Int)?
  ) -> Bool {
    let (decimals, window) = (decimalsNeeded[regex], digitWindows[regex])
    guard decimals > 0 || window < Int.max || digitGaps[regex] < Int.max else { return true }
    let (count, gap) = (digitsNeeded[regex], digitGaps[regex])
    if scanned.wroteOffsets, scanned.digits <= offsets.count {
      let offsets = UnsafeBufferPointer(rebasing: offsets[..<scanned.digits])
      return scanned.decimals >= decimals && Self.hasDigits(count, within: window, at: offsets)
        && Self.hasDigits(count, chainedWithin: gap, at: offsets)
    }
    let digits = read ?? Self.readDigits(in: text)
    read = digits
    return digits.decimals >= decimals && Self.hasDigits(count, within: window, at: digits.offsets)
      && Self.hasDigits(count, chainedWithin: gap, at: digits.offsets)
  }

  /// Whether `count` of the digits at `offsets` (in order) follow each other, each beginning at
  /// most `gap` bytes after the one before.
  static func hasDigits<Offsets: RandomAccessCollection>(
    _ count: Int, chainedWithin gap: Int, at offsets: Offsets
  ) -> Bool where Offsets.Index == Int, Offsets.Element: BinaryInteger {
    guard count > 1 else { return offsets.count >= count }
    var chain = 1
    for index in offsets.indices.dropFirst() {
      chain = Int(offsets[index]) - Int(offsets[index - 1]) <= gap ? chain + 1 : 1
      if chain >= count { return true }
    }
    return false
  }

  /// Whether `count` of the digits at `offsets` (in order) begin within fewer than `window`
  /// bytes of each other, as they must to lie in one match of that many bytes at most.
  static func hasDigits<Offsets: RandomAccessCollection>(
    _ count: Int, within window: Int, at offsets: Offsets
  ) -> Bool where Offsets.Index == Int, Offsets.Element: BinaryInteger {
    guard count > 1 else { return offsets.count >= count }
    guard offsets.count >= count else { return false }
    for first in 0...(offsets.count - count)
    where Int(offsets[first + count - 1]) - Int(offsets[first]) < window {
      return true
    }
    return false
  }
}
