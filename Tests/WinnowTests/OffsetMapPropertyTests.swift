import PropertyBased
import Testing

@_spi(Tools) @testable import Winnow

/// The offset map and the matcher against simple references, on random texts rich in evasions.
@Suite("Offset map properties")
struct OffsetMapPropertyTests {
  static let alphabet: [String] = [
    "a", "s", "S", "ｓ", "1", "$", "!", ".", " ", "*", "'", "傻", "逼", "腦", "\u{200B}", "🍆", "é", "е", "ß", "㎏", "\n",
  ]
  static let textGen = Gen.int(in: 0...(alphabet.count - 1)).map { alphabet[$0] }.array(of: 0...40)
    .map { $0.joined() }

  @Test func unitsCoverOrderedDisjointScalarRanges() async {
    await propertyCheck(count: 400, input: Self.textGen) { text in
      let normalized = Normalizer().normalize(text)
      let bytes = Array(text.utf8)
      let boundaries = Set(
        text.unicodeScalars.indices.map { text.utf8.distance(from: text.startIndex, to: $0) } + [bytes.count])
      var previousEnd = 0
      for unit in 0..<normalized.count {
        let range = normalized.originalRange(ofUnits: unit..<unit + 1)
        #expect(range.lowerBound < range.upperBound)
        #expect(boundaries.contains(range.lowerBound) && boundaries.contains(range.upperBound))
        // Units never go backwards; several units may share one character (`㎏` → k, g).
        #expect(range.lowerBound >= previousEnd || range == normalized.originalRange(ofUnits: unit - 1..<unit))
        previousEnd = range.upperBound
      }
    }
  }

  /// A value normalized into again (as `Matcher` reuses its buffers between scans) holds
  /// exactly what a fresh value would: nothing of the previous text leaks into the next.
  @Test func reusedTextNormalizesLikeAFreshOne() async {
    await propertyCheck(count: 300, input: Self.textGen, Self.textGen) { first, second in
      // With the word rules (units written by the shaper) and without them (appended one by one).
      for normalizer in [Normalizer(), Normalizer(rules: [.compatibility, .caseFolding])] {
        var reused = NormalizedText()
        normalizer.normalize(first, into: &reused)
        normalizer.normalize(second, into: &reused)
        let fresh = normalizer.normalize(second)
        #expect(reused.count == fresh.count)
        #expect(reused.scalars == fresh.scalars)
        #expect(reused.units == fresh.units)
        #expect(reused.hasOptionalUnits == fresh.hasOptionalUnits)
      }
    }
  }

  @Test func withoutRulesUnitsAreTheScalars() async {
    await propertyCheck(count: 200, input: Self.textGen) { text in
      let normalized = Normalizer(rules: .none).normalize(text)
      #expect(normalized.scalars == text.unicodeScalars.map(\.value))
      #expect(normalized.string == text)
    }
  }

  static let entryGen = Gen.int(in: 0...(alphabet.count - 1)).map { alphabet[$0] }.array(of: 1...3).map { $0.joined() }
    .array(of: 1...6)

  @Test func matcherWithoutRulesEqualsNaiveSubstringSearch() async {
    await propertyCheck(count: 300, input: Self.entryGen, Self.textGen) { words, text in
      let entries = words.filter { !$0.isEmpty }.map { Entry(text: $0, boundary: .substring) }
      guard
        let matcher = try? Matcher(lists: [WordList(name: "p", origin: .custom, entries: entries, normalization: .none)]
        )
      else { return }
      let found = Set(matcher.overlappingMatches(in: text).map { [$0.entry.text, "\($0.range)"] })
      var expected = Set<[String]>()
      let bytes = Array(text.utf8)
      for entry in entries {
        let needle = Array(entry.text.utf8)
        guard needle.count <= bytes.count else { continue }
        for start in 0...(bytes.count - needle.count) where Array(bytes[start..<start + needle.count]) == needle {
          expected.insert([entry.text, "\(start..<start + needle.count)"])
        }
      }
      #expect(found == expected)
    }
  }

  /// A compact layer (hashed codes, no start filter, as a server keeps each app's list) finds
  /// what the same list finds compiled as usual (a flat code table and a start filter).
  @Test func compactAndUsualLayersFindTheSame() async {
    let base = try! Matcher(lists: [])
    await propertyCheck(count: 300, input: Self.entryGen, Self.textGen) { words, text in
      let list = WordList(name: "p", origin: .custom, entries: words.filter { !$0.isEmpty }.map { Entry(text: $0) })
      guard let usual = try? Matcher(lists: [list], over: base),
        let compact = try? Matcher(compactLists: [list], over: base, customAllowsGlobal: false)
      else { return }
      #expect(compact.layers.last?.automaton?.hashedCodes != false)
      let key = { (match: Match) in [match.entry.text, "\(match.range)"] }
      #expect(usual.overlappingMatches(in: text).map(key) == compact.overlappingMatches(in: text).map(key))
    }
  }

  @Test func maskedTextKeepsEverythingOutsideMatches() async {
    let matcher = try! Matcher(lists: [WordList(name: "p", origin: .custom, parsing: "ass\n傻逼\nsub:a")])
    await propertyCheck(count: 300, input: Self.textGen) { text in
      let matches = matcher.matches(in: text)
      let masked = Match.mask(text, matches: matches, with: "#")
      #expect(masked.count == text.count)
      let bytes = Array(text.utf8)
      var rebuilt = ""
      var position = 0
      for match in matches {
        rebuilt += String(decoding: bytes[position..<match.range.lowerBound], as: UTF8.self)
        rebuilt += String(repeating: "#", count: match.text.count)
        position = match.range.upperBound
      }
      rebuilt += String(decoding: bytes[position...], as: UTF8.self)
      #expect(masked == rebuilt)
    }
  }
}
