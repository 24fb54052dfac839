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
  private struct Needle: Sendable {
    var bytes: [UInt8]
    var bit: UInt64
  }

  /// The needles of two bytes or more by their first byte: those of byte `b` are
  /// `needles[starts[b]..<starts[b + 1]]`.
  private let starts: [Int32]
  private let needles: [Needle]
  /// The tables ``scan(_:)`` reads, in one array (one lent buffer, one bounds): from
  /// ``firstBytes``, a bit per byte that begins something (a needle, a one-byte literal, a
  /// digit); from ``singlesAt``, per byte, the bits of the sets that have that byte as a
  /// one-byte literal; from ``pairsAt``, a bit for each pair of bytes (first byte × 256 +
  /// second byte) that begins a needle; from ``digitPairsAt``, one for each pair that may begin
  /// a digit (``digitPairs``; zero when no regex needs digits); from ``digitBlocksAt``,
  /// ``digitBlocks``.
  private let tables: [UInt64]
  private static let firstBytes = 0
  private static let singlesAt = 4
  private static let pairsAt = 260
  private static let digitPairsAt = 1284
  /// From here, ``digitBlocks``: per block of 64 three-byte scalars, which may be digits.
  private static let digitBlocksAt = 2308
  /// Per raw regex, the bits of the sets it needs (0: none).
  let needed: [UInt64]
  /// Per raw regex, the fewest scalars that may be digits its matches hold (0: none needed).
  let digitsNeeded: [Int]
  /// The largest of ``digitsNeeded``: how far a text's digits need counting.
  let mostDigitsNeeded: Int
  /// Whether ASCII letters are compared without case (the regexes are caseless).
  private let caseless: Bool
  /// Whether any raw regex has a set or needs digits: whether ``scan(_:)`` is worth its pass.
  let isUseful: Bool
  /// The bits of every set.
  private let all: UInt64

  /// The prefilter of raw regexes with these patterns, in order.
  init(patterns: [String], caseless: Bool) {
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
      let best = sets.min { Self.firstByteCount($0, caseless: caseless) < Self.firstByteCount($1, caseless: caseless) }
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
    for list in byByte {
      needles += list
      starts.append(Int32(needles.count))
    }
    self.needles = needles
    self.needed = needed
    digitsNeeded = patterns.map(Self.minimumDigits(of:))
    mostDigitsNeeded = digitsNeeded.max() ?? 0
    let useful = all != 0 || mostDigitsNeeded > 0
    // A layer without raw regexes (every app's list, most of the time) keeps no tables: 26 KiB
    // each, a quarter of a gigabyte over ten thousand apps, that ``scan(_:)`` never reads
    // unless ``isUseful``.
    self.starts = useful ? starts : []
    let digitPairs = mostDigitsNeeded > 0 ? Self.digitPairs : [UInt64](repeating: 0, count: 1024)
    var firstBytes = [UInt64](repeating: 0, count: 4)
    for byte in 0..<256 {
      let words = byte * 4..<byte * 4 + 4
      if singles[byte] != 0 || words.contains(where: { pairs[$0] | digitPairs[$0] != 0 }) {
        firstBytes[byte >> 6] |= 1 << UInt64(byte & 63)
      }
    }
    tables = useful ? firstBytes + singles + pairs + digitPairs + Self.digitBlocks : []
    self.caseless = caseless
    isUseful = useful
    self.all = all
  }

  /// The bits of the sets that have a literal in `text`, and how many of its scalars may be
  /// digits (``mayBeDigit(_:)``; counted only when a regex needs digits, and then at least up
  /// to ``mostDigitsNeeded``). Each byte costs a lookup or two; only where a pair of bytes
  /// begins a needle is the needle compared, and only where it may begin a digit is the
  /// scalar read.
  func scan(_ text: UnsafeBufferPointer<UInt8>) -> (sets: UInt64, digits: Int) {
    guard let base = text.baseAddress, !text.isEmpty else { return (0, 0) }
    let count = text.count
    let caseless = caseless
    let mostDigitsNeeded = mostDigitsNeeded
    @inline(__always) func fold(_ byte: UInt8) -> UInt8 { caseless && byte &- 65 < 26 ? byte | 0x20 : byte }
    return tables.withUnsafeBufferPointer { tables in
      var found: UInt64 = 0
      var digits = 0
      for index in 0..<count {
        let byte = fold(base[index])
        // Most bytes begin nothing: one test each.
        guard tables[Self.firstBytes &+ Int(byte &>> 6)] & (1 &<< UInt64(byte & 63)) != 0 else { continue }
        found |= tables[Self.singlesAt &+ Int(byte)]
        let next = index &+ 1 < count ? fold(base[index &+ 1]) : 0
        let pair = Int(byte) &<< 8 | Int(next)
        let bit: UInt64 = 1 &<< UInt64(pair & 63)
        if tables[Self.pairsAt &+ pair &>> 6] & bit != 0 {
          found |= matchNeedles(at: index, first: byte, in: text)
          if found == all && digits >= mostDigitsNeeded { return (found, digits) }
        }
        if tables[Self.digitPairsAt &+ pair &>> 6] & bit != 0 {
          // Case folding changes no digit, and no byte of a multi-byte scalar.
          if byte < 0x80 {
            digits &+= 1
          } else if byte & 0xF0 == 0xE0, index &+ 2 < count, next & 0xC0 == 0x80, base[index &+ 2] & 0xC0 == 0x80 {
            // Three bytes: the block's mask answers, but for blocks Unicode's properties must.
            let mask = tables[Self.digitBlocksAt &+ Int(byte & 0x0F) &<< 6 &+ Int(next & 0x3F)]
            if mask != .max {
              digits &+= Int(truncatingIfNeeded: mask &>> UInt64(base[index &+ 2] & 0x3F) & 1)
            } else if Self.mayBeDigit(UTF8Decoding.decode(text, at: index).value) {
              digits &+= 1
            }
          } else if Self.mayBeDigit(UTF8Decoding.decode(text, at: index).value) {
            digits &+= 1
          }
        }
      }
      return (found, digits)
    }
  }

  /// How many different bytes the literals of a set begin with (ASCII letters folded when
  /// caseless).
  private static func firstByteCount(_ set: [String], caseless: Bool) -> Int {
    Set(set.compactMap { $0.utf8.first.map { caseless && $0 &- 65 < 26 ? $0 | 0x20 : $0 } }).count
  }

  /// The bits of the needles of first byte `first` that are in `text` at `index`.
  private func matchNeedles(at index: Int, first: UInt8, in text: UnsafeBufferPointer<UInt8>) -> UInt64 {
    var found: UInt64 = 0
    for needle in Int(starts[Int(first)])..<Int(starts[Int(first) + 1]) {
      let bytes = needles[needle].bytes
      guard index + bytes.count <= text.count else { continue }
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
  static func requirements(of pattern: String) -> [[String]] {
    guard !pattern.contains("\\Q") else { return [] }
    return requirements(Array(pattern.unicodeScalars)[...]) ?? []
  }

  private static func requirements(_ characters: ArraySlice<Unicode.Scalar>) -> [[String]]? {
    var sets: [[String]] = []
    var run: [Unicode.Scalar] = []
    func endRun() {
      if !run.isEmpty { sets.append([String(String.UnicodeScalarView(run))]) }
      run = []
    }
    var index = characters.startIndex
    while index < characters.endIndex {
      let character = characters[index]
      var literal: Unicode.Scalar? = nil
      var group: [[String]]? = nil
      var next = index + 1
      switch character {
      case "|":
        return nil
      case "\\":
        guard next < characters.endIndex else { return nil }
        let escaped = characters[next]
        next += 1
        if escaped.properties.isAlphabetic || ("0"..."9").contains(escaped) {
          endRun()
          if ["x", "p", "P", "N", "g", "k", "o", "c", "Q", "E"].contains(escaped) { return nil }
        } else {
          literal = escaped
        }
      case "[":
        endRun()
        guard let close = RegexProgram.endOfClass(characters, from: next) else { return nil }
        next = close + 1
      case "(":
        endRun()
        guard let close = endOfGroup(characters, from: next) else { return nil }
        var body = characters[next..<close]
        next = close + 1
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
      case ".", "^", "$":
        endRun()
      case ")", "?", "*", "+", "{":
        return nil  // not where an atom can start: not what we read
      default:
        literal = character
      }
      // A quantifier after the atom.
      var optional = false
      if let quantifier = RegexProgram.quantifier(characters, at: next) {
        guard let end = quantifier.end else { return nil }
        // A minimum it cannot read (`{x}`, which PCRE2 reads as text) is not taken as 0.
        optional = quantifier.minimum == 0
        next = end
        if !optional, let literal { run.append(literal) }
        endRun()
      } else if let literal {
        run.append(literal)
      }
      if let group, !optional { sets += group.isEmpty ? [] : group }
      index = next
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
