/// Parsed Unicode data behind normalization: one dictionary per table, built on first use.
///
/// The raw rows live in generated files (`*+Data.swift`, see `scripts/generate-unicode-tables.py`)
/// as hex text, which compiles quickly and reads at startup in a few milliseconds.
enum UnicodeTables {
  /// Scalar → compatibility form (NFKC, accents stripped from Latin, Greek and Cyrillic letters,
  /// Arabic marks and tatweel dropped, alef variants read as alef, Persian kaf and yeh as
  /// Arabic).
  static let compatibility = parseRows(compatibilityRows)
  /// Scalar → full case folding.
  static let caseFolding = parseRows(caseFoldingRows)
  /// Scalars that render as nothing: format characters, variation selectors, blank fillers.
  static let invisible = Set(parseRows(invisibleRows).keys)
  /// Traditional Chinese character → Simplified (OpenCC, first candidate).
  static let traditionalToSimplified: [UInt32: UInt32] = parseRows(traditionalToSimplifiedRows)
    .compactMapValues(\.first)

  /// Letters that look like Latin letters and are used to dodge filters. Applied after case
  /// folding, so uppercase look-alikes are listed by their lowercase form (`В` folds to `в`,
  /// which is listed as `b` because it is the uppercase shape that imitates `B`).
  static let lookalikeLetters: [UInt32: UInt32] = {
    let pairs: [(Character, Character)] = [
      // Cyrillic
      ("а", "a"), ("в", "b"), ("е", "e"), ("к", "k"), ("м", "m"), ("н", "h"), ("о", "o"),
      ("р", "p"), ("с", "c"), ("т", "t"), ("у", "y"), ("х", "x"), ("і", "i"), ("ј", "j"),
      ("ѕ", "s"), ("ԁ", "d"), ("ԛ", "q"), ("ԝ", "w"), ("ь", "b"),
      // Greek
      ("α", "a"), ("β", "b"), ("ε", "e"), ("η", "n"), ("ι", "i"), ("κ", "k"), ("ν", "v"),
      ("ο", "o"), ("ρ", "p"), ("τ", "t"), ("υ", "u"), ("χ", "x"), ("ω", "w"),
      // Latin variants
      ("ı", "i"), ("ɑ", "a"), ("ɡ", "g"), ("ɩ", "i"), ("ʀ", "r"), ("ᴀ", "a"),
    ]
    var table: [UInt32: UInt32] = [:]
    for (from, to) in pairs {
      table[from.unicodeScalars.first!.value] = to.unicodeScalars.first!.value
    }
    return table
  }()

  /// What `1` becomes inside a word: it stands for `i` (`sh1t`) as often as for `l` (`1ick`), so
  /// it gets a code of its own (a private-use scalar) that entries meet through variants with
  /// `i` or `l` replaced by it (see `MatcherLayer`). Entries themselves read it as `i`.
  static let iOrL: UInt32 = 0xE001

  /// A normalized scalar as entries, regexes and people read it: ``iOrL`` as `i`.
  @inline(__always) static func plainLetter(_ scalar: UInt32) -> UInt32 { scalar == iOrL ? 0x69 : scalar }

  /// Digits and symbols that stand for letters inside a word (`sh1t`, `$hit`, `a$$`, `@ss`).
  /// Used only inside a word token that also holds a real letter, so `$100` and `123` stay.
  static func lookalikeLetter(forSymbol scalar: UInt32) -> UInt32? {
    switch scalar {
    case 0x30: return 0x6F  // 0 → o
    case 0x31: return iOrL  // 1 → i or l
    case 0x33: return 0x65  // 3 → e
    case 0x34: return 0x61  // 4 → a
    case 0x35: return 0x73  // 5 → s
    case 0x37: return 0x74  // 7 → t
    case 0x38: return 0x62  // 8 → b
    case 0x40: return 0x61  // @ → a
    case 0x24: return 0x73  // $ → s
    case 0x21: return 0x69  // ! → i
    default: return nil
    }
  }

  /// The digit that imitates a Latin letter (`8` for `b`, `0` for `o`): the inverse of
  /// ``lookalikeLetter(forSymbol:)`` over digits, with `1` for both `i` and `l`.
  static func lookalikeDigit(forLetter letter: UInt32) -> UInt32? {
    switch letter {
    case 0x69, 0x6C: return 0x31
    default: return (0x30...0x39).first { lookalikeLetter(forSymbol: $0) == letter }
    }
  }

  private static func parseRows(_ rows: String) -> [UInt32: [UInt32]] {
    var table: [UInt32: [UInt32]] = [:]
    table.reserveCapacity(8192)
    for line in rows.utf8.split(separator: UInt8(ascii: "\n")) {
      var fields = line.split(separator: UInt8(ascii: " ")).map { hex in
        hex.reduce(UInt32(0)) { $0 << 4 | UInt32(hexDigit($1)) }
      }
      let key = fields.removeFirst()
      table[key] = fields
    }
    return table
  }

  private static func hexDigit(_ byte: UInt8) -> UInt8 {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
    default: return (byte | 0x20) - UInt8(ascii: "a") + 10
    }
  }
}
