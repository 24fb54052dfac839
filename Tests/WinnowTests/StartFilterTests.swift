import PropertyBased
import Testing
import WinnowTestSupport

@_spi(Tools) @testable import Winnow

/// The raw start filter's vector first stages (AVX2, AVX-512, each where this machine has it)
/// against the one that tests a lead byte at a time: the same bits for every block, with and
/// without short patterns, at every size of the prefix table.
@Suite("Start filter")
struct StartFilterTests {
  /// Pieces of text and patterns: ASCII, two-, three- and four-byte characters, so that blocks
  /// hold continuation bytes at every offset, and shared prefixes are likely.
  static let pieces: [[UInt8]] = ["a", "b", "s", "m", "é", "傻", "逼", "山", "🍆", " ", "\u{0}"].map { Array($0.utf8) }
  static let pieceGen = Gen.int(in: 0...(pieces.count - 1)).map { pieces[$0] }
  static let patternGen = pieceGen.array(of: 1...6).map { $0.flatMap { $0 } }
  /// 72 bytes of pieces and of single bytes from all over the range (stray continuation
  /// bytes, bytes no piece has).
  static let blockGen = Gen.int(in: 0...(4 * pieces.count + 63)).map { index in
    index < 4 * pieces.count
      ? pieces[index % pieces.count] : [UInt8(truncatingIfNeeded: (index - 4 * pieces.count) * 4 + 1)]
  }.array(of: 72...72).map { Array($0.flatMap { $0 }.prefix(72)) }

  /// The vector stages this machine can run.
  static let vectorStages = StartFilter.availableStages.filter { $0 != .scalar }

  /// The scalar stage's bits of the first `positions` positions of a block of 72 bytes, and
  /// `stage`'s, and whether `stage` left every bit past the positions clear.
  static func stages(
    _ filter: StartFilter, _ block: [UInt8], positions: Int = 64, stage: StartFilter.FirstStage
  ) -> (scalar: UInt64, vector: UInt64, clearPast: Bool) {
    let mask = UInt64.max >> (64 - positions)
    return filter.words.withUnsafeBufferPointer { words in
      block.withUnsafeBytes { bytes in
        guard let base = bytes.baseAddress else { return (0, 0, false) }
        let vector = filter.vectorPrefixPasses(inBlock: base, positions: positions, words, stage: stage)
        let scalar = filter.prefixPasses(inBlock: base, positions: positions, words)
        return (scalar & mask, vector & mask, vector & ~mask == 0)
      }
    }
  }

  @Test(arguments: vectorStages)
  func vectorStageAgreesWithTheScalarOne(_ stage: StartFilter.FirstStage) async {
    var passing = 0
    await propertyCheck(
      count: 400, input: Self.patternGen.array(of: 1...40), Self.blockGen.array(of: 1...8), Gen.int(in: 1...64)
    ) { patterns, blocks, positions in
      let filter = StartFilter(patterns: patterns)
      for block in blocks {
        let (scalar, vector, clearPast) = Self.stages(filter, block, positions: positions, stage: stage)
        #expect(scalar == vector && clearPast, "\(stage): \(patterns) at \(block), \(positions) positions")
        passing += scalar.nonzeroBitCount
      }
    }
    #expect(passing > 3_000, "\(passing) positions passed")
  }

  /// Large lists: a prefix table of every size up to the largest (shift 48), where an index
  /// off by a bit reads another word.
  @Test(arguments: vectorStages, [100, 3_000, 45_000])
  func vectorStageAgreesOnLargeLists(_ stage: StartFilter.FirstStage, _ count: Int) async {
    let (agreeing, passing) = await offThePool { Self.compareOnALargeList(count, stage: stage) }
    #expect(agreeing == 500)
    #expect(passing > 300, "\(passing) positions passed")
  }

  /// Of 500 blocks, how many get the same bits both ways, and how many positions pass.
  static func compareOnALargeList(_ count: Int, stage: StartFilter.FirstStage) -> (agreeing: Int, passing: Int) {
    var random = SeededGenerator(state: UInt64(count))
    let patterns = (0..<count).map { _ in
      (0..<Int.random(in: 4...9, using: &random)).map { _ in UInt8.random(in: 0x61...0x7A, using: &random) }
    }
    let filter = StartFilter(patterns: patterns + [Array("cu".utf8)])
    var (agreeing, passing) = (0, 0)
    for _ in 0..<500 {
      // Listed words and random bytes, so that both passing and failing positions are common.
      var block: [UInt8] = []
      while block.count < 72 {
        block +=
          Bool.random(using: &random)
          ? patterns[Int.random(in: 0..<count, using: &random)] : [UInt8.random(in: 0...255, using: &random)]
      }
      block.removeLast(block.count - 72)
      let (scalar, vector, clearPast) = stages(filter, block, stage: stage)
      agreeing += scalar == vector && clearPast ? 1 : 0
      passing += scalar.nonzeroBitCount
    }
    return (agreeing, passing)
  }

  /// A space is tested only where a pattern starts with one, and a compiled filter keeps
  /// knowing which: the stage counts of `winnow match --filter-counts` see what the scan tests.
  /// (That no match is lost either way is `AhoCorasickTests`' properties, whose patterns
  /// start with a space now and then.)
  @Test(arguments: [(["ab", "b a"], 6), ([" a", "b a"], 10)])
  func spacesAreTestedOnlyWhereAPatternStartsWithOne(_ patterns: [String], _ tested: Int) {
    let text = Array("ab ab  b a".utf8)
    let filter = StartFilter(patterns: patterns.map { Array($0.utf8) })
    var writer = CompiledWriter()
    filter.encode(into: &writer)
    let bytes = writer.finished()
    let decoded = bytes.withUnsafeBytes { bytes in
      var reader = try! CompiledReader(bytes)
      return try! StartFilter(decoding: &reader)
    }
    for filter in [filter, decoded] {
      var counts = FilterStageCounts()
      text.withUnsafeBufferPointer { filter.countStages(in: $0, into: &counts) }
      // Ten bytes, four of them spaces.
      #expect(counts.leadBytes == tested, "\(counts)")
    }
  }

  /// In the scalar filter's prefix tables, a pattern that is its prefix (two scalars in the
  /// first table, three in the second) sets its end bit, not every bit of its word: another
  /// prefix that hashes to the same word is let through only by its own bits. The pattern itself
  /// still passes whatever follows it. (That no match is lost is `AhoCorasickTests`'
  /// properties, whose patterns have two and three scalars.)
  @Test func aPatternThatIsItsPrefixSetsOnlyItsEndBit() {
    let ending: UInt64 = 0x1234_5678 &* BlockedBloom.multiplier
    // The same top bits (the same word), another end bit, and one follower.
    let neighbour = ending ^ 1
    var prefixes: [UInt64: UInt64] = [:]
    PrefixTable.insert(ending, followedBy: nil, endBitOnly: true, into: &prefixes)
    PrefixTable.insert(neighbour, followedBy: 7, endBitOnly: true, into: &prefixes)
    var words: [UInt64] = []
    let (offset, shift) = PrefixTable.append(prefixes, to: &words, minimumWords: 64)
    #expect(ending >> shift == neighbour >> shift)
    #expect(words[offset + Int(ending >> shift)].nonzeroBitCount == 2)
    #expect(![7, PrefixTable.endBit(ending)].contains(PrefixTable.endBit(neighbour)))
    words.withUnsafeBufferPointer { words in
      for next: UInt64 in 0..<64 {
        let test = { PrefixTable.testOrEnd($0, followedBy: next, offset: offset, shift: shift, words) & 1 }
        #expect(test(ending) == 1)
        // The word's bits: the neighbour's follower and the other prefix's end bit.
        #expect(test(neighbour) == ([7, PrefixTable.endBit(ending)].contains(next) ? 1 : 0), "followed by \(next)")
      }
    }
  }

  /// The scalar filter's first stage lets a scalar beyond the BMP through on its own only when
  /// a one-scalar pattern lies beyond the BMP, for the second stage's keys to decide: such a
  /// pattern is still a candidate where it stands, and with one-scalar patterns of the BMP
  /// alone (`屌`) no letter of a text in Shavian is.
  @Test(arguments: [(["屌"], 0), (["屌", "𐑖"], 1)])
  func supplementaryScalarsPassOnlyForSupplementarySingles(_ patterns: [String], _ expected: Int) {
    let filter = ScalarStartFilter(patterns: patterns.map { $0.unicodeScalars.map(\.value) })
    let text = "𐑐𐑑𐑒𐑓𐑔𐑕𐑖𐑗".unicodeScalars.map(\.value)
    var candidates: [Int] = []
    text.withUnsafeBufferPointer { text in filter.forEachCandidate(in: text) { candidates.append($0) } }
    // With `𐑖` listed, its position passes both stages; collisions of the Bloom keys aside,
    // the others do not pass the second.
    #expect(candidates.contains(6) == (expected == 1))
    #expect(candidates.count >= expected)
    if expected == 0 { #expect(candidates.isEmpty) }
  }
}
