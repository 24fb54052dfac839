/// What part a scalar plays in a word, after folding. Internal to normalization and matching.
enum ScalarClass: UInt8 {
  /// Space, punctuation, symbols, emoji: between words.
  case separator = 0
  /// A letter of a spaced, cased alphabet (Latin, Greek, Cyrillic, Armenian, Georgian):
  /// entries in these scripts match whole words by default.
  case letter
  /// An ASCII digit: digit entries match whole digit runs.
  case digit
  /// A character of a script written without spaces (Han, kana, Thai, Lao, Khmer, Myanmar):
  /// no word boundaries, and separators between two of them are skipped.
  case unspaced
  /// Any other letter, mark, number or pictograph (Hangul, Devanagari, emoji, …): part of a
  /// word, but entries in these scripts match as substrings, since their words take affixes.
  case other
  /// `@`, `$` or `!`: a letter inside a word (`@ss`, `$hit`, `sh!t`), a separator elsewhere.
  case symbol
  /// An apostrophe: dropped inside a word (`don't`), a separator elsewhere.
  case apostrophe
  /// A letter of the Arabic script (``ArabicWordEdges/isLetter(_:)``): part of a word token, its
  /// repeats merge and letters spelled one by one join, as ``letter``s do; its entries' edges
  /// meet words across clitics (``ArabicWordEdges``), not at a ``letter``'s word boundary, and
  /// it turns no digit into a look-alike letter.
  case arabicLetter

  /// Whether entries bordering on this class need a word boundary.
  var isWordCharacter: Bool { self == .letter || self == .digit }

  /// Whether a run of one scalar of this class merges into one counted unit under
  /// ``Normalization/repeatedLetters``: letters of the spaced alphabets, CJK characters and
  /// Arabic-script letters (`fuuuck`, `考试试试`, `طيززز`).
  var mergesRepeats: Bool { self == .letter || self == .unspaced || self == .arabicLetter }

  /// Whether ``SinglePassShaper/takeWordRun(_:from:of:entries:table:asciiFolding:)`` takes a run of this class.
  var continuesWordRuns: Bool { self == .letter || self == .arabicLetter || self == .other }

  /// Whether a unit of this class is part of a word token (before look-alikes are resolved).
  var isTokenLetter: Bool { self == .letter || self == .digit || self == .arabicLetter }

  /// The class of a scalar. BMP scalars come from a table built once, those of plane 1 (emoji,
  /// historic and other scripts, symbols) from tables of 4,096 scalars each built the first
  /// time a text needs one; others are computed.
  static func of(_ scalar: UInt32) -> ScalarClass {
    if scalar < 0x10000 {
      return ScalarClass(rawValue: bmpClasses[Int(scalar)])!
    }
    if let raw = PlaneOneClasses.class(of: scalar) {
      return ScalarClass(rawValue: raw)!
    }
    return compute(scalar)
  }

  private static let bmpClasses: [UInt8] = (0..<0x10000).map {
    (knownBlock(UInt32($0)) ?? compute(UInt32($0))).rawValue
  }

  /// The class of a scalar of a large block whose every scalar has the same one, without asking
  /// for its Unicode properties, whose lookups were most of the cost of building the table the
  /// first time a text needs it (`Benchmarks/HISTORY.md`). Nil elsewhere. A test holds it to
  /// ``compute(_:)`` for every BMP scalar.
  static func knownBlock(_ value: UInt32) -> ScalarClass? {
    switch value {
    // CJK Unified Ideographs and Extension A: every scalar assigned and ideographic.
    case 0x3400...0x4DBF, 0x4E00...0x9FFF: .unspaced
    // Hangul syllables: letters of a script that spaces its words, not cased.
    case 0xAC00...0xD7A3: .other
    // Surrogates (no scalar) and the private use area.
    case 0xD800...0xF8FF: .separator
    default: nil
    }
  }

  /// The class of a scalar, from its Unicode properties.
  static func compute(_ value: UInt32) -> ScalarClass {
    switch value {
    case 0x30...0x39: return .digit
    case 0x41...0x5A, 0x61...0x7A: return .letter
    case 0x40, 0x24, 0x21: return .symbol
    case 0x27, 0x2018, 0x2019, 0x02BC: return .apostrophe
    case 0...0x7F: return .separator
    default: break
    }
    guard let scalar = Unicode.Scalar(value) else { return .separator }
    let properties = scalar.properties
    switch value {
    case 0x0E00...0x0EFF, 0x1000...0x109F, 0x1780...0x17FF, 0x3040...0x30FF, 0x3100...0x312F,
      0x31A0...0x31FF, 0x3005...0x3007, 0xFF66...0xFF9F:
      return .unspaced
    default:
      if properties.isIdeographic { return .unspaced }
    }
    if ArabicWordEdges.isLetter(value) { return .arabicLetter }
    switch properties.generalCategory {
    case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter:
      switch value {
      case 0x00C0...0x058F, 0x10A0...0x10FF, 0x1C80...0x1CBF, 0x1D00...0x1DBF, 0x1E00...0x1FFF,
        0x2C60...0x2C7F, 0x2DE0...0x2DFF, 0xA640...0xA69F, 0xA720...0xA7FF, 0xAB30...0xAB6F:
        return .letter
      default:
        return .other
      }
    case .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber, .letterNumber, .otherSymbol:
      // Emoji and pictographs are characters of their own (`🖕` is a list entry), not separators.
      return .other
    default:
      return .separator
    }
  }
}

/// The classes of plane 1's scalars (U+10000 to U+1FFFF), in 16 tables of 4,096 scalars, each
/// built the first time a text holds one of its scalars: computing a class from the scalar's
/// Unicode properties cost about 700 instructions, most of a line's normalization for a text
/// with a few emoji or letters of a plane 1 script (`Benchmarks/HISTORY.md`), while building a
/// table costs about 3 million once. Each is a static constant of its own, so it is built once
/// and read without a lock.
private enum PlaneOneClasses {
  /// The raw class of a scalar of plane 1, or nil for another scalar. Each case reads its
  /// table in place (returning the table itself retained and released it).
  static func `class`(of scalar: UInt32) -> UInt8? {
    let index = Int(scalar & 0xFFF)
    return switch scalar >> 12 {
    case 0x10: c0[index]
    case 0x11: c1[index]
    case 0x12: c2[index]
    case 0x13: c3[index]
    case 0x14: c4[index]
    case 0x15: c5[index]
    case 0x16: c6[index]
    case 0x17: c7[index]
    case 0x18: c8[index]
    case 0x19: c9[index]
    case 0x1A: c10[index]
    case 0x1B: c11[index]
    case 0x1C: c12[index]
    case 0x1D: c13[index]
    case 0x1E: c14[index]
    case 0x1F: c15[index]
    default: nil
    }
  }

  private static func build(_ index: UInt32) -> [UInt8] {
    let start = 0x10000 + index << 12
    return (start..<start + 0x1000).map { ScalarClass.compute($0).rawValue }
  }

  private static let c0 = build(0)
  private static let c1 = build(1)
  private static let c2 = build(2)
  private static let c3 = build(3)
  private static let c4 = build(4)
  private static let c5 = build(5)
  private static let c6 = build(6)
  private static let c7 = build(7)
  private static let c8 = build(8)
  private static let c9 = build(9)
  private static let c10 = build(10)
  private static let c11 = build(11)
  private static let c12 = build(12)
  private static let c13 = build(13)
  private static let c14 = build(14)
  private static let c15 = build(15)
}
