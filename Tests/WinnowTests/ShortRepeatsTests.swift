import PropertyBased
import Testing

@_spi(Tools) @testable import Winnow

/// Short patterns that need a repeated letter (`ass`, normalized `as` with its `s` doubled)
/// are left out of the ASCII walk's start filter and looked up only at a text's repeated
/// letters (``ShortRepeats``). `explain` walks every pattern from the scalar filter, so its
/// report is the reference: the scan's must equal it.
@Suite("Short patterns that need a repeated letter")
struct ShortRepeatsTests {
  static let pieces: [String] = [
    "a", "s", "ss", "sss", "as", "was", "ass", "t", "o", "oo", "to", "too", "l", "ll", "al", "all", "e", "ee", "see",
    "x", "xx", "k", "kk", "kiss", "b", "boo", "0", "1", "ｓ", "Ａ", " ", " ", ".", "-", "'", "ß", "傻",
  ]
  static let textGen = Gen.int(in: 0...(pieces.count - 1)).map { pieces[$0] }.array(of: 0...14).map { $0.joined() }

  /// Whole-word and substring entries of one to three letters once normalized, each needing a
  /// letter repeated at a different place (first, middle, last), beside longer ones and plain
  /// ones that share their letters.
  static let list = """
    ass
    too
    all
    sub:see
    sub:xx
    sub:kk
    boo
    kiss
    sub:oo
    assassin
    to
    sub:as
    sub:llama
    """

  static func matcher(_ list: String) -> Matcher {
    try! Matcher(lists: [WordList(name: "w", origin: .custom, parsing: list)])
  }

  @Test func theListHasShortRepeatsApart() {
    let filter = Self.matcher(Self.list).layers[0].automaton?.asciiFilter
    #expect(filter?.shortRepeats != nil)
    // Left in the start filter: the plain patterns and the long one.
    #expect(filter.map { $0.patterns.count } ?? 0 >= 3)
  }

  @Test func theScanFindsWhatExplainFinds() async {
    let matcher = Self.matcher(Self.list)
    var found = 0
    await propertyCheck(count: 1500, input: Self.textGen) { text in
      let report = matcher.scan(text)
      #expect(report == matcher.explain(text).report, "\(text.debugDescription)")
      #expect(
        matcher.overlappingMatches(in: text) == matcher.explain(text, kind: nil).report.matches,
        "\(text.debugDescription)")
      found += report.matches.count
    }
    #expect(found > 0)
  }

  @Test(arguments: [
    ("as was ass", ["ass"]),
    ("asss", ["asss"]),
    ("to too tooo", ["to", "too", "tooo"]),
    ("xx x xxx", ["xx", "xxx"]),
    ("a kiss, a kis", ["kiss"]),
    ("sea seee", ["seee"]),
    ("lama llama", ["llama"]),
  ])
  func repeatsAreNeededAndFound(text: String, expected: [String]) {
    let found = Self.matcher(Self.list).matches(in: text).map(\.text).filter { !["as", "to"].contains($0) }
    #expect(found == expected.filter { !["as", "to"].contains($0) }, "\(text)")
  }

  /// A list of nothing but such patterns keeps them in the start filter: the walk needs one.
  @Test func aListOfOnlyShortRepeatsKeepsTheFilter() {
    let matcher = Self.matcher("ass\ntoo")
    #expect(matcher.layers[0].automaton?.asciiFilter?.shortRepeats == nil)
    #expect(matcher.matches(in: "asss and tooo, as to").map(\.text) == ["asss", "tooo"])
  }

  /// Read back from a compiled file, the table finds the same.
  @Test func aCompiledMatcherReadBackFindsTheSame() throws {
    let matcher = Self.matcher(Self.list)
    let identity = Array("short repeats".utf8)
    let bytes = matcher.compiledBytes(identity: identity)
    let decoded = try bytes.withUnsafeBytes { try Matcher(compiledBytes: $0, identity: identity) }
    #expect(decoded.layers[0].automaton?.asciiFilter?.shortRepeats != nil)
    for text in ["as was ass", "to too tooo", "a kiss", "xx kk oo see", "llama", "nothing"] {
      #expect(decoded.overlappingMatches(in: text) == matcher.overlappingMatches(in: text), "\(text)")
    }
  }

  /// `split` keeps out the patterns longer than ``ShortRepeats/longest`` and those that need
  /// no repeat, and keys the others by their bytes and anchor.
  @Test func splitKeepsOnlyShortAnchoredPatterns() {
    let patterns: [[UInt8]] = ["as", "to", "asasin", "x", "se"].map { Array($0.utf8) }
    let (short, plain) = ShortRepeats.split(
      patterns: patterns, numbers: [10, 11, 12, 13, 14], anchors: [1, nil, 1, 0, 1])
    #expect(plain == [1, 2])
    let table = try! #require(short)
    var reported: [[Int]] = []
    let text = Array("as x se".utf8) + [UInt8](repeating: 0, count: StartFilter.padding)
    text.withUnsafeBufferPointer { padded in
      table.slots.withUnsafeBufferPointer { slots in
        table.patterns.withUnsafeBufferPointer { runs in
          table.shapesByByte.withUnsafeBufferPointer { shapes in
            for anchor in 0..<7 {
              table.forEachMatch(
                at: anchor, count: 7, base: padded.baseAddress!, slots: slots, patterns: runs, shapesByByte: shapes
              ) { reported.append([anchor, $0, $1]) }
            }
          }
        }
      }
    }
    // At each anchor, the patterns whose anchor byte is there and whose bytes fit around it.
    #expect(reported == [[1, 10, 2], [3, 13, 4], [6, 14, 7]])
  }
}
