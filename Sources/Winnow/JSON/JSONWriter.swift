extension JSONValue {
  /// The value as compact JSON text: no white space, members in order, numbers as they were
  /// read, non-ASCII characters written as UTF-8 (only `"`, `\` and control characters are
  /// escaped).
  public var jsonString: String {
    var bytes: [UInt8] = []
    write(to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Appends the value as compact JSON to `bytes`.
  public func write(to bytes: inout [UInt8]) {
    switch self {
    case .null: bytes.append(contentsOf: "null".utf8)
    case .bool(let value): bytes.append(contentsOf: (value ? "true" : "false").utf8)
    case .number(let text): bytes.append(contentsOf: text.utf8)
    case .string(let string): JSONValue.writeString(string, to: &bytes)
    case .array(let elements):
      bytes.append(UInt8(ascii: "["))
      for (index, element) in elements.enumerated() {
        if index > 0 { bytes.append(UInt8(ascii: ",")) }
        element.write(to: &bytes)
      }
      bytes.append(UInt8(ascii: "]"))
    case .object(let members):
      bytes.append(UInt8(ascii: "{"))
      for (index, member) in members.enumerated() {
        if index > 0 { bytes.append(UInt8(ascii: ",")) }
        JSONValue.writeString(member.key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        member.value.write(to: &bytes)
      }
      bytes.append(UInt8(ascii: "}"))
    }
  }

  /// Appends `string` as a JSON string literal. Runs of bytes that need no escape (all of most
  /// strings) are found eight bytes at a time and appended whole.
  public static func writeString(_ string: String, to bytes: inout [UInt8]) {
    bytes.append(UInt8(ascii: "\""))
    var string = string
    string.withUTF8 { utf8 in
      guard let base = utf8.baseAddress else { return }
      let raw = UnsafeRawPointer(base)
      var runStart = 0
      var index = 0
      while index < utf8.count {
        if index + 8 <= utf8.count {
          // SAFETY: index + 8 <= count, so the eight bytes lie inside `utf8`.
          let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
          let special = JSONParser.specialBytes(in: word)
          if special == 0 {
            index += 8
            continue
          }
          index += special.trailingZeroBitCount / 8  // the first byte to escape
        }
        let byte = utf8[index]
        index += 1
        guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index - 1]))
        runStart = index
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        default:
          let hex: StaticString = "0123456789abcdef"
          bytes.append(UInt8(ascii: "u"))
          bytes.append(UInt8(ascii: "0"))
          bytes.append(UInt8(ascii: "0"))
          bytes.append(hex.utf8Start[Int(byte >> 4)])
          bytes.append(hex.utf8Start[Int(byte & 0xF)])
        }
      }
      bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
    }
    bytes.append(UInt8(ascii: "\""))
  }

  /// `string` as a JSON string literal.
  public static func quoted(_ string: String) -> String {
    var bytes: [UInt8] = []
    writeString(string, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }
}

/// Compact JSON written straight to bytes, one call per value: the same text
/// ``JSONValue/write(to:)`` gives for the tree those calls describe, without building the tree
/// (for `winnow scan`'s results, building then writing `JSONValue` trees took a third of the
/// time a blocked line cost).
///
/// Commas come from the last byte written: a value or a key that does not follow `{`, `[`, `:`
/// or a newline is preceded by one. So a caller states only the structure, and writes a
/// newline of its own between the values of JSON Lines:
///
/// ```swift
/// var writer = JSONWriter()
/// writer.beginObject()
/// writer.key("words")
/// writer.beginArray()
/// writer.string("a\"b")
/// writer.number(2)
/// writer.endArray()
/// writer.endObject()
/// // writer.bytes: {"words":["a\"b",2]}
/// ```
///
/// The writer checks nothing: a key outside an object, or a container left open, gives text
/// that is not JSON.
@_spi(Tools) public struct JSONWriter: Sendable {
  /// The text written so far (and whatever the writer was created with).
  public var bytes: [UInt8]

  /// A writer that appends to `bytes`.
  public init(bytes: [UInt8] = []) {
    self.bytes = bytes
  }

  /// A comma, unless the last byte written opens a container, ends a key or a line (or nothing
  /// was written).
  @inline(__always)
  private mutating func separate() {
    if needsComma { bytes.append(UInt8(ascii: ",")) }
  }

  /// Whether the next value or key needs a comma before it: whether the last byte written
  /// ends a value (not an opening bracket, a key's colon or a line).
  @inline(__always)
  private var needsComma: Bool {
    guard let last = bytes.last else { return false }
    return last != UInt8(ascii: "{") && last != UInt8(ascii: "[") && last != UInt8(ascii: ":") && last != 0x0A
  }

  @inline(__always)
  private mutating func append(_ text: StaticString) {
    bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
  }

  /// Opens an object.
  public mutating func beginObject() {
    separate()
    bytes.append(UInt8(ascii: "{"))
  }

  /// Closes the innermost object.
  public mutating func endObject() { bytes.append(UInt8(ascii: "}")) }

  /// Opens an array.
  public mutating func beginArray() {
    separate()
    bytes.append(UInt8(ascii: "["))
  }

  /// Closes the innermost array.
  public mutating func endArray() { bytes.append(UInt8(ascii: "]")) }

  /// Ends a line of JSON Lines: a newline, after which the next value takes no comma.
  public mutating func endLine() { bytes.append(0x0A) }

  /// A member's key; its value is the next thing written. `key` must need no escape (a
  /// literal of the program's own).
  public mutating func key(_ key: StaticString) {
    appendQuoted(UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount), colon: true)
  }

  /// The comma the next value needs, then `text` (nothing to escape) in quotes, then a colon
  /// when `colon`, in one append: appended piece by piece, a key or a string took three or
  /// four appends, each checking the array's uniqueness and room.
  @inline(__always)
  private mutating func appendQuoted(_ text: UnsafeBufferPointer<UInt8>, colon: Bool) {
    let comma = needsComma ? 1 : 0
    let count = text.count
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count &+ 4) { buffer in
      buffer[0] = UInt8(ascii: ",")
      buffer[1] = UInt8(ascii: "\"")
      // SAFETY: the buffer holds `count + 4` bytes; the text's `count` go at offset 2.
      if let base = text.baseAddress { buffer.baseAddress!.advanced(by: 2).update(from: base, count: count) }
      buffer[count &+ 2] = UInt8(ascii: "\"")
      buffer[count &+ 3] = UInt8(ascii: ":")
      bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[(1 &- comma)..<(count &+ (colon ? 4 : 3))]))
    }
  }

  /// A member's key that may need escapes (one read from input); its value is the next thing
  /// written.
  public mutating func key(escaping key: String) {
    separate()
    JSONValue.writeString(key, to: &bytes)
    bytes.append(UInt8(ascii: ":"))
  }

  /// A string.
  ///
  /// One of up to ``shortString`` bytes with nothing to escape (names, ids, matched words:
  /// most strings of a result) goes in with its comma and quotes in one append.
  ///
  /// The text is read in place (`utf8.withContiguousStorageIfAvailable`): `withUTF8` needs a
  /// mutable copy, a retain and a release of the string's storage for every string written.
  public mutating func string(_ value: String) {
    let written = value.utf8.withContiguousStorageIfAvailable { utf8 in
      guard utf8.count <= Self.shortString, !Self.needsEscapes(utf8) else { return false }
      appendQuoted(utf8, colon: false)
      return true
    }
    if written == true { return }
    separate()
    JSONValue.writeString(value, to: &bytes)
  }

  /// The longest string ``string(_:)`` writes in one append.
  private static let shortString = 64

  /// Whether `utf8` holds a quote, a backslash or a control character.
  @inline(__always)
  private static func needsEscapes(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let base = utf8.baseAddress else { return false }
    var index = 0
    // SAFETY: each load reads eight bytes below `utf8.count`, checked before it.
    while index &+ 8 <= utf8.count {
      if JSONParser.specialBytes(in: UnsafeRawPointer(base).loadUnaligned(fromByteOffset: index, as: UInt64.self)) != 0
      {
        return true
      }
      index &+= 8
    }
    while index < utf8.count {
      let byte = base[index]
      if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { return true }
      index &+= 1
    }
    return false
  }

  /// A string, or `null`.
  public mutating func string(_ value: String?) {
    if let value { string(value) } else { null() }
  }

  /// An integer, in decimal.
  public mutating func number(_ value: Int) {
    separate()
    var magnitude = value.magnitude
    if value < 0 { bytes.append(UInt8(ascii: "-")) }
    // The digits from the lowest, into a buffer of 20 (UInt64.max has 20), then in order.
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
      var start = 20
      repeat {
        start -= 1
        digits[start] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10)
        magnitude /= 10
      } while magnitude != 0
      bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
    }
  }

  /// `true` or `false`.
  public mutating func bool(_ value: Bool) {
    separate()
    if value { append("true") } else { append("false") }
  }

  /// `null`.
  public mutating func null() {
    separate()
    append("null")
  }

  /// A whole value.
  public mutating func value(_ value: JSONValue) {
    separate()
    value.write(to: &bytes)
  }
}

extension JSONValue {
  /// The value that `write` writes, read back: so that a type's tree and its text come from
  /// one description of it and cannot disagree.
  init(written write: (inout JSONWriter) -> Void) {
    var writer = JSONWriter()
    write(&writer)
    do { self = try JSONValue(parsingUTF8: writer.bytes) } catch {
      preconditionFailure(
        "JSONWriter wrote text that is not JSON (\(error)): \(String(decoding: writer.bytes, as: UTF8.self))")
    }
  }
}
