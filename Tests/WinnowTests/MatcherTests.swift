import Foundation
import PropertyBased
import Synchronization
import Testing

@_spi(Tools) @testable import Winnow

/// The combined matcher on whole lists: normalization, word boundaries, allow entries, regexes.
@Suite("Matcher")
struct MatcherTests {
  struct Case: CustomTestStringConvertible, Sendable {
    let name: String
    /// List text (see WordListFile).
    let words: String
    let text: String
    /// Expected (entry text, original matched text), leftmost-longest.
    let expected: [(String, String)]
    var testDescription: String { name }
  }

  static func matcher(_ words: String, origin: WordList.Origin = .custom) throws -> Matcher {
    try Matcher(lists: [WordList(name: "test.txt", origin: origin, parsing: words)])
  }

  static let cases: [Case] = [
    // Basics
    Case(name: "plain word", words: "fuck", text: "oh fuck it", expected: [("fuck", "fuck")]),
    Case(name: "start and end of text", words: "ab\ncd", text: "ab x cd", expected: [("ab", "ab"), ("cd", "cd")]),
    Case(name: "no match", words: "fuck", text: "hello", expected: []),
    // Word boundaries
    Case(name: "latin inside a word", words: "av", text: "Java", expected: []),
    Case(name: "latin whole word", words: "av", text: "an av film", expected: [("av", "av")]),
    Case(name: "substring opt-in", words: "sub:av", text: "Java", expected: [("av", "av")]),
    Case(name: "ass not in class", words: "ass", text: "first class", expected: []),
    Case(name: "doubled letter needs two", words: "ass", text: "as you like", expected: []),
    Case(name: "digits whole run", words: "123", text: "call 1 2 3 now", expected: [("123", "1 2 3")]),
    Case(name: "full-width digits", words: "123", text: "１２３", expected: [("123", "１２３")]),
    Case(name: "digits not inside a longer run", words: "123", text: "123467", expected: []),
    Case(name: "CJK inside text", words: "傻逼", text: "你是傻逼吗", expected: [("傻逼", "傻逼")]),
    Case(name: "latin next to CJK", words: "fuck", text: "我fuck你", expected: [("fuck", "fuck")]),
    // Evasions
    Case(name: "dotted", words: "fuck", text: "f.u.c.k you", expected: [("fuck", "f.u.c.k")]),
    Case(
      name: "spelled-out phrase", words: "brown shower", text: "see b_r_o_w_n _s_h_o_w_e_r now",
      expected: [("brown shower", "b_r_o_w_n _s_h_o_w_e_r")]),
    Case(
      name: "phrase as written", words: "brown shower", text: "brown  shower",
      expected: [("brown shower", "brown  shower")]),
    Case(
      name: "spelled-out phrase with a doubled letter", words: "leather restraint",
      text: "l e a t h e r   r e s t r a i n t", expected: [("leather restraint", "l e a t h e r   r e s t r a i n t")]),
    Case(
      name: "spelled out after a stray letter", words: "bitch", text: "g b i t c h",
      expected: [("bitch", "b i t c h")]),
    Case(
      name: "spelled out before initials", words: "cums", text: "c u m s J.R.R. Tolkien",
      expected: [("cums", "c u m s")]),
    Case(name: "a word is not spelled out", words: "bitch", text: "g gbitch", expected: []),
    Case(name: "written word keeps its boundary", words: "ass", text: "a s s class", expected: [("ass", "a s s")]),
    Case(name: "full-width", words: "fuck", text: "ｆｕｃｋ", expected: [("fuck", "ｆｕｃｋ")]),
    Case(name: "repeated letters", words: "fuck", text: "fuuuuck", expected: [("fuck", "fuuuuck")]),
    Case(name: "repeated CJK", words: "考试机构", text: "找考试试试机构", expected: [("考试机构", "考试试试机构")]),
    Case(name: "doubled CJK needs two", words: "妈妈的", text: "你妈的", expected: []),
    Case(name: "doubled CJK with more", words: "妈妈的", text: "妈 妈 妈的", expected: [("妈妈的", "妈 妈 妈的")]),
    Case(name: "doubled CJK split by a letter", words: "幼幼极品", text: "幼0幼极品", expected: [("幼幼极品", "幼0幼极品")]),
    Case(name: "leet", words: "shit", text: "sh1t and $hit", expected: [("shit", "sh1t"), ("shit", "$hit")]),
    Case(name: "cyrillic look-alike", words: "fuck", text: "fuсk", expected: [("fuck", "fuсk")]),
    Case(name: "1 for l", words: "lick\nslut", text: "1ick my s1ut", expected: [("lick", "1ick"), ("slut", "s1ut")]),
    Case(name: "1 for i and l", words: "dingleberry", text: "ding1eberry", expected: [("dingleberry", "ding1eberry")]),
    Case(
      name: "doubled l written half as 1", words: "ballsack\nkill", text: "ba1ls@ck, ki1l, kil1, kii1",
      expected: [("ballsack", "ba1ls@ck"), ("kill", "ki1l"), ("kill", "kil1")]),
    Case(name: "half-written double still needs two", words: "kill", text: "ki1 kil", expected: []),
    Case(
      name: "entry written with 1", words: "sh1t", text: "shit sh1t", expected: [("sh1t", "shit"), ("sh1t", "sh1t")]),
    Case(name: "regex sees 1 as i", words: "re:sh[i]t", text: "sh1t", expected: [("sh[i]t", "sh1t")]),
    Case(name: "zero-width inside", words: "傻逼", text: "傻\u{200B}逼", expected: [("傻逼", "傻\u{200B}逼")]),
    Case(name: "separator between CJK", words: "傻逼", text: "傻*逼", expected: [("傻逼", "傻*逼")]),
    Case(name: "traditional", words: "脑残", text: "你腦殘", expected: [("脑残", "腦殘")]),
    Case(name: "Japanese shinjitai", words: "黑鬼", text: "你个黒鬼", expected: [("黑鬼", "黒鬼")]),
    Case(name: "letter between CJK", words: "反动", text: "反v动", expected: [("反动", "反v动")]),
    Case(name: "digit for a letter after CJK", words: "操b", text: "操8", expected: [("操b", "操8")]),
    Case(name: "digits for doubled letters", words: "操bb", text: "就操88吧", expected: [("操bb", "操88")]),
    Case(name: "digits before CJK", words: "tt现金娱乐", text: "77现金娱乐", expected: [("tt现金娱乐", "77现金娱乐")]),
    Case(name: "a count is not a letter", words: "a片", text: "买了4片面包", expected: []),
    Case(name: "digit variant keeps boundaries", words: "木村茜bt", text: "木村茜871", expected: []),
    Case(name: "letter entry between CJK", words: "k粉", text: "出售k粉", expected: [("k粉", "k粉")]),
    Case(name: "upper case", words: "fuck", text: "FUCK", expected: [("fuck", "FUCK")]),
    Case(name: "entry written with evasion", words: "f.u.c.k", text: "fuck", expected: [("f.u.c.k", "fuck")]),
    Case(name: "emoji around", words: "fuck", text: "🍆fuck🍆", expected: [("fuck", "fuck")]),
    // Leftmost-longest
    Case(name: "longest entry wins", words: "傻逼\n傻逼玩意", text: "傻逼玩意儿", expected: [("傻逼玩意", "傻逼玩意")]),
    // Allow entries
    Case(name: "allow an ordinary container", words: "妈的\nallow:妈妈的", text: "妈妈的书，他妈的", expected: [("妈的", "妈的")]),
    Case(name: "allow suppresses inside", words: "sub:cunt\nallow:scunthorpe", text: "Scunthorpe united", expected: []),
    Case(
      name: "allow leaves others", words: "sub:cunt\nallow:scunthorpe", text: "cunt in Scunthorpe",
      expected: [("cunt", "cunt")]),
    // Regex
    Case(
      name: "regex on normalized text", words: "re:b[a4]d\\s*w[o0]rd", text: "ＢＡＤ  WORD",
      expected: [("b[a4]d\\s*w[o0]rd", "ＢＡＤ  WORD")]),
    Case(name: "regex digits", words: "re:\\d{11}", text: "call 13812345678", expected: [("\\d{11}", "13812345678")]),
  ]

  @Test(arguments: cases)
  func matches(_ testCase: Case) throws {
    let found = try Self.matcher(testCase.words).matches(in: testCase.text)
    #expect(found.map { [$0.entry.text, $0.text] } == testCase.expected.map { [$0.0, $0.1] })
    for match in found {
      #expect(String(decoding: Array(testCase.text.utf8)[match.range], as: UTF8.self) == match.text)
    }
  }

  @Test func overlappingReportsEveryEntry() throws {
    let found = try Self.matcher("傻逼\n傻逼玩意\n玩意").overlappingMatches(in: "傻逼玩意")
    #expect(found.map(\.entry.text) == ["傻逼", "傻逼玩意", "玩意"])
  }

  /// Scans reuse the thread's normalized-text buffers: an empty text between two others finds
  /// nothing, and nothing of the text before it.
  @Test func anEmptyTextBetweenTwoFindsNothing() throws {
    let matcher = try Self.matcher("傻逼\nfuck")
    #expect(matcher.matches(in: "f.u.c.k 傻 逼").map(\.entry.text) == ["fuck", "傻逼"])
    #expect(matcher.matches(in: "").isEmpty)
    #expect(matcher.matches(in: "傻逼").map(\.entry.text) == ["傻逼"])
  }

  /// A text with an optional unit is walked twice, and both walks find every match away from
  /// it: each must still be reported once, whether a text has few candidates (compared one by
  /// one) or many (hashed).
  @Test(arguments: [1, 3, Matcher.linearDeduplicationLimit, 40])
  func matchesFoundByBothWalksAreReportedOnce(repeats: Int) throws {
    let matcher = try Self.matcher("反动\n傻逼\n傻逼玩意")
    let text = "反v动" + String(repeating: " 傻逼玩意", count: repeats)
    let overlapping = matcher.overlappingMatches(in: text)
    #expect(overlapping.map(\.entry.text) == ["反动"] + Array(repeating: ["傻逼", "傻逼玩意"], count: repeats).flatMap { $0 })
    #expect(Set(overlapping.map(\.range)).count == overlapping.count)
    #expect(matcher.matches(in: text).map(\.text) == ["反v动"] + Array(repeating: "傻逼玩意", count: repeats))
  }

  @Test func matchRemembersListFileLineAndCategory() throws {
    let list = try WordList(name: "words/custom.txt", origin: .custom, parsing: "# header\n[drugs]\nk粉\n")
    let match = try #require(try Matcher(lists: [list]).matches(in: "卖k粉").first)
    #expect(match.origin == .custom)
    #expect(match.list == "words/custom.txt")
    #expect(match.entry.category == "drugs")
    #expect(match.entry.source == SourceLocation(file: "words/custom.txt", line: 3))
  }

  /// A match refers to its entry in the matcher's compiled lists: it outlives the matcher,
  /// compares by what it reports (two matchers of one list give equal matches), and a changed
  /// action is its own.
  @Test func matchReadsItsEntryFromTheListsItKeeps() throws {
    let words = "# header\n[drugs]\nk粉\nfuck => ****\n"
    var found: [Match] = []
    do {
      let matcher = try Matcher(lists: [WordList(name: "words/custom.txt", origin: .custom, parsing: words)])
      found = matcher.matches(in: "卖k粉 fuck")
    }
    #expect(found.map(\.entry.text) == ["k粉", "fuck"])
    #expect(found.map(\.entry.action) == [.block, .replace("****")])
    #expect(found.map(\.action) == [.block, .replace("****")])
    #expect(found.map(\.category) == ["drugs", "drugs"])
    #expect(found.map(\.list) == ["words/custom.txt", "words/custom.txt"])
    let again = try Matcher(lists: [WordList(name: "words/custom.txt", origin: .custom, parsing: words)])
      .matches(in: "卖k粉 fuck")
    #expect(again == found)
    #expect(Set(again + found).count == 2)
    let other = try Matcher(lists: [WordList(name: "other.txt", origin: .custom, parsing: words)])
      .matches(in: "卖k粉 fuck")
    #expect(other != found)
    let reviewed = found[0].withAction(.review)
    #expect(reviewed.entry.action == .review && reviewed.action == .review)
    #expect(reviewed.entry.text == "k粉" && reviewed.range == found[0].range && reviewed.list == found[0].list)
    #expect(reviewed != found[0])
    #expect(reviewed.withAction(.block) == found[0])
  }

  @Test func customListsLayerOverGlobal() throws {
    let global = try Self.matcher("fuck", origin: .global)
    let app = try Matcher(lists: [WordList(name: "app", origin: .custom, parsing: "秒杀 => **")], over: global)
    let found = app.matches(in: "fuck 秒杀")
    #expect(found.map(\.origin) == [.global, .custom])
    #expect(app.layers.first === global.layers.first)
    #expect(Match.mask("fuck 秒杀", matches: found) == "**** **")
  }

  /// An app's list cannot weaken the built-in one unless the operator says so; it can allow
  /// its own entries, and a global allow entry covers every list.
  @Test func customAllowHidesGlobalMatchesOnlyWhenAllowed() throws {
    let global = try Self.matcher("sub:ass", origin: .global)
    let custom = try WordList(name: "app", origin: .custom, parsing: "allow:assessment\nsub:sess")
    let app = try Matcher(lists: [custom], over: global)
    let permissive = try Matcher(lists: [custom], over: global, customAllowsGlobal: true)
    #expect(global.matches(in: "assessment").count == 1)
    #expect(app.overlappingMatches(in: "assessment").map(\.entry.text) == ["ass"], "the global match stays")
    #expect(permissive.overlappingMatches(in: "assessment").isEmpty)
    let oneMatcher = try Matcher(lists: [WordList(name: "g", origin: .global, parsing: "sub:ass"), custom])
    #expect(oneMatcher.overlappingMatches(in: "assessment").map(\.entry.text) == ["ass"])
    let globalAllow = try Matcher(
      lists: [WordList(name: "app", origin: .custom, parsing: "sub:ass")],
      over: try Self.matcher("allow:assessment", origin: .global))
    #expect(globalAllow.overlappingMatches(in: "assessment").isEmpty)
  }

  @Test func maskingCoversExactlyTheOriginalCharacters() throws {
    let text = "ｆ.u.c.k 你 傻*逼!"
    let matcher = try Self.matcher("fuck\n傻逼")
    #expect(Match.mask(text, matches: matcher.matches(in: text)) == "******* 你 ***!")
  }

  @Test func everyBadEntryIsReported() {
    let list = WordList(
      name: "bad.txt", origin: .custom,
      entries: [
        Entry(text: "ok"), Entry(text: "...", source: SourceLocation(file: "bad.txt", line: 2)),
        Entry(text: "a(b", kind: .regex, source: SourceLocation(file: "bad.txt", line: 3)),
        Entry(text: "x*", kind: .regex, source: SourceLocation(file: "bad.txt", line: 4)),
      ])
    #expect {
      try Matcher(lists: [list])
    } throws: { error in
      let messages = (error as? WordListErrors)?.errors.map(\.description) ?? []
      return messages.count == 3
        && messages[0] == "bad.txt:2: entry \"...\" normalizes to nothing (only separators or invisible characters)"
        && messages[1].hasPrefix("bad.txt:3: invalid regex at offset 3: missing closing parenthesis")
        && messages[2] == "bad.txt:4: regex \"x*\" matches the empty string"
    }
  }

  @Test func catastrophicRegexIsStoppedAndReported() throws {
    let list = try WordList(name: "slow.txt", origin: .custom, parsing: "re:(a|aa)+(b|bb)+c\nok", normalization: .none)
    let matcher = try Matcher(lists: [list])
    // The required "c" is present, so PCRE2 must backtrack through every split of the runs.
    let text = String(repeating: "a", count: 60) + String(repeating: "b", count: 60) + "x c ok"
    let report = matcher.scan(text)
    #expect(report.matches.map(\.entry.text) == ["ok"])
    #expect(
      report.warnings.map(\.description) == ["slow.txt:1: regex \"(a|aa)+(b|bb)+c\" stopped: match limit exceeded"])
  }

  @Test func perListNormalization() throws {
    let raw = try Matcher(lists: [WordList(name: "raw", origin: .custom, parsing: "fuck", normalization: .none)])
    #expect(raw.matches(in: "ｆｕｃｋ").isEmpty)
    #expect(raw.matches(in: "fuck").count == 1)
  }

  /// Every match in order of start, then end, then block before review: a layer's walk finds
  /// its own in order, but a second layer's (other rules) come after the first's, and two lists'
  /// entries of the same text share a span.
  @Test func overlappingMatchesAreOrderedAcrossLayersAndTies() throws {
    let matcher = try Matcher(lists: [
      WordList(name: "late", origin: .custom, parsing: "zzz\nreview:abc"),
      WordList(name: "early", origin: .custom, parsing: "abc", normalization: .none),
    ])
    let found = matcher.overlappingMatches(in: "abc zzz").map { "\($0.text) \($0.range) \($0.action)" }
    #expect(found == ["abc 0..<3 block", "abc 0..<3 review", "zzz 4..<7 block"])
  }

  /// A matcher is shared by the threads of a server, and each thread keeps its scans' buffers
  /// for its next scan, of any matcher: every thread must find in each text exactly what one
  /// thread scanning alone finds, whatever ran on it before (texts of every size, one past the
  /// size whose buffers are kept, and two matchers of different rules in turn).
  @Test func threadsSharingMatchersFindWhatOneThreadFinds() throws {
    let normalized = try Matcher(lists: [CompiledMatcherTests.custom()])
    let raw = try Matcher(lists: [WordList(name: "raw", origin: .custom, parsing: "fuck\n傻逼", normalization: .none)])
    let huge = String(repeating: "傻 逼 ｆｕｃｋ fuck ", count: WordShaper.keptCapacity / 4)
    let texts = try CompiledMatcherTests.sampleTexts() + [huge]
    let alone = texts.map { (normalized.overlappingMatches(in: $0), raw.overlappingMatches(in: $0)) }
    let mismatches = Mutex(0)
    DispatchQueue.concurrentPerform(iterations: 4) { thread in
      // Each thread in its own order, so that texts of different sizes follow one another.
      for step in 0..<texts.count {
        let index = (step * (2 * thread + 1) + thread * 97) % texts.count
        let found = (normalized.overlappingMatches(in: texts[index]), raw.overlappingMatches(in: texts[index]))
        if found.0 != alone[index].0 || found.1 != alone[index].1 { mismatches.withLock { $0 += 1 } }
      }
    }
    #expect(mismatches.withLock { $0 } == 0)
    #expect(alone.last!.0.count > 0 && alone.last!.1.count > 0)
  }

  /// Threads that scan and then end, one after another: each ending thread frees the workspace
  /// its scans left (see `ThreadWorkspace`), and the next thread's scans, in a workspace of
  /// their own, find what the calling thread finds.
  @Test func threadsThatEndLeaveScansIntact() throws {
    let matcher = try Matcher(lists: [CompiledMatcherTests.custom()])
    let texts = try CompiledMatcherTests.sampleTexts()
    let alone = texts.map { matcher.overlappingMatches(in: $0) }
    let mismatches = Mutex(0)
    for round in 0..<8 {
      let done = DispatchSemaphore(value: 0)
      let thread = Thread {
        for index in texts.indices
        where matcher.overlappingMatches(in: texts[(index + round) % texts.count])
          != alone[(index + round) % texts.count]
        {
          mismatches.withLock { $0 += 1 }
        }
        done.signal()
      }
      thread.start()
      done.wait()
    }
    #expect(mismatches.withLock { $0 } == 0)
    #expect(alone.contains { !$0.isEmpty })
  }
}
