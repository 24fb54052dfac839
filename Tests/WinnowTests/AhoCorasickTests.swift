import PropertyBased
import Testing

@_spi(Tools) @testable import Winnow

/// The automaton and the match kinds, as tables of named cases, and against a naive matcher.
@Suite("AhoCorasick")
struct AhoCorasickTests {
  struct Case: CustomTestStringConvertible, Sendable {
    let name: String
    let patterns: [String]
    let text: String
    /// Expected (pattern, start, end) in UTF-8 bytes.
    let expected: [(Int, Int, Int)]
    var testDescription: String { name }
  }

  static func run(_ testCase: Case, _ search: (AhoCorasick, String) -> [PatternMatch]) throws {
    let automaton = try AhoCorasick(patterns: testCase.patterns)
    let found = search(automaton, testCase.text).map { [$0.pattern.rawValue, $0.start, $0.end] }
    #expect(found == testCase.expected.map { [$0.0, $0.1, $0.2] })
  }

  static let overlapping: [Case] = [
    Case(
      name: "classic ushers", patterns: ["he", "she", "his", "hers"], text: "ushers",
      expected: [(1, 1, 4), (0, 2, 4), (3, 2, 6)]),
    Case(name: "no match", patterns: ["abc"], text: "xyz", expected: []),
    Case(name: "match at start and end", patterns: ["ab"], text: "abxab", expected: [(0, 0, 2), (0, 3, 5)]),
    Case(
      name: "nested suffixes", patterns: ["a", "aa", "aaa"], text: "aaa",
      expected: [(0, 0, 1), (1, 0, 2), (0, 1, 2), (2, 0, 3), (1, 1, 3), (0, 2, 3)]),
    Case(name: "duplicate patterns", patterns: ["ab", "ab"], text: "ab", expected: [(0, 0, 2), (1, 0, 2)]),
    Case(name: "CJK byte offsets", patterns: ["傻逼", "逼"], text: "你傻逼", expected: [(0, 3, 9), (1, 6, 9)]),
    Case(name: "emoji", patterns: ["🍆", "a🍆"], text: "xa🍆", expected: [(1, 1, 6), (0, 2, 6)]),
    Case(name: "mixed scripts", patterns: ["k粉", "粉"], text: "售k粉qq", expected: [(0, 3, 7), (1, 4, 7)]),
    Case(name: "failure chain", patterns: ["abcd", "bcx", "cxy"], text: "abcxy", expected: [(1, 1, 4), (2, 2, 5)]),
    Case(name: "empty text", patterns: ["a"], text: "", expected: []),
    // A scan reads eight bytes at each position, zeros past the end: a pattern ending in NUL
    // bytes must not match there.
    Case(name: "NUL bytes past the end", patterns: ["a\u{0}", "b\u{0}\u{0}\u{0}c"], text: "ba", expected: []),
    Case(
      name: "NUL bytes in the text", patterns: ["a\u{0}", "b\u{0}\u{0}\u{0}c"], text: "b\u{0}\u{0}\u{0}ca\u{0}",
      expected: [(1, 0, 5), (0, 5, 7)]),
  ]

  @Test(arguments: overlapping)
  func findsOverlappingMatches(_ testCase: Case) throws {
    try Self.run(testCase) { $0.overlappingMatches(in: $1) }
  }

  static let standard: [Case] = [
    Case(name: "earliest end wins", patterns: ["abcd", "bc"], text: "abcd", expected: [(1, 1, 3)]),
    Case(name: "longest at same end", patterns: ["b", "ab"], text: "ab", expected: [(1, 0, 2)]),
    Case(name: "restart after match", patterns: ["aa"], text: "aaaa", expected: [(0, 0, 2), (0, 2, 4)]),
  ]

  @Test(arguments: standard)
  func standardSemantics(_ testCase: Case) throws {
    try Self.run(testCase) { $0.matches(in: $1, kind: .standard) }
  }

  static let leftmostFirst: [Case] = [
    Case(name: "first listed wins", patterns: ["Sam", "Samwise"], text: "Samwise", expected: [(0, 0, 3)]),
    Case(name: "leftmost beats first listed", patterns: ["b", "abc"], text: "abc", expected: [(1, 0, 3)]),
    Case(name: "non-overlapping", patterns: ["ab", "bc"], text: "abc", expected: [(0, 0, 2)]),
  ]

  @Test(arguments: leftmostFirst)
  func leftmostFirstSemantics(_ testCase: Case) throws {
    try Self.run(testCase) { $0.matches(in: $1, kind: .leftmostFirst) }
  }

  static let leftmostLongest: [Case] = [
    Case(name: "longest wins", patterns: ["Sam", "Samwise"], text: "Samwise", expected: [(1, 0, 7)]),
    Case(name: "CJK longest", patterns: ["傻逼", "傻逼玩意"], text: "傻逼玩意儿", expected: [(1, 0, 12)]),
    Case(name: "consecutive", patterns: ["ab", "cd"], text: "abcd", expected: [(0, 0, 2), (1, 2, 4)]),
  ]

  @Test(arguments: leftmostLongest)
  func leftmostLongestSemantics(_ testCase: Case) throws {
    try Self.run(testCase) { $0.matches(in: $1, kind: .leftmostLongest) }
  }

  @Test func scalarOffsets() throws {
    let automaton = try AhoCorasick(patterns: ["逼"])
    let match = try #require(automaton.overlappingMatches(in: "你傻逼", offsets: .scalars).first)
    #expect((match.start, match.end) == (2, 3))
  }

  @Test func emptyPatternIsRejected() {
    #expect(throws: AhoCorasickError(emptyPattern: 1)) { try AhoCorasick(patterns: ["a", ""]) }
  }

  // MARK: Against a naive reference

  /// Every occurrence, by trying every pattern at every position (of scalars, or of bytes: a
  /// pattern never starts with a UTF-8 continuation byte, so each byte occurrence is where
  /// decoding stands, stray bytes included).
  static func naiveMatches<Element: Equatable>(_ patterns: [[Element]], _ text: [Element]) -> Set<[Int]> {
    var found = Set<[Int]>()
    for (id, pattern) in patterns.enumerated() where pattern.count <= text.count {
      for start in 0...(text.count - pattern.count) where Array(text[start..<start + pattern.count]) == pattern {
        found.insert([id, start, start + pattern.count])
      }
    }
    return found
  }

  /// Small alphabets make overlaps, shared prefixes and failure chains likely.
  static let alphabet: [Character] = ["a", "b", "c", "傻", "逼", "🍆"]
  static let characterGen = Gen.int(in: 0...(alphabet.count - 1)).map { alphabet[$0] }
  static let patternGen = characterGen.string(of: 1...4).array(of: 1...12)
  static let textGen = characterGen.string(of: 0...60)

  /// Every overlapping match, in order of end, is the naive set; the count agrees.
  static func expectOverlappingLikeNaive(_ patterns: [String], _ text: String) {
    let automaton = try! AhoCorasick(patterns: patterns)
    let found = automaton.overlappingMatches(in: text, offsets: .scalars).map {
      [$0.pattern.rawValue, $0.start, $0.end]
    }
    let expected = naiveMatches(patterns.map { Array($0.unicodeScalars) }, Array(text.unicodeScalars))
    #expect(found.count == expected.count)
    #expect(Set(found) == expected)
    #expect(found.map { $0[2] } == found.map { $0[2] }.sorted())
    var text = text
    #expect(text.withUTF8 { automaton.countOverlappingMatches(inUTF8: $0) } == expected.count)
  }

  /// The filter's stage counts (`winnow match --filter-counts`) narrow down and never lose a
  /// match: every start of a match passes every stage, and without walks the exact tables
  /// report every match.
  @Test func filterStageCountsNarrowAndKeepEveryMatch() async {
    await propertyCheck(count: 300, input: Self.patternGen, Self.textGen) { patterns, text in
      let automaton = try! AhoCorasick(patterns: patterns)
      var text = text
      var counts = FilterStageCounts()
      let filtered = text.withUTF8 { automaton.countFilterStages(inUTF8: $0, into: &counts) }
      #expect(filtered, "a raw automaton of literal patterns has a start filter")
      let bytes = Array(text.utf8)
      let matches = automaton.overlappingMatches(in: text)
      #expect(counts.positions == bytes.count)
      #expect(counts.leadBytes == bytes.filter { $0 & 0xC0 != 0x80 }.count)
      #expect(counts.passedWindows <= counts.passedPrefix && counts.passedPrefix <= counts.leadBytes)
      #expect(Set(matches.map(\.start)).count <= counts.passedWindows)
      #expect(counts.windowProbes >= counts.passedWindows)
      #expect(counts.reported <= matches.count)
      if counts.walks == 0 { #expect(counts.reported == matches.count, "\(patterns) \(text)") }
    }
  }

  @Test func overlappingMatchesEqualNaive() async {
    await propertyCheck(count: 300, input: Self.patternGen, Self.textGen) { patterns, text in
      Self.expectOverlappingLikeNaive(patterns, text)
    }
  }

  /// A wide alphabet and many short patterns: states with more than 12 children, whose rows
  /// are hashed rather than searched (a CJK character that starts hundreds of words).
  static let wideAlphabet: [Character] = (0..<40).map { Character(Unicode.Scalar(0x4E00 + $0 * 7)!) }
  static let wideCharacterGen = Gen.int(in: 0...(wideAlphabet.count - 1)).map { wideAlphabet[$0] }
  /// Patterns start with one of three characters, so each of those has up to 40 children.
  static let widePatternGen = zip(Gen.int(in: 0...2), wideCharacterGen.string(of: 0...2))
    .map { String(wideAlphabet[$0.0]) + $0.1 }.array(of: 50...300)
  static let wideTextGen = wideCharacterGen.string(of: 0...200)

  @Test func wideRowsMatchLikeNaive() async {
    await propertyCheck(count: 100, input: Self.widePatternGen, Self.wideTextGen) { patterns, text in
      Self.expectOverlappingLikeNaive(patterns, text)
    }
  }

  /// Characters of 1 to 4 bytes, so that patterns fill every window of the start filter
  /// (1, 2, 3, 4, 6 and 8 bytes) and end anywhere in the last eight bytes of a text.
  static let byteAlphabet: [String] = ["a", "b", "é", "傻", "逼", "🍆"]
  static let bytePatternGen = Gen.int(in: 0...(byteAlphabet.count - 1)).array(of: 1...6)
    .map { $0.map { byteAlphabet[$0] }.joined() }.array(of: 1...12)
  /// Text tokens: the alphabet, then a stray continuation byte, a truncated lead and 0xFF; up
  /// to 480 bytes, so that the start filter's blocks of 64 positions and its padded last
  /// block are all crossed by matches.
  static let byteTextGen = Gen.int(in: 0...(byteAlphabet.count + 2)).array(of: 0...160).map { tokens in
    tokens.flatMap {
      $0 < byteAlphabet.count ? Array(byteAlphabet[$0].utf8) : [[0x80, 0xE4, 0xFF][$0 - byteAlphabet.count]]
    }
  }

  @Test func byteMatchesEqualNaive() async {
    await propertyCheck(count: 400, input: Self.bytePatternGen, Self.byteTextGen) { patterns, text in
      let automaton = try! AhoCorasick(patterns: patterns)
      let expected = Self.naiveMatches(patterns.map { Array($0.utf8) }, text)
      text.withUnsafeBufferPointer { bytes in
        let found = automaton.overlappingMatches(inUTF8: bytes).map { [$0.pattern.rawValue, $0.start, $0.end] }
        #expect(found.count == expected.count)
        #expect(Set(found) == expected)
        #expect(found == found.sorted { ($0[2], $0[1], $0[0]) < ($1[2], $1[1], $1[0]) })
        #expect(automaton.countOverlappingMatches(inUTF8: bytes) == expected.count)
      }
    }
  }

  /// More patterns under one window than its exact table compares (``WindowPatterns/largestRun``):
  /// those positions are walked in the trie instead, and every match is still found once. The
  /// patterns share their first eight bytes (`傻逼ab`), then go on with up to three characters.
  static let crowdedPatternGen = Gen.int(in: 0...(byteAlphabet.count - 1)).array(of: 0...3)
    .map { "傻逼ab" + $0.map { byteAlphabet[$0] }.joined() }
    .array(of: (WindowPatterns.largestRun + 1)...(WindowPatterns.largestRun + 40))
  /// Texts of the alphabet's characters and the shared start.
  static let crowdedTextGen = Gen.int(in: 0...byteAlphabet.count).array(of: 0...60)
    .map { $0.map { $0 < byteAlphabet.count ? byteAlphabet[$0] : "傻逼ab" }.joined() }

  @Test func crowdedWindowsAreWalked() async {
    await propertyCheck(count: 100, input: Self.crowdedPatternGen, Self.crowdedTextGen) { patterns, text in
      let automaton = try! AhoCorasick(patterns: patterns)
      let expected = Self.naiveMatches(patterns.map { Array($0.utf8) }, Array(text.utf8))
      let found = automaton.overlappingMatches(in: text).map { [$0.pattern.rawValue, $0.start, $0.end] }
      #expect(found.count == expected.count)
      #expect(Set(found) == expected)
    }
  }

  /// Patterns that are prefixes of one another (`a`, `ab`, `abé`, `abé傻`…), so that several
  /// windows, up to all six, hold a pattern at the same position: past three the position is
  /// walked. Each case is a base of 2 to 8 characters, the lengths of the prefixes taken as
  /// patterns, and text tokens (a character of the alphabet, or the whole base).
  static let nestedGen = zip(
    Gen.int(in: 0...(byteAlphabet.count - 1)).array(of: 2...8), Gen.int(in: 1...8).array(of: 1...8),
    Gen.int(in: 0...byteAlphabet.count).array(of: 0...40))

  @Test func nestedPatternsMatchLikeNaive() async {
    await propertyCheck(count: 200, input: Self.nestedGen) { base, lengths, tokens in
      let characters = base.map { Self.byteAlphabet[$0] }
      let patterns = lengths.map { characters.prefix($0).joined() }
      let whole = characters.joined()
      let text = tokens.map { $0 < Self.byteAlphabet.count ? Self.byteAlphabet[$0] : whole }.joined()
      let automaton = try! AhoCorasick(patterns: patterns)
      let expected = Self.naiveMatches(patterns.map { Array($0.utf8) }, Array(text.utf8))
      let found = automaton.overlappingMatches(in: text).map { [$0.pattern.rawValue, $0.start, $0.end] }
      #expect(found.count == expected.count)
      #expect(Set(found) == expected)
    }
  }

  /// An automaton read back from its compiled form (with its start filter and window tables)
  /// finds what the one that wrote it finds.
  @Test func compiledAutomatonFindsTheSame() async {
    await propertyCheck(count: 100, input: Self.bytePatternGen, Self.byteTextGen) { patterns, text in
      let automaton = try! AhoCorasick(patterns: patterns)
      var writer = CompiledWriter()
      automaton.encode(into: &writer)
      let bytes = writer.finished()
      let decoded = bytes.withUnsafeBytes { bytes in
        var reader = try! CompiledReader(bytes)
        return try! AhoCorasick(decoding: &reader)
      }
      text.withUnsafeBufferPointer { text in
        #expect(decoded.overlappingMatches(inUTF8: text) == automaton.overlappingMatches(inUTF8: text))
      }
    }
  }

  /// The walk of normalized scalars (from the starts its filter lets through) finds what the
  /// automaton finds: patterns of 1 to 6 scalars fill every table of the filter (one- and
  /// two-scalar keys, the prefix tables of two and three scalars), and
  /// texts of up to 200 scalars cross the filter's blocks of 64 positions.
  @Test func scalarWalkByStartEqualsAutomaton() async {
    await propertyCheck(count: 400, input: Self.bytePatternGen, Self.characterGen.string(of: 0...200)) {
      patterns, text in
      let automaton = try! AhoCorasick(
        scalarPatterns: patterns.map { $0.unicodeScalars.map(\.value) }, filters: .scalars)
      let scalars = text.unicodeScalars.map(\.value)
      var byEnd: [[Int]] = []
      var byStart: [[Int]] = []
      scalars.withUnsafeBufferPointer { scalars in
        automaton.forEachMatch(in: scalars) { byEnd.append([$0, $1]) }
        automaton.forEachMatchByStart(in: scalars) { byStart.append([$0, $1]) }
      }
      #expect(byStart.count == byEnd.count)
      #expect(Set(byStart) == Set(byEnd))
    }
  }

  /// Texts of ASCII scalars only take the ``ASCIIWalkFilter`` (the raw filter of the patterns
  /// that are all ASCII, one-letter ones among them, and patterns that are not ASCII beside
  /// them): the walk by start finds what the automaton finds, each match once, in order of
  /// start. A text with a scalar beyond ASCII anywhere (sixteen are checked at a time) is
  /// refused, nothing reported.
  @Test func asciiWalkByStartEqualsAutomaton() async {
    let letters: [Character] = ["a", "b", "c", " ", "傻"]
    let patternGen = Gen.int(in: 0...(letters.count - 1)).map { letters[$0] }.string(of: 1...6).array(of: 1...12)
    let textGen = Gen.int(in: 0...3).map { letters[$0] }.string(of: 0...200)
    // Where a `傻` goes into the text: nowhere when past its end (most texts).
    let atGen = Gen.int(in: 0...799)
    await propertyCheck(count: 400, input: patternGen, textGen, atGen) { patterns, ascii, at in
      let text = at < ascii.count ? String(ascii.prefix(at)) + "傻" + String(ascii.dropFirst(at)) : ascii
      let automaton = try! AhoCorasick(
        scalarPatterns: patterns.map { $0.unicodeScalars.map(\.value) }, filters: .scalarsAndASCII)
      let scalars = text.unicodeScalars.map(\.value)
      var byEnd: [[Int]] = []
      var byStart: [[Int]] = []
      let walked = scalars.withUnsafeBufferPointer { scalars in
        automaton.forEachMatch(in: scalars) { byEnd.append([$0, $1]) }
        return automaton.forEachASCIIMatchByStart(in: scalars) { byStart.append([$0, $1]) }
      }
      let hasFilter = patterns.contains { $0.unicodeScalars.allSatisfy(\.isASCII) }
      #expect(walked == (hasFilter && text.unicodeScalars.allSatisfy(\.isASCII)))
      guard walked else {
        #expect(byStart.isEmpty)
        return
      }
      #expect(byStart.count == byEnd.count)
      #expect(Set(byStart) == Set(byEnd))
      let starts = byStart.map { $0[1] - patterns[$0[0]].unicodeScalars.count }
      #expect(starts == starts.sorted())
    }
  }

  /// Whether `value` is an ASCII letter or digit: a word's scalar to the walks that skip
  /// positions inside words.
  static func isASCIIWord(_ value: UInt32) -> Bool {
    (0x30...0x39).contains(value) || (0x41...0x5A).contains(value) || (0x61...0x7A).contains(value)
  }

  /// The matches (pattern, end) of `all` that do not start inside a word of ASCII letters and
  /// digits of `scalars`.
  static func wordStartMatches(_ all: [[Int]], patterns: [[UInt32]], in scalars: [UInt32]) -> [[Int]] {
    all.filter { match in
      let start = match[1] - patterns[match[0]].count
      return start == 0 || !(isASCIIWord(scalars[start - 1]) && isASCIIWord(scalars[start]))
    }
  }

  /// Skipping positions inside words, the ASCII walk (the raw filter's prefix table, then only
  /// a word's first position) finds what the scalar walk skipping them finds: every match that
  /// does not start inside a word of ASCII letters and digits, and nothing the automaton does
  /// not find. Texts of up to 200 scalars cross the blocks of 64 positions.
  @Test func asciiWalkSkippingInsideWordsEqualsScalarWalk() async {
    let alphabet: [Character] = ["a", "B", "1", " ", "-"]
    let characterGen = Gen.int(in: 0...(alphabet.count - 1)).map { alphabet[$0] }
    await propertyCheck(
      count: 400, input: characterGen.string(of: 1...5).array(of: 1...12), characterGen.string(of: 0...200)
    ) { patterns, text in
      let scalarPatterns = patterns.map { $0.unicodeScalars.map(\.value) }
      let automaton = try! AhoCorasick(scalarPatterns: scalarPatterns, filters: .scalarsAndASCII)
      let scalars = text.unicodeScalars.map(\.value)
      var all: [[Int]] = []
      var scalarWalk: [[Int]] = []
      var asciiWalk: [[Int]] = []
      let walked = scalars.withUnsafeBufferPointer { scalars in
        automaton.forEachMatch(in: scalars) { all.append([$0, $1]) }
        automaton.forEachMatchByStart(in: scalars, skippingInsideWords: true) { scalarWalk.append([$0, $1]) }
        return automaton.forEachASCIIMatchByStart(in: scalars, skippingInsideWords: true) {
          asciiWalk.append([$0, $1])
        }
      }
      #expect(walked)
      #expect(Set(asciiWalk) == Set(scalarWalk))
      #expect(asciiWalk.count == Set(asciiWalk).count)
      let wordStarts = Self.wordStartMatches(all, patterns: scalarPatterns, in: scalars)
      #expect(Set(asciiWalk).isSubset(of: Set(all)))
      #expect(Set(wordStarts).isSubset(of: Set(asciiWalk)))
    }
  }

  /// The raw filter's word starts, eight bytes a step, against a byte-by-byte reading: every
  /// byte below 0x80 before and in a block.
  @Test func wordStartsOfABlockAreThoseOfEachByte() async {
    await propertyCheck(count: 500, input: Gen.int(in: 0...127).map { UInt8($0) }.array(of: 65...65)) { bytes in
      let block = Array(bytes.dropFirst())
      let starts = block.withUnsafeBytes { StartFilter.wordStarts(inBlock: $0.baseAddress!, before: bytes[0]) }
      for offset in 0..<64 {
        let inside = Self.isASCIIWord(UInt32(bytes[offset + 1])) && Self.isASCIIWord(UInt32(bytes[offset]))
        #expect((starts >> UInt64(offset)) & 1 == (inside ? 0 : 1), "offset \(offset) of \(bytes)")
      }
    }
  }

  /// Words, digits and spaces for the filter's masks: which positions it tests.
  static let spacedAlphabet: [Character] = ["a", "b", "1", " ", "傻", "逼"]
  static let spacedCharacterGen = Gen.int(in: 0...(spacedAlphabet.count - 1)).map { spacedAlphabet[$0] }

  /// Skipping positions inside words, the walk by start finds every match that does not start
  /// inside a word of ASCII letters and digits, and nothing the automaton does not find.
  /// Spaces are skipped unless a pattern starts with one; texts of up to 200 scalars cross the
  /// filter's blocks of 64 positions (a word running across a block's first position).
  @Test func scalarWalkSkippingInsideWordsKeepsWordStarts() async {
    await propertyCheck(
      count: 400, input: Self.spacedCharacterGen.string(of: 1...4).array(of: 1...12),
      Self.spacedCharacterGen.string(of: 0...200)
    ) { patterns, text in
      let scalarPatterns = patterns.map { $0.unicodeScalars.map(\.value) }
      let automaton = try! AhoCorasick(scalarPatterns: scalarPatterns, filters: .scalars)
      let scalars = text.unicodeScalars.map(\.value)
      var all: [[Int]] = []
      var skipping: [[Int]] = []
      scalars.withUnsafeBufferPointer { scalars in
        automaton.forEachMatch(in: scalars) { all.append([$0, $1]) }
        automaton.forEachMatchByStart(in: scalars, skippingInsideWords: true) { skipping.append([$0, $1]) }
      }
      let wordStarts = Self.wordStartMatches(all, patterns: scalarPatterns, in: scalars)
      #expect(Set(skipping).isSubset(of: Set(all)))
      #expect(Set(wordStarts).isSubset(of: Set(skipping)))
    }
  }

  @Test func leftmostLongestEqualsNaiveGreedy() async {
    await propertyCheck(count: 300, input: Self.patternGen, Self.textGen) { patterns, text in
      let automaton = try! AhoCorasick(patterns: patterns)
      let found = automaton.matches(in: text, kind: .leftmostLongest, offsets: .scalars).map { [$0.start, $0.end] }
      // Naive: at each position, the longest pattern that starts there; skip past it.
      let scalars = Array(text.unicodeScalars)
      let lists = patterns.map { Array($0.unicodeScalars) }
      var expected: [[Int]] = []
      var position = 0
      while position < scalars.count {
        let longest = lists.filter {
          position + $0.count <= scalars.count && Array(scalars[position..<position + $0.count]) == $0
        }
        .map(\.count).max()
        if let longest {
          expected.append([position, position + longest])
          position += longest
        } else {
          position += 1
        }
      }
      #expect(found == expected)
    }
  }
}
