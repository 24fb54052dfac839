/// Identifies a pattern of an ``AhoCorasick`` automaton: its index in the list it was built from.
@_spi(Tools) public struct PatternID: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// The pattern's index.
  public let rawValue: Int
  /// Creates an id for the pattern at `rawValue`.
  public init(_ rawValue: Int) { self.rawValue = rawValue }
  /// Patterns order by their index.
  public static func < (lhs: PatternID, rhs: PatternID) -> Bool { lhs.rawValue < rhs.rawValue }
  /// The pattern's index.
  public var description: String { String(rawValue) }
}

/// One occurrence of a pattern: a half-open range of offsets in the text.
@_spi(Tools) public struct PatternMatch: Hashable, Sendable {
  /// The pattern that matched.
  public let pattern: PatternID
  /// Offset of the first byte (or scalar) of the match.
  public let start: Int
  /// Offset just past the match.
  public let end: Int

  /// Creates a match of `pattern` over `start..<end`.
  public init(pattern: PatternID, start: Int, end: Int) {
    self.pattern = pattern
    self.start = start
    self.end = end
  }
}

/// The unit of the offsets in a ``PatternMatch``.
@_spi(Tools) public enum MatchOffsets: String, Sendable, CaseIterable {
  /// UTF-8 bytes, as Rust's aho-corasick and Hyperscan report them.
  case bytes
  /// Unicode scalars, as Python's `str` indices (pyahocorasick) count them.
  case scalars = "chars"
}

extension AhoCorasick {
  /// Every occurrence of every pattern, overlapping ones included, in order of end.
  public func overlappingMatches(in text: String, offsets: MatchOffsets = .bytes) -> [PatternMatch] {
    var text = text
    return text.withUTF8 { overlappingMatches(inUTF8: $0, offsets: offsets) }
  }

  /// Every occurrence of every pattern in UTF-8 bytes, overlapping ones included, in order of end
  /// (then of start, then of pattern). Invalid UTF-8 is matched by nothing.
  public func overlappingMatches(inUTF8 bytes: UnsafeBufferPointer<UInt8>, offsets: MatchOffsets = .bytes)
    -> [PatternMatch]
  {
    var matches: [PatternMatch] = []
    switch offsets {
    case .bytes:
      forEachMatchByStart(inUTF8: bytes) { pattern, start, end in
        matches.append(PatternMatch(pattern: PatternID(pattern), start: start, end: end))
      }
      matches.sort { ($0.end, $0.start, $0.pattern) < ($1.end, $1.start, $1.pattern) }
    case .scalars:
      forEachMatch(inUTF8: bytes) { pattern, _, endScalar in
        let start = endScalar - Int(patternLengths[pattern])
        matches.append(PatternMatch(pattern: PatternID(pattern), start: start, end: endScalar))
      }
    }
    return matches
  }

  /// Non-overlapping matches chosen by `kind`, in order.
  public func matches(in text: String, kind: MatchKind = .leftmostLongest, offsets: MatchOffsets = .bytes)
    -> [PatternMatch]
  {
    kind.select(overlappingMatches(in: text, offsets: offsets), start: \.start, end: \.end, pattern: \.pattern.rawValue)
  }

  /// Non-overlapping matches in UTF-8 bytes chosen by `kind`, in order.
  public func matches(
    inUTF8 bytes: UnsafeBufferPointer<UInt8>, kind: MatchKind = .leftmostLongest, offsets: MatchOffsets = .bytes
  ) -> [PatternMatch] {
    kind.select(
      overlappingMatches(inUTF8: bytes, offsets: offsets), start: \.start, end: \.end, pattern: \.pattern.rawValue)
  }

  /// The number of occurrences of all patterns, overlapping ones included: a scan that stores
  /// nothing, for measuring the automaton alone.
  public func countOverlappingMatches(inUTF8 bytes: UnsafeBufferPointer<UInt8>) -> Int {
    var count = 0
    forEachMatchByStart(inUTF8: bytes) { _, _, _ in count += 1 }
    return count
  }

  /// What the start filter does with `bytes`, stage by stage (added to `counts`); false when
  /// the automaton has no start filter (its raw scan walks every position).
  @discardableResult
  public func countFilterStages(inUTF8 bytes: UnsafeBufferPointer<UInt8>, into counts: inout FilterStageCounts)
    -> Bool
  {
    guard let startFilter else { return false }
    startFilter.countStages(in: bytes, into: &counts)
    return true
  }
}
