import Foundation
import PropertyBased
import Testing

@_spi(Tools) @testable import Winnow

/// The JSON reader and writer that moderation rewrites content with.
@Suite("JSON")
struct JSONTests {
  @Test(arguments: [
    #"{"a":1,"b":[true,false,null],"c":"x"}"#,
    #"{"n":1.50,"e":-2E+10,"big":12345678901234567890}"#,
    #"{"dup":1,"dup":2}"#,
    #"["傻逼","🍆","\u0001"]"#,
    #"{}"#, #"[]"#, #""""#, "0", "-0.5",
  ])
  func roundTripsCompactText(text: String) throws {
    #expect(try JSONValue(parsing: text).jsonString == text.replacingOccurrences(of: "\\u0001", with: "\\u0001"))
  }

  @Test func decodesEscapesAndSurrogates() throws {
    let value = try JSONValue(parsing: #" { "t" : "a\"b\\c\/d\n\u00e9\ud83c\udf46\ud800x" } "#)
    #expect(value["t"] == .string("a\"b\\c/d\né🍆\u{FFFD}x"))
    #expect(value.jsonString == #"{"t":"a\"b\\c/d\né🍆�x"}"#)
  }

  struct Bad: Sendable, CustomTestStringConvertible {
    let text: String
    let offset: Int
    let message: String
    var testDescription: String { text }
  }

  @Test(arguments: [
    Bad(text: "", offset: 0, message: "unexpected end of input, expected a value"),
    Bad(text: "{\"a\" 1}", offset: 5, message: "expected ':' after an object key"),
    Bad(text: "[1,]", offset: 3, message: "unexpected character ']', expected a value"),
    Bad(text: "{\"a\":1} x", offset: 8, message: "unexpected text after the JSON value"),
    Bad(text: "\"abc", offset: 4, message: "unterminated string"),
    Bad(text: "\"a\tb\"", offset: 2, message: "control character in a string (escape it)"),
    Bad(text: "01", offset: 1, message: "unexpected text after the JSON value"),
    Bad(text: "tru", offset: 0, message: "invalid literal, expected 'true'"),
    Bad(text: "\"\\x\"", offset: 2, message: "invalid escape \\'x'"),
  ])
  func reportsWhereAndWhy(bad: Bad) {
    #expect(throws: JSONParseError(message: bad.message, offset: bad.offset)) { try JSONValue(parsing: bad.text) }
  }

  @Test func rejectsDeepNestingWithoutCrashing() {
    let deep = String(repeating: "[", count: 100_000)
    #expect(throws: JSONParseError.self) { try JSONValue(parsing: deep) }
  }

  @Test func rejectsInvalidUTF8() {
    let bytes: [UInt8] = [0x22, 0xFF, 0x22]
    #expect(throws: JSONParseError(message: "invalid UTF-8 in a string", offset: 1)) {
      try JSONValue(parsingUTF8: bytes)
    }
  }

  /// Random documents: writing then reading gives the same value, and Foundation reads what we
  /// write as the same structure.
  /// Strings with escapes among raw bytes, valid UTF-8 or not (a lead byte cut off by an
  /// escape, a stray continuation byte after one): parsing gives the decoded bytes when they
  /// are valid UTF-8 and "invalid UTF-8" at the string's start when not, and skipping agrees;
  /// the reference decodes a token at a time and asks the standard library.
  @Test func checksUTF8AroundEscapes() async {
    let tokens: [(raw: [UInt8], decoded: [UInt8])] = [
      (Array("a".utf8), Array("a".utf8)), (Array("é".utf8), Array("é".utf8)), (Array("傻".utf8), Array("傻".utf8)),
      ([0xE4], [0xE4]), ([0xA9], [0xA9]), ([0xFF], [0xFF]), (Array(#"\n"#.utf8), [0x0A]),
      (Array(#"\u00e9"#.utf8), Array("é".utf8)), (Array(#"\""#.utf8), [0x22]),
    ]
    let recipes = Gen.int(in: 0...(tokens.count - 1)).array(of: 0...8)
    await propertyCheck(count: 1000, input: recipes) { recipe in
      let bytes: [UInt8] = [0x22] + recipe.flatMap { tokens[$0].raw } + [0x22]
      let decoded = recipe.flatMap { tokens[$0].decoded }
      let expected = String(validating: decoded, as: UTF8.self)
      if let expected {
        #expect((try? JSONValue(parsingUTF8: bytes)) == .string(expected))
      } else {
        #expect(throws: JSONParseError(message: "invalid UTF-8 in a string", offset: 1)) {
          try JSONValue(parsingUTF8: bytes)
        }
      }
      bytes.withUnsafeBufferPointer { buffer in
        var parser = JSONParser(buffer)
        let skipped = Result { () throws(JSONParseError) in try parser.skipValue(depth: 0) }
        switch skipped {
        case .success: #expect(expected != nil)
        case .failure(let error):
          #expect(expected == nil && error == JSONParseError(message: "invalid UTF-8 in a string", offset: 1))
        }
      }
    }
  }

  /// A scalar value of each kind by `number`: null, a bool, an integer, or one of `strings`
  /// with the number after it.
  static func scalar(_ number: Int, strings: [String]) -> JSONValue {
    switch number % 4 {
    case 0: .null
    case 1: .bool(number % 8 == 1)
    case 2: .number(String(number - 500))
    default: .string(strings[number % strings.count] + String(number))
    }
  }

  @Test func writeThenReadIsIdentity() async throws {
    let strings = ["", "a", "傻逼", "\"", "\\", "\n\u{1}", "🍆", "é"]
    @Sendable func scalar(_ number: Int) -> JSONValue { Self.scalar(number, strings: strings) }
    let documents = Gen.int(in: 0...1000).array(of: 0...8).map { numbers -> JSONValue in
      let values = numbers.map(scalar)
      let members = numbers.map { JSONMember(key: strings[$0 % strings.count], value: scalar($0 / 3)) }
      return .object(members + [JSONMember(key: "list", value: .array(values))])
    }
    await propertyCheck(count: 300, input: documents) { document in
      let text = document.jsonString
      #expect((try? JSONValue(parsing: text)) == document)
      #expect((try? JSONSerialization.jsonObject(with: Data(text.utf8))) != nil)
    }
  }
}

/// ``JSONWriter`` against writing the tree its calls describe.
@Suite("JSON writer")
struct JSONWriterTests {
  /// Writes `value` with the writer's calls, one per value, as a caller writing without a tree
  /// does.
  static func write(_ value: JSONValue, to writer: inout JSONWriter) {
    switch value {
    case .null: writer.null()
    case .bool(let flag): writer.bool(flag)
    case .number(let text): writer.number(Int(text)!)
    case .string(let text): writer.string(text)
    case .array(let elements):
      writer.beginArray()
      for element in elements { write(element, to: &writer) }
      writer.endArray()
    case .object(let members):
      writer.beginObject()
      for member in members {
        writer.key(escaping: member.key)
        write(member.value, to: &writer)
      }
      writer.endObject()
    }
  }

  /// Nested documents, several to a run as JSON Lines: commas only between values and
  /// members, none after a newline.
  @Test func writesWhatTheTreeWrites() async {
    // Short strings are written in one append unless they need escapes, and long ones (past
    // 64 bytes) piece by piece: escapes early and late in a string, at both lengths.
    let strings = [
      "", "a", "傻逼", "\"", "\\", "\n\u{1}", "🍆", "é", "x\u{1F}y", String(repeating: "ab", count: 32),
      String(repeating: "傻", count: 21) + "\"",
      String(repeating: "x", count: 20) + "\\" + String(repeating: "y", count: 20),
      String(repeating: "z", count: 70), String(repeating: "q", count: 65) + "\t", "\\x",
    ]
    // An odd count: `scalar` takes a string for odd numbers only, which reach every index.
    @Sendable func scalar(_ number: Int) -> JSONValue { JSONTests.scalar(number, strings: strings) }
    @Sendable func document(_ numbers: [Int]) -> JSONValue {
      let members = numbers.map { JSONMember(key: strings[$0 % strings.count], value: scalar($0 / 3)) }
      let nested: JSONValue = .array(numbers.prefix(3).map { .array([scalar($0), .object([])]) })
      return .object(
        members + [JSONMember(key: "list", value: .array(numbers.map(scalar))), JSONMember(key: "n", value: nested)])
    }
    let runs = Gen.int(in: 0...1000).array(of: 0...6).map(document).array(of: 1...4)
    await propertyCheck(count: 300, input: runs) { documents in
      var writer = JSONWriter()
      for document in documents {
        Self.write(document, to: &writer)
        writer.endLine()
      }
      #expect(String(decoding: writer.bytes, as: UTF8.self) == documents.map { $0.jsonString + "\n" }.joined())
      // Taken out, the text is the same, and the writer is left as a new one.
      let copied = writer.bytes
      #expect(writer.takeBytes() == copied)
      #expect(writer.byteCount == 0 && writer.bytes.isEmpty)
      writer.beginArray()
      writer.number(1)
      writer.endArray()
      #expect(writer.bytes == Array("[1]".utf8))
    }
  }

  /// A writer whose text is cut back (``JSONWriter/removeBytes(from:)``) holds what it held at
  /// that offset, and goes on writing after it as a writer that wrote only that would: through
  /// its room growing (texts past its first room of 512 bytes), and from text it was given.
  @Test func textCutBackIsThePrefixAndWritingGoesOn() async {
    let long = String(repeating: "傻x", count: 60)
    let documents = Gen.int(in: 0...40).array(of: 0...12).map { numbers -> JSONValue in
      .object(numbers.map { JSONMember(key: "k\($0)", value: $0 % 3 == 0 ? .string(long) : .number("\($0)")) })
    }
    await propertyCheck(count: 300, input: documents, documents, Gen.int(in: 0...100), Gen.int(in: 0...3)) {
      first, second, percent, start in
      let given = Array(["", "x", "[1", "{\"a\":"][start].utf8)
      var writer = JSONWriter(bytes: given)
      Self.write(first, to: &writer)
      let whole = writer.bytes
      #expect(writer.byteCount == whole.count)
      let cut = whole.count * percent / 100
      writer.removeBytes(from: cut)
      #expect(writer.bytes == Array(whole[..<cut]))
      #expect(writer.byteCount == cut)
      writer.endLine()
      Self.write(second, to: &writer)
      writer.raw("]")
      #expect(writer.bytes == Array(whole[..<cut]) + Array(("\n" + second.jsonString + "]").utf8))
    }
  }

  @Test(arguments: [0, 7, -1, 10, -10, 1_700_000_000_000, Int.max, Int.min])
  func writesIntegersAsDescriptionDoes(value: Int) {
    var writer = JSONWriter()
    writer.number(value)
    #expect(String(decoding: writer.bytes, as: UTF8.self) == String(value))
  }

  /// Escaping eight bytes at a time, against a byte at a time: strings of the bytes around the
  /// special ones, of lengths around the eight-byte steps.
  @Test func escapesStringsAsAByteAtATimeWriterDoes() async {
    let pieces = ["a", "\"", "\\", "\n", "\r", "\t", "\u{0}", "\u{1F}", " ", "#", "]", "\u{7F}", "é", "傻", "🍆"]
    let texts = Gen.int(in: 0...(pieces.count - 1)).map { pieces[$0] }.array(of: 0...40).map { $0.joined() }
    await propertyCheck(count: 2000, input: texts) { text in
      var expected: [UInt8] = [0x22]
      for byte in text.utf8 {
        switch byte {
        case 0x22: expected += Array(#"\""#.utf8)
        case 0x5C: expected += Array(#"\\"#.utf8)
        case 0x0A: expected += Array(#"\n"#.utf8)
        case 0x0D: expected += Array(#"\r"#.utf8)
        case 0x09: expected += Array(#"\t"#.utf8)
        case ..<0x20: expected += Array(String(format: "\\u%04x", Int(byte)).utf8)
        default: expected.append(byte)
        }
      }
      expected.append(0x22)
      var written: [UInt8] = []
      JSONValue.writeString(text, to: &written)
      #expect(written == expected)
    }
  }
}

/// The reader's string scanning, eight bytes at a time, against a byte at a time.
@Suite("JSON string scanning")
struct JSONStringScanningTests {
  /// Bytes where the eight-at-a-time tests can go wrong: the three kinds of special byte, their
  /// neighbours, and bytes with the high bit set.
  static let interesting: [UInt8] = [
    0x00, 0x01, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x61, 0x7F, 0x80, 0x9F, 0xA0, 0xA2, 0xBD, 0xDC,
    0xE4, 0xFF,
  ]

  @Test func findsTheFirstSpecialByteOfAWord() async {
    let words = Gen.int(in: 0...(Self.interesting.count - 1)).map { Self.interesting[$0] }.array(of: 8...8)
    await propertyCheck(count: 3000, input: words) { bytes in
      let word = bytes.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
      let special = JSONParser.specialBytes(in: word)
      let found = special == 0 ? 8 : special.trailingZeroBitCount / 8
      let expected = bytes.firstIndex { $0 == 0x22 || $0 == 0x5C || $0 < 0x20 } ?? 8
      #expect(found == expected)
    }
  }

  /// What a string literal of `bytes` (without quotes or backslashes) reads as, found a byte at
  /// a time: its text, the first control character's offset, or invalid UTF-8.
  static func byteAtATimeReading(of bytes: [UInt8]) -> Result<JSONValue, JSONParseError> {
    if let control = bytes.firstIndex(where: { $0 < 0x20 }) {
      return .failure(JSONParseError(message: "control character in a string (escape it)", offset: 1 + control))
    } else if let text = String(validating: bytes, as: UTF8.self) {
      return .success(.string(text))
    } else {
      return .failure(JSONParseError(message: "invalid UTF-8 in a string", offset: 1))
    }
  }

  /// A string without quotes or backslashes, of any length around the eight-byte steps: its
  /// text, a control character's offset, or invalid UTF-8, as a byte-at-a-time reading finds.
  @Test func readsStringsAsAByteAtATimeReadingDoes() async {
    let plain = Self.interesting.filter { $0 != 0x22 && $0 != 0x5C } + Array("傻逼é".utf8)
    let texts = Gen.int(in: 0...(plain.count - 1)).map { plain[$0] }.array(of: 0...40)
    await propertyCheck(count: 3000, input: texts) { bytes in
      let document = [0x22] + bytes + [0x22]
      let expected = Self.byteAtATimeReading(of: bytes)
      #expect(Result { () throws(JSONParseError) in try JSONValue(parsingUTF8: document) } == expected)
    }
  }
}

extension JSONStringScanningTests {
  /// Runs of whole CJK characters (which the UTF-8 check takes four at a time), among ASCII,
  /// other characters, control bytes and broken sequences (a stray continuation, a surrogate,
  /// an overlong form, a lone lead): each string reads as a byte-at-a-time reading finds, and
  /// so does the same string skipped.
  @Test func readsRunsOfCJKAsAByteAtATimeReadingDoes() async {
    let pieces: [[UInt8]] =
      ["中文字符", "傻", "逼", "国", "é", "क", "\u{800}", "한", "\u{D7FF}", "😀", "a", "hello ", "\u{1}"].map { Array($0.utf8) }
      + [[0x80], [0xBF], [0xE4], [0xE4, 0xB8], [0xED, 0xA0, 0x80], [0xE0, 0x80, 0x80], [0xC0, 0xAF], [0xFF]]
    let texts = Gen.int(in: 0...(pieces.count - 1)).array(of: 0...16).map { $0.flatMap { pieces[$0] } }
    await propertyCheck(count: 4000, input: texts, Gen.int(in: 0...16)) { bytes, trailing in
      // Bytes after the string, so that the word-at-a-time steps reach its end.
      let document = [0x22] + bytes + [0x22] + [UInt8](repeating: 0x20, count: trailing)
      let expected = Self.byteAtATimeReading(of: bytes)
      #expect(Result { () throws(JSONParseError) in try JSONValue(parsingUTF8: document) } == expected)
      let skipped = document.withUnsafeBufferPointer { buffer in
        Result { () throws(JSONParseError) in
          var parser = JSONParser(buffer)
          return try parser.skipString().text
        }
      }
      switch (skipped, expected) {
      case (.success(let range), .success): #expect(range == 1..<(1 + bytes.count))
      case (.failure(let skipping), .failure(let parsing)): #expect(skipping == parsing)
      default: Issue.record("skipping \(skipped), parsing \(expected)")
      }
    }
  }
}

/// Numbers read eight digits at a time against the grammar of RFC 8259.
@Suite("JSON numbers")
struct JSONNumberTests {
  @Test func findsTheNonDigitsOfAWord() async {
    let bytes: [UInt8] = [0x00, 0x2F, 0x30, 0x31, 0x35, 0x39, 0x3A, 0x3F, 0x40, 0x7F, 0x80, 0xB0, 0xB9, 0xFF]
    let words = Gen.int(in: 0...(bytes.count - 1)).map { bytes[$0] }.array(of: 8...8)
    await propertyCheck(count: 3000, input: words) { word in
      let packed = word.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
      let expected = word.enumerated().reduce(UInt64(0)) { mask, byte in
        (0x30...0x39).contains(byte.element) ? mask : mask | 0x80 << UInt64(8 * byte.offset)
      }
      #expect(JSONParser.nonDigitBytes(in: packed) == expected)
    }
  }

  /// Texts of digits and the other bytes of numbers, of lengths around the eight-byte steps:
  /// each is read as a number exactly when the grammar says it is one.
  @Test func readsWhatTheGrammarAccepts() async throws {
    let grammar = try Regex("^-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?$")
    let pieces = ["0", "1", "7", "9", "0", "5", "12345678", "-", "+", ".", "e", "E", "x"]
    let texts = Gen.int(in: 0...(pieces.count - 1)).array(of: 1...12).map { $0.map { pieces[$0] }.joined() }
    await propertyCheck(count: 3000, input: texts) { text in
      let parsed = try? JSONValue(parsing: text)
      if (try? grammar.wholeMatch(in: text)) != nil {
        #expect(parsed == .number(text))
      } else if case .number = parsed {
        Issue.record("read as a number: \(text)")
      }
    }
  }
}

/// Skipping a value (how `winnow scan` checks lines it does not read into items) against
/// parsing it.
@Suite("JSON skipping")
struct JSONSkippingTests {
  static let fragments = [
    #""a""#, #""傻逼""#, #""a\"b""#, #""\u00e9\ud83c\udf46""#, "0", "-1.5e3", "true", "false", "null", "[]", "{}",
    #"{"k":1}"#, #"[1,"x",null]"#, " ", "\n", ",", ":", "01", "1.", "tru", #""\x""#, "[", "]", "{", "}",
  ]

  /// Any text, well-formed or broken, is accepted by both or rejected by both with the same
  /// error.
  @Test func skippingAcceptsAndRejectsWhatParsingDoes() async {
    let recipes = Gen.int(in: 0...100_000).array(of: 1...12)
    await propertyCheck(count: 4000, input: recipes) { recipe in
      var text = ""
      for (index, number) in recipe.dropLast().enumerated() {
        switch number % 6 {
        case 0: text = "[" + text + "]"
        case 1: text = #"{"k\#(index)":"# + (text.isEmpty ? "0" : text) + "}"
        case 2: text = "[" + text + "," + Self.fragments[number / 6 % Self.fragments.count] + "]"
        default: text += Self.fragments[number / 6 % Self.fragments.count]
        }
      }
      var bytes = Array(text.utf8)
      let damage = recipe.last!
      if damage % 3 == 0, !bytes.isEmpty {
        bytes[damage / 3 % bytes.count] = [0x22, 0x5C, 0xFF, 0x01, 0x7D, 0x5D, 0xE4][damage / 96 % 7]
      }
      let parsed = Result { () throws(JSONParseError) in _ = try JSONValue(parsingUTF8: bytes) }
      let skipped = bytes.withUnsafeBufferPointer { buffer in
        Result { () throws(JSONParseError) in
          var parser = JSONParser(buffer)
          parser.skipWhitespace()
          try parser.skipValue(depth: 0)
          parser.skipWhitespace()
          guard parser.position == buffer.count else { throw parser.error("unexpected text after the JSON value") }
        }
      }
      switch (parsed, skipped) {
      case (.success, .success): break
      case (.failure(let parsing), .failure(let skipping)): #expect(parsing == skipping)
      default: Issue.record("parsing \(parsed), skipping \(skipped): \(String(decoding: bytes, as: UTF8.self))")
      }
    }
  }
}

/// The UTF-8 check of the JSON reader against the standard library's.
@Suite("UTF-8 validation")
struct UTF8ValidationTests {
  @Test func agreesWithTheStandardLibrary() async {
    // Lead and continuation bytes at the edges of the valid ranges, so that valid sequences
    // and near misses are both common.
    let interesting: [UInt8] = [
      0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF,
    ]
    let bytes = Gen.int(in: 0...(interesting.count - 1)).map { interesting[$0] }.array(of: 0...24)
    await propertyCheck(count: 4000, input: bytes) { bytes in
      let ours = bytes.withUnsafeBufferPointer { JSONParser.isValidUTF8($0) }
      #expect(ours == (String(validating: bytes, as: UTF8.self) != nil))
    }
  }

  /// Valid text of one- to four-byte characters, in runs of ASCII and of CJK that take the
  /// check's word-at-a-time paths, then with one byte replaced, mostly by a byte at the edge of
  /// a valid range (`ED`, the surrogates' lead; `E0`, the overlong forms'; a lone continuation):
  /// the check still agrees.
  @Test func agreesOnTextWithOneByteChanged() async {
    // `क`, `ࠀ` (lead E0) and `한`, `\u{D7FF}` (lead ED): valid characters of the two leads whose
    // second byte has a narrower range, inside runs of CJK.
    let pieces = [
      "hello world ", "a", "中文字符", "国", "é", "ß", "\u{E000}", "\u{FFFD}", "😀", "\u{10FFFF}", "क", "\u{800}", "한",
      "\u{D7FF}",
    ]
    let text = Gen.int(in: 0...(pieces.count - 1)).array(of: 1...12).map { $0.map { pieces[$0] }.joined() }
    let edges: [UInt8] = [0x80, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xE0, 0xE4, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF]
    let replacement = zip(Gen.int(in: 0...(edges.count - 1)), Gen.int(in: 0...255), Gen.bool).map {
      $2 ? edges[$0] : UInt8($1)
    }
    await propertyCheck(count: 4000, input: text, zip(Gen.int(in: 0...1000), replacement)) { text, change in
      var bytes = Array(text.utf8)
      #expect(bytes.withUnsafeBufferPointer { JSONParser.isValidUTF8($0) })
      bytes[change.0 % bytes.count] = change.1
      let ours = bytes.withUnsafeBufferPointer { JSONParser.isValidUTF8($0) }
      #expect(ours == (String(validating: bytes, as: UTF8.self) != nil))
    }
  }

  @Test(arguments: [
    [0xED, 0xA0, 0x80], [0xC0, 0xAF], [0xF4, 0x90, 0x80, 0x80], [0xE4, 0xBD], [0xF0, 0x9F, 0x8D, 0x86],
  ])
  func edgeCases(bytes: [UInt8]) {
    let ours = bytes.withUnsafeBufferPointer { JSONParser.isValidUTF8($0) }
    #expect(ours == (String(validating: bytes, as: UTF8.self) != nil))
  }
}
