/// Whether a CJK match is cut from ordinary words: the most likely segmentation of the few
/// characters around it, over a frequency dictionary (the lexicon), puts a word across one of
/// its edges. `叫做爱` is 叫做 (to be called) + 爱 (love) rather than 叫 + 做爱; `开房间` is 开 +
/// 房间 (room) rather than 开房 + 间; `中出现` is 中 + 出现 (appear).
///
/// A segmentation's score is the sum of its pieces' log-probabilities, each a word's Zipf
/// frequency minus 9 (log10 of its share of a billion words), in tenths. Every piece costs
/// its −9, so a segmentation into fewer, longer words wins unless its words are much rarer:
/// `体操你妈` stays 体 + 操你妈 even though 体操 (gymnastics) is a word, because 体操 + 你 + 妈
/// is one piece more.
enum Segmentation {
  /// The Zipf frequency, in tenths, given to a character the lexicon does not hold.
  static let unknownCharacterWeight = 20
  /// The Zipf frequency, in tenths, given to an entry the lexicon does not hold (or holds as a
  /// rarer word): the lexicon's own threshold, so that a listed phrase counts as a word at
  /// least as common as the rarest lexicon word.
  static let entryFloorWeight = 30
  /// The context read on each side of the match, in characters.
  static let context = 3

  /// Whether the best segmentation of `window` with a piece that cuts `entry` (overlaps it
  /// without holding it whole) scores more than the best one that has `entry` as a piece.
  ///
  /// - Parameters:
  ///   - count: the window's length; the window is positions `0..<count`.
  ///   - entry: the match's positions, inside the window, at least two long.
  ///   - weight: the Zipf frequency in tenths of the word at `start` of `length` (1 to 3), nil
  ///     when the lexicon does not hold it.
  static func isCut(count: Int, entry: Range<Int>, weight: (_ start: Int, _ length: Int) -> Int?) -> Bool {
    guard entry.count >= 2, entry.lowerBound >= 0, entry.upperBound <= count else { return false }
    // Each piece's score read once, and the best scores before and from each position, on the
    // stack: two arrays allocated a candidate were a seventh of a Han segmentation's cost, and
    // each lexicon lookup was made three times.
    return withUnsafeTemporaryAllocation(of: Int.self, capacity: 5 * count + 2) { buffer in
      guard let base = buffer.baseAddress else { return false }
      let scores = base  // piece (start, length) at start * 3 + length - 1; `missing` if none
      let prefix = base + 3 * count  // best score of the positions before `i`
      let suffix = prefix + count + 1  // best score of the positions from `i` on
      let missing = Int.min / 4
      let piece = -90
      for start in 0..<count {
        scores[3 * start] = (weight(start, 1) ?? unknownCharacterWeight) + piece
        for length in 2...3 {
          scores[3 * start + length - 1] =
            start + length <= count ? weight(start, length).map { $0 + piece } ?? missing : missing
        }
      }
      prefix[0] = 0
      for end in 1...count {
        var best = missing
        for length in 1...3 where end - length >= 0 {
          let value = scores[3 * (end - length) + length - 1]
          if value != missing { best = max(best, prefix[end - length] + value) }
        }
        prefix[end] = best
      }
      suffix[count] = 0
      for start in stride(from: count - 1, through: 0, by: -1) {
        var best = missing
        for length in 1...3 where start + length <= count {
          let value = scores[3 * start + length - 1]
          if value != missing { best = max(best, value + suffix[start + length]) }
        }
        suffix[start] = best
      }
      let entryLength = entry.count
      let entryScore = entryLength <= 3 ? scores[3 * entry.lowerBound + entryLength - 1] : missing
      let entryWeight = max(entryScore == missing ? 0 : entryScore - piece, entryFloorWeight)
      let kept = prefix[entry.lowerBound] + entryWeight + piece + suffix[entry.upperBound]
      for start in 0..<count {
        for length in 2...3 where start + length <= count {
          let end = start + length
          let crossesStart = start < entry.lowerBound && entry.lowerBound < end && end < entry.upperBound
          let crossesEnd = entry.lowerBound < start && start < entry.upperBound && entry.upperBound < end
          let value = scores[3 * start + length - 1]
          guard crossesStart || crossesEnd, value != missing else { continue }
          if prefix[start] + value + suffix[end] > kept { return true }
        }
      }
      return false
    }
  }
}
