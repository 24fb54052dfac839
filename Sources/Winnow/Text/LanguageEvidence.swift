/// Which language a text is written in, told by counting its words that are among each
/// language's 300 most frequent words (wordfreq's, see `LanguageTables+Data.swift`; for Esperanto,
/// which wordfreq does not count, its stop words), and its runs of kana (Japanese) and of Han
/// characters (Chinese, or Japanese when the text has kana). Chinese written in pinyin counts for
/// Chinese too: the table's `zh` words are the toneless pinyin of jieba's most frequent words
/// (`wo`, `shi`, `women`), so a word of another language's list that is also a pinyin
/// (`gai` 该, `piru` 譬如) and is scoped to its language does not match in pinyin text.
///
/// A word of one letter counts for no language: it is a word of many (`a`, `i`, `u`, `v`) and,
/// in all, a symbol, a unit or chat's shorthand (`u r`, `M&M`, `5 m`).
///
/// An entry with a ``Entry/language`` does not match in a text written in another language: one
/// where some other language counts more words than the entry's. Ties keep the entry (Spanish
/// and Portuguese share many short words), and so does a text with no counted word at all (a
/// lone `rape`, a string of names): a short insult is not let through because it says too
/// little. Function words decide, not the listed word alone: in `Er ist nicht da` German counts
/// four words (er, ist, nicht, da) and Dutch one (er), so Dutch `nicht` does not match; in
/// `Jij bent een nicht` Dutch counts three and German one (nicht). An entry whose
/// ``Entry/alsoWordOf`` names languages is kept out only where one of those counts the most
/// words (English `slut`, also Swedish, does not match in Swedish text and does in French).
///
/// Links, addresses and tags are not words of a language: a URL (`http://t.co/abc`, `www.…`,
/// `example.com/path`), an e-mail address or `@mention`, and a `#hashtag` are not counted
/// (``unreadSpans(_:)``), so `t.co` does not make a tweet Czech.
///
/// Only texts where a scoped entry was found are counted (see ``Matcher``), so ordinary scans
/// never pay for it.
struct LanguageEvidence {
  /// The counts, by index in ``codes``.
  private(set) var counts: [Int]

  /// The language codes: those of ``frequentWords`` but `zh`, then `ja` and `zh`.
  static let codes: [String] = frequentWords.map(\.key).filter { $0 != "zh" } + ["ja", "zh"]
  private static let japanese = codes.count - 2
  private static let chinese = codes.count - 1

  /// Each frequent word, lower case, with a bit for each language whose frequent words hold it:
  /// the whole table as strings, the reading ``asciiWords`` and ``nonASCIIWords`` are held to
  /// (by tests). A text's words are looked up in those two (``languages(ofWord:)``).
  static var languagesOfWord: [String: UInt64] { stringTable(includingASCII: true) }

  /// ``languagesOfWord``'s words that have a byte of 0x80 or more: only such a word of a text
  /// is looked up as a `String` (no lower-case word of other scalars equals an ASCII one as a
  /// `String`; a test holds the table to it).
  static let nonASCIIWords = stringTable(includingASCII: false)

  /// The frequent words as strings, with or without those of ASCII bytes alone.
  private static func stringTable(includingASCII: Bool) -> [String: UInt64] {
    precondition(codes.count <= 64, "a language is a bit of a UInt64")
    // Sized for every word at once: grown as it filled, the table hashed each word again at
    // every doubling, and hashing a word of a non-Latin script normalizes it. The words are
    // split at the space byte (the table is generated so): split by `Character`, breaking the
    // text into graphemes cost most of the build.
    var table = [String: UInt64](minimumCapacity: wordCount())
    for pair in frequentWords {
      guard let index = codes.firstIndex(of: pair.key) else { continue }
      for word in pair.value.utf8.split(separator: UInt8(ascii: " "))
      where includingASCII || word.contains(where: { $0 >= 0x80 }) {
        table[String(Substring(word)), default: 0] |= 1 << UInt64(index)
      }
    }
    if includingASCII, let english = codes.firstIndex(of: "en") {
      for word in englishChatWords { table[word, default: 0] |= 1 << UInt64(english) }
    }
    return table
  }

  /// How many words the lists hold, repeats counted: each list's spaces and one more, and
  /// English chat's shorthand.
  private static func wordCount() -> Int {
    var count = englishChatWords.count
    for pair in frequentWords {
      var words = pair.value
      count += words.withUTF8 { bytes in bytes.reduce(1) { $1 == UInt8(ascii: " ") ? $0 + 1 : $0 } }
    }
    return count
  }

  /// The bits of the languages whose frequent words hold `word` (lower case, UTF-8), as
  /// ``languagesOfWord`` gives them.
  @inline(__always)
  static func languages(ofWord word: UnsafeBufferPointer<UInt8>) -> UInt64 {
    if let bits = asciiWords.bits(of: word) { return bits }
    return nonASCIIWords[String(decoding: word, as: UTF8.self)] ?? 0
  }

  /// ``languagesOfWord``'s ASCII words, read from the same words at the space byte without
  /// making strings (building the whole table as strings was most of what the evidence cost:
  /// `Benchmarks/HISTORY.md`). A text's word of ASCII letters and apostrophes equals (as a
  /// `String`) no word but one of the same bytes: no other word of the table is canonically
  /// equivalent to an ASCII one (a test holds the table to it), so this answers as
  /// ``languagesOfWord`` does.
  static let asciiWords: ASCIIWordTable = {
    var table = ASCIIWordTable(capacity: wordCount())
    for pair in frequentWords {
      guard let index = codes.firstIndex(of: pair.key) else { continue }
      var words = pair.value
      words.withUTF8 { table.add(wordsSplitAtSpaces: $0, bits: 1 << UInt64(index)) }
    }
    if let english = codes.firstIndex(of: "en") {
      for var word in englishChatWords {
        word.withUTF8 { table.add(wordsSplitAtSpaces: $0, bits: 1 << UInt64(english)) }
      }
    }
    return table
  }()

  /// English chat's shorthand, which the frequent words of written English (wordfreq's) leave
  /// out: each counts for English too, so `ur a bird bitch` is not read as Swedish (`ur`, *out
  /// of*) but as a tie, which keeps the entry. Words of another language's table that chat
  /// also writes (`im`, German *in the*; `af`, Danish *of*) are not among them.
  static let englishChatWords = [
    "ur", "ya", "yall", "lol", "lmao", "omg", "wtf", "idk", "tbh", "smh", "gonna", "wanna", "gotta", "pls", "plz",
    "thx", "youre", "bruh",
  ]

  /// Counts the words of a text (UTF-8; an ill-formed sequence reads as U+FFFD, no letter),
  /// leaving out those that overlap `excluded` byte ranges: the matches being judged, whose
  /// letters written apart (`g-o-o-k`, `m_e_n_s`) would count as one-letter words of other
  /// languages (Italian `e`, Portuguese `o`).
  init(utf8 bytes: UnsafeBufferPointer<UInt8>, excluding matches: [Range<Int>] = []) {
    counts = [Int](repeating: 0, count: Self.codes.count)
    let excluded = matches + Self.unreadSpans(bytes)
    // The word so far, lower case, as UTF-8 (ASCII letters are lowered by arithmetic; the
    // others through their Unicode lower-case mapping).
    var word: [UInt8] = []
    word.reserveCapacity(32)
    var wordStart = 0
    var kanaRuns = 0
    var hanRuns = 0
    var previous = ScriptRun.none
    var runCounted = false
    func endWord(at end: Int) {
      guard !word.isEmpty else { return }
      defer { word.removeAll(keepingCapacity: true) }
      if !excluded.isEmpty, excluded.contains(where: { $0.overlaps(wordStart..<end) }) { return }
      // A single letter is a word of many languages and, in all, a symbol, a unit or chat's
      // shorthand (`u`, `r`, `M&M`): it tells no language.
      if word.count <= 4, word.dropFirst().allSatisfy({ $0 & 0xC0 == 0x80 }) { return }
      // A word of ASCII bytes (most words of Latin-script text) is looked up by its bytes: made
      // into a `String` and hashed, it cost several times as much.
      var bits = word.withUnsafeBufferPointer { Self.languages(ofWord: $0) }
      while bits != 0 {
        counts[bits.trailingZeroBitCount] += 1
        bits &= bits - 1
      }
    }
    var index = 0
    while index < bytes.count {
      let byte = bytes[index]
      let run: ScriptRun
      let length: Int
      if byte < 0x80 {
        length = 1
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"):
          run = .letter
          if word.isEmpty { wordStart = index }
          word.append(byte | 0x20)
        case UInt8(ascii: "a")...UInt8(ascii: "z"):
          run = .letter
          if word.isEmpty { wordStart = index }
          word.append(byte)
        case UInt8(ascii: "'"):
          run = .apostrophe
          if word.isEmpty { endWord(at: index) } else { word.append(byte) }
        default:
          run = .none
          endWord(at: index)
        }
      } else {
        let (value, scalarLength) = UTF8Decoding.decode(bytes, at: index)
        length = scalarLength
        let scalar = Unicode.Scalar(value) ?? "\u{FFFD}"
        run = ScriptRun(scalar)
        switch run {
        case .letter:
          if word.isEmpty { wordStart = index }
          for lower in scalar.properties.lowercaseMapping.unicodeScalars { UTF8Decoding.append(lower.value, to: &word) }
        case .apostrophe where !word.isEmpty:
          word.append(UInt8(ascii: "'"))
        default:
          endWord(at: index)
        }
      }
      // A run of kana or Han counts once, at its first character outside the matches being
      // judged: a run that only begins with the match (`插入帶有…`) is still the text's.
      if run != previous { runCounted = false }
      if !runCounted, run == .kana || run == .han,
        excluded.isEmpty || !excluded.contains(where: { $0.contains(index) })
      {
        runCounted = true
        if run == .kana { kanaRuns += 1 } else { hanRuns += 1 }
      }
      previous = run
      index += length
    }
    endWord(at: index)
    if kanaRuns > 0 {
      counts[Self.japanese] = kanaRuns + hanRuns
    } else {
      counts[Self.chinese] += hanRuns
    }
  }

  /// The byte ranges of a text that are links, addresses or tags rather than words: each run of
  /// ASCII characters other than white space that holds `://`, `@`, or a `/` after a `.`
  /// (`t.co/abc`), or begins with `www.` or `#`.
  static func unreadSpans(_ bytes: UnsafeBufferPointer<UInt8>) -> [Range<Int>] {
    var spans: [Range<Int>] = []
    var index = 0
    while index < bytes.count {
      guard bytes[index] > 0x20, bytes[index] < 0x80 else {
        index += 1
        continue
      }
      let start = index
      var at = false
      var dot = false
      var path = false
      var scheme = false
      while index < bytes.count, bytes[index] > 0x20, bytes[index] < 0x80 {
        switch bytes[index] {
        case UInt8(ascii: "@"): at = true
        case UInt8(ascii: "."): dot = true
        case UInt8(ascii: "/"):
          if dot { path = true }
          if index > start, bytes[index - 1] == UInt8(ascii: ":"), index + 1 < bytes.count,
            bytes[index + 1] == UInt8(ascii: "/")
          {
            scheme = true
          }
        default: break
        }
        index += 1
      }
      // `www.` in either case, compared in place (mapped to arrays, the comparison allocated two
      // for every run of every text judged).
      let www =
        index - start > 4 && bytes[start] | 0x20 == UInt8(ascii: "w") && bytes[start + 1] | 0x20 == UInt8(ascii: "w")
        && bytes[start + 2] | 0x20 == UInt8(ascii: "w") && bytes[start + 3] == UInt8(ascii: ".")
      if at || path || scheme || www || bytes[start] == UInt8(ascii: "#") { spans.append(start..<index) }
    }
    return spans
  }

  /// Whether a lower-case word is among the most frequent words of a language of the table, a
  /// pinyin not counted (pinyin syllables are also the parts of Chinese names: `Li`, `Wang`).
  static func isFrequentWord(_ word: String) -> Bool {
    var word = word
    return word.withUTF8 { languages(ofWord: $0) } & ~(1 << UInt64(chinese)) != 0
  }

  /// Whether the bytes are one word as ``init(utf8:excluding:)`` reads words: letters, and
  /// apostrophes after the first letter.
  static func isWord(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    var index = 0
    while index < bytes.count {
      let (value, length) = UTF8Decoding.decode(bytes, at: index)
      let run = ScriptRun(Unicode.Scalar(value) ?? "\u{FFFD}")
      guard run == .letter || (run == .apostrophe && index > 0) else { return false }
      index += length
    }
    return !bytes.isEmpty
  }

  /// Whether an entry of the language `code` may match: no other language counts more words
  /// than it does. A code the table does not know never may.
  func admits(_ code: String) -> Bool {
    guard let index = Self.codes.firstIndex(of: code) else { return false }
    return admits(languageAt: index)
  }

  /// ``admits(_:)`` for the language at `index` of ``codes`` (false for any other index). With
  /// `others` (bits of indices in ``codes``), only those languages can take the text: the entry
  /// is not admitted where one of them counts the most words of all, more than its own (an
  /// Italian text with one Dutch word is Italian, and English `bitch`, also a Dutch word, is
  /// admitted there). With none (0), any language counting more than its own can.
  func admits(languageAt index: Int, against others: UInt64 = 0) -> Bool {
    guard counts.indices.contains(index) else { return false }
    let own = counts[index]
    let most = counts.max() ?? own
    if others == 0 || own == most { return own == most }
    var bits = others
    while bits != 0 {
      let other = bits.trailingZeroBitCount
      if other < counts.count, counts[other] == most { return false }
      bits &= bits - 1
    }
    return true
  }

  /// Language codes as bits of their indices in ``codes``; codes the table does not know are
  /// left out.
  static func mask(of languages: [String]) -> UInt64 {
    languages.reduce(0) { mask, code in
      codes.firstIndex(of: code).map { mask | 1 << UInt64($0) } ?? mask
    }
  }

  /// What a scalar adds to: a word of letters (Latin, Cyrillic, Greek and other alphabets), an
  /// apostrophe inside a word, a run of kana or of Han characters, or nothing.
  private enum ScriptRun: Equatable {
    case none, letter, apostrophe, kana, han

    init(_ scalar: Unicode.Scalar) {
      switch scalar.value {
      case 0x27, 0x2019: self = .apostrophe
      case 0x3040...0x30FF, 0x31F0...0x31FF, 0xFF66...0xFF9D: self = .kana
      case 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF, 0x20000...0x323AF: self = .han
      default: self = scalar.properties.isAlphabetic ? .letter : .none
      }
    }
  }
}

/// ASCII words, each with a word of bits, in an open-addressing table of their bytes: a lookup
/// hashes the bytes and compares them, where a `[String: UInt64]` made a string and hashed it
/// as Unicode text.
struct ASCIIWordTable: Sendable {
  /// Per slot, the word's hash in the high 32 bits and its index in ``starts`` plus one in the
  /// low 32 (0: an empty slot).
  private var slots: [UInt64]
  /// Where each word's bytes begin in ``bytes``; one more at the end.
  private var starts: [UInt32] = [0]
  /// Each word's bits.
  private var values: [UInt64] = []
  /// The words' bytes, one after another.
  private var bytes: [UInt8] = []

  /// An empty table with room for `capacity` words (at most half its slots full).
  init(capacity: Int) {
    var bits = 4
    while 1 << bits < max(capacity, 1) * 2 { bits += 1 }
    slots = [UInt64](repeating: 0, count: 1 << bits)
  }

  /// The words of `text` between space bytes, each with `bits` (joined with the bits of a word
  /// added before); words with a byte of 0x80 or more are left out. The table must have room
  /// (``init(capacity:)``) for every word added.
  mutating func add(wordsSplitAtSpaces text: UnsafeBufferPointer<UInt8>, bits: UInt64) {
    var start = 0
    for index in 0...text.count where index == text.count || text[index] == UInt8(ascii: " ") {
      let word = UnsafeBufferPointer(rebasing: text[start..<index])
      start = index + 1
      guard !word.isEmpty, let hash = Self.hash(word) else { continue }
      precondition((values.count + 1) * 2 <= slots.count, "made with room for fewer words")
      let slot = find(word, hash: hash)
      if slots[slot] != 0 {
        values[Int(slots[slot] & 0xFFFF_FFFF) - 1] |= bits
        continue
      }
      bytes.append(contentsOf: word)
      starts.append(UInt32(bytes.count))
      values.append(bits)
      slots[slot] = UInt64(hash) << 32 | UInt64(values.count)
    }
  }

  /// The bits of `word`: 0 when the table does not hold it, nil when it is not ASCII.
  @inline(__always)
  func bits(of word: UnsafeBufferPointer<UInt8>) -> UInt64? {
    guard let hash = Self.hash(word) else { return nil }
    let slot = slots[find(word, hash: hash)]
    return slot == 0 ? 0 : values[Int(truncatingIfNeeded: slot & 0xFFFF_FFFF) &- 1]
  }

  /// The slot of `word`, or the empty slot where it would go.
  private func find(_ word: UnsafeBufferPointer<UInt8>, hash: UInt32) -> Int {
    let mask = slots.count &- 1
    var slot = Int(truncatingIfNeeded: hash) & mask
    while true {
      let found = slots[slot]
      if found == 0 { return slot }
      if UInt32(truncatingIfNeeded: found &>> 32) == hash {
        let entry = Int(truncatingIfNeeded: found & 0xFFFF_FFFF) &- 1
        let start = Int(starts[entry])
        let end = Int(starts[entry &+ 1])
        if end &- start == word.count, bytes[start..<end].elementsEqual(word) { return slot }
      }
      slot = (slot &+ 1) & mask
    }
  }

  /// FNV-1a of the bytes, folded to 32 bits, or nil when a byte is 0x80 or more.
  @inline(__always)
  static func hash(_ word: UnsafeBufferPointer<UInt8>) -> UInt32? {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    var high: UInt8 = 0
    for byte in word {
      hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
      high |= byte
    }
    guard high < 0x80 else { return nil }
    return UInt32(truncatingIfNeeded: hash ^ hash &>> 32)
  }
}
