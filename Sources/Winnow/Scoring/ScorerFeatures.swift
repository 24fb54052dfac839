/// The hashed features of normalized text that a ``Scorer`` weighs (feature version 1).
///
/// Units are read as the matcher's primary walk reads them: optional units (a single letter
/// between CJK characters) are left out, and a `1` read as a letter is `i`.
/// - A run of units of a script written without spaces (Han, kana, Thai …) gives each
///   character's 1-, 2- and 3-grams that end at it, within the run.
/// - A run of word characters (letters, digits, other scripts' letters and marks) is a word:
///   it gives its unigram, its bigram with the word before it (since the text's start or the
///   last unspaced run), and its character 3-, 4- and 5-grams with the word's edges marked
///   (`<ab`, `abc`, `bc>` …).
/// - Anything else (spaces, punctuation, symbols) separates words.
///
/// A feature is hashed with FNV-1a (64 bits, one step per scalar, seeded with the feature's
/// kind) and mixed with the SplitMix64 finalizer; the low bits give its bucket and the top bit
/// its sign. Nothing is allocated: each feature is hashed from the units in place.
///
/// `scripts/train-scorer` learns from the features this code writes (`winnow score
/// --features`), so training and scoring share one implementation; changing what it computes
/// needs a new ``Scorer/featureVersion`` and a model trained anew.
enum ScorerFeatures {
  /// Feature kinds, the first value hashed.
  private enum Kind: UInt32 {
    case cjk1 = 1
    case cjk2
    case cjk3
    case word
    case wordPair
    /// The first of three kinds, for 3-, 4- and 5-grams of words (8, 9, 10).
    case gram3 = 8
  }

  /// The scalar that marks a word's start in its character n-grams.
  static let wordStart: UInt32 = 0x02
  /// The scalar that marks a word's end.
  static let wordEnd: UInt32 = 0x03
  /// The scalar between the two words of a word pair.
  static let pairSeparator: UInt32 = 0x20

  private static let offsetBasis: UInt64 = 0xCBF2_9CE4_8422_2325
  private static let prime: UInt64 = 0x0000_0100_0000_01B3

  @inline(__always) private static func step(_ hash: UInt64, _ value: UInt32) -> UInt64 {
    (hash ^ UInt64(value)) &* prime
  }

  @inline(__always) private static func start(_ kind: Kind) -> UInt64 { step(offsetBasis, kind.rawValue) }

  @inline(__always) private static func finish(_ hash: UInt64) -> UInt64 {
    var z = hash
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// Calls `body` with each feature of `text`: its bucket (masked by `mask`, one less than a
  /// power of two) and whether it counts negatively.
  @inline(__always)
  static func forEach(in text: NormalizedText, mask: UInt32, _ body: (UInt32, Bool) -> Void) {
    text.withUnits { units in
      forEach(in: units, mask: mask, body)
    }
  }

  @inline(__always)
  private static func forEach(in units: NormalizedUnits, mask: UInt32, _ body: (UInt32, Bool) -> Void) {
    @inline(__always) func emit(_ hash: UInt64) {
      let mixed = finish(hash)
      body(UInt32(truncatingIfNeeded: mixed) & mask, mixed >> 63 == 1)
    }
    let scalars = units.scalars
    // The last two CJK scalars of the current unspaced run, and how many it has had (up to 2).
    var cjk1: UInt32 = 0
    var cjk2: UInt32 = 0
    var cjkRun = 0
    // The current word's units, as indices of `units`: a word's units may be interrupted by
    // optional units, which are skipped, so the word's scalars are gathered by index below.
    var currentWord = -1
    var previousWord: (start: Int, end: Int)? = nil
    var index = 0
    let count = scalars.count

    /// The plain scalar of unit `i` (a `1` read as a letter is `i`).
    @inline(__always) func plain(_ i: Int) -> UInt32 { UnicodeTables.plainLetter(scalars[i]) }

    /// The `k`th scalar of a word spanning units `start..<end` with its edge marks: 0 is the
    /// start mark, `end - start + 1` the end mark. Optional units never fall inside a word
    /// (they split it, see below).
    @inline(__always) func padded(_ start: Int, _ end: Int, _ k: Int) -> UInt32 {
      k == 0 ? Self.wordStart : (k == end - start + 1 ? Self.wordEnd : plain(start + k - 1))
    }

    @inline(__always) func endWord(at end: Int) {
      guard currentWord >= 0 else { return }
      let start = currentWord
      currentWord = -1
      var hash = Self.start(.word)
      for i in start..<end { hash = step(hash, plain(i)) }
      emit(hash)
      if let previous = previousWord {
        var pair = Self.start(.wordPair)
        for i in previous.start..<previous.end { pair = step(pair, plain(i)) }
        pair = step(pair, pairSeparator)
        for i in start..<end { pair = step(pair, plain(i)) }
        emit(pair)
      }
      previousWord = (start, end)
      let paddedCount = end - start + 2
      for n in 3...5 where n <= paddedCount {
        // gram3, gram4, gram5.
        let kind = Kind.gram3.rawValue + UInt32(n - 3)
        for first in 0...(paddedCount - n) {
          var gram = step(offsetBasis, kind)
          for k in first..<(first + n) { gram = step(gram, padded(start, end, k)) }
          emit(gram)
        }
      }
    }

    while index < count {
      let info = units[index]
      if info.isOptional {
        // Left out, as the primary walk leaves it; it ends a word (it sits between CJK
        // characters, so no word runs through it).
        endWord(at: index)
        index += 1
        continue
      }
      switch info.scalarClass {
      case .unspaced:
        endWord(at: index)
        previousWord = nil
        let scalar = scalars[index]
        emit(step(start(.cjk1), scalar))
        if cjkRun >= 1 { emit(step(step(start(.cjk2), cjk1), scalar)) }
        if cjkRun >= 2 { emit(step(step(step(start(.cjk3), cjk2), cjk1), scalar)) }
        cjk2 = cjk1
        cjk1 = scalar
        cjkRun = min(cjkRun + 1, 2)
      case .letter, .digit, .other, .arabicLetter:
        cjkRun = 0
        if currentWord < 0 { currentWord = index }
      case .separator, .symbol, .apostrophe:
        cjkRun = 0
        endWord(at: index)
      }
      index += 1
    }
    endWord(at: count)
  }
}
