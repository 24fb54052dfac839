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
  public func write(to bytes: inout [UInt8]) { write(into: &bytes) }

  /// Appends the value as compact JSON to `sink`.
  func write(into sink: inout some JSONByteSink) {
    switch self {
    case .null: sink.append(contentsOf: "null")
    case .bool(let value): sink.append(contentsOf: value ? "true" : "false")
    case .number(let text):
      var text = text
      text.withUTF8 { sink.append(contentsOf: $0) }
    case .string(let string): JSONValue.writeString(string, into: &sink)
    case .array(let elements):
      sink.append(UInt8(ascii: "["))
      for (index, element) in elements.enumerated() {
        if index > 0 { sink.append(UInt8(ascii: ",")) }
        element.write(into: &sink)
      }
      sink.append(UInt8(ascii: "]"))
    case .object(let members):
      sink.append(UInt8(ascii: "{"))
      for (index, member) in members.enumerated() {
        if index > 0 { sink.append(UInt8(ascii: ",")) }
        JSONValue.writeString(member.key, into: &sink)
        sink.append(UInt8(ascii: ":"))
        member.value.write(into: &sink)
      }
      sink.append(UInt8(ascii: "}"))
    }
  }

  /// Appends `string` as a JSON string literal.
  public static func writeString(_ string: String, to bytes: inout [UInt8]) { writeString(string, into: &bytes) }

  /// Appends `string` as a JSON string literal to `sink`. Runs of bytes that need no escape
  /// (all of most strings) are found eight bytes at a time and appended whole.
  static func writeString(_ string: String, into sink: inout some JSONByteSink) {
    sink.append(UInt8(ascii: "\""))
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
        sink.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index - 1]))
        runStart = index
        switch byte {
        case UInt8(ascii: "\""): sink.append(contentsOf: #"\""#)
        case UInt8(ascii: "\\"): sink.append(contentsOf: #"\\"#)
        case 0x0A: sink.append(contentsOf: #"\n"#)
        case 0x0D: sink.append(contentsOf: #"\r"#)
        case 0x09: sink.append(contentsOf: #"\t"#)
        default:
          let hex: StaticString = "0123456789abcdef"
          sink.append(contentsOf: #"\u00"#)
          sink.append(hex.utf8Start[Int(byte >> 4)])
          sink.append(hex.utf8Start[Int(byte & 0xF)])
        }
      }
      sink.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
    }
    sink.append(UInt8(ascii: "\""))
  }

  /// `string` as a JSON string literal.
  public static func quoted(_ string: String) -> String {
    var bytes: [UInt8] = []
    writeString(string, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }
}

/// Where JSON text is written: an array of bytes, or a ``JSONWriter``.
protocol JSONByteSink {
  mutating func append(_ byte: UInt8)
  mutating func append(contentsOf bytes: UnsafeBufferPointer<UInt8>)
}

extension JSONByteSink {
  /// Appends a literal of the program's own.
  @inline(__always)
  mutating func append(contentsOf text: StaticString) {
    append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
  }
}

extension Array: JSONByteSink where Element == UInt8 {}

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
@_spi(Tools) public struct JSONWriter: Sendable, JSONByteSink {
  /// The text (its first ``byteCount`` bytes), then room: zeros, written over as the text
  /// grows. Appending to an array that held only the text cost each value a check of the
  /// array's uniqueness and room in the standard library's general path, which was most of
  /// what writing a result cost (`Benchmarks/HISTORY.md`).
  private var storage: [UInt8]
  /// How many bytes of ``storage`` are text.
  public private(set) var byteCount: Int

  /// A writer that appends to `bytes`.
  public init(bytes: [UInt8] = []) {
    storage = bytes
    byteCount = bytes.count
  }

  /// The text written so far (and whatever the writer was created with). Reading it copies
  /// the text out; setting it replaces the text.
  public var bytes: [UInt8] {
    get { byteCount == storage.count ? storage : Array(storage[..<byteCount]) }
    set {
      storage = newValue
      byteCount = newValue.count
    }
  }

  /// The text written, taken out of the writer, which is left empty: ``bytes`` without a copy
  /// (the room after the text is dropped, not copied over; a batch of `winnow scan` copied its
  /// whole output once more).
  @_spi(Tools) public mutating func takeBytes() -> [UInt8] {
    var text: [UInt8] = []
    swap(&text, &storage)
    text.removeLast(text.count - byteCount)
    byteCount = 0
    return text
  }

  /// Drops the text from byte `offset` on (an offset of ``byteCount`` or more drops nothing).
  public mutating func removeBytes(from offset: Int) {
    guard offset >= 0, offset < byteCount else { return }
    let end = byteCount
    storage.withUnsafeMutableBufferPointer { storage in
      UnsafeMutableBufferPointer(rebasing: storage[offset..<end]).update(repeating: 0)
    }
    byteCount = offset
  }

  /// `count` bytes at the end of the text, written by `write`, which gets the first of them
  /// and must set each.
  @inline(__always)
  private mutating func extend(by count: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Void) {
    if storage.count &- byteCount < count { makeRoom(for: count) }
    let start = byteCount
    storage.withUnsafeMutableBufferPointer { storage in
      // SAFETY: `makeRoom` left at least `count` bytes after the text.
      write(storage.baseAddress.unsafelyUnwrapped + start)
    }
    byteCount = start &+ count
  }

  /// Room for `count` more bytes after the text, at least doubling it.
  @inline(never)
  private mutating func makeRoom(for count: Int) {
    let (needed, overflow) = byteCount.addingReportingOverflow(count)
    precondition(!overflow, "JSON text larger than memory")
    let size = Swift.max(needed, storage.count.multipliedReportingOverflow(by: 2).partialValue, 512)
    storage.append(contentsOf: repeatElement(0, count: size - storage.count))
  }

  /// Appends one byte.
  @inline(__always)
  mutating func append(_ byte: UInt8) {
    extend(by: 1) { $0.pointee = byte }
  }

  /// Appends bytes as they are.
  @inline(__always)
  mutating func append(contentsOf bytes: UnsafeBufferPointer<UInt8>) {
    guard let base = bytes.baseAddress else { return }
    extend(by: bytes.count) { $0.update(from: base, count: bytes.count) }
  }

  /// Appends text of the program's own as it is, checking nothing (for a caller that wraps
  /// what it writes in JSON of its own).
  public mutating func raw(_ text: StaticString) { append(contentsOf: text) }

  /// A comma, unless the last byte written opens a container, ends a key or a line (or nothing
  /// was written).
  @inline(__always)
  private mutating func separate() {
    if needsComma { append(UInt8(ascii: ",")) }
  }

  /// Whether the next value or key needs a comma before it: whether the last byte written
  /// ends a value (not an opening bracket, a key's colon or a line).
  @inline(__always)
  private var needsComma: Bool {
    guard byteCount > 0 else { return false }
    let last = storage[byteCount &- 1]
    return last != UInt8(ascii: "{") && last != UInt8(ascii: "[") && last != UInt8(ascii: ":") && last != 0x0A
  }

  /// Opens an object.
  public mutating func beginObject() {
    separate()
    append(UInt8(ascii: "{"))
  }

  /// Closes the innermost object.
  public mutating func endObject() { append(UInt8(ascii: "}")) }

  /// Opens an array.
  public mutating func beginArray() {
    separate()
    append(UInt8(ascii: "["))
  }

  /// Closes the innermost array.
  public mutating func endArray() { append(UInt8(ascii: "]")) }

  /// Ends a line of JSON Lines: a newline, after which the next value takes no comma.
  public mutating func endLine() { append(0x0A) }

  /// A member's key; its value is the next thing written. `key` must need no escape (a
  /// literal of the program's own).
  public mutating func key(_ key: StaticString) {
    appendQuoted(UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount), colon: true)
  }

  /// The comma the next value needs, then `text` (nothing to escape) in quotes, then a colon
  /// when `colon`, written at once.
  @inline(__always)
  private mutating func appendQuoted(_ text: UnsafeBufferPointer<UInt8>, colon: Bool) {
    let comma = needsComma ? 1 : 0
    let count = text.count
    extend(by: comma &+ count &+ (colon ? 3 : 2)) { out in
      var out = out
      if comma != 0 {
        out.pointee = UInt8(ascii: ",")
        out += 1
      }
      out.pointee = UInt8(ascii: "\"")
      if let base = text.baseAddress { (out + 1).update(from: base, count: count) }
      out[count &+ 1] = UInt8(ascii: "\"")
      if colon { out[count &+ 2] = UInt8(ascii: ":") }
    }
  }

  /// A member's key that may need escapes (one read from input); its value is the next thing
  /// written.
  public mutating func key(escaping key: String) {
    separate()
    JSONValue.writeString(key, into: &self)
    append(UInt8(ascii: ":"))
  }

  /// A string.
  ///
  /// One of up to ``shortString`` bytes with nothing to escape (names, ids, matched words:
  /// most strings of a result) goes in with its comma and quotes at once.
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
    JSONValue.writeString(value, into: &self)
  }

  /// The longest string ``string(_:)`` writes at once.
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
    // The digits counted, then written from the lowest.
    var magnitude = value.magnitude
    var digits = 0
    var scale = magnitude
    repeat {
      digits &+= 1
      scale /= 10
    } while scale != 0
    let sign = value < 0 ? 1 : 0
    extend(by: sign &+ digits) { out in
      if sign != 0 { out.pointee = UInt8(ascii: "-") }
      var index = sign &+ digits
      repeat {
        index &-= 1
        out[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
        magnitude /= 10
      } while magnitude != 0
    }
  }

  /// `true` or `false`.
  public mutating func bool(_ value: Bool) {
    separate()
    if value { raw("true") } else { raw("false") }
  }

  /// `null`.
  public mutating func null() {
    separate()
    raw("null")
  }

  /// A whole value.
  public mutating func value(_ value: JSONValue) {
    separate()
    value.write(into: &self)
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
