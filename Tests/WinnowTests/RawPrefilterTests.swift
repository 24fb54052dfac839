import Foundation
import Testing
import WinnowTestSupport

@_spi(Tools) @testable import Winnow

/// The literals a `raw:` regex's matches must contain, read from its pattern, and the prefilter
/// that skips a raw regex on a text without them: it must never skip a text the regex matches.
@Suite("Raw regex prefilter")
struct RawPrefilterTests {
  /// Sets read from patterns: runs of plain characters (a character made optional left out),
  /// groups by their alternatives, lookarounds and optional groups skipped; anything not read
  /// gives no set.
  @Test(arguments: [
    (#"\S+@\S+\.com"#, [["@"], [".com"]]),
    (#"(?:qq|扣扣)\d+"#, [["qq", "扣扣"]]),
    (#"(?<![a-z])qq\d{5}"#, [["qq"]]),
    ("colou?r", [["colo"], ["r"]]),
    ("a{0,2}b", [["b"]]),
    ("a{2}b", [["a"], ["b"]]),
    ("x(?:ab)?y", [["x"], ["y"]]),
    ("(?:x|y*)z", [["z"]]),
    (#"(?:\.| ?dot ?)(?:com|net)"#, [[".", "dot"], ["com", "net"]]),
    ("(?:https?|ftp)://", [["http", "ftp"], ["://"]]),
    (
      #"(?:点|。|\(dot\))(?:com|net)"#,
      [["点", "。", "(dot)"], ["com", "net"], ["点com", "点net", "。com", "。net", "(dot)com", "(dot)net"]]
    ),
    (#"[a-z]\.(?:com|cn)x?"#, [["."], ["com", "cn"], [".com", ".cn"]]),
    (#"ab?(?:c|d)"#, [["a"], ["c", "d"]]),
    (#"(?:c|d)+e"#, [["c", "d"], ["e"]]),
    (#"(?:c|d[0-9])e"#, [["c", "d"], ["e"]]),
    (
      #"(?:c|d)(?:e|f)(?:g|h)"#,
      [["c", "d"], ["e", "f"], ["g", "h"], ["ceg", "ceh", "cfg", "cfh", "deg", "deh", "dfg", "dfh"]]
    ),
    (#"x{2}(?:a|b)"#, [["x"], ["a", "b"]]),
    ("a|b", []),
    ("(?i)abc", []),
    (#"\Qa.b\E"#, []),
    (#"[0-9]{11}"#, []),
  ])
  func requirementsAreRead(_ pattern: String, _ expected: [[String]]) {
    #expect(RawPrefilter.requirements(of: pattern) == expected)
  }

  /// Joined sets stop at 256 literals: a product past it starts again from the next piece, and
  /// a group with more alternatives than that joins nothing (it once recursed without end).
  @Test func joinedSetsAreCapped() {
    let many = "(?:" + (0..<300).map { "w\($0)x" }.joined(separator: "|") + ")"
    #expect(RawPrefilter.joinedSets(of: Array("a\(many)b".unicodeScalars)[...]).isEmpty)
    let twenty = "(?:" + (0..<20).map { "v\($0)" }.joined(separator: "|") + ")"
    let sets = RawPrefilter.joinedSets(of: Array("\(twenty)\(twenty)(?:p|q)".unicodeScalars)[...])
    #expect(sets.map(\.count) == [20 * 2])  // 400 is past the cap: the second group starts again
  }

  /// A non-ASCII letter with case is not compared without case: its set is not used, and the
  /// regex always runs.
  @Test func casedNonASCIILiteralsAreNotUsed() {
    let prefilter = RawPrefilter(patterns: ["Ягода", "ягода", "@x"], caseless: true)
    #expect(prefilter.needed[0] == 0 && prefilter.needed[1] == 0 && prefilter.needed[2] != 0)
    let exact = RawPrefilter(patterns: ["ягода"], caseless: false)
    #expect(exact.needed[0] != 0)
  }

  /// Only sets that tell texts apart are used: a lone letter, digit or `.` is in most texts.
  @Test func onlySelectiveSetsAreUsed() {
    let patterns = [#"\w+@\w+\.\w+"#, #"\w\.\w"#, "x[0-9]+y", "qq[0-9]+", "扣扣[0-9]+", "(?:qq|扣扣)[0-9]+", "www[.]"]
    let prefilter = RawPrefilter(patterns: patterns, caseless: true)
    #expect(prefilter.needed.map(\.nonzeroBitCount) == [1, 0, 0, 1, 1, 1, 1])
  }

  /// The digits a pattern's matches hold, read as few as they can be: a class counts when all
  /// it matches is a digit; optional atoms, lookarounds and other classes count nothing; a
  /// group its alternative with the fewest; what is not read makes the count 0.
  @Test(arguments: [
    (#"\d{11}"#, 11), (#"[0-9]{3}-[0-9]{4}"#, 7), (#"a(?:\d\d|\d{3})b"#, 2), (#"(?:\d{3}|x)"#, 0),
    (#"\d+"#, 1), (#"\d*"#, 0), (#"(?<=\d{5})x"#, 0), (#"[\s\d]{4}"#, 0), (#"[^0-9]{4}"#, 0),
    (#"[1１一①❶➀]\d{2,}"#, 3), (#"(?i)\d{5}"#, 0), (#"(\d)\1"#, 0), ("0755", 4), (#"\d{2}|\d{5}"#, 2),
    (#"(?:(?:\d{1000}){1000}){1000}"#, 1 << 20),
  ])
  func digitsAreRead(_ pattern: String, _ expected: Int) {
    #expect(RawPrefilter.minimumDigits(of: pattern) == expected, "\(pattern)")
  }

  /// Decimal digits are counted the same way, from what is all decimal digits (`\d`, `[0-9]`,
  /// full-width digits); a class that also holds a Chinese numeral or a circled digit counts
  /// none, since `\d` does not match those.
  @Test(arguments: [
    (#"\d{11}"#, 11), (#"[0-9]{3}-[0-9]{4}"#, 7), (#"[1１一①❶➀]\d{2,}"#, 2), (#"[３-９]\d"#, 2),
    (#"(?:\(0\d{2,3}\)\s?|0\d{2,3}[\s\-])\d{7,8}"#, 10), (#"[1一]{3}"#, 0), ("0755", 4), ("一三", 0),
  ])
  func decimalDigitsAreRead(_ pattern: String, _ expected: Int) {
    #expect(RawPrefilter.minimumDigits(of: pattern, decimal: true) == expected, "\(pattern)")
  }

  /// The gap between two digits a match must hold in a row: a scalar not written out is 4
  /// bytes, what may be left out its most bytes; none where a match need not hold two digits
  /// at a bounded distance.
  @Test(arguments: [
    (#"\d{11}"#, 4 as Int?), (#"\d[\s\-]{0,2}\d"#, 12), (#"\d(?:x|y)?\d"#, 5), (#"\d.*\d"#, nil), ("abc", nil),
    (#"(?:\d|a)\d"#, 0), (#"0755"#, 1), (#"(?:\d{3}|\d{5})-\d"#, 5), (#"\d\1\d"#, nil),
    (
      #"(?<![\d〇])(?:\+?86[\s\-]{0,2})?[1１一幺①❶➀](?:[\s\-.·—_]{0,2}[3-9三③])(?:[\s\-.·—_]{0,2}[\d〇零一二]){9}"#,
      12
    ),
  ])
  func digitGapsAreRead(_ pattern: String, _ expected: Int?) {
    #expect(RawPrefilter.digitGap(of: pattern) == expected, "\(pattern)")
  }

  /// A chain: each digit at most that far after the one before.
  @Test func digitsAreChained() {
    #expect(RawPrefilter.hasDigits(3, chainedWithin: 4, at: [0, 4, 8]))
    #expect(!RawPrefilter.hasDigits(3, chainedWithin: 4, at: [0, 4, 9]))
    #expect(RawPrefilter.hasDigits(3, chainedWithin: 4, at: [0, 10, 12, 14]))
    #expect(
      RawPrefilter.hasDigits(1, chainedWithin: 0, at: [7]) && !RawPrefilter.hasDigits(2, chainedWithin: 9, at: [7]))
  }

  /// The longest match is read from lengths and quantifiers' maximums; lookarounds and anchors
  /// span nothing; a group its longest alternative; anything unbounded or not read has none.
  @Test(arguments: [
    (#"\d{11}"#, 11 as Int?), (#"(?<![\d+])0\d{2,3}-\d{7,8}"#, 13), (#"a(?:bc|d)?e"#, 4), (#"(?:ab|c){2}"#, 4),
    (#"\+?86[\s\-]{0,2}\d"#, 6), (#"^\bab$"#, 2), (#"\d+"#, nil), (#"a{2,}"#, nil), (#"\d*"#, nil),
    (#"(?i)ab"#, nil), (#"(a)\1"#, nil), (#"\p{Nd}"#, nil), (#"\R"#, nil), (#"x{,3}"#, 3), (#"\.\-"#, 2),
  ])
  func longestMatchIsRead(_ pattern: String, _ expected: Int?) {
    #expect(RawPrefilter.maximumLength(of: pattern) == expected, "\(pattern)")
  }

  /// A window holds the digits when some run of `count` of them begins within it.
  @Test func digitsAreFoundWithinAWindow() {
    #expect(RawPrefilter.hasDigits(3, within: 10, at: [0, 20, 25, 29]))
    #expect(!RawPrefilter.hasDigits(3, within: 9, at: [0, 20, 25, 29]))
    #expect(!RawPrefilter.hasDigits(5, within: 100, at: [0, 1, 2, 3]))
    #expect(RawPrefilter.hasDigits(1, within: 1, at: [7]))
    let read = Array("a1一b①３".utf8).withUnsafeBufferPointer { RawPrefilter.readDigits(in: $0) }
    #expect(read.offsets == [1, 2, 6, 9] && read.decimals == 2)
  }

  /// Every decimal digit of every script (what `\d` matches with Unicode properties) is counted
  /// as a possible digit; the blocks answered without a property lookup hold none; and the
  /// first two bytes of every possible digit are among the pairs the scan reads a scalar at.
  @Test func everyDecimalDigitIsCounted() {
    for value in UInt32(0)...0x10FFFF {
      guard let scalar = Unicode.Scalar(value) else { continue }
      if scalar.properties.generalCategory == .decimalNumber {
        #expect(RawPrefilter.mayBeDigit(value), "U+\(String(value, radix: 16))")
      }
      guard RawPrefilter.mayBeDigit(value) else { continue }
      if value >= 0x10000 {
        #expect(RawPrefilter.supplementaryDigitBlocks.contains(Int(value >> 6)), "U+\(String(value, radix: 16))")
      }
      let bytes = Array(String(Character(scalar)).utf8)
      #expect(RawPrefilter.mayBeginDigit(bytes[0], bytes.count > 1 ? bytes[1] : 0), "U+\(String(value, radix: 16))")
    }
    // The blocks of three-byte scalars say exactly what `mayBeDigit` says. (When this fails
    // after a toolchain update brought new digits, write `decimalDigitBlocks` again: for each
    // block of 64 scalars from U+0800 to U+FFFF, the mask of the scalars whose general category
    // is `.decimalNumber`, where it is not 0.)
    for value in UInt32(0x800)...0xFFFF where !(0xD800...0xDFFF).contains(value) {
      let mask = RawPrefilter.digitBlocks[Int(value >> 6)]
      #expect(
        (mask >> UInt64(value & 63)) & 1 == (RawPrefilter.mayBeDigit(value) ? 1 : 0), "U+\(String(value, radix: 16))")
    }
    #expect(!RawPrefilter.mayBeDigit(0x5341) && RawPrefilter.mayBeDigit(0x5E7A))  // 十 is not, 幺 is
    // A decimal digit is exactly what `\d` matches (general category Nd), and its blocks say so.
    for value in UInt32(0)...0x10FFFF {
      guard let scalar = Unicode.Scalar(value) else { continue }
      let isDecimal = scalar.properties.generalCategory == .decimalNumber
      #expect(RawPrefilter.isDecimalDigit(value) == isDecimal, "U+\(String(value, radix: 16))")
      if (0x800...0xFFFF).contains(value) {
        let mask = RawPrefilter.decimalBlocks[Int(value >> 6)]
        #expect((mask >> UInt64(value & 63)) & 1 == (isDecimal ? 1 : 0), "U+\(String(value, radix: 16))")
      }
    }
  }

  /// The patterns of the contact list's `raw:` entries, in order.
  static func contactPatterns() throws -> [String] {
    let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("wordlists/contact/contact.txt").path
    return try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
      .filter { $0.hasPrefix("raw:") }.map { String($0.dropFirst(4)) }
  }

  /// Property: the sets the scan finds are exactly those with a literal somewhere in the text,
  /// found by a plain search of every literal at every byte (the reference); and the digits it
  /// counts are a plain count of the scalars that may be digits. The texts mix the literals
  /// with ordinary Chinese, kana and Latin text, so that scalars of three bytes that begin
  /// nothing, or share their first two bytes with one that does, are read between them.
  @Test func findsWhatAPlainSearchFinds() throws {
    let patterns = try Self.contactPatterns()
    let prefilter = RawPrefilter(patterns: patterns, caseless: true)
    #expect(prefilter.needles.contains { $0.bytes.first.map { $0 & 0xF0 == 0xE0 } == true })
    let pieces = [
      "的", "不", "个", "、", "。", "，", "点", "烹", "扣扣", "扣", "微信", "微", "威信", "一", "七", "二", "幺", "十", "①",
      "１", "は", "ー", "qq", "Q", "wx", "vx", "@", "＠", "(at)", "[dot]", "dot", ".com", ".ME", "://", "www.", "1",
      "a", " ", "ſ", "\u{212A}", "é", "٣", "𝟘", "😀", "\u{E000}", "꘠", "com", "CN", "net", "Shop", "(dot)",
      // Needles written in upper case from their first letter on.
      "QQ", "WX", "Www.", "HTTP://",
    ]
    var generator = SeededGenerator(state: 91)
    var withThreeByteNeedle = 0
    var (wroteWithDigits, overflowed) = (0, 0)
    for _ in 0..<5000 {
      let text = (0..<Int.random(in: 0...20, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }
        .joined()
      let bytes = Array(text.utf8)
      let folded = bytes.map { $0 &- 65 < 26 ? $0 | 0x20 : $0 }
      var reference: UInt64 = 0
      for (index, byte) in folded.enumerated() {
        reference |= prefilter.singleLiteralBits(byte)
        for needle in prefilter.needles where folded[index...].starts(with: needle.bytes) {
          reference |= needle.bit
          if needle.bytes[0] & 0xF0 == 0xE0 { withThreeByteNeedle += 1 }
        }
      }
      // Room for six offsets: some texts have more digits.
      var written = [Int32](repeating: -1, count: 6)
      let scanned = bytes.withUnsafeBufferPointer { buffer in
        written.withUnsafeMutableBufferPointer { prefilter.scan(buffer, digitOffsets: $0) }
      }
      let (found, digits) = (scanned.sets, scanned.digits)
      #expect(found == reference, "\(text)")
      let digitReference = text.unicodeScalars.filter { RawPrefilter.mayBeDigit($0.value) }.count
      #expect(min(digits, prefilter.mostDigitsNeeded) == min(digitReference, prefilter.mostDigitsNeeded), "\(text)")
      // The second pass: every digit's offset, and a plain count of the decimal digits.
      let read = bytes.withUnsafeBufferPointer { RawPrefilter.readDigits(in: $0) }
      var offsetReference: [Int] = []
      var offset = 0
      for scalar in text.unicodeScalars {
        if RawPrefilter.mayBeDigit(scalar.value) { offsetReference.append(offset) }
        offset += String(scalar).utf8.count
      }
      #expect(read.offsets == offsetReference, "\(text)")
      let decimalReference = text.unicodeScalars.filter { $0.properties.generalCategory == .decimalNumber }.count
      #expect(read.decimals == decimalReference, "\(text)")
      // What the scan wrote as it went, where it wrote every digit, is what that pass reads.
      if scanned.wroteOffsets {
        #expect(written.prefix(digits).map { Int($0) } == read.offsets, "\(text)")
        #expect(scanned.decimals == read.decimals, "\(text)")
        if !read.offsets.isEmpty { wroteWithDigits += 1 }
      } else {
        #expect(read.offsets.count > written.count, "\(text)")
        overflowed += 1
      }
    }
    #expect(withThreeByteNeedle > 1000)
    #expect(wroteWithDigits > 1000 && overflowed > 10, "\(wroteWithDigits) \(overflowed)")
  }

  /// A scan that stops early (every set found and the most digits any regex needs) says so,
  /// and the digits' count and window are then read in a pass of their own: a number after the
  /// point where it stopped still counts.
  @Test func digitsAreReadAgainAfterAnEarlyStop() throws {
    let patterns = try Self.contactPatterns()
    let prefilter = RawPrefilter(patterns: patterns, caseless: true)
    // One literal of every set (of two bytes or more, or of one), after enough numerals.
    var literals: [String] = []
    for bit in (0..<64).map({ UInt64(1) << UInt64($0) }) where prefilter.needed.contains(where: { $0 & bit != 0 }) {
      if let needle = prefilter.needles.first(where: { $0.bit & bit != 0 }) {
        literals.append(String(decoding: needle.bytes, as: UTF8.self))
      } else if let byte = (0..<128).first(where: { prefilter.singleLiteralBits(UInt8($0)) & bit != 0 }) {
        literals.append(String(UnicodeScalar(UInt8(byte))))
      }
    }
    #expect(literals.count >= 8)
    let numerals = String(repeating: "一 ", count: prefilter.mostDigitsNeeded)
    let bytes = Array((numerals + literals.joined(separator: " ") + " 13812345678").utf8)
    var written = [Int32](repeating: -1, count: bytes.count)
    let scanned = bytes.withUnsafeBufferPointer { buffer in
      written.withUnsafeMutableBufferPointer { prefilter.scan(buffer, digitOffsets: $0) }
    }
    #expect(!scanned.wroteOffsets)
    let reference = bytes.withUnsafeBufferPointer { RawPrefilter.readDigits(in: $0) }
    var asked = 0
    for regex in prefilter.digitsNeeded.indices where prefilter.digitWindows[regex] < Int.max {
      var read: (offsets: [Int], decimals: Int)? = nil
      let fits = bytes.withUnsafeBufferPointer { text in
        written.withUnsafeBufferPointer { offsets in
          prefilter.digitsFit(regex: regex, in: text, scanned: scanned, offsets: offsets, read: &read)
        }
      }
      let expected =
        reference.decimals >= prefilter.decimalsNeeded[regex]
        && RawPrefilter.hasDigits(
          prefilter.digitsNeeded[regex], within: prefilter.digitWindows[regex], at: reference.offsets)
      #expect(fits == expected && read?.offsets == reference.offsets, "regex \(regex)")
      if fits { asked += 1 }
    }
    #expect(asked > 0)
  }

  /// Property: a regex skipped because its digits are too far apart for one match does not
  /// match. The texts are long and sparse: numerals and phone numbers among Chinese prose, as
  /// in the reviews where the mobile number regex ran on one text in twenty for `一` and `三`.
  @Test func neverSkipsAMatchForItsDigitsWindow() throws {
    let patterns = try Self.contactPatterns()
    let prefilter = RawPrefilter(patterns: patterns, caseless: true)
    let programs = try patterns.map { try RegexProgram(pattern: $0, caseless: true) }
    let pieces = [
      "一", "三", "八", "①", "１", "3", "-", " ", "的", "时候", "我们", "很好", "，", "。", "一个", "第一", "三天",
    ]
    // One text in four holds a whole number somewhere.
    let numbers = ["13812345678", "一三八一二三四五六七八", "138-1234-5678", "010-12345678", "(555) 123-4567"]
    var generator = SeededGenerator(state: 59)
    var scratch = RegexScratch()
    var skippedForWindow = 0
    var matchedWithDigits = 0
    for _ in 0..<2000 {
      var words = (0..<Int.random(in: 10...60, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }
      if Int.random(in: 0..<4, using: &generator) == 0 {
        words.insert(numbers.randomElement(using: &generator)!, at: Int.random(in: 0...words.count, using: &generator))
      }
      let text = words.joined()
      let bytes = Array(text.utf8)
      let offsets = bytes.withUnsafeBufferPointer { RawPrefilter.readDigits(in: $0) }.offsets
      for (index, program) in programs.enumerated() where prefilter.digitsNeeded[index] > 0 {
        var matched = false
        _ = bytes.withUnsafeBufferPointer { buffer in
          program.forEachMatch(in: buffer, scratch: &scratch) { _ in matched = true }
        }
        if matched { matchedWithDigits += 1 }
        let needed = prefilter.digitsNeeded[index]
        guard offsets.count >= needed,
          !RawPrefilter.hasDigits(needed, within: prefilter.digitWindows[index], at: offsets)
        else { continue }
        skippedForWindow += 1
        #expect(!matched, "\(patterns[index]) matches \(text), which the digits' window skips")
      }
    }
    #expect(skippedForWindow > 200 && matchedWithDigits > 100, "\(skippedForWindow) \(matchedWithDigits)")
    #expect(prefilter.digitWindows.filter { $0 < Int.max }.count >= 3)
  }

  /// Property: for each pattern of the contact list and random texts made of the pieces those
  /// patterns are built from, a text on which the prefilter would skip a regex (for its
  /// literals or for its digits) is one the regex does not match (the regex run by itself is
  /// the reference). Case and the two non-ASCII letters that match `k` and `s` without case are
  /// among the pieces, and so are phone numbers in every script the list reads.
  @Test func neverSkipsAMatch() throws {
    let patterns = try Self.contactPatterns()
    let prefilter = RawPrefilter(patterns: patterns, caseless: true)
    let programs = try patterns.map { try RegexProgram(pattern: $0, caseless: true) }
    let pieces = [
      "a", "B", "qq", "QQ", "扣扣", "微信", "wx", "vx:", " ", "-", ".", "。", "点", "@", "＠", "(at)", "[dot]", " dot ",
      "com", "CN", ".ME", "shop", "www.", "http", "://", "1", "38", "0755", "1234", "5678", "一", "三八", "①", "１",
      "+86 ", "(555) ", "ſ", "\u{212A}", "example", "_", "x9", "13812345678", "138 1234 5678",
      "一三八一二三四五六七八", "①③⑧①②③④⑤⑥⑦⑧", "１３８１２３４５６７８", "+44 20 7946 0958", "(555) 123-4567",
      "010-12345678", "٠١٢٣٤٥٦٧٨٩", "幺", "十",
    ]
    var generator = SeededGenerator(state: 37)
    var scratch = RegexScratch()
    var skipped = 0
    var skippedForDigits = 0
    var skippedForDecimals = 0
    var skippedForChain = 0
    var phoneMatches = 0
    for _ in 0..<3000 {
      let text = (0..<Int.random(in: 1...14, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }
        .joined()
      let bytes = Array(text.utf8)
      let scanned = bytes.withUnsafeBufferPointer { prefilter.scan($0) }
      let (found, digits) = (scanned.sets, scanned.digits)
      let read = bytes.withUnsafeBufferPointer { RawPrefilter.readDigits(in: $0) }
      let decimals = read.decimals
      // The scan counts what a plain count of the scalars counts (it may stop once it has
      // every set and the most digits any regex needs).
      let reference = text.unicodeScalars.filter { RawPrefilter.mayBeDigit($0.value) }.count
      #expect(min(digits, prefilter.mostDigitsNeeded) == min(reference, prefilter.mostDigitsNeeded), "\(text)")
      for (index, program) in programs.enumerated() {
        let lacksLiterals = found & prefilter.needed[index] != prefilter.needed[index]
        let lacksDigits = digits < prefilter.digitsNeeded[index]
        let lacksDecimals = decimals < prefilter.decimalsNeeded[index]
        let lacksChain = !RawPrefilter.hasDigits(
          prefilter.digitsNeeded[index], chainedWithin: prefilter.digitGaps[index], at: read.offsets)
        var matched = false
        _ = bytes.withUnsafeBufferPointer { buffer in
          program.forEachMatch(in: buffer, scratch: &scratch) { _ in matched = true }
        }
        if matched && prefilter.digitsNeeded[index] > 0 { phoneMatches += 1 }
        guard lacksLiterals || lacksDigits || lacksDecimals || lacksChain else { continue }
        skipped += 1
        if lacksDigits && !lacksLiterals { skippedForDigits += 1 }
        if lacksDecimals && !lacksDigits && !lacksLiterals { skippedForDecimals += 1 }
        if lacksChain && !lacksDecimals && !lacksDigits && !lacksLiterals { skippedForChain += 1 }
        #expect(!matched, "\(patterns[index]) matches \(text), which the prefilter skips")
      }
    }
    // The property says something only if texts were skipped, for digits too, and if the
    // patterns that need digits also matched.
    #expect(skipped > 3000 && skippedForDigits > 500 && phoneMatches > 500)
    // Skipped for decimal digits alone: Chinese or circled numerals enough for the digit count.
    #expect(skippedForDecimals > 100, "\(skippedForDecimals)")
    // Skipped for the chain alone: enough digits, not each near the one before.
    #expect(skippedForChain > 50, "\(skippedForChain)")
    #expect(prefilter.digitsNeeded.filter { $0 > 0 }.count >= 5)
    #expect(prefilter.decimalsNeeded.filter { $0 > 0 }.count >= 3)
  }
}
