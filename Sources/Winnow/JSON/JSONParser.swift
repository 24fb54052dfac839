/// Why a text is not JSON, and where.
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
  /// What was wrong, in lower case (`expected ':' after an object key`).
  public let message: String
  /// The 0-based UTF-8 byte offset where the problem was found.
  public let offset: Int

  /// The error as one line: its byte offset and cause.
  public var description: String { "invalid JSON at byte \(offset): \(message)" }
}

extension JSONValue {
  /// The deepest nesting of arrays and objects accepted; deeper input is an error, not a crash.
  public static let maximumDepth = 512

  /// Parses one JSON value (RFC 8259) from text; white space may surround it.
  /// - Throws: ``JSONParseError`` naming the byte offset of the first problem.
  public init(parsing text: String) throws(JSONParseError) {
    var text = text
    let result = text.withUTF8 { bytes in
      Result { () throws(JSONParseError) in try JSONValue(parsingUTF8: bytes) }
    }
    self = try result.get()
  }

  /// Parses one JSON value from UTF-8 bytes; white space may surround it. Strings must be valid
  /// UTF-8.
  /// - Throws: ``JSONParseError`` naming the byte offset of the first problem.
  public init(parsingUTF8 bytes: UnsafeBufferPointer<UInt8>) throws(JSONParseError) {
    var parser = JSONParser(bytes)
    parser.skipWhitespace()
    let value = try parser.parseValue(depth: 0)
    parser.skipWhitespace()
    guard parser.position == bytes.count else { throw parser.error("unexpected text after the JSON value") }
    self = value
  }

  /// Parses one JSON value from UTF-8 bytes.
  public init(parsingUTF8 bytes: some Collection<UInt8>) throws(JSONParseError) {
    let result: Result<JSONValue, JSONParseError>? = bytes.withContiguousStorageIfAvailable { buffer in
      Result { () throws(JSONParseError) in try JSONValue(parsingUTF8: buffer) }
    }
    if let result {
      self = try result.get()
    } else {
      self = try Array(bytes).withUnsafeBufferPointer { buffer in
        Result { () throws(JSONParseError) in try JSONValue(parsingUTF8: buffer) }
      }.get()
    }
  }
}

/// A recursive-descent JSON parser over UTF-8 bytes. Strings without escapes are made from
/// their bytes in one step; numbers keep their text.
struct JSONParser {
  let bytes: UnsafeBufferPointer<UInt8>
  var position = 0
  /// False over text already checked: strings are then skipped and made without checking their
  /// UTF-8 again.
  var checksUTF8 = true

  init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

  func error(_ message: String) -> JSONParseError { JSONParseError(message: message, offset: position) }

  mutating func skipWhitespace() {
    while position < bytes.count {
      switch bytes[position] {
      case 0x20, 0x0A, 0x0D, 0x09: position += 1
      default: return
      }
    }
  }

  mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
    guard position < bytes.count else { throw error("unexpected end of input, expected a value") }
    switch bytes[position] {
    case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
    case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
    case UInt8(ascii: "\""): return .string(try parseString())
    case UInt8(ascii: "t"):
      try expectWord("true")
      return .bool(true)
    case UInt8(ascii: "f"):
      try expectWord("false")
      return .bool(false)
    case UInt8(ascii: "n"):
      try expectWord("null")
      return .null
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
    default: throw error("unexpected character \(describe(bytes[position])), expected a value")
    }
  }

  private func describe(_ byte: UInt8) -> String {
    byte >= 0x20 && byte < 0x7F ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
  }

  private mutating func expectWord(_ word: StaticString) throws(JSONParseError) {
    let count = word.utf8CodeUnitCount
    guard position + count <= bytes.count,
      (0..<count).allSatisfy({ bytes[position + $0] == word.utf8Start[$0] })
    else { throw error("invalid literal, expected '\(word)'") }
    position += count
  }

  private mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
    var members: [JSONMember] = []
    try walkObject(depth: depth) { parser throws(JSONParseError) in
      try parser.parseString()
    } value: {
      parser, key throws(JSONParseError) in
      // Room for a message's members at once: grown one append at a time, an item's object of
      // eight members was allocated and copied four times.
      if members.isEmpty { members.reserveCapacity(8) }
      members.append(JSONMember(key: key, value: try parser.parseValue(depth: depth)))
    }
    return .object(members)
  }

  private mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
    var elements: [JSONValue] = []
    try walkArray(depth: depth) { parser throws(JSONParseError) in elements.append(try parser.parseValue(depth: depth))
    }
    return .array(elements)
  }

  /// Moves past one value, checking it as ``parseValue(depth:)`` does (any text one rejects,
  /// the other rejects), without building it.
  mutating func skipValue(depth: Int) throws(JSONParseError) {
    guard position < bytes.count else { throw error("unexpected end of input, expected a value") }
    switch bytes[position] {
    case UInt8(ascii: "{"): try skipObject(depth: depth + 1) { _, _ throws(JSONParseError) in }
    case UInt8(ascii: "["): try skipArray(depth: depth + 1)
    case UInt8(ascii: "\""): _ = try skipString()
    case UInt8(ascii: "t"): try expectWord("true")
    case UInt8(ascii: "f"): try expectWord("false")
    case UInt8(ascii: "n"): try expectWord("null")
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try scanNumber()
    default: throw error("unexpected character \(describe(bytes[position])), expected a value")
    }
  }

  /// Moves past the object at `position`, checking it as ``parseValue(depth:)`` does; `member`
  /// gets each member's key (as ``skipString()`` gives it) and the range of its value, in order.
  mutating func skipObject(
    depth: Int, member: (_ key: (text: Range<Int>, isEscaped: Bool), _ value: Range<Int>) throws(JSONParseError) -> Void
  ) throws(JSONParseError) {
    try walkObject(depth: depth) { parser throws(JSONParseError) in
      try parser.skipString()
    } value: {
      parser, key throws(JSONParseError) in
      let start = parser.position
      try parser.skipValue(depth: depth)
      try member(key, start..<parser.position)
    }
  }

  /// Enters the object at `position` (its `{`), the first step of walking its members by hand
  /// as ``skipValue(depth:)`` checks them: false, with the parser past the `}`, when the object
  /// is empty; true with the parser at the first key's quote. Then, for each member: the key
  /// (``skipString()``), ``enterValue()``, the value, and ``nextMember()``. Written out in a
  /// caller's own loop, the members cost no call each, as a closure per member did.
  @inline(__always)
  mutating func enterObject(depth: Int) throws(JSONParseError) -> Bool {
    guard depth <= JSONValue.maximumDepth else { throw error("nesting deeper than \(JSONValue.maximumDepth)") }
    position += 1
    skipWhitespace()
    if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
      position += 1
      return false
    }
    try expectKey()
    return true
  }

  /// Moves past the colon after a member's key (and the white space around it), to its value.
  @inline(__always)
  mutating func enterValue() throws(JSONParseError) {
    skipWhitespace()
    guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else {
      throw error("expected ':' after an object key")
    }
    position += 1
    skipWhitespace()
  }

  /// After a member's value: true, at the next key's quote, when a comma follows; false, past
  /// the object, at its `}`.
  @inline(__always)
  mutating func nextMember() throws(JSONParseError) -> Bool {
    skipWhitespace()
    guard position < bytes.count else { throw error("unexpected end of input in an object") }
    if bytes[position] == UInt8(ascii: ",") {
      position += 1
      try expectKey()
      return true
    } else if bytes[position] == UInt8(ascii: "}") {
      position += 1
      return false
    } else {
      throw error("expected ',' or '}' in an object")
    }
  }

  /// Moves to a key's opening quote, past white space.
  @inline(__always)
  private mutating func expectKey() throws(JSONParseError) {
    skipWhitespace()
    guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
      throw error("expected a string key in an object")
    }
  }

  /// ``skipObject(depth:member:)``, also giving each string value's text as ``skipString()``
  /// gives it (nil for a value of another type), so that a caller that reads the text need not
  /// scan the string again.
  mutating func skipObject(
    depth: Int,
    memberWithString member: (
      _ key: (text: Range<Int>, isEscaped: Bool), _ value: Range<Int>, _ string: (text: Range<Int>, isEscaped: Bool)?
    ) throws(JSONParseError) -> Void
  ) throws(JSONParseError) {
    try walkObject(depth: depth) { parser throws(JSONParseError) in
      try parser.skipString()
    } value: {
      parser, key throws(JSONParseError) in
      let start = parser.position
      if start < parser.bytes.count && parser.bytes[start] == UInt8(ascii: "\"") {
        let string = try parser.skipString()
        try member(key, start..<parser.position, string)
      } else {
        try parser.skipValue(depth: depth)
        try member(key, start..<parser.position, nil)
      }
    }
  }

  /// Moves past the array at `position`, checking it as ``parseValue(depth:)`` does; `element`
  /// gets the range of each element, in order.
  mutating func skipArray(depth: Int, element: (Range<Int>) throws(JSONParseError) -> Void = { _ in })
    throws(JSONParseError)
  {
    try walkArray(depth: depth) { parser throws(JSONParseError) in
      let start = parser.position
      try parser.skipValue(depth: depth)
      try element(start..<parser.position)
    }
  }

  /// The grammar of the object at `position`, for parsing and skipping alike: `key` reads each
  /// member's key (at its opening quote), `value` its value (after the colon).
  @inline(__always)
  private mutating func walkObject<Key>(
    depth: Int, key: (inout JSONParser) throws(JSONParseError) -> Key,
    value: (inout JSONParser, Key) throws(JSONParseError) -> Void
  ) throws(JSONParseError) {
    guard try enterObject(depth: depth) else { return }
    repeat {
      let name = try key(&self)
      try enterValue()
      try value(&self, name)
    } while try nextMember()
  }

  /// The grammar of the array at `position`, for parsing and skipping alike: `element` reads
  /// each element.
  @inline(__always)
  private mutating func walkArray(depth: Int, element: (inout JSONParser) throws(JSONParseError) -> Void)
    throws(JSONParseError)
  {
    guard depth <= JSONValue.maximumDepth else { throw error("nesting deeper than \(JSONValue.maximumDepth)") }
    position += 1
    skipWhitespace()
    if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
      position += 1
      return
    }
    while true {
      skipWhitespace()
      try element(&self)
      skipWhitespace()
      guard position < bytes.count else { throw error("unexpected end of input in an array") }
      if bytes[position] == UInt8(ascii: ",") {
        position += 1
      } else if bytes[position] == UInt8(ascii: "]") {
        position += 1
        return
      } else {
        throw error("expected ',' or ']' in an array")
      }
    }
  }

  private mutating func parseNumber() throws(JSONParseError) -> String {
    let start = position
    try scanNumber()
    return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
  }

  /// Moves past a number, checking its form.
  private mutating func scanNumber() throws(JSONParseError) {
    if bytes[position] == UInt8(ascii: "-") { position += 1 }
    guard position < bytes.count, isDigit(bytes[position]) else { throw error("expected a digit in a number") }
    if bytes[position] == UInt8(ascii: "0") {
      position += 1
    } else {
      position = endOfDigits(from: position &+ 1)
    }
    if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
      position += 1
      guard position < bytes.count, isDigit(bytes[position]) else { throw error("expected a digit after '.'") }
      position = endOfDigits(from: position &+ 1)
    }
    if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
      position += 1
      if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
        position += 1
      }
      guard position < bytes.count, isDigit(bytes[position]) else { throw error("expected a digit in an exponent") }
      position = endOfDigits(from: position &+ 1)
    }
  }

  private func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

  /// The offset of the first byte from `index` (at most the count) that is not an ASCII digit,
  /// or the count. Eight bytes at a time: a time's thirteen digits, in almost every line of a
  /// dump, were read one by one.
  @inline(__always)
  private func endOfDigits(from index: Int) -> Int {
    var index = index
    let count = bytes.count
    if let base = bytes.baseAddress {
      let raw = UnsafeRawPointer(base)
      while index &+ 8 <= count {
        // SAFETY: the eight bytes lie below `count`, checked above.
        let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
        let others = Self.nonDigitBytes(in: word)
        if others != 0 { return index &+ others.trailingZeroBitCount &>> 3 }
        index &+= 8
      }
    }
    while index < count, isDigit(bytes[index]) { index &+= 1 }
    return index
  }

  /// The high bit of each byte of `word` that is not an ASCII digit, exactly: with `t` a byte
  /// XOR 0x30, a digit is a `t` below 10, and `(t & 0x7F) + 0x76` has its high bit set exactly
  /// when `t & 0x7F` is 10 or more (never carrying into the next byte); `t`'s own high bit
  /// marks the bytes from 0x80 up.
  @inline(__always)
  static func nonDigitBytes(in word: UInt64) -> UInt64 {
    let offset = word ^ 0x3030_3030_3030_3030
    return ((offset & 0x7F7F_7F7F_7F7F_7F7F) &+ 0x7676_7676_7676_7676 | offset) & 0x8080_8080_8080_8080
  }

  /// Parses a string literal at `position` (which holds the opening quote).
  mutating func parseString() throws(JSONParseError) -> String {
    let start = position + 1
    guard let (end, isASCII) = try scanPlainString() else { return try parseEscapedString(from: start) }
    return try makeString(UnsafeBufferPointer(rebasing: bytes[start..<end]), at: start, isASCII: isASCII)
  }

  /// Moves past a string literal at `position`, checking it as ``parseString()`` does
  /// without making a `String` of it unless it has escapes: the range of its text between the
  /// quotes, and whether it has escapes (the range then holds them as written).
  ///
  /// Inlined, with ``scanPlainString()``, into its callers: a dump line's dozen or so keys and
  /// values each made two calls (see `Benchmarks/HISTORY.md`).
  @inline(__always)
  mutating func skipString() throws(JSONParseError) -> (text: Range<Int>, isEscaped: Bool) {
    let start = position + 1
    guard let (end, isASCII) = try scanPlainString() else {
      var unused: [UInt8] = []
      try scanEscapedString(from: start, collecting: false, into: &unused)
      return (start..<(position - 1), true)
    }
    let slice = UnsafeBufferPointer(rebasing: bytes[start..<end])
    guard isASCII || !checksUTF8 || Self.isValidUTF8(slice) else {
      throw JSONParseError(message: "invalid UTF-8 in a string", offset: start)
    }
    return (start..<end, false)
  }

  /// Moves past a string literal without escapes at `position` (its opening quote): the end of
  /// its text (the closing quote's offset) and whether it is all ASCII; nil, with `position` at
  /// the first backslash, when it has escapes.
  @inline(__always)
  private mutating func scanPlainString() throws(JSONParseError) -> (end: Int, isASCII: Bool)? {
    // `index`, not `position`, while reading: `position` lives in memory (the parser is
    // `inout`), and storing it each step was a store and a reload per word.
    var index = position + 1
    let count = bytes.count
    var words: UInt64 = 0  // every byte read OR-ed: no high bit when they are all ASCII
    // Eight bytes at a time up to the first quote, backslash or control character, which
    // `specialBytes` flags exactly (a byte at a time, this loop took a twentieth of a
    // `winnow scan` alone).
    if let base = bytes.baseAddress {
      let raw = UnsafeRawPointer(base)
      while index &+ 8 <= count {
        let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
        let special = Self.specialBytes(in: word)
        if special != 0 {
          let offset = special.trailingZeroBitCount &>> 3
          words |= word & ((1 &<< UInt64(offset &* 8)) &- 1)
          index &+= offset
          return try endPlainString(at: index, isASCII: words & 0x8080_8080_8080_8080 == 0)
        }
        words |= word
        index &+= 8
      }
    }
    var isASCII = words & 0x8080_8080_8080_8080 == 0
    while index < count {
      let byte = bytes[index]
      if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 {
        return try endPlainString(at: index, isASCII: isASCII)
      }
      if byte >= 0x80 { isASCII = false }
      index &+= 1
    }
    position = count
    throw error("unterminated string")
  }

  /// The end of a string literal read up to `index`, which holds a quote, a backslash or a
  /// control character: ``scanPlainString()``'s answer for each.
  @inline(__always)
  private mutating func endPlainString(at index: Int, isASCII: Bool) throws(JSONParseError) -> (
    end: Int, isASCII: Bool
  )? {
    switch bytes[index] {
    case UInt8(ascii: "\""):
      position = index &+ 1
      return (index, isASCII)
    case UInt8(ascii: "\\"):
      position = index
      return nil
    default:
      position = index
      throw error("control character in a string (escape it)")
    }
  }

  /// The high bit of each byte of `word` that is a quote, a backslash or below 0x20, exact up
  /// to the first such byte (later bytes may be flagged falsely, from a borrow).
  @inline(__always)
  static func specialBytes(in word: UInt64) -> UInt64 {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    let quotes = word ^ (ones &* UInt64(UInt8(ascii: "\"")))
    let backslashes = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
    let isQuote = (quotes &- ones) & ~quotes
    let isBackslash = (backslashes &- ones) & ~backslashes
    let isControl = (word &- ones &* 0x20) & ~word
    return (isQuote | isBackslash | isControl) & highs
  }

  private func makeString(
    _ slice: UnsafeBufferPointer<UInt8>, at offset: Int, isASCII: Bool = false
  ) throws(JSONParseError) -> String {
    // Validating first and then decoding takes the standard library's fast path;
    // `String(validating:as:)` is generic and took a tenth of a whole scan. ASCII (names, ids,
    // numbers as strings: most strings of a dump) is valid as it is, and so is text already
    // checked (``checksUTF8``; decoding would repair, not trap, were it not).
    guard isASCII || !checksUTF8 || Self.isValidUTF8(slice) else {
      throw JSONParseError(message: "invalid UTF-8 in a string", offset: offset)
    }
    return String(decoding: slice, as: UTF8.self)
  }

  /// Whether `bytes` are well-formed UTF-8 (no overlong forms, surrogates or values past
  /// U+10FFFF).
  ///
  /// Eight ASCII bytes are checked at once, four three-byte sequences (every CJK character) in
  /// twelve bytes, two as one word, or one as a smaller word: a byte at a time, the check was a
  /// twentieth of a dump's clean lines.
  static func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let base = bytes.baseAddress else { return true }
    let raw = UnsafeRawPointer(base)
    var index = 0
    let count = bytes.count
    func continuation(_ offset: Int) -> Bool { index + offset < count && bytes[index + offset] & 0xC0 == 0x80 }
    // Whether a byte of `word`, none of whose bytes has its high bit set, is zero.
    func hasZeroByte(_ word: UInt64) -> Bool {
      (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080 != 0
    }
    while index < count {
      // SAFETY: each load reads bytes below `count`, checked before it.
      if index &+ 8 <= count {
        let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
        if word & 0x8080_8080_8080_8080 == 0 {
          index &+= 8
          continue
        }
        // Four three-byte sequences in twelve bytes (leads at bytes 0, 3, 6 and 9), none of
        // whose leads is E0 or ED, the two whose second byte has a narrower range (checked by
        // the paths below): the leads' low nibbles, in bytes 0, 3, 6 and 7 of `nibbles` with
        // 0x10 in the others, are neither 0 nor D.
        if index &+ 12 <= count {
          let rest = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: index &+ 8, as: UInt32.self))
          if word & 0xC0F0_C0C0_F0C0_C0F0 == 0x80E0_8080_E080_80E0, rest & 0xC0C0_F0C0 == 0x8080_E080 {
            let nibbles = word & 0x000F_0000_0F00_000F | UInt64(rest & 0x0F00) &<< 48 | 0x0000_1010_0010_1000
            if !hasZeroByte(nibbles) && !hasZeroByte(nibbles ^ 0x0D0D_0D0D_0D0D_0D0D) {
              index &+= 12
              continue
            }
          }
        }
        // Two three-byte sequences (two CJK characters) in the word's first six bytes: leads
        // 1110xxxx at bytes 0 and 3, continuations 10xxxxxx at 1, 2, 4 and 5.
        if word & 0x0000_C0C0_F0C0_C0F0 == 0x0000_8080_E080_80E0 {
          let (lead, second) = (UInt8(truncatingIfNeeded: word), UInt8(truncatingIfNeeded: word &>> 8))
          let (lead2, second2) = (UInt8(truncatingIfNeeded: word &>> 24), UInt8(truncatingIfNeeded: word &>> 32))
          if lead == 0xE0 && second < 0xA0 || lead == 0xED && second >= 0xA0 { return false }
          if lead2 == 0xE0 && second2 < 0xA0 || lead2 == 0xED && second2 >= 0xA0 { return false }
          index &+= 6
          continue
        }
      }
      if index &+ 4 <= count {
        // Lead 1110xxxx, then two 10xxxxxx; the fourth byte loaded is not looked at.
        let word = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt32.self))
        if word & 0x00C0_C0F0 == 0x0080_80E0 {
          let (lead, second) = (UInt8(truncatingIfNeeded: word), UInt8(truncatingIfNeeded: word &>> 8))
          if lead == 0xE0 && second < 0xA0 || lead == 0xED && second >= 0xA0 { return false }
          index &+= 3
          continue
        }
      }
      let lead = bytes[index]
      switch lead {
      case 0..<0x80:
        index += 1
      case 0xC2...0xDF:
        guard continuation(1) else { return false }
        index += 2
      case 0xE0...0xEF:
        guard continuation(1), continuation(2) else { return false }
        let second = bytes[index + 1]
        if lead == 0xE0 && second < 0xA0 || lead == 0xED && second >= 0xA0 { return false }
        index += 3
      case 0xF0...0xF4:
        guard continuation(1), continuation(2), continuation(3) else { return false }
        let second = bytes[index + 1]
        if lead == 0xF0 && second < 0x90 || lead == 0xF4 && second >= 0x90 { return false }
        index += 4
      default:
        return false
      }
    }
    return true
  }

  /// The slow path for strings with escapes: `position` is at the first backslash.
  private mutating func parseEscapedString(from start: Int) throws(JSONParseError) -> String {
    var buffer: [UInt8] = []
    buffer.reserveCapacity(position - start + 16)
    try scanEscapedString(from: start, collecting: true, into: &buffer)
    return String(decoding: buffer, as: UTF8.self)
  }

  /// Moves past the rest of a string with escapes (`position` at the first backslash, its text
  /// from `start`), checking it, and when `collecting` appends its decoded bytes to `buffer`.
  ///
  /// The decoded bytes are valid UTF-8 when every run of bytes between escapes is: an escape
  /// gives whole characters, never a continuation byte, so it can neither complete nor break a
  /// run's sequence. So the runs are checked where they lie, and a string that is only being
  /// skipped allocates nothing (it was decoded into an array, a byte at a time, and made a
  /// `String` that was thrown away). An invalid run is reported at the closing quote, after
  /// every other error, as checking the decoded whole did.
  private mutating func scanEscapedString(
    from start: Int, collecting: Bool, into buffer: inout [UInt8]
  ) throws(JSONParseError) {
    var isValid = true
    var run = start
    @inline(__always) func endRun(_ end: Int) {
      let slice = UnsafeBufferPointer(rebasing: bytes[run..<end])
      if isValid && checksUTF8 && !Self.isValidUTF8(slice) { isValid = false }
      if collecting { buffer.append(contentsOf: slice) }
    }
    while position < bytes.count {
      let byte = bytes[position]
      switch byte {
      case UInt8(ascii: "\""):
        endRun(position)
        position += 1
        guard isValid else { throw JSONParseError(message: "invalid UTF-8 in a string", offset: start) }
        return
      case UInt8(ascii: "\\"):
        endRun(position)
        position += 1
        guard position < bytes.count else { throw error("unterminated string") }
        let escape = bytes[position]
        position += 1
        switch escape {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): if collecting { buffer.append(escape) }
        case UInt8(ascii: "b"): if collecting { buffer.append(0x08) }
        case UInt8(ascii: "f"): if collecting { buffer.append(0x0C) }
        case UInt8(ascii: "n"): if collecting { buffer.append(0x0A) }
        case UInt8(ascii: "r"): if collecting { buffer.append(0x0D) }
        case UInt8(ascii: "t"): if collecting { buffer.append(0x09) }
        case UInt8(ascii: "u"):
          let scalar = try parseUnicodeEscape()
          if collecting { appendUTF8(of: scalar, to: &buffer) }
        default:
          position -= 1
          throw error("invalid escape \\\(describe(escape))")
        }
        run = position
      case 0..<0x20:
        throw error("control character in a string (escape it)")
      default:
        position += 1
      }
    }
    throw error("unterminated string")
  }

  /// Reads the hex digits after `\u` (and a low surrogate's `\uXXXX` after a high one). A lone
  /// surrogate becomes U+FFFD, as in most decoders, rather than failing the whole message.
  private mutating func parseUnicodeEscape() throws(JSONParseError) -> Unicode.Scalar {
    let first = try parseHex4()
    if (0xD800..<0xDC00).contains(first), position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
      bytes[position + 1] == UInt8(ascii: "u")
    {
      let saved = position
      position += 2
      let second = try parseHex4()
      if (0xDC00..<0xE000).contains(second) {
        return Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))!
      }
      position = saved
    }
    return Unicode.Scalar(first) ?? "\u{FFFD}"
  }

  private mutating func parseHex4() throws(JSONParseError) -> UInt32 {
    guard position + 4 <= bytes.count else { throw error("expected 4 hex digits after \\u") }
    var value: UInt32 = 0
    for _ in 0..<4 {
      let byte = bytes[position]
      let digit: UInt8
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
      default: throw error("expected 4 hex digits after \\u")
      }
      value = value << 4 | UInt32(digit)
      position += 1
    }
    return value
  }

  private func appendUTF8(of scalar: Unicode.Scalar, to buffer: inout [UInt8]) {
    UTF8.encode(scalar) { buffer.append($0) }
  }
}
