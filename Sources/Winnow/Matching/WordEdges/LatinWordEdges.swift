/// Word edges for scripts that space their words (Latin, Cyrillic, Greek, …): a whole-word
/// entry that begins (ends) with a word character must not have one right before (after) it
/// in the text, so `ass` is not found in `class` or `assess`.
///
/// Between two letters spelled one by one (`g b i t c h`) any position may be an edge: the
/// text's letters there are units of one spelled word.
enum LatinWordEdges {
  /// The bits this rule owns.
  static let owned = PatternCheck.start | PatternCheck.end

  /// The checks a pattern of `entry` (normalized as `normalized`) asks of this rule.
  static func checks(of entry: Entry, _ normalized: NormalizedEntry) -> UInt8 {
    guard entry.boundary != .substring else { return 0 }
    var checks: UInt8 = 0
    if normalized.firstClass.isWordCharacter { checks |= PatternCheck.start }
    if normalized.lastClass.isWordCharacter { checks |= PatternCheck.end }
    return checks
  }

  /// Why a candidate fails this rule's checks of `checks` (``MatcherLayer/Rejection/none``: it
  /// does not).
  @inline(__always)
  static func rejection(of candidate: EdgeCandidate, checks: UInt8) -> MatcherLayer.Rejection {
    let (start, end, text) = (candidate.start, candidate.end, candidate.text)
    if checks & PatternCheck.start != 0, start > 0, text[candidate.unit(start - 1)].scalarClass.isWordCharacter,
      !(text[candidate.unit(start - 1)].isSpelled && text[candidate.unit(start)].isSpelled)
    {
      return .startInsideWord
    }
    if checks & PatternCheck.end != 0, end < candidate.scalars.count,
      text[candidate.unit(end)].scalarClass.isWordCharacter,
      !(text[candidate.unit(end - 1)].isSpelled && text[candidate.unit(end)].isSpelled)
    {
      return .endInsideWord
    }
    return .none
  }
}
