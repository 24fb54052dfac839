/// Word edges for Han text, which does not space its words: the lexicon and segmentation.
///
/// - `word:` entries (``Entry/Boundary/dictionaryWord``, of any script but made for Han) must
///   not make a lexicon word with the scalars beside them: `日入` is not found in `18日入住`,
///   cut from `18日` and `入住` (``PatternCheck/lexicon``).
/// - Whole-word entries of two or more Han characters must not be cut from more likely words
///   by the segmentation of their context (``Segmentation``, ``PatternCheck/segmentation``).
///
/// The lexicon is the lists' `lexicon` lines (``Entry/Action/lexicon``), normalized and keyed
/// by one to three scalars.
enum HanWordEdges {
  /// The bits this rule reads, both of which read the lexicon.
  static let readsLexicon = PatternCheck.lexicon | PatternCheck.segmentation

  /// The checks a pattern of `entry` (normalized as `normalized`) asks of this rule.
  static func checks(of entry: Entry, _ normalized: NormalizedEntry) -> UInt8 {
    guard entry.action != .allow else { return 0 }
    var checks: UInt8 = 0
    if entry.boundary == .dictionaryWord { checks |= PatternCheck.lexicon }
    if entry.boundary == .word, normalized.scalars.count >= 2, normalized.scalars.allSatisfy(isHan) {
      checks |= PatternCheck.segmentation
    }
    return checks
  }

  /// Why a candidate fails this rule's checks of `checks` (``MatcherLayer/Rejection/none``: it
  /// does not). `lexicon` is not empty. Out of line: few candidates have these checks, and
  /// inlined into the layer's collection, the lexicon lookups moved the automaton walk's
  /// closure out of the scan's loop (+1.5% on matching that reads no lexicon).
  @inline(never)
  static func rejection(
    of candidate: EdgeCandidate, checks: UInt8, lexicon: LexiconTable
  ) -> MatcherLayer.Rejection {
    let (start, end, scalars) = (candidate.start, candidate.end, candidate.scalars)
    if checks & PatternCheck.lexicon != 0, straddlesLexiconWord(start, end, scalars, lexicon: lexicon) {
      return .crossesLexiconWord
    }
    if checks & PatternCheck.segmentation != 0, isCutFromLikelierWords(start, end, scalars, lexicon: lexicon) {
      return .crossesLexiconWord
    }
    return .none
  }

  /// The normalized lexicon: each word of one to three scalars as ``lexiconKey(_:)``,
  /// ``lexiconKey(_:_:)`` or ``lexiconKey(_:_:_:)`` packs it, and each reading of syllables
  /// (words of ASCII letters) as ``SyllableWordEdges/key(_:)`` does, with its Zipf frequency in
  /// tenths (a word listed twice, a custom list's lexicon over the global one, keeps the
  /// larger).
  static func lexicon(of words: [String], normalizer: Normalizer) -> LexiconTable {
    let lexiconKeys = concurrentMap(count: words.count, workspace: NormalizedText()) {
      workspace, index -> (UInt64, UInt8)? in
      let (word, weight) = Entry.lexiconWordAndWeight(words[index])
      guard let scalars = normalizer.normalizeEntry(word, workspace: &workspace)?.scalars else { return nil }
      if SyllableWordEdges.isReading(scalars) { return (SyllableWordEdges.key(scalars), weight) }
      switch scalars.count {
      case 1: return (lexiconKey(scalars[0]), weight)
      case 2: return (lexiconKey(scalars[0], scalars[1]), weight)
      case 3: return (lexiconKey(scalars[0], scalars[1], scalars[2]), weight)
      default: return nil
      }
    }
    return LexiconTable(lexiconKeys.compactMap { $0 })
  }

  /// Whether the first scalar of walk positions `start..<end` ends a lexicon word that begins
  /// before it, or the last one begins a lexicon word that ends after it: the candidate is then
  /// cut from two neighbouring words (`日入` from `18日入住`), not a word of its own.
  @inline(__always)
  private static func straddlesLexiconWord(
    _ start: Int, _ end: Int, _ scalars: UnsafeBufferPointer<UInt32>, lexicon: LexiconTable
  ) -> Bool {
    if start >= 1 {
      if lexicon[Self.lexiconKey(scalars[start - 1], scalars[start])] != nil { return true }
      if start >= 2, lexicon[Self.lexiconKey(scalars[start - 2], scalars[start - 1], scalars[start])] != nil {
        return true
      }
    }
    if end < scalars.count {
      if lexicon[Self.lexiconKey(scalars[end - 1], scalars[end])] != nil { return true }
      if end + 1 < scalars.count, lexicon[Self.lexiconKey(scalars[end - 1], scalars[end], scalars[end + 1])] != nil {
        return true
      }
    }
    return false
  }

  /// Whether the Han characters around walk positions `start..<end` (up to
  /// ``Segmentation/context`` on each side) are more likely read with a word across one of its
  /// edges than with the candidate as a word (see ``Segmentation``).
  private static func isCutFromLikelierWords(
    _ start: Int, _ end: Int, _ scalars: UnsafeBufferPointer<UInt32>, lexicon: LexiconTable
  ) -> Bool {
    var left = start
    while left > 0, start - left < Segmentation.context, Self.isHan(scalars[left - 1]) { left -= 1 }
    var right = end
    while right < scalars.count, right - end < Segmentation.context, Self.isHan(scalars[right]) { right += 1 }
    guard left < start || right > end else { return false }
    return Segmentation.isCut(count: right - left, entry: (start - left)..<(end - left)) { offset, length in
      let at = left + offset
      let key =
        switch length {
        case 1: Self.lexiconKey(scalars[at])
        case 2: Self.lexiconKey(scalars[at], scalars[at + 1])
        default: Self.lexiconKey(scalars[at], scalars[at + 1], scalars[at + 2])
        }
      return lexicon[key].map { Int($0) }
    }
  }

  /// Whether a scalar is a Han character (the CJK Unified Ideographs and their extensions).
  @inline(__always)
  static func isHan(_ scalar: UInt32) -> Bool {
    switch scalar {
    case 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF, 0x20000...0x323AF: true
    default: false
    }
  }

  /// A one-scalar lexicon word as one number (below 2^21, so never a two- or three-scalar key).
  @inline(__always)
  static func lexiconKey(_ scalar: UInt32) -> UInt64 { UInt64(scalar) }

  /// A two-scalar lexicon word as one number (scalars fit in 21 bits and are never 0, so two-
  /// and three-scalar keys never collide).
  @inline(__always)
  static func lexiconKey(_ first: UInt32, _ second: UInt32) -> UInt64 {
    UInt64(first) << 21 | UInt64(second)
  }

  /// A three-scalar lexicon word as one number.
  @inline(__always)
  static func lexiconKey(_ first: UInt32, _ second: UInt32, _ third: UInt32) -> UInt64 {
    UInt64(first) << 42 | UInt64(second) << 21 | UInt64(third)
  }
}
