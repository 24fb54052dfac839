import CWinnowFilter

/// The start filter of a walk over normalized scalars that are all ASCII: the raw
/// ``StartFilter`` of the automaton's patterns whose scalars are all ASCII, run over the
/// text's scalars taken as bytes. Such a text can hold no other pattern, and there the raw
/// filter, keyed on four bytes and then the fifth (and then on windows of up to eight), lets
/// far fewer positions through than the ``ScalarStartFilter``'s first stage, keyed on two
/// scalars and then the third, and its exact tables name the patterns at most of them without
/// a walk of the trie. A class: a walk reads it through a reference, where a struct was
/// copied out of the automaton for every text. Internal to ``AhoCorasick``.
final class ASCIIWalkFilter: Sendable {
  let filter: StartFilter
  /// The automaton's number of each of the filter's patterns.
  let patterns: [UInt32]
  /// The short patterns that need a repeated letter, left out of `filter` and looked up only
  /// where a text's letter is repeated (see ``ShortRepeats``); nil when the filter holds them
  /// all.
  let shortRepeats: ShortRepeats?

  /// Builds the filter of the patterns (scalar values, none empty) whose scalars are all
  /// ASCII; nil when there are none. `runs` (by pattern, empty or one count per scalar) are
  /// the least repeats each scalar must stand for: a short pattern that needs some scalar
  /// repeated goes to ``shortRepeats``, unless no pattern is left for the filter.
  convenience init?(patterns all: [[UInt32]], runs: [[UInt16]] = []) {
    var bytes: [[UInt8]] = []
    var patterns: [UInt32] = []
    var anchors: [Int?] = []
    for (index, pattern) in all.enumerated() where pattern.allSatisfy({ $0 < 0x80 }) {
      bytes.append(pattern.map { UInt8(truncatingIfNeeded: $0) })
      patterns.append(UInt32(truncatingIfNeeded: index))
      anchors.append(index < runs.count ? runs[index].firstIndex { $0 > 1 } : nil)
    }
    guard !patterns.isEmpty else { return nil }
    let (shortRepeats, plain) = ShortRepeats.split(patterns: bytes, numbers: patterns, anchors: anchors)
    guard let shortRepeats, !plain.isEmpty else {
      self.init(filter: StartFilter(patterns: bytes), patterns: patterns, shortRepeats: nil)
      return
    }
    self.init(
      filter: StartFilter(patterns: plain.map { bytes[$0] }), patterns: plain.map { patterns[$0] },
      shortRepeats: shortRepeats)
  }

  init(filter: StartFilter, patterns: [UInt32], shortRepeats: ShortRepeats?) {
    self.filter = filter
    self.patterns = patterns
    self.shortRepeats = shortRepeats
  }

  /// Bytes of memory the filter holds.
  var memoryFootprint: Int {
    filter.memoryFootprint + patterns.capacity * 4 + (shortRepeats?.memoryFootprint ?? 0)
  }

  /// Writes `scalars` as bytes to the start of `padded` (at least ``StartFilter/padding``
  /// longer) and zeros after them, for ``forEachMatch(inPadded:_:_:)``; returns false, with
  /// `padded` partly written, when a scalar is not ASCII. The bytes are written and checked
  /// in one pass (`winnow_narrow_ascii`): a pass to check them and another to write them each
  /// read every scalar of every text.
  @inline(__always)
  static func narrow(_ scalars: UnsafeBufferPointer<UInt32>, into padded: UnsafeMutableBufferPointer<UInt8>) -> Bool {
    guard winnow_narrow_ascii(scalars.baseAddress, scalars.count, padded.baseAddress) != 0 else { return false }
    for index in scalars.count..<padded.count { padded[index] = 0 }
    return true
  }

  /// Calls `body(pattern, end)` for every occurrence in `bytes` (ASCII scalars as bytes,
  /// followed in memory by ``StartFilter/padding`` zeros: see ``narrow(_:into:)``) of every
  /// pattern of the filter (not those of ``shortRepeats``), in order of start: the filter's
  /// exact tables report the patterns at the positions it passes, or `walk` (which reports
  /// every pattern starting there, those too) walks the trie. With `skippingInsideWords`,
  /// matches starting inside a word of ASCII letters and digits may be left out (see
  /// ``StartFilter/forEachMatch(inPadded:skippingInsideWords:walk:_:)``).
  @inline(__always)
  func forEachMatch(
    inPadded bytes: UnsafeBufferPointer<UInt8>, skippingInsideWords: Bool, _ walk: (Int) -> Void,
    _ body: (Int, Int) -> Void
  ) {
    patterns.withUnsafeBufferPointer { patterns in
      filter.forEachMatch(inPadded: bytes, skippingInsideWords: skippingInsideWords, walk: walk) { pattern, _, end in
        // SAFETY: the exact tables hold the filter's patterns, numbered below their count.
        body(Int(truncatingIfNeeded: patterns[pattern]), end)
      }
    }
  }
}
