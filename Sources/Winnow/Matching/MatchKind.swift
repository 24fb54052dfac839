/// How matches are chosen when patterns overlap.
///
/// If unsure, use ``leftmostLongest``: it is what masking and verdicts want (the longest entry
/// at the earliest position, `傻逼玩意` over `傻逼`). Use overlapping matches
/// (``AhoCorasick/overlappingMatches(in:offsets:)``) to explain or audit everything a text contains.
@_spi(Tools) public enum MatchKind: String, Sendable, CaseIterable {
  /// Matches in the order the automaton finds them (earliest end); after each, scanning resumes
  /// at its end. Among matches ending at the same place, the longest wins. This is classic
  /// Aho-Corasick, and the only kind that also has an overlapping form.
  case standard
  /// The leftmost match; among those starting there, the pattern listed first wins, as in a
  /// regex alternation (`Sam|Samwise` finds `Sam`).
  case leftmostFirst = "leftmost-first"
  /// The leftmost match; among those starting there, the longest wins.
  case leftmostLongest = "leftmost-longest"

  /// Chooses non-overlapping matches from all overlapping ones (in any order).
  ///
  /// Each kind is a greedy pass over the candidates, sorted by its preference: that is exactly
  /// what a scan which restarts after each match would report, because a candidate's rank never
  /// depends on the matches chosen before it, only on whether it starts after their end.
  func select<Match>(
    _ candidates: [Match], start: (Match) -> Int, end: (Match) -> Int, pattern: (Match) -> Int
  ) -> [Match] {
    var chosen = candidates
    select(&chosen, start: start, end: end, pattern: pattern)
    return chosen
  }

  /// ``select(_:start:end:pattern:)`` in place: sorts `candidates` and keeps the chosen ones,
  /// with no array allocated (a scan's few candidates cost more to copy than to choose).
  func select<Match>(
    _ candidates: inout [Match], start: (Match) -> Int, end: (Match) -> Int, pattern: (Match) -> Int
  ) {
    switch self {
    case .standard:
      candidates.sort { (end($0), start($0), pattern($0)) < (end($1), start($1), pattern($1)) }
    case .leftmostFirst:
      candidates.sort { (start($0), pattern($0)) < (start($1), pattern($1)) }
    case .leftmostLongest:
      candidates.sort { (start($0), -end($0), pattern($0)) < (start($1), -end($1), pattern($1)) }
    }
    var kept = 0
    var position = Int.min
    for index in candidates.indices where start(candidates[index]) >= position {
      position = end(candidates[index])
      candidates.swapAt(kept, index)
      kept += 1
    }
    candidates.removeLast(candidates.count - kept)
  }
}
