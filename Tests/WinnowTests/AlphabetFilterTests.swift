import Foundation
import PropertyBased
import Testing
import WinnowTestSupport

@_spi(Tools) @testable import Winnow

/// The alphabet filter, which lets a scan leave a text unnormalized: against its reference,
/// the normalized text itself. A text the filter turns away must have no unit whose scalar is
/// one of the patterns' (a space apart), under every rule set.
@Suite("Alphabet filter")
struct AlphabetFilterTests {
  /// Pieces of text in several scripts, with the characters that become others by folding or
  /// as look-alikes (full-width, circled and superscript digits, mathematical letters,
  /// ligatures, Cyrillic and Greek look-alikes, invisible characters, `@ $ !`), and bytes that
  /// are not UTF-8.
  static let pieces: [String] = [
    "hello", "HeLLo", " ", ", ", ".", "-", "'", "’", "傻", "逼", "腦殘", "ｆｕｃｋ", "ß", "㎏", "\u{200B}", "🍆", "é",
    "е", "а", "с", "ο", "ρ", "한국", "42", "0", "1", "３", "①", "¹", "ⅷ", "ﬁ", "𝐟𝐮𝐜𝐤", "𝟎", "@", "$", "!", "sh1t",
    "нам", "привет", "Ελλάδα", "नमस्ते", "দেশ", "שלום", "سلام", "𐑣𐑧𐑤𐑴", "𐐔𐐯𐑅", "ქართ", "Հայ", "😂", "𠀀", "\u{FFFD}",
    "ж", "ﷺ", "ǅ", "Ⓕ", "｡", "…", "—", "“", "«", "\u{0301}", "\u{0915}\u{093C}",
  ]
  static let textGen = Gen.int(in: 0...(pieces.count - 1)).map { pieces[$0] }.array(of: 0...8).map { $0.joined() }

  /// Lists, each of one script or kind of character, so that texts of the others are turned
  /// away.
  static let lists: [[String]] = [
    ["fuck", "shit"], ["傻逼", "脑残"], ["o"], ["i"], ["ж", "сука"], ["𐑣"], ["🍆"], ["नम"], ["a b"], ["3"], ["kg"],
    ["ss"], ["'"], ["ǆ"], ["x"],
  ]

  static let ruleSets: [Normalization] = [
    .default, Normalization.default.subtracting(.separators), Normalization.default.subtracting(.lookalikes),
    Normalization.default.subtracting(.compatibility), [.separators, .repeatedLetters], .none,
  ]

  /// Each list under each rule set: its layer, whose filter the test reads.
  static let layers: [MatcherLayer] = ruleSets.flatMap { rules in
    lists.compactMap { words in
      try? Matcher(
        lists: [
          WordList(
            name: "t", origin: .custom, entries: words.map { Entry(text: $0, boundary: .substring) },
            normalization: rules)
        ]
      ).layers.first
    }
  }

  /// The scalars of the layer's patterns, a space apart.
  static func alphabet(_ layer: MatcherLayer) -> Set<UInt32> {
    var scalars = Set<UInt32>()
    layer.automaton?.forEachAlphabetScalar { scalars.insert($0) }
    scalars.remove(0x20)
    return scalars
  }

  static func admits(_ filter: AlphabetFilter, _ bytes: [UInt8]) -> Bool {
    bytes.withUnsafeBufferPointer { filter.admits($0) }
  }

  @Test func aTextTurnedAwayHasNoUnitOfThePatterns() async {
    // A list of nothing but an apostrophe is empty under some rule sets, and not compiled.
    #expect(Self.layers.count > Self.lists.count * (Self.ruleSets.count - 1))
    let alphabets = Self.layers.map(Self.alphabet)
    var turnedAway = 0
    var texts = 0
    await propertyCheck(count: 600, input: Self.textGen) { text in
      // Cut at a random byte too: a sequence that is not UTF-8 passes.
      let bytes = Array(text.utf8)
      for cut in [bytes.count, bytes.count / 2] {
        let prefix = Array(bytes[..<cut])
        for (layer, alphabet) in zip(Self.layers, alphabets) {
          guard let filter = layer.alphabetFilter else { continue }
          texts += 1
          if Self.admits(filter, prefix) { continue }
          turnedAway += 1
          var normalized = NormalizedText()
          prefix.withUnsafeBufferPointer { layer.normalizer.normalize(utf8: $0, into: &normalized) }
          let units = normalized.scalars.filter { alphabet.contains($0) }
          #expect(
            units.isEmpty,
            "\(String(decoding: prefix, as: UTF8.self).debugDescription) under \(layer.normalizer.rules.rawValue): \(units)"
          )
        }
      }
    }
    // The check means something only if the filter turns some texts away.
    #expect(turnedAway * 10 > texts, "turned away \(turnedAway) of \(texts)")
  }

  /// The filter's check of a text's bytes, which reads a sequence's block before checking the
  /// rest of it, against a reference that decodes every character first (`UTF8Decoding`): a
  /// valid character passes when its bit or block passes or it is from U+20000 on, a sequence
  /// that is not UTF-8 passes.
  @Test func theCheckOfBytesIsTheCheckOfTheirCharacters() async {
    let filters = Self.layers.compactMap(\.alphabetFilter)
    let pieces = Self.pieces.map { Array($0.utf8) }
    let bytes = Gen.int(in: 0...(pieces.count + 7)).map { index in
      index < pieces.count ? pieces[index] : [UInt8(truncatingIfNeeded: index &* 37 &+ 0x80)]
    }.array(of: 0...8).map { $0.flatMap { $0 } }
    let cut = zip(bytes, Gen.int(in: 0...255)).map { bytes, seed in
      seed < 128 ? Array(bytes[..<(bytes.count * seed / 128)]) : bytes
    }
    var turnedAway = 0
    await propertyCheck(count: 800, input: zip(cut, Gen.int(in: 0...(filters.count - 1)))) { text, which in
      let filter = filters[which]
      let words = [UInt64](unsafeUninitializedCapacity: AlphabetFilter.words) { buffer, count in
        filter.write(to: buffer.baseAddress!)
        count = AlphabetFilter.words
      }
      let expected = text.withUnsafeBufferPointer { buffer in
        var index = 0
        while index < buffer.count {
          let (value, length) = UTF8Decoding.decode(buffer, at: index)
          let literal = Array(buffer[index..<(index + length)])
          if value == 0xFFFD && literal != [0xEF, 0xBF, 0xBD] { return true }
          if value < 0x80 {
            if words[Int(value >> 6)] >> UInt64(value & 63) & 1 != 0 { return true }
          } else if value >= 0x20000 || words[2 + Int(value >> 12)] >> UInt64(value >> 6 & 63) & 1 != 0 {
            return true
          }
          index += length
        }
        return false
      }
      #expect(Self.admits(filter, text) == expected, "\(text)")
      if !expected { turnedAway += 1 }
    }
    #expect(turnedAway > 80, "turned away \(turnedAway) of 800")
  }

  @Test func textsOfAnotherScriptAreTurnedAway() throws {
    let matcher = try Matcher(
      lists: [
        WordList(name: "t", origin: .custom, entries: ["fuck", "傻逼"].map { Entry(text: $0, boundary: .substring) })
      ])
    let filter = try #require(matcher.layers.first?.alphabetFilter)
    // Devanagari and Hebrew with spaces: nothing of the list.
    #expect(!Self.admits(filter, Array("नमस्ते दुनिया שלום".utf8)))
    #expect(!Self.admits(filter, Array("𐑣𐑧𐑤𐑴 𐑦𐑯".utf8)))
    // A letter of the list, in any form that folds or imitates it.
    for text in ["नमस्ते k", "नमस्ते Ｆ", "नमस्ते 𝐜", "नमस्ते 傻", "नमस्ते 傻", "שלום с"] {
      #expect(Self.admits(filter, Array(text.utf8)), "\(text)")
    }
    // Bytes that are not UTF-8 pass.
    #expect(Self.admits(filter, [0xE0, 0x80]))
    #expect(Self.admits(filter, [0xFF]))
    // And the scan finds nothing in a text turned away, its matches in one that is not.
    #expect(matcher.overlappingMatches(in: "नमस्ते दुनिया").isEmpty)
    #expect(matcher.overlappingMatches(in: "नमस्ते ｆｕｃｋ").map(\.text) == ["ｆｕｃｋ"])
  }

  @Test func aRegexWithoutLiteralOrAPatternOfSpacesTakesTheFilterAway() throws {
    let regex = try Matcher(lists: [WordList(name: "t", origin: .custom, parsing: #"re:\p{L}+"#)])
    #expect(regex.layers.first?.alphabetFilter == nil)
    #expect(!regex.overlappingMatches(in: "नमस्ते").isEmpty)
    let spaces = try Matcher(
      lists: [
        WordList(
          name: "t", origin: .custom, entries: [Entry(text: "  ", boundary: .substring)],
          normalization: Normalization.default.subtracting(.separators))
      ])
    #expect(spaces.layers.first?.alphabetFilter == nil)
  }

  /// A text left unnormalized is not the default rules' text of the scan: the scorer, which
  /// reads that text after a scan, normalizes it itself rather than reading the text before.
  @Test func anUnnormalizedTextIsNotLeftForTheScorer() throws {
    let matcher = try Matcher(
      lists: [WordList(name: "t", origin: .custom, entries: [Entry(text: "fuck", boundary: .substring)])])
    _ = matcher.overlappingMatches(in: "fuck you")
    #expect(matcher.withDefaultNormalizedText { $0.scalars.count } == 8)
    _ = matcher.overlappingMatches(in: "नमस्ते दुनिया")
    #expect(matcher.withDefaultNormalizedText { $0.scalars.count } == nil)
  }

  /// Normalizing alone (``Matcher/normalizeAsScanned(_:)``, what `winnow match --normalize-only`
  /// times) normalizes what a scan would, once per rule set, and finds nothing.
  @Test func normalizingAloneNormalizesWhatAScanWould() throws {
    let list = WordList(name: "t", origin: .custom, entries: [Entry(text: "fuck", boundary: .substring)])
    let matcher = try Matcher(lists: [list])
    #expect(matcher.normalizeAsScanned("ｆｕｃｋ you") == 1)
    #expect(
      matcher.withDefaultNormalizedText { String(String.UnicodeScalarView($0.scalars.compactMap(Unicode.Scalar.init))) }
        == "fuck you")
    #expect(matcher.normalizeAsScanned("नमस्ते दुनिया") == 0)
    #expect(matcher.withDefaultNormalizedText { $0.scalars.count } == nil)
    // A second rule set is a second text.
    let strict = WordList(
      name: "s", origin: .custom, entries: [Entry(text: "shit", boundary: .substring)],
      normalization: Normalization.default.subtracting(.lookalikes))
    #expect(try Matcher(lists: [list, strict]).normalizeAsScanned("fuck shit") == 2)
    #expect(try Matcher(lists: [list, strict]).normalizeAsScanned("shit") == 1)
  }

  /// How many lines of `WINNOW_ALPHABET_FILE` the filter of the patterns of
  /// `WINNOW_ALPHABET_PATTERNS` (as `winnow match --normalize` builds them) turns away.
  /// A diagnosis: runs only with both set.
  @Test(.enabled(if: ProcessInfo.processInfo.environment["WINNOW_ALPHABET_PATTERNS"] != nil))
  func linesTurnedAway() throws {
    let environment = ProcessInfo.processInfo.environment
    let patterns =
      (try? String(contentsOfFile: environment["WINNOW_ALPHABET_PATTERNS"] ?? "", encoding: .utf8))?
      .split(separator: "\n").map(String.init) ?? []
    // `global`: the built-in global list's directory, as `winnow scan` loads it.
    let matcher =
      environment["WINNOW_ALPHABET_PATTERNS"] == "global"
      ? try Matcher(
        lists: WordList.load(
          directory: repositoryRoot.appendingPathComponent("wordlists/global").path, origin: .global))
      : try Matcher(
        lists: [
          WordList(name: "p", origin: .custom, entries: patterns.map { Entry(text: $0, boundary: .substring) })
        ])
    print("layers:", matcher.layers.map { ($0.normalizer.rules.rawValue, $0.alphabetFilter != nil) })
    let filter = try #require(matcher.layers.first?.alphabetFilter)
    let alphabet = Self.alphabet(matcher.layers[0])
    print(
      "alphabet below U+0080:",
      String(String.UnicodeScalarView(alphabet.filter { $0 < 0x80 }.sorted().compactMap(Unicode.Scalar.init))))
    let lines = try String(contentsOfFile: environment["WINNOW_ALPHABET_FILE"] ?? "", encoding: .utf8)
      .split(separator: "\n")
    let away = lines.filter { !Self.admits(filter, Array($0.utf8)) }.count
    print("turned away \(away) of \(lines.count)")
  }
}
