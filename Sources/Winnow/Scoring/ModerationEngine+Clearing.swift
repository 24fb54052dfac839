/// The scorer's clearing of global blocks (``ScoringPolicy/clearThreshold``): what it reads of
/// an item the global list blocks, and what a clearing changes.
extension ModerationEngine {
  /// How far either side of a match the clause the scorer reads for clearing reaches at most,
  /// in units: a Han or kana character counts three, any other character one (about four
  /// words either way; see ``ScoringPolicy/clearThreshold``).
  static let clauseReach = 24

  /// Makes every global block match a review match: what a clearing does.
  static func clearGlobalBlocks(_ matches: inout [FieldMatch]) {
    for index in matches.indices
    where matches[index].match.origin == .global && matches[index].match.action == .block {
      matches[index].match = matches[index].match.withAction(.review)
    }
  }

  /// The score that decides whether the scorer clears the item's global block matches: the
  /// highest of the scores of each field with such a match and of the clause around each one.
  /// Nil when no global block entry blocks, or when the scorer does not know a matched word:
  /// the match's own text scores under ``ScoringPolicy/knownWord``, so that a low score in context
  /// would be the model's ignorance, not evidence of an ordinary sense. It stops at the first
  /// score at or above the clear threshold.
  func clearingScore(_ matches: [FieldMatch], fields: [TextField], by scoring: ScoringPolicy) -> Double? {
    for index in matches.indices {
      let match = matches[index].match
      guard match.origin == .global, match.action == .block else { continue }
      if scoring.scorer.score(match.text) < ScoringPolicy.knownWord { return nil }
    }
    var best: Double? = nil
    for field in fields {
      var scored = false
      for index in matches.indices where matches[index].field == field.location {
        let match = matches[index].match
        guard match.origin == .global, match.action == .block else { continue }
        if !scored {
          scored = true
          best = max(best ?? 0, scoring.scorer.score(field.text))
        }
        best = max(best ?? 0, scoring.scorer.score(String(Self.clause(around: match.range, in: field.text))))
        if let best, best >= scoring.clearThreshold { return best }
      }
    }
    return best
  }

  /// The clause around a match (a UTF-8 byte range of `text`): the match and the characters
  /// either side up to the nearest clause punctuation or line break, at most ``clauseReach``
  /// units either side.
  static func clause(around range: Range<Int>, in text: String) -> Substring {
    let scalars = text.unicodeScalars
    let utf8 = text.utf8
    guard range.lowerBound >= 0, range.lowerBound <= range.upperBound,
      let lower = utf8.index(utf8.startIndex, offsetBy: range.lowerBound, limitedBy: utf8.endIndex),
      let upper = utf8.index(utf8.startIndex, offsetBy: range.upperBound, limitedBy: utf8.endIndex),
      let lowerScalar = lower.samePosition(in: scalars), let upperScalar = upper.samePosition(in: scalars)
    else { return Substring(text) }
    var start = lowerScalar
    var units = 0
    while start > scalars.startIndex {
      let before = scalars.index(before: start)
      units += Self.clauseUnits(scalars[before])
      if units > clauseReach || Self.endsClause(scalars[before]) { break }
      start = before
    }
    var end = upperScalar
    units = 0
    while end < scalars.endIndex {
      units += Self.clauseUnits(scalars[end])
      if units > clauseReach || Self.endsClause(scalars[end]) { break }
      end = scalars.index(after: end)
    }
    return text[start..<end]
  }

  /// A character's units of ``clauseReach``: three for Han and kana (U+2E80–U+9FFF,
  /// U+F900–U+FAFF, U+20000–U+3FFFF), one for any other.
  private static func clauseUnits(_ scalar: Unicode.Scalar) -> Int {
    switch scalar.value {
    case 0x2E80...0x9FFF, 0xF900...0xFAFF, 0x2_0000...0x3_FFFF: 3
    default: 1
    }
  }

  /// Clause punctuation and line breaks, ASCII and full-width.
  private static func endsClause(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar {
    case ".", ",", "!", "?", ";", ":", "\n", "\r", "\t", "\u{3002}", "\u{FF0C}", "\u{FF01}", "\u{FF1F}", "\u{FF1B}",
      "\u{FF1A}", "\u{3001}", "\u{2026}", "\u{FF0E}":
      return true
    default: return false
    }
  }
}
