import Foundation

/// Buffered writes to standard output or standard error, flushed in large chunks.
struct OutputBuffer: ~Copyable {
  private var bytes: [UInt8] = []
  private let handle: FileHandle

  init(_ handle: FileHandle = .standardOutput) {
    self.handle = handle
    bytes.reserveCapacity(1 << 16)
  }

  mutating func write(_ text: String) {
    bytes.append(contentsOf: text.utf8)
    if bytes.count >= 1 << 16 { flush() }
  }

  mutating func flush() {
    guard !bytes.isEmpty else { return }
    handle.write(Data(bytes))
    bytes.removeAll(keepingCapacity: true)
  }

  deinit {
    if !bytes.isEmpty { handle.write(Data(bytes)) }
  }
}

/// Reads all of standard input.
func readStandardInput() -> Data {
  FileHandle.standardInput.readDataToEndOfFile()
}

/// A JSON string literal for `text`.
func jsonString(_ text: String) -> String {
  var result = "\""
  for scalar in text.unicodeScalars {
    switch scalar {
    case "\"": result += "\\\""
    case "\\": result += "\\\\"
    case "\n": result += "\\n"
    case "\r": result += "\\r"
    case "\t": result += "\\t"
    case _ where scalar.value < 0x20:
      let hex = String(scalar.value, radix: 16)
      result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
    default: result.unicodeScalars.append(scalar)
    }
  }
  return result + "\""
}
