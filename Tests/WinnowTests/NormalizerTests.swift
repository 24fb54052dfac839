import Testing

@_spi(Tools) @testable import Winnow

/// Each rule of ``Normalization``, as a table of named cases: text in, normalized text out.
@Suite("Normalizer")
struct NormalizerTests {
  struct Case: CustomTestStringConvertible, Sendable {
    let name: String
    let text: String
    let expected: String
    var rules: Normalization = .default
    var testDescription: String { name }
  }

  static let cases: [Case] = [
    // Compatibility folding
    Case(name: "full-width letters", text: "ｆｕｃｋ", expected: "fuck"),
    Case(name: "full-width digits", text: "１２３", expected: "123"),
    Case(name: "circled digit and letter", text: "①ⓕ", expected: "1f", rules: .compatibility),
    Case(name: "math bold letters", text: "𝐟𝐮𝐜𝐤", expected: "fuck"),
    Case(name: "accents stripped", text: "fück", expected: "fuck"),
    Case(name: "zalgo marks dropped", text: "f\u{0301}\u{0316}uck", expected: "fuck"),
    Case(name: "ideographic space", text: "ab\u{3000}cd", expected: "ab cd", rules: [.compatibility, .separators]),
    // Case folding
    Case(name: "upper case", text: "FUCK", expected: "fuck"),
    Case(name: "sharp s", text: "STRAẞE", expected: "strasse", rules: [.compatibility, .caseFolding]),
    // Traditional → Simplified
    Case(name: "traditional characters", text: "腦殘", expected: "脑残"),
    Case(name: "simplified unchanged", text: "脑残", expected: "脑残"),
    Case(name: "Japanese shinjitai", text: "黒鬼売仏", expected: "黑鬼卖佛"),
    Case(name: "shinjitai Chinese also writes", text: "给予芸", expected: "给予芸"),
    // Invisible characters
    Case(name: "zero-width space", text: "fu\u{200B}ck", expected: "fuck"),
    Case(name: "zero-width joiner and BOM", text: "傻\u{200D}\u{FEFF}逼", expected: "傻逼"),
    Case(name: "soft hyphen", text: "fu\u{00AD}ck", expected: "fuck"),
    // Separators
    Case(name: "dotted letters", text: "f.u.c.k", expected: "fuck"),
    Case(name: "spaced letters", text: "f u c k", expected: "fuck"),
    Case(name: "spaced digits", text: "1 2 3", expected: "123"),
    Case(name: "space between CJK", text: "傻 逼", expected: "傻逼"),
    Case(name: "symbol between CJK", text: "傻*逼", expected: "傻逼"),
    Case(name: "words stay apart", text: "I am  fine", expected: "i am fine"),
    Case(name: "separator runs collapse", text: "hello, world!", expected: "helo world"),
    Case(name: "apostrophe inside a word", text: "don't", expected: "dont"),
    Case(name: "two-letter pieces are not joined", text: "fu ck", expected: "fu ck"),
    Case(name: "trailing exclamation is a separator", text: "f.u.c.k!", expected: "fuck"),
    Case(name: "CJK next to Latin", text: "你好 world", expected: "你好world"),
    // Interleaved letters (primary form leaves optional units out)
    Case(name: "letter between CJK", text: "反v动", expected: "反动"),
    Case(name: "digit between CJK", text: "反3动", expected: "反动"),
    Case(name: "letter next to one CJK only", text: "k粉", expected: "k粉"),
    // Repeated letters
    Case(name: "repeated letters merge", text: "fuuuuck", expected: "fuck"),
    Case(name: "repeated digits stay", text: "1000", expected: "1000"),
    // Look-alikes
    Case(name: "digit for letter", text: "sh1t", expected: "shit"),
    Case(name: "dollar for s", text: "$hit", expected: "shit"),
    Case(name: "at for a", text: "@ss", expected: "as"),
    Case(name: "leet word", text: "h3ll0", expected: "helo"),
    Case(name: "cyrillic a", text: "fаck", expected: "fack"),
    Case(name: "dollar amount stays", text: "$100", expected: "100"),
    Case(name: "plain number stays", text: "123467", expected: "123467"),
    Case(name: "spelled leet", text: "s.h.1.t", expected: "shit"),
    // No rules: untouched
    Case(name: "no rules", text: "Ｆ.u c\u{200B}k", expected: "Ｆ.u c\u{200B}k", rules: .none),
  ]

  /// The flattened fold table folds every scalar as the tables it is built from do, for rule
  /// sets with and without each per-scalar rule (it folds only the tables' keys and leaves
  /// every other scalar as it is).
  /// The blocks the class table fills without property lookups hold the class the properties
  /// give, for every scalar (a newer Unicode in the standard library would show here).
  @Test func knownBlocksHaveTheClassTheirPropertiesGive() {
    let values = (0..<UInt32(0x10000)).filter { ScalarClass.knownBlock($0) != nil }
    #expect(values.count > 40_000)
    let mismatches = values.filter { ScalarClass.knownBlock($0) != ScalarClass.compute($0) }
    #expect(mismatches.isEmpty, "\(mismatches.prefix(10).map { String($0, radix: 16) })")
    #expect((0..<UInt32(0x10000)).allSatisfy { ScalarClass.of($0) == ScalarClass.compute($0) })
  }

  /// Plane 1's tables, and the computed classes past them, give every scalar the class its
  /// properties give (`𐐨`, Deseret, and `😀` other; an ideograph of plane 2 unspaced).
  @Test func supplementaryScalarsHaveTheClassTheirPropertiesGive() {
    let values = Array(0x10000..<UInt32(0x20000)) + [0x20000, 0x2A6DF, 0xE0001, 0x10FFFF]
    let mismatches = values.filter { ScalarClass.of($0) != ScalarClass.compute($0) }
    #expect(mismatches.isEmpty, "\(mismatches.prefix(10).map { String($0, radix: 16) })")
    #expect(ScalarClass.of(0x10428) == .other)
    #expect(ScalarClass.of(0x1F600) == .other)
    #expect(ScalarClass.of(0x20000) == .unspaced)
  }

  /// The fold table's set of supplementary keys holds exactly what a `Set` holds, for sets
  /// crowded on a few pages and spread over all the planes.
  @Test func scalarBitsHoldWhatASetHolds() {
    var generator = SystemRandomNumberGenerator()
    for round in 0..<20 {
      let spread: ClosedRange<UInt32> = round.isMultiple(of: 2) ? 0x10400...0x107FF : 0...0x10FFFF
      let members = Set((0..<(round * 37)).map { _ in UInt32.random(in: spread, using: &generator) })
      let bits = ScalarBits(members)
      let probes = members.flatMap { [$0, $0 &+ 1, $0 &- 1, $0 ^ 0x40] } + [0, 0x10FFFF, 0x110000, .max]
      let wrong = probes.filter { bits.contains($0) != members.contains($0) }
      #expect(wrong.isEmpty, "\(wrong.prefix(5))")
    }
  }

  @Test(arguments: [
    Normalization.default, [.caseFolding], [.compatibility, .lookalikes],
    [.traditionalToSimplified, .invisibleCharacters], Normalization.none,
  ])
  func foldTableAgreesWithTheTables(_ rules: Normalization) {
    let table = FoldTable.shared(for: rules)
    var mismatches: [UInt32] = []
    let supplementary = FoldTable.changedScalars(rules: .default).filter { $0 >= 0x10000 }
    for value in Array(0..<UInt32(0x10000)) + supplementary + [0x1F595, 0x20000, 0x10FFFF] {
      var folded: [UInt32] = []
      var classes: [ScalarClass] = []
      table.forEachFolded(value) { scalar, scalarClass in
        folded.append(scalar)
        classes.append(scalarClass)
      }
      let expected = FoldTable.fold(value, rules: rules)
      if folded != expected || classes != expected.map(ScalarClass.of) { mismatches.append(value) }
    }
    #expect(mismatches.isEmpty, "\(mismatches.prefix(10).map { String($0, radix: 16) })")
  }

  @Test(arguments: cases)
  func normalizes(_ testCase: Case) {
    let normalized = Normalizer(rules: testCase.rules).normalize(testCase.text)
    #expect(normalized.string == testCase.expected)
  }

  @Test func repeatedLettersAreCounted() {
    let text = Normalizer().normalize("assss")
    #expect(text.string == "as")
    #expect(text.runs == [1, 4])
  }

  @Test func everyUnitMapsToItsOriginalCharacters() {
    let original = "Ｆ.u.c.k 傻 逼"
    let text = Normalizer().normalize(original)
    #expect(text.string == "fuck傻逼")  // a separator next to CJK vanishes
    let bytes = Array(original.utf8)
    #expect(String(decoding: bytes[text.originalRange(ofUnits: 0..<4)], as: UTF8.self) == "Ｆ.u.c.k")
    #expect(String(decoding: bytes[text.originalRange(ofUnits: 4..<6)], as: UTF8.self) == "傻 逼")
  }

  @Test func optionalUnitsAreKeptAndFlagged() {
    let text = Normalizer().normalize("售k粉")
    #expect(text.hasOptionalUnits)
    #expect(text.scalars.count == 3)
    #expect(text.isOptional(1))
  }

  /// An empty text (an empty message, an empty field) has no units, whether the value is new
  /// or held a text before, with the word rules and without them.
  @Test(arguments: [Normalization.default, [.caseFolding]])
  func anEmptyTextHasNoUnits(rules: Normalization) {
    let normalizer = Normalizer(rules: rules)
    #expect(normalizer.normalize("").count == 0)
    var reused = NormalizedText()
    normalizer.normalize("Ｆ.u.c.k 傻 逼", into: &reused)
    normalizer.normalize("", into: &reused)
    #expect(reused.count == 0)
    #expect(reused.string.isEmpty)
    #expect(!reused.hasOptionalUnits)
  }

  @Test func invalidUTF8ReadsAsReplacementCharacters() {
    let bytes: [UInt8] = [0x61, 0xFF, 0x62, 0xE4, 0xBD]
    var text = NormalizedText()
    bytes.withUnsafeBufferPointer { Normalizer(rules: .none).normalize(utf8: $0, into: &text) }
    #expect(text.scalars == [0x61, 0xFFFD, 0x62, 0xFFFD, 0xFFFD])
    #expect(text.starts == [0, 1, 2, 3, 4])
  }
}
