extension Match {
  /// Returns `text` with each match's characters replaced: by the entry's replacement for a
  /// replace entry, otherwise by `mask` once per character (`傻逼` → `**`).
  ///
  /// `matches` must come from a scan of the same `text`; overlapping matches are skipped after
  /// the first, so pass non-overlapping ones (``Matcher/matches(in:kind:)``).
  public static func mask(_ text: String, matches: [Match], with mask: Character = "*") -> String {
    var text = text
    return text.withUTF8 { bytes in
      var result = ""
      result.reserveCapacity(bytes.count)
      var position = 0
      for match in matches.sorted(by: { $0.range.lowerBound < $1.range.lowerBound })
      where match.range.lowerBound >= position && match.range.upperBound <= bytes.count {
        result += String(decoding: bytes[position..<match.range.lowerBound], as: UTF8.self)
        if case .replace(let replacement) = match.entry.action {
          result += replacement
        } else {
          result += String(repeating: mask, count: match.text.count)
        }
        position = match.range.upperBound
      }
      result += String(decoding: bytes[position...], as: UTF8.self)
      return result
    }
  }
}
