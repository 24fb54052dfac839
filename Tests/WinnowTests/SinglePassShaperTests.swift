import PropertyBased
import Testing

@_spi(Tools) @testable import Winnow

/// The single-pass normalizer against the passes of `WordShaper`, its reference: where it does
/// not give up, it writes exactly the units the passes write, under every rule set.
@Suite("Single-pass shaping")
struct SinglePassShaperTests {
  /// Pieces of chat, weighted towards what the single pass handles (words, CJK, punctuation,
  /// apostrophes, repeats), with every trigger of the passes among them.
  static let pieces: [String] = [
    "hello", "world", "HeLLo", "I", "a", "don't", "it’s", "'", "’", "''", "rock'n'roll", " ", " ", "  ", ", ", ".",
    "...", "-", "傻", "逼", "傻逼", "腦殘", "试试试", "好", "，", "。", "ｆｕｃｋ", "ß", "㎏", "\u{200B}", "🍆", "é", "е",
    "한국", "42", "7", "x", "ll", "\n", "a_b", "x[y", "`", "^", "ab\\\\cd", "sh1t", "f.u.c.k", "@", "$", "!", "反v动",
    "a b", "k", "ﷺ", "طيززز", "كَـس", "ل", "لل", "ك س", "ك.س7", "Hello There", "ok go", "the SEE saw", "a B c",
    "привет", "ПРИВЕТ", "сссука", "Ελλάδα", "naïve", "ｆｕ", "नमस्ते", "שלום", "Łódź", "ǅ", "ß", "ﬁ", "ⅷ",
    "quick brown fox jumps over the lazy dog", "Pack my box with five dozen jugs", "it is ok to go on",
    "abcdefghij klmnop", " x", "z y", "to be or not", "ab c d e f gh", "hi a b c", "abcdef g h", "abcdefgh ",
    "Xylophones  ", "Xylophone", "café au lait", "привет мир", "я б в", "ёж а б", "नमस्ते दुनिया", "é", "ж", "ॐ", " ж", " é",
    "ïa b",
    // Digits in a token with letters: after a letter, before the first one, repeated, with no
    // look-alike, with an Arabic letter, in a run of letters beyond ASCII.
    "2nd", "0", "00", "1", "3", "l00k", "0o", "o0", "mp3", "b2b", "h4x0r", "ب1", "1é", "é1", "ж0ж", "1st place",
    // A lone character between CJK characters: letters, digits, an Arabic letter, with spaces.
    "售k粉", "反 v 动", "第2", "好ب好", "k", "傻x", " 逼",
    // Plane 1: an uncased script (Shavian), emoji alone, repeated and in runs, a cased script
    // (Deseret, whose capitals fold), letters that fold by compatibility (mathematical bold),
    // a modifier that is a separator, a letter of plane 2, each beside BMP letters.
    "𐑣𐑧𐑤𐑴", "𐑐𐑮𐑪 𐑜𐑮𐑨𐑥", "𐑦𐑯 𐑞", "😂😂", "🍆🍆🍆", "🍆 🍆", "𐐔𐐯𐑅", "𐐼𐐯𐑅", "𝐟𝐮𝐜𝐤", "👍🏽", "𠀀",
    "𐑣é", "ж𐑣", "नम𐑣", "🍆ж", "ж 😂",
  ]
  static let textGen = Gen.int(in: 0...(pieces.count - 1)).map { pieces[$0] }.array(of: 0...10).map { $0.joined() }

  static let ruleSets: [Normalization] = [
    .default,
    Normalization.default.subtracting(.separators),
    Normalization.default.subtracting(.repeatedLetters),
    Normalization.default.subtracting(.interleavedLetters),
    Normalization.default.subtracting(.lookalikes),
    [.separators, .repeatedLetters, .interleavedLetters],
  ]

  /// The single pass's units for `text`, or nil where it gives up.
  static func singlePass(_ text: String, _ normalizer: Normalizer) -> NormalizedText? {
    var result = NormalizedText()
    var text = text
    let handled = text.withUTF8 { normalizer.normalizeInOnePass($0, into: &result) }
    return handled ? result : nil
  }

  static func byPasses(_ text: String, _ normalizer: Normalizer) -> NormalizedText {
    var result = NormalizedText()
    var text = text
    text.withUTF8 { normalizer.normalizeByPasses($0, into: &result) }
    return result
  }

  @Test func singlePassWritesWhatThePassesWrite() async {
    let normalizers = Self.ruleSets.map { Normalizer(rules: $0) }
    var handled = 0
    var texts = 0
    await propertyCheck(count: 1500, input: Self.textGen) { text in
      for normalizer in normalizers {
        texts += 1
        guard let single = Self.singlePass(text, normalizer) else { continue }
        handled += 1
        let reference = Self.byPasses(text, normalizer)
        #expect(single.count == reference.count, "\(text.debugDescription) under \(normalizer.rules.rawValue)")
        #expect(single.scalars == reference.scalars, "\(text.debugDescription) under \(normalizer.rules.rawValue)")
        #expect(single.units == reference.units, "\(text.debugDescription) under \(normalizer.rules.rawValue)")
        #expect(single.hasOptionalUnits == reference.hasOptionalUnits, "\(text.debugDescription)")
        #expect(single.hasSpelledUnits == reference.hasSpelledUnits, "\(text.debugDescription)")
      }
    }
    // The comparison means something only if the single pass takes a good share of the texts.
    #expect(handled * 5 > texts, "single pass took \(handled) of \(texts) texts")
  }

  /// A text the single pass finds no word in has no letter or digit among its units (a walk
  /// then builds no masks of word scalars), and the passes always allow for words.
  @Test func textsWithoutWordsHaveNoWordUnits() async {
    let normalizers = Self.ruleSets.map { Normalizer(rules: $0) }
    var wordless = 0
    await propertyCheck(count: 800, input: Self.textGen) { text in
      for normalizer in normalizers {
        #expect(Self.byPasses(text, normalizer).mayHaveWords)
        guard let single = Self.singlePass(text, normalizer), !single.mayHaveWords else { continue }
        wordless += 1
        #expect(single.units.allSatisfy { !$0.scalarClass.isTokenLetter }, "\(text.debugDescription)")
      }
    }
    #expect(wordless > 0)
    let normalizer = Normalizer()
    #expect(Self.singlePass("傻逼，你好。", normalizer)?.mayHaveWords == false)
    #expect(Self.singlePass("傻逼 ok", normalizer)?.mayHaveWords == true)
    #expect(Self.singlePass("傻逼１", normalizer)?.mayHaveWords == true)
  }

  /// Bytes of chat with broken UTF-8 among them: a three-byte sequence cut short, an overlong
  /// one, an encoded surrogate, a stray continuation byte. Each invalid byte is a U+FFFD of its
  /// own, for the single pass's run of CJK characters as for the general decoder.
  static let bytePieces: [[UInt8]] =
    pieces.map { Array($0.utf8) } + [
      [0xE5, 0x82], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0x80], [0xE5, 0x82, 0x41],
      [0xD0], [0xC0, 0xB0], [0xC1, 0xBF], [0xD0, 0x41], [0xE0, 0xA4],
      // Overlong encodings of a space and a comma, between CJK characters or not.
      [0xE0, 0x80, 0xA0], [0xE5, 0x82, 0xBB, 0xE0, 0x81, 0x8C, 0xE5, 0x82, 0xBB],
      // Four-byte sequences cut short, overlong, beyond U+10FFFF, with a stray byte inside.
      [0xF0, 0x90, 0x91], [0xF0, 0x80, 0x80, 0x80], [0xF0, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80],
      [0xF0, 0x90, 0x91, 0x41], [0xF0, 0x90, 0x41, 0xA3],
    ]
  static let bytesGen = Gen.int(in: 0...(bytePieces.count - 1)).map { bytePieces[$0] }.array(of: 0...10).map {
    $0.flatMap { $0 }
  }

  @Test func singlePassReadsBrokenUTF8AsThePassesDo() async {
    let normalizers = Self.ruleSets.map { Normalizer(rules: $0) }
    var compared = 0
    var texts = 0
    await propertyCheck(count: 800, input: Self.bytesGen) { bytes in
      for normalizer in normalizers {
        texts += 1
        var single = NormalizedText()
        var reference = NormalizedText()
        let handled = bytes.withUnsafeBufferPointer { normalizer.normalizeInOnePass($0, into: &single) }
        guard handled else { continue }
        compared += 1
        bytes.withUnsafeBufferPointer { normalizer.normalizeByPasses($0, into: &reference) }
        #expect(single.scalars == reference.scalars, "\(bytes) under \(normalizer.rules.rawValue)")
        #expect(single.units == reference.units, "\(bytes) under \(normalizer.rules.rawValue)")
      }
    }
    // Broken bytes must reach the single pass often enough for the comparison to mean something.
    #expect(compared * 5 > texts, "single pass took \(compared) of \(texts) texts")
  }

  /// Lowercase ASCII letters fold to themselves as letters under every rule set, so the single
  /// pass takes their runs in its own loop (were it false, that loop would silently never run).
  @Test func lowercaseLettersArePlainUnderEveryRuleSet() {
    for rules in Self.ruleSets + [.none, [.caseFolding], [.lookalikes, .separators]] {
      #expect(Normalizer(rules: rules).lowercaseIsPlain, "\(rules.rawValue)")
    }
  }

  /// No fold table of any per-scalar rule set folds a value below U+0800 or a surrogate to an
  /// unspaced unit, so the single pass reads runs of CJK characters in its own loop (were it
  /// false, that loop would silently never run); a table that did would not be trusted to stop
  /// the loop at an overlong sequence.
  @Test func foldTablesStopRunsOfCJKAtInvalidSequences() {
    let perScalar = FoldTable.perScalarRules.rawValue
    // Every subset of the per-scalar rules, the only ones a table depends on.
    for bits in 0...perScalar where bits & ~perScalar == 0 {
      let rules = Normalization(rawValue: bits)
      #expect(FoldTable.shared(for: rules).stopsInvalidUnspacedRuns, "\(rules.rawValue)")
    }
  }

  /// Under the default rules uppercase ASCII letters fold to lowercase and a space is a
  /// separator, so the loop of ASCII letters also takes capitals and the spaces between words;
  /// without case folding it must leave capitals to the fold table.
  @Test func asciiWordsLoopTakesCapitalsAndSpacesWhereTheRulesAllow() {
    let folding = Normalizer().asciiFolding
    #expect(folding.foldsUppercase && folding.spaceIsSeparator)
    let withoutCase = Normalizer(rules: Normalization.default.subtracting(.caseFolding)).asciiFolding
    #expect(!withoutCase.foldsUppercase && withoutCase.spaceIsSeparator)
  }

  /// English as the ASCII word loop meets it: words of every length, capitals, repeats (within a
  /// word, across a separator, long), runs of separators (one space, `, `, ` - `, `...`, a tab),
  /// words of one letter, and what the loop leaves to `feed` (digits, apostrophes, `@ $ !`,
  /// CJK, a letter beyond ASCII).
  static let englishPieces: [String] = [
    "the", "quick", "brown", "Fox", "JUMPS", "over", "lazy", "dogs", "a", "I", "x", "balloon", "bookkeeper",
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "Mississippi", "moon", "coffee", "abcdefghijklmnopqrstuvwxyzabcdefgh",
    " ", " ", " ", ", ", ". ", " - ", "...", "\t", "  ", "/", ":", ";", "(", ")", "\"", "_", "%",
    "2", "42", "don't", "'", "@", "$", "!", "sh1t", "傻逼", "é", "ß", "\n",
  ]
  static let englishGen = Gen.int(in: 0...(englishPieces.count - 1)).map { englishPieces[$0] }.array(of: 1...40)
    .map { $0.joined() }

  /// The ASCII word loop's vector step (`winnow_ascii_words`, where the processor runs it)
  /// writes what the loop writes one unit at a time, and takes the same texts, under every rule
  /// set; on a processor without it both normalizers are the same and the test says so.
  @Test func asciiWordsVectorStepWritesWhatTheLoopWrites() async {
    let pairs = (Self.ruleSets + [.none, [.caseFolding, .separators]]).map {
      (Normalizer(rules: $0), Normalizer(rules: $0, vectorizesASCIIWords: false))
    }
    #expect(pairs.allSatisfy { $0.1.asciiWordsSetup == nil })
    guard ASCIIWordsSetup.runs else {
      Issue.record("winnow_ascii_words does not run on this processor: nothing compared")
      return
    }
    #expect(pairs.contains { $0.0.asciiWordsSetup != nil })
    var handled = 0
    await propertyCheck(count: 1500, input: Self.englishGen) { text in
      for (vectorized, plain) in pairs {
        let (single, reference) = (Self.singlePass(text, vectorized), Self.singlePass(text, plain))
        #expect((single == nil) == (reference == nil), "\(text.debugDescription) under \(plain.rules.rawValue)")
        guard let single, let reference else { continue }
        handled += 1
        #expect(single.scalars == reference.scalars, "\(text.debugDescription) under \(plain.rules.rawValue)")
        #expect(single.units == reference.units, "\(text.debugDescription) under \(plain.rules.rawValue)")
        #expect(single.mayHaveWords == reference.mayHaveWords, "\(text.debugDescription)")
      }
    }
    #expect(handled > 1500, "the single pass took \(handled) texts")
    // Texts near the ends of the buffers: every length of a word run up to 40 bytes, then text.
    for length in 1...40 {
      let text = String(repeating: "ab", count: 20).prefix(length) + ", then more words after it"
      for (vectorized, plain) in pairs {
        #expect(Self.singlePass(String(text), vectorized)?.units == Self.singlePass(String(text), plain)?.units)
        #expect(
          Self.singlePass(String(text.prefix(length)), vectorized)?.units
            == Self.singlePass(String(text.prefix(length)), plain)?.units)
      }
    }
  }

  /// Everyday chat takes the single pass; each rule that needs the passes makes it give up.
  @Test(arguments: [
    ("Don't stop me now, I'm having such a good time", true),
    ("你好，世界！今天天气怎么样？", true),
    ("HELLO   world...  it’s fine", true),
    ("Good Morning to You all", true),
    ("so i am fine", true),
    ("ok so i u see", true),
    ("take a look at a cat", true),
    ("哈哈哈哈 ok 好的", true),
    ("f u c k", true),
    ("f.u.c.k a a a", true),
    ("1 - 5", false),
    ("s h 1 t", false),
    ("sh1t happens", true),
    ("the 2nd time, l00k at mp3s", true),
    ("ب1a", false),
    ("反v动", true),
    ("反 v 动 和 售k粉", true),
    ("反ب动", true),
    ("email me @ home", false),
  ])
  func commonChatTakesTheSinglePass(text: String, takesSinglePass: Bool) {
    let normalizer = Normalizer()
    #expect((Self.singlePass(text, normalizer) != nil) == takesSinglePass)
    // Whichever way it goes, `normalize` gives what the passes give.
    let normalized = normalizer.normalize(text)
    let reference = Self.byPasses(text, normalizer)
    #expect(normalized.units == reference.units && normalized.scalars == reference.scalars)
    #expect(normalized.hasOptionalUnits == reference.hasOptionalUnits)
    #expect(normalized.hasSpelledUnits == reference.hasSpelledUnits)
  }
}
