import PropertyBased
import Testing

@_spi(Tools) @testable import Winnow

/// The matcher's normalized matching (single-pass normalizer, start filters, prefix tables,
/// skips inside words, two walks) against an obviously correct reference: the text normalized
/// by the passes of `WordShaper` (the normalizer's own reference, see `SinglePassShaperTests`),
/// each entry normalized alike, and every occurrence of every entry found by comparing at every
/// position, mapped back to the original bytes.
@Suite("Normalized matching against a naive search")
struct NaiveMatchingTests {
  /// Entries of these characters, no letter twice in a row (an entry's repeated letters ask for
  /// a repeat count the naive search does not model).
  static let entryAlphabet = ["a", "b", "c", "k", "u", "傻", "逼", "杀", "人"]
  static let entryGen = Gen.int(in: 0...(entryAlphabet.count - 1)).array(of: 1...4).map { codes in
    var text = ""
    var last = -1
    for code in codes where code != last {
      text += entryAlphabet[code]
      last = code
    }
    return text
  }

  /// Texts with what normalization undoes around those characters: case, full width, repeats,
  /// separators, an invisible character, other letters and digits beside them.
  static let pieces = [
    "a", "b", "c", "k", "u", "傻", "逼", "杀", "人", "A", "ａ", "Ｂ", "K", " ", ".", "*", "-", "\u{200B}", "aa", "uuu",
    "bc", "x", "9", "好", "，",
  ]
  static let textGen = Gen.int(in: 0...(pieces.count - 1)).map { pieces[$0] }.array(of: 0...24).map { $0.joined() }

  struct Found: Hashable, CustomStringConvertible {
    var entry: String
    var range: Range<Int>
    var description: String { "\(entry)@\(range)" }
  }

  /// Every occurrence of every entry in `text`, by comparing at every position; nil when the
  /// text has optional units (the matcher walks it twice; the reference does not model that).
  static func naive(_ entries: [String], in text: String, _ normalizer: Normalizer) -> Set<Found>? {
    var normalized = NormalizedText()
    var text = text
    text.withUTF8 { normalizer.normalizeByPasses($0, into: &normalized) }
    guard !normalized.hasOptionalUnits else { return nil }
    let scalars = normalized.scalars
    var found: Set<Found> = []
    for entry in entries {
      guard let pattern = normalizer.normalizeEntry(entry)?.scalars, pattern.count <= scalars.count else { continue }
      for start in 0...(scalars.count - pattern.count)
      where scalars[start..<start + pattern.count].elementsEqual(pattern) {
        found.insert(Found(entry: entry, range: normalized.originalRange(ofUnits: start..<start + pattern.count)))
      }
    }
    return found
  }

  @Test func substringEntriesFindWhatANaiveSearchFinds() async throws {
    let listGen = Self.entryGen.array(of: 1...6)
    var compared = 0
    var withMatches = 0
    await propertyCheck(count: 1500, input: listGen, Self.textGen) { entries, text in
      let entries = Array(Set(entries)).sorted()
      let list = WordList(
        name: "naive.txt", origin: .custom, entries: entries.map { Entry(text: $0, boundary: .substring) })
      guard let matcher = try? Matcher(lists: [list]), let reference = Self.naive(entries, in: text, Normalizer())
      else { return }
      compared += 1
      let matches = matcher.overlappingMatches(in: text)
      let found = Set(matches.map { Found(entry: $0.entry.text, range: $0.range) })
      if !reference.isEmpty { withMatches += 1 }
      #expect(found == reference, "\(entries) in \(text.debugDescription)")
      // In order of start, then end, whether or not the scan had to sort them.
      let spans = matches.map { [$0.range.lowerBound, $0.range.upperBound] }
      #expect(spans == spans.sorted { ($0[0], $0[1]) < ($1[0], $1[1]) }, "order in \(text.debugDescription)")
    }
    // The comparison means something only if most cases ran and many of them found something.
    #expect(compared > 1000, "\(compared) of 1500 cases compared")
    #expect(withMatches > 300, "\(withMatches) cases with matches")
  }
}
