import Foundation
import PropertyBased
import Testing
import WinnowTestSupport

@_spi(Tools) @testable import Winnow

/// A matcher read back from its compiled form must find exactly what the one that wrote it
/// finds, and a damaged or foreign file must be an error, never a wrong matcher.
@Suite("compiled matchers")
struct CompiledMatcherTests {
  static let repository = repositoryRoot
  static let identity = Array("lists v1".utf8)

  /// Every kind of entry: literals with each boundary, a replacement, an allow span, lexicon
  /// words for a `word:` entry, a category, and regexes with and without a required literal.
  static let customList = """
    [spam]
    秒杀 => **
    sub:fuk
    word:日入
    lexicon:入住
    allow:classic
    ass
    re:傻.{0,2}逼
    re:\\d{11}
    """

  static func custom() throws -> WordList {
    try WordList(name: "app.txt", origin: .custom, parsing: customList)
  }

  static func roundTrip(_ matcher: Matcher, identity: [UInt8] = identity) throws -> Matcher {
    let bytes = matcher.compiledBytes(identity: identity)
    return try bytes.withUnsafeBytes { bytes in try Matcher(compiledBytes: bytes, identity: identity) }
  }

  static let texts = [
    "秒杀 活动 今天", "ｆ.u.c.k you, 傻 逼", "a classic ass", "18日入住", "傻了个逼", "call 13800138000", "fuuuk it",
    "反v动 售k粉", "nothing here at all", "", "ass", "sh1t and a$$", "考试试试机构", "snafuk",
  ]

  static func sampleTexts() throws -> [String] {
    let utterances = try String(
      contentsOf: repository.appendingPathComponent("samples/chatterbot-utterances.txt"), encoding: .utf8)
    return texts + utterances.split(separator: "\n").prefix(2000).map(String.init)
  }

  @Test func aCustomListReadBackFindsTheSameMatches() throws {
    let matcher = try Matcher(lists: [Self.custom()])
    let decoded = try Self.roundTrip(matcher)
    #expect(decoded.entryCount == matcher.entryCount)
    // `sub:fuk` may start inside a word (`snafuk`): this list's walks test every position.
    #expect(decoded.layers.map { $0.skipsInsideWords } == [false])
    for text in try Self.sampleTexts() {
      #expect(decoded.overlappingMatches(in: text) == matcher.overlappingMatches(in: text), "\(text)")
      #expect(decoded.explain(text).suppressed == matcher.explain(text).suppressed, "\(text)")
    }
  }

  @Test func theGlobalListReadBackFindsTheSameMatchesAndServesAppsTheSame() throws {
    let global = try WordList.load(
      directory: Self.repository.appendingPathComponent("wordlists/global").path, origin: .global)
    let matcher = try Matcher(lists: global)
    let decoded = try Self.roundTrip(matcher)
    #expect(decoded.entryCount == matcher.entryCount)
    // Every Latin entry of the global list is whole-word: its walks skip positions inside words.
    #expect(decoded.layers.map { $0.skipsInsideWords } == [true])
    // The lexicon words, read back as spans of the file's bytes (``LexiconWords``), are the
    // same words, and write the same file again.
    // (Compared first: a failed expectation on the arrays themselves would print them whole.)
    let words = (decoded.layers.map { $0.lexiconWords.strings }, matcher.layers.map { $0.lexiconWords.strings })
    let sameWords = words.0 == words.1
    #expect(sameWords, "\(words.0.map(\.count)) words read back, \(words.1.map(\.count)) written")
    let rewritten = decoded.compiledBytes(identity: Self.identity) == matcher.compiledBytes(identity: Self.identity)
    #expect(rewritten)
    // An app's list compiled over the read-back global list (borrowing its lexicon).
    let app = try Matcher(lists: [Self.custom()], over: matcher)
    let decodedApp = try Matcher(lists: [Self.custom()], over: decoded)
    var matched = 0
    for text in try Self.sampleTexts() {
      let expected = matcher.overlappingMatches(in: text)
      matched += expected.count
      #expect(decoded.overlappingMatches(in: text) == expected, "\(text)")
      #expect(decodedApp.matches(in: text) == app.matches(in: text), "\(text)")
    }
    #expect(matched > 0)
  }

  @Test func anotherIdentityIsRefused() throws {
    let bytes = try Matcher(lists: [Self.custom()]).compiledBytes(identity: Self.identity)
    let error = #expect(throws: CompiledMatcherError.self) {
      try bytes.withUnsafeBytes { try Matcher(compiledBytes: $0, identity: Array("lists v2".utf8)) }
    }
    #expect(error?.kind == .otherIdentity)
  }

  @Test func aDamagedFileIsAnErrorWhereverItIsDamaged() throws {
    let bytes = try Matcher(lists: [Self.custom()]).compiledBytes(identity: Self.identity)
    var generator = SystemRandomNumberGenerator()
    // Every cut, then a byte changed at 200 random places.
    for length in 0..<bytes.count {
      #expect(throws: CompiledMatcherError.self) {
        try bytes[..<length].withUnsafeBytes { try Matcher(compiledBytes: $0, identity: Self.identity) }
      }
    }
    for _ in 0..<200 {
      var damaged = bytes
      let position = Int.random(in: 0..<bytes.count, using: &generator)
      damaged[position] ^= UInt8.random(in: 1...255, using: &generator)
      #expect(throws: CompiledMatcherError.self, "byte \(position)") {
        try damaged.withUnsafeBytes { try Matcher(compiledBytes: $0, identity: Self.identity) }
      }
    }
    #expect(throws: CompiledMatcherError.self) {
      try Array("not a matcher at all".utf8).withUnsafeBytes {
        try Matcher(compiledBytes: $0, identity: Self.identity)
      }
    }
  }

  @Test func theChecksumSeesEveryByte() {
    let bytes = (0..<100).map { UInt8(truncatingIfNeeded: $0 &* 37) }
    let checksum = bytes.withUnsafeBytes { CompiledChecksum.of($0) }
    for position in bytes.indices {
      var changed = bytes
      changed[position] ^= 1
      #expect(changed.withUnsafeBytes { CompiledChecksum.of($0) } != checksum, "byte \(position)")
    }
    #expect(bytes.dropLast().withUnsafeBytes { CompiledChecksum.of($0) } != checksum)
  }
}

/// A compiled file that passes its checksum may still be forged: every table index is checked
/// when it is read back, so an automaton whose tables were altered is refused, or is one that
/// walks any text inside its tables (the walk's unchecked reads are checked in a debug build).
@Suite("forged automata")
struct ForgedAutomatonTests {
  /// With `h` followed by twenty letters, a state with more children than a sparse row holds:
  /// a hashed row.
  static let patterns =
    ["傻逼", "傻", "fuck", "uck", "ck", "秒杀", "杀人", "a", "ab", "abc", "bc", "😀x", "x😀"]
    + (0..<40).map { "w\($0)" } + "abcdefghijklmnopqrst".map { "h\($0)y" }

  @Test func theBuiltAutomatonIsConsistent() throws {
    let automaton = try AhoCorasick(patterns: Self.patterns)
    #expect(automaton.isConsistent)
    #expect(automaton.layout.program.contains { $0 & 0xC000_0000 == AutomatonLayout.hashedFlag })
  }

  /// Whatever the patterns, the build lays out what the check accepts: breadth-first, children
  /// in code order, hashed rows where a state has many children (the check asks for that order,
  /// so that it can follow the states without looking their numbers up).
  @Test func everyBuiltAutomatonIsConsistent() async {
    // Most patterns start with `a` or `b`, so that those states have many children.
    let letters = Array("abcdefghijklmnopqrstu傻逼😀")
    let letter = Gen.int(in: 0...(letters.count - 1)).map { letters[$0] }
    let pattern = zip(Gen.int(in: 0...3).map { Array("ab傻c")[$0] }, letter.array(of: 0...4)).map {
      String([$0] + $1)
    }
    var hashed = 0
    await propertyCheck(count: 300, input: pattern.array(of: 1...120)) { patterns in
      guard let automaton = try? AhoCorasick(patterns: patterns) else {
        Issue.record("no automaton for \(patterns)")
        return
      }
      #expect(automaton.isConsistent, "\(patterns)")
      if automaton.layout.program.contains(where: { $0 & 0xC000_0000 == AutomatonLayout.hashedFlag }) { hashed += 1 }
    }
    #expect(hashed > 30, "hashed rows were tried")
  }

  /// A failure link to a state as deep as its own, or deeper, is refused: a walk down such
  /// links might never reach the root.
  @Test func aFailureLinkThatIsNotShallowerIsRefused() throws {
    let built = try AhoCorasick(patterns: ["abc", "bcd", "xy"])
    let layout = built.layout
    // The states of "ab" and "bc" (depth 2), by walking from the root.
    let codes = built.flatBMPCodes
    func state(_ text: String) -> UInt32 {
      layout.program.withUnsafeBufferPointer { program in
        text.unicodeScalars.reduce(UInt32(0)) { state, scalar in
          AutomatonLayout.child(program, state, codes[Int(scalar.value)])
        }
      }
    }
    let (ab, bc, abc) = (state("ab"), state("bc"), state("abc"))
    #expect(ab != 0 && bc != 0 && abc != 0)
    for (from, to) in [(ab, bc), (ab, abc), (abc, abc), (ab, ab)] {
      var program = layout.program
      program[Int(from) + AutomatonLayout.failOffset] = to
      let forged = AhoCorasick(
        layout: AutomatonLayout(
          program: program, slots: layout.slots, slotPatterns: layout.slotPatterns, stateCount: layout.stateCount),
        patternLengths: built.patternLengths, patternByteLengths: built.patternByteLengths, bmpCodes: built.bmpCodes,
        supplementaryCodes: built.supplementaryCodes, startFilter: nil, scalarFilter: nil, asciiFilter: nil)
      #expect(!forged.isConsistent, "fail of \(from) to \(to)")
    }
  }

  /// What became of the forgeries: how many were refused, how many walked, and the matches
  /// found outside their text.
  struct Forgeries: Sendable {
    var refused = 0
    var walked = 0
    var outOfText: [String] = []
  }

  /// Off the concurrency pool (see ``offThePool(_:)``): a thousand forgeries take seconds in a
  /// debug build.
  @Test func alteredTablesAreRefusedOrHarmless() async throws {
    let built = try AhoCorasick(patterns: Self.patterns)
    let forgeries = await offThePool { Self.forge(built, count: 1000) }
    #expect(forgeries.outOfText.isEmpty, "\(forgeries.outOfText.prefix(5))")
    #expect(forgeries.refused > 300, "most alterations are refused")
    #expect(forgeries.walked > 3, "some alterations (of unused words) are harmless and are walked")
  }

  /// Alters one or two words of `built`'s tables `count` times (with a fixed seed) and walks
  /// texts with each forgery that passes the check.
  static func forge(_ built: AhoCorasick, count: Int) -> Forgeries {
    let layout = built.layout
    var generator = SeededGenerator(state: 0x5EED)
    let texts = ["傻逼傻逼 fuck abc", "x😀x😀 杀人 秒杀人", "abcbcabcuckck", String(repeating: "ab", count: 50)]
    let values: [UInt32] = [
      0, 1, 2, 3, 5, 12, 13, 31, 32, 0x20, 0x3F, 0x40, 0x41, 0xFFFF, 0x8000_0000, 0x4000_0001, .max,
    ]
    var forgeries = Forgeries()
    for _ in 0..<count {
      var program = layout.program
      var slots = layout.slots
      var slotPatterns = layout.slotPatterns
      var lengths = built.patternLengths
      for _ in 0..<Int.random(in: 1...2, using: &generator) {
        let value =
          Bool.random(using: &generator)
          ? values[Int.random(in: 0..<values.count, using: &generator)]
          : UInt32(Int.random(in: 0..<program.count, using: &generator))
        switch Int.random(in: 0..<8, using: &generator) {
        case 0..<5: program[Int.random(in: 0..<program.count, using: &generator)] = value
        case 5: slots[Int.random(in: 0..<slots.count, using: &generator)] = value
        case 6 where !slotPatterns.isEmpty:
          slotPatterns[Int.random(in: 0..<slotPatterns.count, using: &generator)] = value
        default: lengths[Int.random(in: 0..<lengths.count, using: &generator)] = value & 7
        }
      }
      let forged = AhoCorasick(
        layout: AutomatonLayout(
          program: program, slots: slots, slotPatterns: slotPatterns, stateCount: layout.stateCount),
        patternLengths: lengths, patternByteLengths: built.patternByteLengths, bmpCodes: built.bmpCodes,
        supplementaryCodes: built.supplementaryCodes, startFilter: nil, scalarFilter: nil, asciiFilter: nil)
      guard forged.isConsistent else {
        forgeries.refused += 1
        continue
      }
      for text in texts {
        for match in forged.overlappingMatches(in: text)
        where !(match.start >= 0 && match.start <= match.end && match.end <= text.utf8.count) {
          forgeries.outOfText.append("\(match) in \(text)")
        }
        _ = forged.matches(in: text)
      }
      forgeries.walked += 1
    }
    return forgeries
  }
}
