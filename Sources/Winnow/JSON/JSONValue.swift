/// A JSON value that keeps what a rewrite must not change: member order, duplicate keys and the
/// exact text of numbers. Moderation rewrites a message's content in its own shape, changing
/// only the moderated strings, so content goes through this type rather than `Codable`.
///
/// ```swift
/// var content = try JSONValue(parsing: #"{"content":"hi","n":1.50}"#)
/// content["content"] = .string("**")
/// content.jsonString   // {"content":"**","n":1.50}
/// ```
public enum JSONValue: Sendable, Hashable {
  case null
  case bool(Bool)
  /// A number, kept as its JSON text (`1.50` stays `1.50`; 64-bit ids lose no digits).
  case number(String)
  case string(String)
  case array([JSONValue])
  /// An object's members in their original order; duplicate keys are kept.
  case object([JSONMember])

  /// The value of the last member named `key` of an object (nil for other values); setting
  /// replaces that member's value, or appends a member.
  public subscript(key: String) -> JSONValue? {
    get {
      guard case .object(let members) = self, let index = members.lastIndex(where: { $0.isNamed(key) }) else {
        return nil
      }
      return members[index].value
    }
    set {
      guard case .object(var members) = self else { return }
      if let index = members.lastIndex(where: { $0.isNamed(key) }) {
        if let newValue { members[index].value = newValue } else { members.remove(at: index) }
      } else if let newValue {
        members.append(JSONMember(key: key, value: newValue))
      }
      self = .object(members)
    }
  }

  /// Whether the value is anything but `null` (a match on the case: comparing with `.null`
  /// copied both values, for every field of every item read).
  var isNotNull: Bool {
    if case .null = self { return false }
    return true
  }

  /// The string, for a string value.
  public var stringValue: String? {
    if case .string(let string) = self { return string }
    return nil
  }

  /// The integer of a number without fraction or exponent, or of a string of digits
  /// (dumps write timestamps both ways).
  public var int64Value: Int64? {
    switch self {
    case .number(let text), .string(let text): return Int64(text)
    default: return nil
    }
  }

  /// A string for strings, the JSON text for numbers and booleans: for fields that dumps write
  /// either way (`"targetId":123`).
  public var scalarText: String? {
    switch self {
    case .string(let string): return string
    case .number(let text): return text
    case .bool(let value): return value ? "true" : "false"
    default: return nil
    }
  }
}

/// A member of a JSON object.
public struct JSONMember: Sendable, Hashable {
  /// The member's key.
  public var key: String
  /// The member's value.
  public var value: JSONValue

  /// Creates a member.
  public init(key: String, value: JSONValue) {
    self.key = key
    self.value = value
  }

  /// Whether the member's name is `name`. Most names differ in length, which settles it
  /// without `String ==`'s slower path (a twentieth of a dump scan's time went to comparing
  /// names in member lookups).
  @inline(__always)
  func isNamed(_ name: String) -> Bool {
    key.utf8.count == name.utf8.count && key == name
  }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByDictionaryLiteral, ExpressibleByArrayLiteral,
  ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral
{
  /// A JSON string.
  public init(stringLiteral value: String) { self = .string(value) }
  /// A JSON object with these members, in this order.
  public init(dictionaryLiteral elements: (String, JSONValue)...) {
    self = .object(elements.map { JSONMember(key: $0.0, value: $0.1) })
  }
  /// A JSON array.
  public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
  /// A JSON number.
  public init(integerLiteral value: Int64) { self = .number(String(value)) }
  /// `true` or `false`.
  public init(booleanLiteral value: Bool) { self = .bool(value) }
}
