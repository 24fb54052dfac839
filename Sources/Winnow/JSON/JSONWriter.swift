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
  /// strings) are appended whole, not byte by byte.
  public static func writeString(_ string: String, to bytes: inout [UInt8]) {
    bytes.append(UInt8(ascii: "\""))
    var string = string
    string.withUTF8 { utf8 in
      var runStart = 0
      for index in utf8.indices {
        let byte = utf8[index]
        guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
        runStart = index + 1
        switch byte {
        case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
        case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
        case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
        case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
        case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
        default:
          let hex = Array("0123456789abcdef".utf8)
          bytes.append(contentsOf: [
            UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)],
            hex[Int(byte & 0xF)],
          ])
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
