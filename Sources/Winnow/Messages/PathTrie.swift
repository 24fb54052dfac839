/// The field paths of a message type, laid out by ``FieldPath/trie(_:)``, and the one walk of
/// them that both readings of an item's content make: ``ContentExtractor/fields(of:)`` over a
/// parsed ``JSONValue``, and the in-place check of a dump line over its bytes. Which values are
/// user text is decided here, once: a value where a path ends, the members of an object named
/// by a key step, every element of an array at an element step. What each reading does with a
/// value is its ``PathWalker``'s.
struct PathTrie {
  let bytes: UnsafeBufferPointer<UInt8>

  @inline(__always) private func word(_ offset: Int) -> Int {
    // SAFETY: offsets come from the trie's own layout, within `bytes`.
    Int(UInt32(littleEndian: UnsafeRawPointer(bytes.baseAddress! + offset).loadUnaligned(as: UInt32.self)))
  }

  /// Whether a path ends at `node`: a string there is text.
  @inline(__always) func isEnd(_ node: Int) -> Bool { bytes[node] & 1 != 0 }

  /// Whether `node` has key children.
  @inline(__always) func hasKeys(_ node: Int) -> Bool { word(node + 1) > 0 }

  /// Whether `node` has no children: a path ends there and goes no further.
  @inline(__always) func isLeaf(_ node: Int) -> Bool { word(node + 1) == 0 && word(node + 5) == 0 }

  /// The child of `node` for every element of an array, nil for none.
  @inline(__always) func element(of node: Int) -> Int? {
    let element = word(node + 5)
    return element == 0 ? nil : element
  }

  /// The child of `node` for the member named `key` (its UTF-8), nil for none.
  @inline(__always) func child(of node: Int, key: UnsafeBufferPointer<UInt8>) -> Int? {
    var child = node + 9
    for _ in 0..<word(node + 1) {
      let length = word(child)
      if length == key.count {
        var index = 0
        while index < length && key[index] == bytes[child &+ 4 &+ index] { index &+= 1 }
        if index == length { return word(child + 4 + length) }
      }
      child += 8 + length
    }
    return nil
  }

  /// The node where `path` ends, nil when the trie does not hold it.
  func end(of path: FieldPath) -> Int? {
    var node = 0
    for step in path.steps {
      switch step {
      case .key(let name):
        var name = name
        guard let next = name.withUTF8({ child(of: node, key: $0) }) else { return nil }
        node = next
      case .eachElement:
        guard let next = element(of: node) else { return nil }
        node = next
      }
    }
    return node
  }

  /// Walks `value` from `node`: the walker's ``PathWalker/visitEnd(_:node:into:)`` for a value
  /// where a path ends, then the members and elements the node's children lead to.
  func walk<Walker: PathWalker>(
    _ value: Walker.Value, from node: Int, with walker: Walker, into output: inout Walker.Output
  ) throws(JSONParseError) {
    if isEnd(node) { try walker.visitEnd(value, node: node, into: &output) }
    if hasKeys(node) {
      func lookUp(_ key: UnsafeBufferPointer<UInt8>) -> Int? { child(of: node, key: key) }
      try walker.forEachMember(of: value, on: lookUp) { next, member throws(JSONParseError) in
        // A leaf (most path ends, a text message's `content`) is only visited.
        if isLeaf(next) {
          if isEnd(next) { try walker.visitEnd(member, node: next, into: &output) }
        } else {
          try walk(member, from: next, with: walker, into: &output)
        }
      }
    }
    if let element = element(of: node) {
      try walker.forEachElement(of: value) { item throws(JSONParseError) in
        try walk(item, from: element, with: walker, into: &output)
      }
    }
  }
}

/// What one reading of content does on ``PathTrie/walk(_:from:with:into:)``: how it goes through
/// a value's members and elements, and what it does with a value where a path ends. A walker
/// that is unsure of a value (an escaped key read in place) throws ``JSONParseError/unsure``.
protocol PathWalker {
  associatedtype Value
  associatedtype Output
  /// A path ends at `value` (at trie `node`): a string there is text.
  func visitEnd(_ value: Value, node: Int, into output: inout Output) throws(JSONParseError)
  /// When `value` is an object, calls `body` with each member whose key (UTF-8) `child` gives
  /// a node for, with that node and the member's value.
  func forEachMember(
    of value: Value, on child: (UnsafeBufferPointer<UInt8>) -> Int?,
    _ body: (Int, Value) throws(JSONParseError) -> Void
  ) throws(JSONParseError)
  /// Calls `body` with each element when `value` is an array.
  func forEachElement(of value: Value, _ body: (Value) throws(JSONParseError) -> Void) throws(JSONParseError)
}

/// The parsed reading of content on ``PathTrie/walk(_:from:with:into:)``: every string where a
/// path ends is a ``TextField`` with its location, numbered by the first of the rule's paths
/// that ends at its node (`ends`), so that fields come in the rule's order of paths.
struct ParsedContentWalker: PathWalker {
  /// A value, and how it is reached: its parent's location and its own last step (its
  /// location is made only for values on a path).
  struct Value {
    var json: JSONValue
    var parentSteps: [FieldLocation.Step]
    var parentDescription: String
    var last: Last?

    enum Last {
      case member(Int, String)
      case element(Int)
    }

    var location: (steps: [FieldLocation.Step], description: String) {
      switch last {
      case nil: (parentSteps, parentDescription)
      case .member(let index, let key)?:
        (parentSteps + [.member(index)], parentDescription.isEmpty ? key : "\(parentDescription).\(key)")
      case .element(let index)?: (parentSteps + [.element(index)], "\(parentDescription)[\(index)]")
      }
    }
  }

  /// The node where each of the rule's paths ends, in the rule's order.
  let ends: [Int]

  func visitEnd(_ value: Value, node: Int, into output: inout [(order: Int, field: TextField)]) {
    guard case .string(let text) = value.json else { return }
    let (steps, description) = value.location
    output.append(
      (
        ends.firstIndex(of: node) ?? ends.count,
        TextField(location: FieldLocation(steps: steps, isKey: false, description: description), text: text)
      ))
  }

  func forEachMember(
    of value: Value, on child: (UnsafeBufferPointer<UInt8>) -> Int?,
    _ body: (Int, Value) throws(JSONParseError) -> Void
  ) throws(JSONParseError) {
    guard case .object(let members) = value.json else { return }
    var location: (steps: [FieldLocation.Step], description: String)?
    for index in members.indices {
      var key = members[index].key
      guard let next = key.withUTF8({ child($0) }) else { continue }
      if location == nil { location = value.location }
      guard let (steps, description) = location else { continue }
      try body(
        next,
        Value(
          json: members[index].value, parentSteps: steps, parentDescription: description, last: .member(index, key)))
    }
  }

  func forEachElement(of value: Value, _ body: (Value) throws(JSONParseError) -> Void) throws(JSONParseError) {
    guard case .array(let elements) = value.json else { return }
    let (steps, description) = value.location
    for index in elements.indices {
      try body(Value(json: elements[index], parentSteps: steps, parentDescription: description, last: .element(index)))
    }
  }
}
