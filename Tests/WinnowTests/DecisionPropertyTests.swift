import PropertyBased
import Testing

@_spi(Tools) @testable import Winnow

/// The engine's decision over overlapping entries of every layer and action, against a naive
/// reference: every occurrence of every entry of both lists found by comparing at every
/// position; blocked when any block entry occurs (block type 1 when a global one does), else
/// rewritten when any replace entry occurs (the replace occurrences chosen leftmost-longest
/// among themselves, global before custom on one span), else delivered, flagged when any review
/// entry occurs.
@Suite("The decision over overlapping entries, against a naive reference")
struct DecisionPropertyTests {
  /// Han characters that normalization leaves alone, so the reference compares them as they are.
  static let alphabet: [Character] = ["甲", "乙", "丙", "丁"]

  struct ListEntry: Hashable, CustomStringConvertible {
    var word: String
    /// 0 block, 1 replace, 2 review.
    var action: Int
    var line: String {
      switch action {
      case 0: word
      case 1: "\(word) => <\(word)>"
      default: "review:\(word)"
      }
    }
    var description: String { line }
  }

  /// An entry from codes: the first gives the action, the others the word's characters.
  static let entryGen = Gen.int(in: 0...11).array(of: 2...4).map { codes in
    ListEntry(word: String(noRepeats(codes.dropFirst().map { alphabet[$0 % alphabet.count] })), action: codes[0] % 3)
  }
  static let listGen = entryGen.array(of: 0...5)
  static let textGen = Gen.int(in: 0...alphabet.count).array(of: 0...12).map { codes in
    String(noRepeats(codes.map { $0 < alphabet.count ? alphabet[$0] : "好" }))
  }

  /// No character twice in a row: normalization reads a run of one character as one (`傻傻逼`
  /// is `傻逼`), which the reference does not model.
  static func noRepeats(_ characters: [Character]) -> [Character] {
    var kept: [Character] = []
    for character in characters where character != kept.last { kept.append(character) }
    return kept
  }

  /// Each word once in a list (its first entry).
  static func unique(_ entries: [ListEntry]) -> [ListEntry] {
    var seen: Set<String> = []
    return entries.filter { seen.insert($0.word).inserted }
  }

  struct Occurrence {
    var entry: ListEntry
    var isGlobal: Bool
    /// In characters.
    var range: Range<Int>
  }

  static func occurrences(of entries: [ListEntry], global: Bool, in text: [Character]) -> [Occurrence] {
    var found: [Occurrence] = []
    for entry in entries {
      let word = Array(entry.word)
      guard word.count <= text.count else { continue }
      for start in 0...(text.count - word.count) where text[start..<start + word.count].elementsEqual(word) {
        found.append(Occurrence(entry: entry, isGlobal: global, range: start..<start + word.count))
      }
    }
    return found
  }

  struct Expected: Equatable, CustomStringConvertible {
    var verdict: ModerationResult.Verdict
    var blockType: BlockType?
    var extra: String?
    var delivered: String
    var flagged: Bool
    var description: String {
      "\(verdict) \(blockType.map { "\($0.rawValue)" } ?? "-") \(extra ?? "-") \(delivered) flagged \(flagged)"
    }
  }

  static func reference(global: [ListEntry], custom: [ListEntry], text: String) -> Expected {
    let characters = Array(text)
    let found =
      occurrences(of: global, global: true, in: characters) + occurrences(of: custom, global: false, in: characters)
    let blocks = found.filter { $0.entry.action == 0 }
    if !blocks.isEmpty {
      let global = blocks.contains { $0.isGlobal }
      return Expected(
        verdict: .blocked, blockType: global ? .globalWord : .customWord, extra: global ? "g" : "c", delivered: text,
        flagged: false)
    }
    // Leftmost, then longest, then global before custom, then list order.
    let replaces = found.enumerated().filter { $0.element.entry.action == 1 }.sorted {
      ($0.element.range.lowerBound, -$0.element.range.upperBound, $0.offset)
        < ($1.element.range.lowerBound, -$1.element.range.upperBound, $1.offset)
    }.map(\.element)
    if !replaces.isEmpty {
      var delivered = ""
      var position = 0
      for occurrence in replaces where occurrence.range.lowerBound >= position {
        delivered += String(characters[position..<occurrence.range.lowerBound]) + "<\(occurrence.entry.word)>"
        position = occurrence.range.upperBound
      }
      delivered += String(characters[position...])
      return Expected(verdict: .replaced, blockType: nil, extra: nil, delivered: delivered, flagged: false)
    }
    return Expected(
      verdict: .pass, blockType: nil, extra: nil, delivered: text, flagged: found.contains { $0.entry.action == 2 })
  }

  static func actual(global: [ListEntry], custom: [ListEntry], text: String) throws -> Expected {
    let globalList = try WordList(
      name: "global.txt", origin: .global, parsing: "[g]\n" + global.map(\.line).joined(separator: "\n"))
    let customList = try WordList(
      name: "app.txt", origin: .custom, parsing: "[c]\n" + custom.map(\.line).joined(separator: "\n"))
    let engine = try ModerationEngine(global: [globalList])
      .addingApp("app", custom: [customList])
    let item = MessageItem(
      sourceType: .original, msgUID: "M1", fromUserId: "u1", targetId: "g1", conversationType: .group,
      content: ["content": .string(text)], sentTime: 1_700_000_000_000, appKey: "app")
    let result = try engine.screen(item)
    let delivered: String
    if case .string(let content) = result.item.content["content"] { delivered = content } else { delivered = "?" }
    let flagged = result.verdict == .replaced ? false : result.flagged
    return Expected(
      verdict: result.verdict, blockType: result.blockType, extra: result.record?.extra, delivered: delivered,
      flagged: flagged)
  }

  @Test func verdictRecordAndRewrittenTextAreTheReferences() async throws {
    var blocked = 0
    var replaced = 0
    var overlapping = 0
    await propertyCheck(count: 1000, input: Self.listGen, Self.listGen, Self.textGen) { global, custom, text in
      let (global, custom) = (Self.unique(global), Self.unique(custom))
      let expected = Self.reference(global: global, custom: custom, text: text)
      let actual: Expected
      do { actual = try Self.actual(global: global, custom: custom, text: text) } catch {
        Issue.record("\(error) for global \(global) custom \(custom) text \(text)")
        return
      }
      #expect(actual == expected, "global \(global) custom \(custom) text \(text)")
      if expected.verdict == .blocked { blocked += 1 }
      if expected.verdict == .replaced { replaced += 1 }
      let found =
        Self.occurrences(of: global, global: true, in: Array(text))
        + Self.occurrences(of: custom, global: false, in: Array(text))
      if found.contains(where: { one in found.contains { $0.range != one.range && $0.range.overlaps(one.range) } }) {
        overlapping += 1
      }
    }
    // The comparison means something only if many cases block, rewrite, and overlap.
    #expect(blocked > 250, "\(blocked) of 1000 cases blocked")
    #expect(replaced > 120, "\(replaced) of 1000 cases rewritten")
    #expect(overlapping > 120, "\(overlapping) of 1000 cases with overlapping occurrences")
  }

  /// The three cases of issue 52, by name.
  @Test(arguments: [
    (["傻逼"], ["你是傻 => **"], "你是傻逼", ModerationResult.Verdict.blocked, BlockType?.some(.globalWord)),
    (["review:专业代"], ["代购"], "专业代购", .blocked, .customWord),
    (["傻逼"], ["你是傻"], "你是傻逼", .blocked, .globalWord),
  ])
  func anOverlapDoesNotHideAStrongerEntry(
    global: [String], custom: [String], text: String, verdict: ModerationResult.Verdict, blockType: BlockType?
  ) throws {
    let engine = try ModerationEngine(
      global: [WordList(name: "g.txt", origin: .global, parsing: global.joined(separator: "\n"))]
    ).addingApp("app", custom: [WordList(name: "a.txt", origin: .custom, parsing: custom.joined(separator: "\n"))])
    let item = MessageItem(
      sourceType: .original, msgUID: "M1", fromUserId: "u1", targetId: "g1", conversationType: .group,
      content: ["content": .string(text)], sentTime: 1_700_000_000_000, appKey: "app")
    let result = try engine.screen(item)
    #expect(result.verdict == verdict)
    #expect(result.blockType == blockType)
    #expect(result.record?.blockType == blockType?.rawValue)
  }
}
