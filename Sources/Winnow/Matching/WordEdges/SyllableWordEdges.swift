/// Word edges for Chinese written in pinyin a syllable at a time (`wo men jin tian`), where
/// every two neighbouring syllables may be read as one word: `bu cuo bi jiao` (不错 比较, not
/// bad, rather) holds `cuo bi` but reads as 不错 + 比较.
///
/// A whole-word entry of two or more words, each a syllable the lexicon knows (a `lexicon:`
/// line of one word of ASCII letters), does not match where the most likely segmentation of
/// up to ``Segmentation/context`` such syllables on each side puts a word across one of its
/// edges. The lexicon's readings are `lexicon:` lines of words of ASCII letters separated by
/// single spaces (`lexicon:bi jiao 5.1`: the Zipf frequency of all the words that read so);
/// the scoring is ``Segmentation``'s, with a syllable in place of a character. Context stops
/// at anything that is not such a syllable one space away, so a spaced entry among English
/// words, or alone, is never cut; nor is the joined form (`cuobi`), which has one word.
enum SyllableWordEdges {
  /// The bit this rule owns.
  static let owned = PatternCheck.syllables

  /// The checks a pattern of `entry` (normalized as `normalized`) asks of this rule.
  static func checks(of entry: Entry, _ normalized: NormalizedEntry) -> UInt8 {
    guard entry.action != .allow, entry.action != .lexicon, entry.boundary == .word,
      normalized.scalars.contains(space), isReading(normalized.scalars)
    else { return 0 }
    return PatternCheck.syllables
  }

  /// Why a candidate fails this rule's check (``MatcherLayer/Rejection/none``: it does not).
  /// `lexicon` is not empty.
  static func rejection(of candidate: EdgeCandidate, lexicon: LexiconTable) -> MatcherLayer.Rejection {
    let (start, end, scalars) = (candidate.start, candidate.end, candidate.scalars)
    guard start < end, end <= scalars.count else { return .none }
    // The candidate's words, each a known syllable.
    var words: [Range<Int>] = []
    var wordStart = start
    for position in start...end where position == end || scalars[position] == space {
      guard wordStart < position, isSyllable(wordStart..<position, scalars, lexicon) else { return .none }
      words.append(wordStart..<position)
      wordStart = position + 1
    }
    guard words.count >= 2 else { return .none }
    // Up to `Segmentation.context` known syllables on each side, one space apart.
    var before: [Range<Int>] = []
    var edge = start
    while before.count < Segmentation.context, edge >= 2, scalars[edge - 1] == space {
      var wordStart = edge - 1
      while wordStart > 0, isLetter(scalars[wordStart - 1]) { wordStart -= 1 }
      let word = wordStart..<(edge - 1)
      guard !word.isEmpty, wordStart == 0 || scalars[wordStart - 1] == space, isSyllable(word, scalars, lexicon)
      else { break }
      before.append(word)
      edge = wordStart
    }
    var after: [Range<Int>] = []
    edge = end
    while after.count < Segmentation.context, edge + 1 < scalars.count, scalars[edge] == space {
      var wordEnd = edge + 1
      while wordEnd < scalars.count, isLetter(scalars[wordEnd]) { wordEnd += 1 }
      let word = (edge + 1)..<wordEnd
      guard !word.isEmpty, wordEnd == scalars.count || scalars[wordEnd] == space, isSyllable(word, scalars, lexicon)
      else { break }
      after.append(word)
      edge = wordEnd
    }
    guard !before.isEmpty || !after.isEmpty else { return .none }
    let units = before.reversed() + words + after
    let cut = Segmentation.isCut(count: units.count, entry: before.count..<(before.count + words.count)) {
      first, length in
      lexicon[key(units[first].lowerBound..<units[first + length - 1].upperBound, scalars)].map { Int($0) }
    }
    return cut ? .crossesLexiconWord : .none
  }

  /// The lexicon key of a reading of syllables: a 63-bit hash of its scalars (letters, one
  /// space between syllables) with the top bit set, so that it never equals a key of
  /// ``HanWordEdges`` (63 bits at most). Two readings share a key only by a hash collision.
  static func key<C: Collection<UInt32>>(_ scalars: C) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for scalar in scalars { hash = (hash ^ UInt64(scalar)) &* 0x0000_0100_0000_01b3 }
    return hash | 1 << 63
  }

  /// Whether normalized lexicon words `scalars` are a reading of syllables: words of ASCII
  /// letters, one space apart.
  static func isReading(_ scalars: [UInt32]) -> Bool {
    !scalars.isEmpty && scalars.first != space && scalars.last != space
      && !zip(scalars, scalars.dropFirst()).contains { $0 == space && $1 == space }
      && scalars.allSatisfy { isLetter($0) || $0 == space }
  }

  private static let space: UInt32 = 0x20

  @inline(__always)
  private static func isLetter(_ scalar: UInt32) -> Bool { scalar >= 0x61 && scalar <= 0x7A }

  private static func key(_ range: Range<Int>, _ scalars: UnsafeBufferPointer<UInt32>) -> UInt64 {
    key(UnsafeBufferPointer(rebasing: scalars[range]))
  }

  private static func isSyllable(
    _ range: Range<Int>, _ scalars: UnsafeBufferPointer<UInt32>, _ lexicon: LexiconTable
  ) -> Bool {
    range.allSatisfy { isLetter(scalars[$0]) } && lexicon[key(range, scalars)] != nil
  }
}
