/// What a record's `extra` says: the platform shows it to the person whose message was
/// blocked, so by default it names only the categories that decided, never list files, words or
/// errors (the result beside the record keeps the full detail for operators: its `matches` and
/// `review`).
///
/// A template of text and placeholders:
/// - `{categories}`: the categories of the deciding matches, comma-separated (`blocked` for an
///   entry without one); for a reviewer's block its labels, else `rejected by review`; when the
///   reviewer failed and the policy blocks, `review unavailable`;
/// - `{words}`: the deciding entries' words, comma-separated (empty for the reviewer);
/// - `{lists}`: the deciding entries' list files, without their directories;
/// - `{detail}`: the JSON detail, `{"matches":[{"word","list","category"},…]}`, or for the
///   reviewer `{"reviewer","labels","reviewerFailure"}` (what `extra` held before there was a
///   template).
///
/// A reviewer's own `extra` (its message for the sender) is used as it is. The record cuts the
/// result to ``BlockedMessageInfo/maximumExtraLength`` characters.
@_spi(Tools) public struct RecordExtra: Sendable, Hashable {
  /// The template.
  public var template: String

  /// A template (see the type's placeholders).
  public init(template: String) { self.template = template }

  /// The default: the categories alone.
  public static let categories = RecordExtra(template: "{categories}")
  /// The full detail, as `extra` held before there was a template.
  public static let detail = RecordExtra(template: "{detail}")

  /// The template with its placeholders filled; `detail` is built only when the template asks.
  func render(categories: [String], words: [String], lists: [String], detail: () -> String) -> String {
    if template == "{categories}" { return categories.joined(separator: ",") }
    if template == "{detail}" { return detail() }
    var text = template
    text = text.replacingAll("{categories}", with: categories.joined(separator: ","))
    text = text.replacingAll("{words}", with: words.joined(separator: ","))
    text = text.replacingAll("{lists}", with: lists.joined(separator: ","))
    if text.contains("{detail}") { text = text.replacingAll("{detail}", with: detail()) }
    return text
  }
}

extension String {
  /// Every occurrence of `target` replaced by `replacement`, without Foundation.
  fileprivate func replacingAll(_ target: String, with replacement: String) -> String {
    guard !target.isEmpty else { return self }
    var result = ""
    var rest = self[...]
    while let range = rest.firstRange(of: target) {
      result += rest[..<range.lowerBound]
      result += replacement
      rest = rest[range.upperBound...]
    }
    return result + rest
  }
}
