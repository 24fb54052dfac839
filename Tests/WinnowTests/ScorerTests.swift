import Foundation
import PropertyBased
import Testing

@_spi(Tools) @testable import Winnow

/// The scorer: its features against a plain reference, its model file, and its place in the
/// pipeline.
@Suite("Scorer")
struct ScorerTests {
  static let alphabet = [
    "a", "b", "Y", "o", "u", "1", "0", " ", " ", ".", ",", "!", "'", "@", "$", "你", "傻", "逼", "妳", "學", "の", "ア",
    "é", "Ж", "한", "ب", "ｆ", "\u{200B}", "😀", "x", "-",
  ]
  static let textGen = Gen.int(in: 0...(alphabet.count - 1)).map { alphabet[$0] }.array(of: 0...30).map {
    $0.joined()
  }

  /// The features as the doc comment of ``ScorerFeatures`` states them, built as lists of
  /// scalars and hashed afterwards: no ring of CJK scalars, no word kept as indices.
  static func referenceFeatures(of text: String, bits: Int) -> [UInt32: Int] {
    let normalized = Normalizer().normalize(text)
    var units: [(scalar: UInt32, cls: ScalarClass)] = []
    for i in 0..<normalized.count where !normalized.isOptional(i) {
      units.append((UnicodeTables.plainLetter(normalized.scalarStorage[i]), normalized.scalarClass(i)))
    }
    // Optional units end words, as the feature code says: mark where they were.
    var pieces: [[(scalar: UInt32, cls: ScalarClass)]] = [[]]
    for i in 0..<normalized.count {
      if normalized.isOptional(i) {
        pieces.append([])
      } else {
        pieces[pieces.count - 1].append(
          (UnicodeTables.plainLetter(normalized.scalarStorage[i]), normalized.scalarClass(i)))
      }
    }
    var features: [[UInt32]] = []
    // CJK n-grams: runs of unspaced units across optional units.
    var run: [UInt32] = []
    func isWord(_ cls: ScalarClass) -> Bool { [.letter, .digit, .other, .arabicLetter].contains(cls) }
    for unit in units {
      if unit.cls == .unspaced {
        run.append(unit.scalar)
        features.append([1, unit.scalar])
        if run.count >= 2 { features.append([2] + run.suffix(2)) }
        if run.count >= 3 { features.append([3] + run.suffix(3)) }
      } else {
        run = []
      }
    }
    // Words: runs of word units within a piece; the word before resets at CJK units.
    var previous: [UInt32]? = nil
    for piece in pieces {
      var word: [UInt32] = []
      func end() {
        guard !word.isEmpty else { return }
        features.append([4] + word)
        if let previous { features.append([5] + previous + [ScorerFeatures.pairSeparator] + word) }
        previous = word
        let padded = [ScorerFeatures.wordStart] + word + [ScorerFeatures.wordEnd]
        for n in 3...5 where n <= padded.count {
          for first in 0...(padded.count - n) { features.append([UInt32(5 + n)] + padded[first..<(first + n)]) }
        }
        word = []
      }
      for unit in piece {
        if isWord(unit.cls) {
          word.append(unit.scalar)
        } else {
          end()
          if unit.cls == .unspaced { previous = nil }
        }
      }
      end()
    }
    var counts: [UInt32: Int] = [:]
    for feature in features {
      var hash: UInt64 = 0xCBF2_9CE4_8422_2325
      for value in feature { hash = (hash ^ UInt64(value)) &* 0x0000_0100_0000_01B3 }
      var z = hash
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      z ^= z >> 31
      let index = UInt32(truncatingIfNeeded: z) & UInt32((1 << bits) - 1)
      counts[index, default: 0] += z >> 63 == 1 ? -1 : 1
    }
    return counts.filter { $0.value != 0 }
  }

  static func summed(_ features: [(index: UInt32, negative: Bool)]) -> [UInt32: Int] {
    var counts: [UInt32: Int] = [:]
    for feature in features { counts[feature.index, default: 0] += feature.negative ? -1 : 1 }
    return counts.filter { $0.value != 0 }
  }

  @Test func featuresEqualThePlainReference() async {
    await propertyCheck(count: 500, input: Self.textGen) { text in
      #expect(Self.summed(Scorer.features(of: text, bits: 16)) == Self.referenceFeatures(of: text, bits: 16), "\(text)")
    }
  }

  /// A model whose weights are random bytes: the scorer's logit is the bias plus the weights of
  /// the features `winnow score --features` writes, over the square root of their number.
  @Test func theLogitIsTheFeaturesTimesTheWeights() async throws {
    var generator = SystemRandomNumberGenerator()
    let weights = (0..<(1 << 12)).map { _ in Int8.random(in: -127...127, using: &generator) }
    let model = ScorerModel(
      bias: -1.25, scale: 0.03, blockThreshold: 0.9, reviewThreshold: 0.5, category: "abuse", description: "test",
      weights: weights)
    let scorer = try Scorer(bytes: model.encoded)
    await propertyCheck(count: 500, input: Self.textGen) { text in
      let features = Scorer.features(of: text, bits: 12)
      var sum = 0
      for feature in features { sum += (feature.negative ? -1 : 1) * Int(weights[Int(feature.index)]) }
      let expected =
        features.isEmpty ? -1.25 : -1.25 + Double(sum) * Double(Float(0.03)) / Double(features.count).squareRoot()
      #expect(abs(scorer.logit(text) - expected) < 1e-5, "\(text)")
      #expect(abs(scorer.score(text) - 1 / (1 + exp(-expected))) < 1e-5)
    }
  }

  /// The in-place check of a dump line scores the text the matcher has just normalized, where
  /// a layer normalizes by the default rules: the score is the scorer's own, for a matcher
  /// whose default-rules layer comes first, after another rule set, or not at all. A text the
  /// default-rules layers' alphabet filter turned away was not normalized (``AlphabetFilter``):
  /// none is shared, never the text before.
  @Test func theMatchersNormalizationScoresAsTheScorersOwn() async throws {
    let scorer = try Self.oneWordScorer("zorkle")
    let plain = Normalization.default.subtracting(.traditionalToSimplified)
    let defaultFirst = try Matcher(lists: [
      WordList(name: "d", origin: .global, parsing: "fuck"),
      WordList(name: "p", origin: .custom, parsing: "傻逼", normalization: plain),
    ])
    let defaultSecond = try Matcher(lists: [
      WordList(name: "n", origin: .global, parsing: "fuck", normalization: .none),
      WordList(name: "p", origin: .custom, parsing: "傻逼", normalization: plain),
      WordList(name: "d", origin: .custom, parsing: "shit"),
    ])
    let noDefault = try Matcher(lists: [WordList(name: "n", origin: .global, parsing: "fuck", normalization: .none)])
    #expect(
      defaultFirst.defaultRulesSlot == 0 && defaultSecond.defaultRulesSlot == 2 && noDefault.defaultRulesSlot == nil)
    let texts = Self.textGen.map { $0 + " zorkle 學" }
    var (sharedCount, scans) = (0, 0)
    await propertyCheck(count: 300, input: texts) { text in
      for matcher in [defaultFirst, defaultSecond] {
        _ = matcher.scan(text)
        let shared = matcher.withDefaultNormalizedText { scorer.score(normalized: $0) }
        let admitted = matcher.layers.contains { layer in
          layer.normalizer.rules == .default
            && Array(text.utf8).withUnsafeBufferPointer { layer.alphabetFilter?.admits($0) ?? true }
        }
        #expect(shared == (admitted ? scorer.score(text) : nil), "\(text)")
        scans += 1
        if shared != nil { sharedCount += 1 }
      }
      _ = noDefault.scan(text)
      #expect(noDefault.withDefaultNormalizedText { scorer.score(normalized: $0) } == nil)
    }
    // `zorkle` holds the `k` of `fuck`: the first matcher shares every text.
    #expect(sharedCount * 2 >= scans)
  }

  /// What normalization folds, the features do not see: width, case, separators inside CJK,
  /// Traditional characters.
  @Test func evasionsTheMatcherFoldsGiveTheSameFeatures() {
    for (plain, written) in [("fuck you", "ＦＵＣＫ  you"), ("傻逼", "傻 逼"), ("你是傻逼", "你是傻.逼"), ("学习", "學習")] {
      #expect(
        Self.summed(Scorer.features(of: plain, bits: 18)) == Self.summed(Scorer.features(of: written, bits: 18)),
        "\(written)")
    }
  }

  @Test func modelFilesRoundTripAndDamageIsNamed() throws {
    let weights = (0..<1024).map { Int8(truncatingIfNeeded: $0 * 7) }
    let model = ScorerModel(
      bias: 0.5, scale: 0.01, blockThreshold: 0.8, reviewThreshold: 0.6, category: "abuse", description: "d",
      weights: weights)
    let bytes = model.encoded
    #expect(try ScorerModel(decoding: bytes) == model)
    func problem(_ bytes: [UInt8]) -> String? {
      do {
        _ = try Scorer(bytes: bytes, file: "m.wnsc")
        return nil
      } catch { return error.description }
    }
    #expect(problem(Array("hello".utf8))?.contains("not a Winnow model file") == true)
    var flipped = bytes
    flipped[100] ^= 1
    #expect(problem(flipped)?.contains("m.wnsc: checksum does not match") == true)
    #expect(problem(Array(bytes.dropLast(9)))?.contains("checksum") == true)
    var other = model
    other.reviewThreshold = 0.9
    #expect(problem(other.encoded)?.contains("thresholds") == true)
    other = model
    other.scale = .nan
    #expect(problem(other.encoded)?.contains("not a usable number") == true)
    // A later feature version is refused, not misread.
    var later = Array(bytes.dropLast(8))
    later[12] = 2
    withUnsafeBytes(of: ScorerModel.checksum(later[...]).littleEndian) { later += $0 }
    #expect(problem(later)?.contains("feature version 2") == true)
  }

  /// A model that knows one word: `word` and its features weigh +127, the bias is low.
  static func oneWordScorer(_ word: String = "badword") throws -> Scorer {
    var weights = [Int8](repeating: 0, count: 1 << 16)
    for feature in Scorer.features(of: word, bits: 16) {
      weights[Int(feature.index)] = feature.negative ? -127 : 127
    }
    let model = ScorerModel(
      bias: -3, scale: 0.05, blockThreshold: 0.9, reviewThreshold: 0.3, category: "abuse", description: "one word",
      weights: weights)
    return try Scorer(bytes: model.encoded)
  }

  @Test func theScorerOnlyAddsToTheLists() throws {
    let scorer = try Self.oneWordScorer()
    #expect(scorer.score("badword") > 0.9)
    #expect(scorer.score("hello there") < 0.1)
    let list = try WordList(name: "g", origin: .global, parsing: "listed")
    var configuration = ModerationEngine.Configuration()
    configuration.scoring = ScoringPolicy(scorer: scorer)
    let engine = try ModerationEngine(global: [list], configuration: configuration)
    func item(_ text: String) throws -> MessageItem {
      try MessageItem(json: #"{"msgUID":"1","targetId":"t","content":{"content":"\#(text)"}}"#)
    }
    let blocked = try engine.screen(try item("badword"))
    #expect(blocked.verdict == .blocked && blocked.blockType == .thirdParty)
    #expect(blocked.record?.extra == "abuse")
    #expect(blocked.json["score"] != nil)
    // The lists decide first: their block stands, and the scorer is not asked.
    let listed = try engine.screen(try item("badword listed"))
    #expect(listed.blockType == .globalWord && listed.score == nil)
    let clean = try engine.screen(try item("hello"))
    #expect(clean.verdict == .pass && !clean.flagged && (clean.score ?? 1) < 0.3)
    // Between the thresholds: delivered, flagged.
    configuration.scoring = ScoringPolicy(scorer: scorer, blockThreshold: 1, reviewThreshold: 0.5)
    let flagged = try ModerationEngine(global: [list], configuration: configuration).screen(try item("badword"))
    #expect(flagged.verdict == .pass && flagged.flagged)
    // Without a scorer nothing is scored.
    #expect(try ModerationEngine(global: [list]).screen(try item("badword")).score == nil)
  }
}

/// The scorer's clearing of global blocks (``ScoringPolicy/clearThreshold``).
@Suite("The scorer clearing global blocks") struct ScorerClearingTests {
  static func item(_ text: String) throws -> MessageItem {
    try MessageItem(json: #"{"msgUID":"1","targetId":"t","content":{"content":"\#(text)"}}"#)
  }

  /// A model that reads `friendly` as benign as it reads `badword` as abusive.
  static func twoWordScorer() throws -> Scorer {
    var weights = [Int8](repeating: 0, count: 1 << 16)
    for (word, weight) in [("badword", Int8(127)), ("friendly", -127)] {
      for feature in Scorer.features(of: word, bits: 16) {
        weights[Int(feature.index)] = feature.negative ? -weight : weight
      }
    }
    return try Scorer(
      bytes: ScorerModel(
        bias: -3, scale: 0.05, blockThreshold: 0.9, reviewThreshold: 0.3, category: "abuse", description: "two words",
        weights: weights
      ).encoded)
  }

  static func engine(clear: Double, categoryActions: [String: ModerationEngine.CategoryAction] = [:]) throws
    -> ModerationEngine
  {
    var configuration = ModerationEngine.Configuration()
    configuration.scoring = ScoringPolicy(scorer: try twoWordScorer(), clearThreshold: clear)
    configuration.categoryActions = categoryActions
    return try ModerationEngine(
      global: [
        WordList(
          name: "g", origin: .global, parsing: "badword\nlisted\n[slur]\nbadwords\n[politics]\nreview:friendly vote\n")
      ],
      custom: [WordList(name: "app", origin: .custom, parsing: "badwordy\n")], configuration: configuration)
  }

  static let benign = "friendly friendly friendly badword friendly friendly friendly"

  @Test func aKnownWordInABenignClauseIsDeliveredFlagged() throws {
    let scorer = try Self.twoWordScorer()
    #expect(scorer.score("badword") >= ScoringPolicy.knownWord && scorer.score(Self.benign) < 0.2)
    let result = try Self.engine(clear: 0.2).screen(try Self.item(Self.benign))
    #expect(result.verdict == .pass && result.flagged && result.scoreCleared)
    #expect(result.blockType == nil && result.record == nil)
    #expect(result.matches.map(\.match.entry.action) == [.review])
    #expect((result.score ?? 1) < 0.2)
    #expect(result.json["cleared"] == .bool(true))
    // With no clear threshold, the list's block stands.
    let standing = try Self.engine(clear: 0).screen(try Self.item(Self.benign))
    #expect(standing.blockType == .globalWord && !standing.scoreCleared && standing.score == nil)
  }

  @Test func anAbusiveTextIsNotCleared() throws {
    let result = try Self.engine(clear: 0.2).screen(try Self.item("you badword"))
    #expect(result.blockType == .globalWord && !result.scoreCleared)
    #expect((result.score ?? 0) >= 0.2)
  }

  /// A word the model does not know scores low anywhere: that is no evidence of an ordinary sense.
  @Test func aWordTheModelDoesNotKnowIsNotCleared() throws {
    let result = try Self.engine(clear: 0.2).screen(try Self.item("friendly friendly listed friendly friendly"))
    #expect(result.blockType == .globalWord && !result.scoreCleared)
  }

  /// Friendly sentences around an insult lower the score of the whole text, not of the clause
  /// the match is in.
  @Test func paddingDoesNotClear() throws {
    let padding = Array(repeating: "friendly", count: 6).joined(separator: ", ")
    let text = "\(padding). you badword. \(padding)"
    #expect(
      try Self.twoWordScorer().score(text) < 0.2,
      "the padding must dilute the whole text for this test to mean anything")
    let result = try Self.engine(clear: 0.2).screen(try Self.item(text))
    #expect(result.blockType == .globalWord && !result.scoreCleared)
  }

  @Test func customListsAndCategoryActionsAreNeverCleared() throws {
    let custom = try Self.engine(clear: 0.2).screen(try Self.item("friendly friendly badwordy friendly friendly"))
    #expect(custom.blockType == .customWord && !custom.scoreCleared)
    // A category the operator makes block stays blocked.
    let switched = try Self.engine(clear: 0.2, categoryActions: ["slur": .block]).screen(
      try Self.item("friendly friendly badwords friendly friendly"))
    #expect(switched.blockType == .globalWord && !switched.scoreCleared)
    let promoted = try Self.engine(clear: 0.2, categoryActions: ["politics": .block]).screen(
      try Self.item("friendly vote"))
    #expect(promoted.blockType == .globalWord)
    // A benign global block beside a custom block: the custom list decides.
    let both = try Self.engine(clear: 0.2).screen(try Self.item(Self.benign + " badwordy"))
    #expect(both.blockType == .customWord)
  }

  @Test func theClauseStopsAtPunctuationAndReach() {
    func clause(_ text: String, _ word: String) -> String {
      let start =
        text.utf8.count - (text.components(separatedBy: word).dropFirst().joined(separator: word).utf8.count)
        - word.utf8.count
      return String(ModerationEngine.clause(around: start..<(start + word.utf8.count), in: text))
    }
    #expect(clause("hi there, you badword now. bye", "badword") == " you badword now")
    #expect(clause("今天很好，你是傻逼吧。谢谢", "傻逼") == "你是傻逼吧")
    #expect(clause("badword", "badword") == "badword")
    let long = String(repeating: "a", count: 40)
    #expect(
      clause("\(long)X\(long)", "X") == String(repeating: "a", count: 24) + "X" + String(repeating: "a", count: 24))
    // Han characters count three: eight either side.
    let han = String(repeating: "好", count: 20)
    #expect(
      clause("\(han)傻逼\(han)", "傻逼") == String(repeating: "好", count: 8) + "傻逼" + String(repeating: "好", count: 8))
    #expect(clause("一二三四五六七八九傻逼", "傻逼") == "二三四五六七八九傻逼")
    // A range outside the text reads the whole text.
    #expect(ModerationEngine.clause(around: 5..<99, in: "short") == "short")
  }

  @Test func modelFilesCarryTheClearThreshold() throws {
    let model = ScorerModel(
      bias: 0, scale: 0.01, blockThreshold: 0.9, reviewThreshold: 0.5, clearThreshold: 0.05, category: "abuse",
      description: "d", weights: [Int8](repeating: 0, count: 1024))
    #expect(try Scorer(bytes: model.encoded).advisedClearThreshold == Double(Float(0.05)))
    var wrong = model
    wrong.clearThreshold = 0.6
    #expect(throws: ScorerFileError.self) { try Scorer(bytes: wrong.encoded) }
    // A format 1 file (no clear threshold) reads as never clearing.
    var old = Array(model.encoded.dropLast(8))
    old.removeSubrange(36..<40)
    old[8] = 1
    withUnsafeBytes(of: ScorerModel.checksum(old[...]).littleEndian) { old += $0 }
    let scorer = try Scorer(bytes: old)
    #expect(scorer.advisedClearThreshold == 0 && scorer.advisedReviewThreshold == 0.5)
  }
}
