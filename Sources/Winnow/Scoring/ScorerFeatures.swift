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
/// its sign. Each feature is hashed from the units in place, a word's from its scalars gathered
/// once between its edge marks (in a temporary buffer, on the stack for all but long texts).
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

  /// ``forEach(in:mask:_:)`` over a normalized text's units.
  @inline(__always)
  static func forEach(in units: NormalizedUnits, mask: UInt32, _ body: (UInt32, Bool) -> Void) {
    // The current word's plain scalars between its edge marks; a word has at most every unit.
    withUnsafeTemporaryAllocation(of: UInt32.self, capacity: units.scalars.count + 2) { word in
      forEach(in: units, word: word, mask: mask, body)
    }
  }

  /// ``forEach(in:mask:_:)`` with `word` to gather each word's scalars in: its first element
  /// is the start mark, and the word's scalars follow, then its end mark, so that every n-gram
  /// is read from consecutive elements.
  @inline(__always)
  private static func forEach(
    in units: NormalizedUnits, word: UnsafeMutableBufferPointer<UInt32>, mask: UInt32,
    _ body: (UInt32, Bool) -> Void
  ) {
    @inline(__always) func emit(_ hash: UInt64) {
      let mixed = finish(hash)
      body(UInt32(truncatingIfNeeded: mixed) & mask, mixed >> 63 == 1)
    }
    let scalars = units.scalars
    // The last two CJK scalars of the current unspaced run, and how many it has had (up to 2).
    var cjk1: UInt32 = 0
    var cjk2: UInt32 = 0
    var cjkRun = 0
    // The current word's length in `word` (0: none), and, when there was a word before it
    // since the text's start or the last unspaced run, the word-pair hash of that word and the
    // separator, which the current word's scalars continue.
    var length = 0
    var pairPrefix: UInt64? = nil
    word[0] = Self.wordStart
    let wordSeed = start(.word)
    let pairSeed = start(.wordPair)
    let gramSeeds = (
      step(offsetBasis, Kind.gram3.rawValue), step(offsetBasis, Kind.gram3.rawValue + 1),
      step(offsetBasis, Kind.gram3.rawValue + 2)
    )

    @inline(__always) func endWord() {
      guard length > 0 else { return }
      var hash = wordSeed
      var pair = pairPrefix ?? 0
      var nextPrefix = pairSeed
      for k in 1...length {
        let scalar = word[k]
        hash = step(hash, scalar)
        pair = step(pair, scalar)
        nextPrefix = step(nextPrefix, scalar)
      }
      emit(hash)
      if pairPrefix != nil { emit(pair) }
      pairPrefix = step(nextPrefix, pairSeparator)
      word[length + 1] = Self.wordEnd
      // The 3-, 4- and 5-grams of the marked word, by where they start.
      let padded = length + 2
      for first in 0...(padded - 3) {
        let a = word[first]
        let b = word[first + 1]
        let c = word[first + 2]
        emit(step(step(step(gramSeeds.0, a), b), c))
        guard first + 4 <= padded else { continue }
        let d = word[first + 3]
        emit(step(step(step(step(gramSeeds.1, a), b), c), d))
        guard first + 5 <= padded else { continue }
        emit(step(step(step(step(step(gramSeeds.2, a), b), c), d), word[first + 4]))
      }
      length = 0
    }

    for index in 0..<scalars.count {
      let info = units[index]
      if info.isOptional {
        // Left out, as the primary walk leaves it; it ends a word (it sits between CJK
        // characters, so no word runs through it).
        endWord()
        continue
      }
      switch info.scalarClass {
      case .unspaced:
        endWord()
        pairPrefix = nil
        let scalar = scalars[index]
        emit(step(start(.cjk1), scalar))
        if cjkRun >= 1 { emit(step(step(start(.cjk2), cjk1), scalar)) }
        if cjkRun >= 2 { emit(step(step(step(start(.cjk3), cjk2), cjk1), scalar)) }
        cjk2 = cjk1
        cjk1 = scalar
        cjkRun = min(cjkRun + 1, 2)
      case .letter, .digit, .other, .arabicLetter:
        cjkRun = 0
        length += 1
        word[length] = UnicodeTables.plainLetter(scalars[index])
      case .separator, .symbol, .apostrophe:
        cjkRun = 0
        endWord()
      }
    }
    endWord()
  }
}
