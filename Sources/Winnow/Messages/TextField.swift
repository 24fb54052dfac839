/// A path to text inside message content, as a custom type registers it: keys separated by
/// dots, `[]` after a key for every element of an array (`title`, `user.name`, `nameList[]`,
/// `items[].label`).
@_spi(Tools) public struct FieldPath: Sendable, Hashable, CustomStringConvertible {
  enum Step: Sendable, Hashable {
    case key(String)
    case eachElement
  }

  let steps: [Step]
  /// The location as written in results (`content`, `put.key`, `mentionedInfo.mentionedContent`).
  public let description: String

  /// Parses a path.
  /// - Throws: ``ExtractionRuleError`` for an empty path or an empty key.
  public init(_ text: String) throws(ExtractionRuleError) {
    var steps: [Step] = []
    for part in text.split(separator: ".", omittingEmptySubsequences: false) {
      var key = Substring(part)
      var elements = 0
      while key.hasSuffix("[]") {
        key = key.dropLast(2)
        elements += 1
      }
      guard !key.isEmpty, !key.contains("["), !key.contains("]") else {
        throw ExtractionRuleError("invalid field path \"\(text)\": keys are separated by '.', '[]' follows a key")
      }
      steps.append(.key(String(key)))
      steps += Array(repeating: .eachElement, count: elements)
    }
    self.steps = steps
    self.description = text
  }
}

extension FieldPath {
  /// Paths as one trie in bytes, what ``PathTrie`` walks for both readings of content: a content is
  /// walked once for all its rule's paths (a text message's four paths walked it four times),
  /// and read through one buffer pointer it costs no reference counting (each path's array of
  /// steps and each key string were retained and released for every line, seven times a line
  /// of a text message, from every scanning thread at once).
  ///
  /// A node is a flag byte (1 when a path ends there: a string there is text), the number of
  /// its key children and the offset of its child for every element of an array (0 for none:
  /// the root, at 0, is nobody's child), both 4 bytes little-endian, then per key child its
  /// UTF-8 length (4 bytes), its bytes and the child's offset (4 bytes).
  static func trie(_ paths: [FieldPath]) -> [UInt8] {
    struct Node {
      var isEnd = false
      var keys: [(name: String, node: Int)] = []
      var element: Int?
    }
    var nodes = [Node()]
    for path in paths {
      var node = 0
      for step in path.steps {
        switch step {
        case .key(let name):
          if let child = nodes[node].keys.first(where: { $0.name == name }) {
            node = child.node
          } else {
            nodes.append(Node())
            nodes[node].keys.append((name, nodes.count - 1))
            node = nodes.count - 1
          }
        case .eachElement:
          if let child = nodes[node].element {
            node = child
          } else {
            nodes.append(Node())
            nodes[node].element = nodes.count - 1
            node = nodes.count - 1
          }
        }
      }
      nodes[node].isEnd = true
    }
    var offsets: [Int] = []
    var size = 0
    for node in nodes {
      offsets.append(size)
      size += 9 + node.keys.reduce(0) { $0 + 8 + $1.name.utf8.count }
    }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(size)
    func append(_ value: Int) { withUnsafeBytes(of: UInt32(value).littleEndian) { bytes += $0 } }
    for node in nodes {
      bytes.append(node.isEnd ? 1 : 0)
      append(node.keys.count)
      append(node.element.map { offsets[$0] } ?? 0)
      for (name, child) in node.keys {
        append(name.utf8.count)
        bytes += name.utf8
        append(offsets[child])
      }
    }
    return bytes
  }
}

/// Where a piece of text sits in content: steps from the root, and whether the text is an
/// object key (extension keys are moderated too); or which push text of the message it is.
public struct FieldLocation: Sendable, Hashable, CustomStringConvertible {
  /// One step down: the n-th member of an object, or the n-th element of an array.
  public enum Step: Sendable, Hashable {
    case member(Int)
    case element(Int)
  }

  /// The part of the message the text is in.
  public enum Part: Sendable, Hashable {
    /// The content (or source content), at ``steps``.
    case content
    /// ``MessageItem/pushContent``, the push notification's text (``steps`` is empty).
    case pushContent
    /// ``MessageItem/pushData``, the data carried with the push (``steps`` is empty).
    case pushData
    /// ``MessageItem/pushTitle``, the push notification's title (``steps`` is empty).
    case pushTitle
  }

  /// The steps from the content's root.
  public var steps: [Step]
  /// True when the text is the key of the member the steps lead to, not its value.
  public var isKey: Bool
  /// The path for people: `content`, `nameList[2]`, `put.color`, `put.color (key)`,
  /// `pushContent`.
  public var description: String
  /// The content, or a push text.
  public var part: Part = .content
}

/// A piece of user text taken from content, and where it came from.
public struct TextField: Sendable, Hashable {
  /// Where the text is.
  public var location: FieldLocation
  /// The text.
  public var text: String
}

extension JSONValue {
  /// Every string value inside this value (not keys), depth first, with its location.
  func collectStrings(
    steps: [FieldLocation.Step], path: String, into fields: inout [TextField]
  ) {
    switch self {
    case .string(let text):
      fields.append(TextField(location: FieldLocation(steps: steps, isKey: false, description: path), text: text))
    case .array(let elements):
      for (index, element) in elements.enumerated() {
        element.collectStrings(steps: steps + [.element(index)], path: "\(path)[\(index)]", into: &fields)
      }
    case .object(let members):
      for (index, member) in members.enumerated() {
        let child = path.isEmpty ? member.key : "\(path).\(member.key)"
        member.value.collectStrings(steps: steps + [.member(index)], path: child, into: &fields)
      }
    default: break
    }
  }

  /// Replaces the string (or, for a key location, the member's key) at a location; locations
  /// that lead nowhere change nothing.
  mutating func replaceText(at location: FieldLocation, with text: String) {
    replace(location.steps[...], isKey: location.isKey, with: text)
  }

  private mutating func replace(_ steps: ArraySlice<FieldLocation.Step>, isKey: Bool, with text: String) {
    guard let step = steps.first else {
      if !isKey, case .string = self { self = .string(text) }
      return
    }
    switch (step, self) {
    case (.member(let index), .object(var members)) where members.indices.contains(index):
      if isKey && steps.count == 1 {
        members[index].key = text
      } else {
        members[index].value.replace(steps.dropFirst(), isKey: isKey, with: text)
      }
      self = .object(members)
    case (.element(let index), .array(var elements)) where elements.indices.contains(index):
      elements[index].replace(steps.dropFirst(), isKey: isKey, with: text)
      self = .array(elements)
    default: break
    }
  }

  /// The size of the value as compact JSON, counting each string's UTF-8 bytes without escapes.
  var compactSize: Int {
    switch self {
    case .null: 4
    case .bool(let value): value ? 4 : 5
    case .number(let text): text.utf8.count
    case .string(let text): text.utf8.count + 2
    case .array(let elements): elements.reduce(1 + max(elements.count, 1)) { $0 + $1.compactSize }
    case .object(let members):
      members.reduce(1 + max(members.count, 1)) { $0 + $1.key.utf8.count + 3 + $1.value.compactSize }
    }
  }
}
