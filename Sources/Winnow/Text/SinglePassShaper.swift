import CWinnowFilter

/// The word rules of normalization applied while the text is folded, in one pass, for the
/// texts where that is possible: most chat. Internal.
///
/// ```swift
/// var shaper = SinglePassShaper(rules: .default, scalars: scalars, infos: infos, capacity: room)
/// for (scalar, scalarClass, start, end) in foldedUnits { shaper.feed(scalar, scalarClass, start, end) }
/// let count = shaper.finish()   // nil: run the passes of `WordShaper` instead
/// ```
///
/// ``WordShaper`` loads every folded unit into a workspace, then makes passes over it (tokens,
/// then the final units), because a few rules look ahead or back across a whole token. In
/// `winnow scan` and in a per-message scan those passes were about a fifth of the time, most of
/// it spent writing units and reading them back. This type keeps only what the rules need of
/// the past (the last unit written, a run of separators not yet written, the token being read
/// and the one before it) and writes each final unit as its folded scalar arrives.
///
/// It gives up, and the caller normalizes the text again with ``WordShaper``, wherever a rule
/// would change a unit already written or needs more than one unit of lookahead:
///
/// - `@` or `$` (letters or separators by the token around them), and `!` before a word
///   character (`sh!t`), under ``Normalization/lookalikes``; any `!` without
///   ``Normalization/separators``;
/// - a token with an Arabic letter, digits and then a Latin letter;
/// - two tokens of one character within ``WordShaper/maximumJoinGap`` separators (`f u`:
///   letters spelled one by one are joined) where either is not a letter (`1 - 5`, `s 1`);
/// - more units than the room it was given (scalars that fold to several).
///
/// In a token with a letter, a digit that imitates one becomes that letter as it arrives
/// (`sh1t`); digits before a token's first letter (`2nd`, `0ops`), already written, are
/// rewritten when the letter comes, the units written last being the token's. A letter or
/// digit alone between CJK characters (`反v动`), the last unit written when the CJK after it
/// comes, is marked optional then. Two letters spelled one by one (`f u c k`) are joined when
/// the second one's token ends: the space unit between them, the last but one written, is
/// dropped.
///
/// An apostrophe waits for the unit after it: between two letters it is dropped (`don't`),
/// elsewhere a separator. So does a run of `!`: before anything but a word character it is a
/// run of separators (`好！`, `wow!!`). Every other unit is final when it arrives. What it
/// writes is exactly what ``WordShaper`` writes for the same text (`SinglePassShaperTests`
/// holds the two to each other under six rule sets).
struct SinglePassShaper {
  private let scalars: UnsafeMutablePointer<UInt32>
  private let infos: UnsafeMutablePointer<NormalizedText.UnitInfo>
  private let capacity: Int
  /// ``Normalization/separators``: separator runs collapse, apostrophes inside words drop,
  /// spelled letters join.
  private let collapses: Bool
  /// ``Normalization/repeatedLetters``.
  private let merges: Bool
  /// ``Normalization/interleavedLetters``.
  private let marksOptional: Bool
  /// ``Normalization/lookalikes``: `@ $ !` may be letters; without it they are separators.
  private let readsLookalikes: Bool

  /// Units written so far.
  private var written = 0
  /// Whether a rule needs the passes of ``WordShaper`` for this text.
  private(set) var gaveUp = false
  /// Whether a token (a run of letters and digits) has begun: without one, no unit written is a
  /// letter or digit of a word.
  private(set) var sawToken = false

  /// What ``NormalizedText/UnitInfo/flags`` holds for a class that no unit has: "nothing yet".
  private static let noClass: UInt8 = 0xFF

  // The last unit written (its class raw value, ``noClass`` before the first) and its scalar.
  private var lastClass = noClass
  private var lastScalar: UInt32 = 0
  // Separators read since the last unit written: the first one's start and the last one's end
  // (`pendingStart` is negative when there are none).
  private var pendingStart: Int32 = -1
  private var pendingEnd: Int32 = 0

  // An apostrophe waiting for the unit after it, and whether the unit before it was a letter.
  private var heldApostrophe: (scalar: UInt32, start: Int32, end: Int32)? = nil
  private var apostropheFollowsLetter = false
  // A run of `!` waiting for the unit after it: how many, the first one's start, the last one's end.
  private var exclamationMarks = 0
  private var exclamationsStart: Int32 = 0
  private var exclamationsEnd: Int32 = 0
  /// The folded class of the unit fed last.
  private var previousClass = ScalarClass.separator

  // The token being read (a run of letters and digits), if any.
  private var inToken = false
  private var tokenLength = 0
  private var tokenHasLetter = false
  private var tokenHasDigit = false
  /// The digits of the token being read.
  private var tokenDigits = 0
  /// The class of the last unit other than a separator before the token started.
  private var classBeforeToken = noClass
  /// The length of the token before, 0 before the first one.
  private var previousTokenLength = 0
  /// Units read since the token before ended, and whether all of them are separators.
  private var gapUnits = 0
  private var gapIsSeparators = true
  /// A token of one character followed CJK: it is optional if the next unit other than a
  /// separator is CJK too.
  private var optionalIfCJKFollows = false
  /// The class of the last unit other than a separator.
  private var lastSolidClass = noClass
  /// Whether a unit written is optional (a letter between CJK characters, `反v动`).
  private(set) var hasOptionalUnits = false
  /// Whether a unit written is spelled (a letter of `f u c k`, joined).
  private(set) var hasSpelledUnits = false

  /// A shaper that writes up to `capacity` units to `scalars` and `infos`.
  init(
    rules: Normalization, scalars: UnsafeMutablePointer<UInt32>,
    infos: UnsafeMutablePointer<NormalizedText.UnitInfo>, capacity: Int
  ) {
    self.scalars = scalars
    self.infos = infos
    self.capacity = capacity
    self.collapses = rules.contains(.separators)
    self.merges = rules.contains(.repeatedLetters)
    self.marksOptional = rules.contains(.interleavedLetters)
    self.readsLookalikes = rules.contains(.lookalikes)
  }

  /// Takes the next folded unit of the text.
  @inline(__always)
  mutating func feed(_ scalar: UInt32, _ scalarClass: ScalarClass, _ start: Int32, _ end: Int32) {
    if let apostrophe = heldApostrophe {
      heldApostrophe = nil
      // Between two letters (the folded classes, as `WordShaper` reads them) it is dropped.
      if !(collapses && apostropheFollowsLetter && scalarClass == .letter) {
        placeSeparator(apostrophe.scalar, apostrophe.start, apostrophe.end)
      }
    }
    let isExclamationMark = scalarClass == .symbol && scalar == 0x21
    if exclamationMarks > 0 && !isExclamationMark {
      // Before a word character the run would be letters (`sh!t`, `!!1`), which the passes read.
      if scalarClass == .letter || scalarClass == .digit || scalarClass == .symbol {
        gaveUp = true
        return
      }
      placeExclamationMarks()
    }
    switch scalarClass {
    case .apostrophe:
      heldApostrophe = (scalar, start, end)
      apostropheFollowsLetter = previousClass == .letter
    case .symbol:
      if !readsLookalikes {
        placeSeparator(scalar, start, end)
      } else if isExclamationMark && collapses {
        if exclamationMarks == 0 { exclamationsStart = start }
        exclamationsEnd = end
        exclamationMarks += 1
      } else {
        gaveUp = true
      }
    default:
      place(scalar, scalarClass, start, end)
    }
    previousClass = scalarClass
  }

  /// What ``takeASCIIWords(_:from:asciiFolding:vectorSetup:)`` may take besides lowercase ASCII letters,
  /// by what the rules fold them to (checked by the normalizer, not assumed).
  struct ASCIIFolding {
    /// Each uppercase ASCII letter folds to its lowercase letter (case folding).
    var foldsUppercase: Bool
    /// A space folds to itself as a separator: a space between two words becomes one space
    /// unit where separator runs collapse.
    var spaceIsSeparator: Bool
  }

  /// Takes the ASCII letters of `bytes` from `index` on, each a unit of its own scalar and class
  /// letter (lowercase, or an uppercase one folded to lowercase when `asciiFolding` says so),
  /// while they continue a token of letters, and a single space between two such words;
  /// returns the index of the first byte it did not take. Most of an English text's units are
  /// such letters and spaces, and inside a token the only rule that acts on a letter is the
  /// merging of repeats: this loop skips the fold table and `feed`'s other rules. A word of one
  /// letter is left to `feed` unless it follows a longer word in the loop: the rules that join
  /// letters spelled one by one (`f u`) and mark a letter between CJK optional read only such
  /// words.
  ///
  /// With `vectorSetup` (``ASCIIWordsSetup``, where the processor runs `winnow_ascii_words`),
  /// where the next eight bytes are ASCII, it takes up to 32 bytes at a time: letters with
  /// their repeats merged, and runs of separators between words (each after a word of two
  /// letters or more) written as one space unit, as `feed` writes them; what the vector step
  /// leaves, this loop takes or leaves to `feed` as it would without it.
  @inline(__always)
  mutating func takeASCIIWords(
    _ bytes: UnsafeBufferPointer<UInt8>, from index: Int, asciiFolding: ASCIIFolding,
    vectorSetup: UnsafePointer<winnow_ascii_words_setup>?
  ) -> Int {
    // Inside a token of letters, with nothing held back: the state `feed` leaves after a letter
    // (the caller also calls after `[`, `\`, `]`, `^`, `_` and a backquote, which are
    // separators; in a token with digits, a letter has made `feed` give up already).
    guard inToken && tokenHasLetter && !tokenHasDigit && heldApostrophe == nil && exclamationMarks == 0 else {
      return index
    }
    // The state the loop reads and changes, in locals: as the shaper's own fields, each was
    // read or stored back at every letter (the stores to the unit buffers might, for all the
    // compiler knew, write over the shaper).
    let (scalars, infos, capacity, merges) = (self.scalars, self.infos, self.capacity, self.merges)
    // `byte | caseBit` is a lowercase letter exactly when `byte` is a letter the loop takes.
    let caseBit: UInt8 = asciiFolding.foldsUppercase ? 0x20 : 0
    let joinsSpaces = asciiFolding.spaceIsSeparator && collapses
    var index = index
    let letter = ScalarClass.letter.rawValue
    var written = self.written
    var lastScalar = self.lastScalar
    var lastIsLetter = lastClass == letter
    var tokenLength = self.tokenLength
    // The length of the last token that ended in the loop, 0 when none did, and the separators
    // after it.
    var endedTokenLength = 0
    var endedGap = 0
    defer {
      self.written = written
      self.lastScalar = lastScalar
      if lastIsLetter { lastClass = letter }
      self.tokenLength = tokenLength
      if endedTokenLength > 0 {
        // What `endToken`, the separators' `place` and the next token's start leave: the token
        // before is that one, the gap between them those separators, and the token began after
        // a letter (no lone character waits for CJK: one that began in the loop followed a
        // letter).
        previousTokenLength = endedTokenLength
        gapUnits = endedGap
        gapIsSeparators = true
        classBeforeToken = letter
        optionalIfCJKFollows = false
      }
    }
    // One step at `index`: a letter, or a space and the letter after it; false where the loop
    // ends (with `gaveUp` set where there was no room).
    @inline(__always) func step() -> Bool {
      let byte = bytes[index]
      let folded = byte | caseBit
      if folded &- 0x61 < 26 {
        let start = Int32(truncatingIfNeeded: index)
        guard
          Self.mergeOrWrite(
            UInt32(folded), letter, start, start &+ 1, merging: merges && lastIsLetter, written: &written,
            lastScalar: &lastScalar, capacity: capacity, scalars, infos)
        else {
          gaveUp = true
          return false
        }
        lastIsLetter = true
        tokenLength &+= 1
        index &+= 1
        return true
      }
      // One space, then a letter: the token ends, and the space is written before the next
      // token's first letter (separator runs collapse; between two letters one is never
      // dropped). Other separators are left to `feed`: a run of them took more than it saved.
      // A word of one letter ends here only if it began in the loop after a longer word: two in
      // a row are joined (`f u`), and the word the loop began in may have followed CJK.
      guard joinsSpaces && byte == 0x20 && (tokenLength >= 2 || endedTokenLength >= 2) && index &+ 1 < bytes.count
      else { return false }
      let next = bytes[index &+ 1] | caseBit
      guard next &- 0x61 < 26 else { return false }
      guard written &+ 2 <= capacity else {
        gaveUp = true
        return false
      }
      let start = Int32(truncatingIfNeeded: index)
      Self.write(0x20, ScalarClass.separator.rawValue, start, start &+ 1, at: written, to: scalars, infos)
      Self.write(UInt32(next), letter, start &+ 1, start &+ 2, at: written &+ 1, to: scalars, infos)
      written &+= 2
      lastScalar = UInt32(next)
      lastIsLetter = true
      endedTokenLength = tokenLength
      endedGap = 1
      tokenLength = 1
      index &+= 2
      return true
    }
    guard let vectorSetup, let base = bytes.baseAddress else {
      while index < bytes.count && step() {}
      previousClass = .letter
      return index
    }
    // Up to 32 bytes at a time where `winnow_ascii_words` can run: words, repeats merged, and
    // the runs of separators between them, each after a word of two letters or more (see
    // `CWinnowFilter.h`); the steps take what it leaves, one unit at a time. Only where the next
    // eight bytes are ASCII: in a text of another script, a call for the few letters of a word
    // between its characters cost more than the steps.
    while index < bytes.count {
      if index >= 2, index &+ 8 <= bytes.count, written &+ 32 <= capacity, index &+ 32 <= Int(Int32.max),
        UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0
      {
        var taken = winnow_ascii_words_taken()
        let units = Self.takeASCIIWordsVectored(
          bytes, from: index, setup: vectorSetup, tokenLength: tokenLength, to: scalars + written,
          infos + written, taken: &taken)
        if units > 0 {
          let count = Int(taken.bytes)
          written &+= units
          index &+= count
          lastScalar = UInt32(bytes[index &- 1] | caseBit)
          lastIsLetter = true
          tokenLength = Int(taken.token_length)
          if taken.gap > 0 {
            endedTokenLength = Int(taken.ended_token_length)
            endedGap = Int(taken.gap)
          }
          if count == 32 { continue }
          guard index < bytes.count else { break }
        }
      }
      guard step() else { break }
    }
    previousClass = .letter
    return index
  }

  /// `winnow_ascii_words` at `index` of `bytes` (at least 2, below the last byte), the units to
  /// `scalars` and `infos` (room for 32): the number of units, and what it took in `taken`. Near
  /// the end of the text the bytes left are copied, with zeros after them (neither letters nor
  /// separators), so that the 32 bytes it reads are there. Out of line: inlined into the loop,
  /// it kept the normalizer's step from being inlined into its own.
  @inline(never)
  private static func takeASCIIWordsVectored(
    _ bytes: UnsafeBufferPointer<UInt8>, from index: Int, setup: UnsafePointer<winnow_ascii_words_setup>,
    tokenLength: Int, to scalars: UnsafeMutablePointer<UInt32>, _ infos: UnsafeMutablePointer<NormalizedText.UnitInfo>,
    taken: inout winnow_ascii_words_taken
  ) -> Int {
    guard let base = bytes.baseAddress else { return 0 }
    let start = Int32(truncatingIfNeeded: index)
    let length = Int32(truncatingIfNeeded: tokenLength)
    let infos = UnsafeMutableRawPointer(infos)
    guard index &+ 32 > bytes.count else {
      // SAFETY: `index - 2` to `index + 31` are inside `bytes`.
      return Int(winnow_ascii_words(base + index, setup, start, length, scalars, infos, &taken))
    }
    var tail: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)
    return withUnsafeMutableBytes(of: &tail) { tail in
      // SAFETY: fewer than 32 bytes are left, and 2 before `index`: at most 33 of the 40.
      tail.copyMemory(from: UnsafeRawBufferPointer(start: base + (index &- 2), count: bytes.count &- index &+ 2))
      let from = UnsafePointer(tail.baseAddress!.assumingMemoryBound(to: UInt8.self) + 2)
      return Int(winnow_ascii_words(from, setup, start, length, scalars, infos, &taken))
    }
  }

  /// Takes the three-byte characters of `bytes` from `index` on that fold (by `entries`, the
  /// fold table's BMP entries) to one unit of class ``ScalarClass/unspaced`` each, while they
  /// continue a run of such units; returns the index of the first byte it did not take. In a
  /// Chinese text most units are such characters, and after one of them the only rule that acts
  /// on the next is the merging of repeats: this loop skips the general decoder and `feed`'s
  /// other rules, as ``takeASCIIWords(_:from:asciiFolding:vectorSetup:)`` does for English.
  ///
  /// Where separator runs collapse, it also skips the characters (of one or three bytes) that
  /// fold to one separator (`，` `。` `「` a space): after CJK a separator is never written
  /// (`WordShaper` drops it next to CJK), and the rest of `feed`'s state it changes (the gap
  /// between tokens, the class fed last) is not read before a token ends, which resets it. A
  /// repeat after them still merges (`好，好` is one unit of two, spanning the comma), as it
  /// does in `feed`.
  @inline(__always)
  mutating func takeUnspacedRun(
    _ bytes: UnsafeBufferPointer<UInt8>, from index: Int, entries: UnsafeBufferPointer<UInt32>
  ) -> Int {
    // The caller has just fed an unspaced unit, which leaves no token, no separator pending,
    // nothing held back and no lone character waiting for CJK. `gapUnits` is not counted on:
    // after CJK the gap is not all separators, so the next token resets it unread.
    let (unspaced, separator) = (ScalarClass.unspaced.rawValue, ScalarClass.separator.rawValue)
    assert(
      lastClass == unspaced && !inToken && pendingStart < 0 && heldApostrophe == nil && exclamationMarks == 0
        && !optionalIfCJKFollows)
    // The state the loop reads and changes, in locals (see ``takeASCIIWords(_:from:asciiFolding:vectorSetup:)``).
    let (scalars, infos, capacity, merges) = (self.scalars, self.infos, self.capacity, self.merges)
    var index = index
    var written = self.written
    var lastScalar = self.lastScalar
    defer {
      self.written = written
      self.lastScalar = lastScalar
    }
    guard let base = bytes.baseAddress else { return index }
    // One character or separator of the run, whose bytes begin `word` (little-endian): false
    // where the run ends (`gaveUp` set when the units are full).
    @inline(__always) func take(_ word: UInt32) -> Bool {
      // A lead 1110xxxx and two continuations 10xxxxxx, decoded as `UTF8Decoding.decode`
      // decodes them when they are valid. An overlong sequence (below U+0800) or a surrogate
      // is not: its entry is never an unspaced fold (``FoldTable/stopsInvalidUnspacedRuns``,
      // which the caller checks), so the run ends there and the general decoder reads it.
      guard word & 0xC0_C0F0 == 0x80_80E0 else {
        // An ASCII separator (a space, a comma) between CJK characters.
        guard collapses && word & 0x80 == 0,
          FoldTable.fold(entries[Int(word & 0x7F)], ofClass: separator) != nil
        else { return false }
        index &+= 1
        return true
      }
      let value = (word & 0x0F) &<< 12 | (word &>> 2) & 0xFC0 | (word &>> 16) & 0x3F
      guard let scalar = FoldTable.unspacedFold(entries[Int(value)]) else {
        // A CJK separator (`，` `。`), from a valid sequence: an overlong one or a surrogate is
        // for the general decoder, which reads each of its bytes as U+FFFD.
        guard collapses && value >= 0x800 && value & 0xF800 != 0xD800,
          FoldTable.fold(entries[Int(value)], ofClass: separator) != nil
        else { return false }
        index &+= 3
        return true
      }
      let start = Int32(truncatingIfNeeded: index)
      guard
        Self.mergeOrWrite(
          scalar, unspaced, start, start &+ 3, merging: merges, written: &written, lastScalar: &lastScalar,
          capacity: capacity, scalars, infos)
      else {
        gaveUp = true
        return false
      }
      index &+= 3
      return true
    }
    // Four bytes at a time; then a text's last three bytes on their own (its last character
    // went the general way: a third of the work of a message of two or three characters).
    while index &+ 3 < bytes.count {
      guard take(UInt32(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt32.self))) else {
        return index
      }
    }
    if index &+ 3 == bytes.count {
      _ = take(UInt32(base[index]) | UInt32(base[index &+ 1]) &<< 8 | UInt32(base[index &+ 2]) &<< 16)
    }
    return index
  }

  /// Takes the characters of `bytes` from `index` on that fold (by `entries`, the fold table's
  /// BMP entries) to one unit of `runClass`, the class of the unit just fed (a
  /// ``ScalarClass/letter`` beyond ASCII, an ``ScalarClass/arabicLetter`` or an
  /// ``ScalarClass/other`` character), while they continue its run, and, for a letter or
  /// another character, a single space between two such runs; returns the index of the first
  /// byte it did not take. Most of a text in Cyrillic, Greek, accented Latin or an Indic script
  /// is such runs: inside one the token rules only count the unit (a letter or an Arabic letter
  /// lengthens the token, which `feed` left without digits where a letter follows; another
  /// character lengthens the gap between tokens) and, for the letter classes, repeats merge. The
  /// loop does that without the general decoder and `feed`'s other rules, as
  /// ``takeASCIIWords(_:from:asciiFolding:vectorSetup:)`` does for English (a space ends a word here on the
  /// same terms as there). A scalar of plane 1 that folds to itself (`table`'s
  /// ``FoldTable/planeOneClass(ofUnfolded:)``) continues the run as a BMP one does: a text in
  /// Shavian, or a run of emoji. An invalid sequence, another scalar beyond the BMP or a unit
  /// of another class ends it, for the general decoder and `feed`.
  @inline(__always)
  mutating func takeWordRun(
    _ bytes: UnsafeBufferPointer<UInt8>, from index: Int, of runClass: ScalarClass,
    entries: UnsafeBufferPointer<UInt32>, table: FoldTable, asciiFolding: ASCIIFolding
  ) -> Int {
    // What `feed` leaves after a unit of these classes that it did not give up on: nothing held
    // back, no separator pending, the unit written last (or merged into it) of this class, and,
    // for the letter classes, a token begun (a letter's with a letter and without digits).
    let isToken = runClass.isTokenLetter
    // A token whose digits became letters goes on unit by unit (as in `takeASCIIWords`).
    if runClass == .letter && tokenHasDigit { return index }
    assert(runClass.continuesWordRuns)
    assert(
      lastClass == runClass.rawValue && pendingStart < 0 && heldApostrophe == nil && exclamationMarks == 0
        && (isToken
          ? inToken && (runClass != .letter || tokenHasLetter)
          : !inToken && !optionalIfCJKFollows && !gapIsSeparators)
    )
    // The state the loop reads and changes, in locals (see ``takeASCIIWords(_:from:asciiFolding:vectorSetup:)``).
    let (scalars, infos, capacity) = (self.scalars, self.infos, self.capacity)
    let merging = merges && runClass.mergesRepeats
    // Spaces are taken between letters and between other characters, not Arabic letters (whose
    // words meet across clitics): one space unit where separator runs collapse.
    let joinsSpaces = asciiFolding.spaceIsSeparator && collapses && runClass != .arabicLetter
    let rawClass = runClass.rawValue
    var index = index
    var written = self.written
    var lastScalar = self.lastScalar
    var tokenLength = self.tokenLength
    // The units of other characters taken (each lengthens the gap), and the length of the last
    // token that ended in the loop (0 when none did).
    var otherUnits = 0
    var endedTokenLength = 0
    defer {
      self.written = written
      self.lastScalar = lastScalar
      if isToken {
        self.tokenLength = tokenLength
        if endedTokenLength > 0 {
          // What `endToken`, the space's `place` and the next token's start leave (see
          // ``takeASCIIWords(_:from:asciiFolding:vectorSetup:)``).
          previousTokenLength = endedTokenLength
          gapUnits = 1
          gapIsSeparators = true
          classBeforeToken = rawClass
          optionalIfCJKFollows = false
        }
      } else {
        gapUnits &+= otherUnits
      }
    }
    let count = bytes.count
    // The value and length of the sequence at `at` when it is ASCII or valid UTF-8 of two or
    // three bytes (decoded as `UTF8Decoding.decode` decodes it), else nil.
    @inline(__always) func decode(_ at: Int) -> (UInt32, Int)? {
      let lead = bytes[at]
      if lead < 0x80 { return (UInt32(lead), 1) }
      if lead & 0xE0 == 0xC0 {
        // Two bytes: U+0080 to U+07FF (a lead of C0 or C1 would be overlong).
        guard lead >= 0xC2, at &+ 1 < count else { return nil }
        let second = bytes[at &+ 1]
        guard second & 0xC0 == 0x80 else { return nil }
        return (UInt32(lead & 0x1F) &<< 6 | UInt32(second & 0x3F), 2)
      }
      guard lead & 0xF0 == 0xE0, at &+ 2 < count else { return nil }
      let (second, third) = (bytes[at &+ 1], bytes[at &+ 2])
      guard second & 0xC0 == 0x80 && third & 0xC0 == 0x80 else { return nil }
      let value = UInt32(lead & 0x0F) &<< 12 | UInt32(second & 0x3F) &<< 6 | UInt32(third & 0x3F)
      guard value >= 0x800 && value & 0xF800 != 0xD800 else { return nil }
      return (value, 3)
    }
    // The scalar of plane 1 at `at`, whose byte is a lead F0, when it is valid UTF-8 of four
    // bytes and folds to itself as a unit of the run's class, with its length (4), else nil.
    // Called only where a BMP sequence is not one of the run: that loop's steps are as they were.
    @inline(never) func planeOneUnit(_ at: Int) -> (UInt32, Int)? {
      // A second byte 90 to 9F: U+10000 to U+1FFFF, neither overlong nor beyond.
      guard at &+ 3 < count else { return nil }
      let (second, third, fourth) = (bytes[at &+ 1], bytes[at &+ 2], bytes[at &+ 3])
      guard second & 0xF0 == 0x90 && third & 0xC0 == 0x80 && fourth & 0xC0 == 0x80 else { return nil }
      let value = 0x10000 | UInt32(second & 0x0F) &<< 12 | UInt32(third & 0x3F) &<< 6 | UInt32(fourth & 0x3F)
      guard table.planeOneClass(ofUnfolded: value)?.rawValue == rawClass else { return nil }
      return (value, 4)
    }
    // The folded scalar of the unit at `at` and its length when it continues the run, else nil.
    @inline(__always) func unit(_ at: Int) -> (UInt32, Int)? {
      if let (value, length) = decode(at), let scalar = FoldTable.fold(entries[Int(value)], ofClass: rawClass) {
        return (scalar, length)
      }
      return bytes[at] == 0xF0 ? planeOneUnit(at) : nil
    }
    while index < count {
      if bytes[index] == 0x20 {
        // One space, then a unit of the run's class: a word ends, and the space is written before
        // the next one's first unit. A word of one letter ends here only after a longer word in
        // the loop, as in ``takeASCIIWords(_:from:asciiFolding:vectorSetup:)``.
        guard joinsSpaces && (!isToken || tokenLength >= 2 || endedTokenLength >= 2) && index &+ 1 < count,
          let (scalar, length) = unit(index &+ 1)
        else { break }
        guard written &+ 2 <= capacity else {
          gaveUp = true
          return index
        }
        let start = Int32(truncatingIfNeeded: index)
        Self.write(0x20, ScalarClass.separator.rawValue, start, start &+ 1, at: written, to: scalars, infos)
        Self.write(
          scalar, rawClass, start &+ 1, Int32(truncatingIfNeeded: index &+ 1 &+ length), at: written &+ 1,
          to: scalars, infos)
        written &+= 2
        lastScalar = scalar
        if isToken {
          endedTokenLength = tokenLength
          tokenLength = 1
        } else {
          otherUnits &+= 2
        }
        index &+= 1 &+ length
        continue
      }
      guard let (scalar, length) = unit(index) else { break }
      let start = Int32(truncatingIfNeeded: index)
      let end = Int32(truncatingIfNeeded: index &+ length)
      guard
        Self.mergeOrWrite(
          scalar, rawClass, start, end, merging: merging, written: &written, lastScalar: &lastScalar,
          capacity: capacity, scalars, infos)
      else {
        gaveUp = true
        return index
      }
      if isToken { tokenLength &+= 1 } else { otherUnits &+= 1 }
      index &+= length
    }
    return index
  }

  /// Ends the text: the number of units written, or nil when the text needs ``WordShaper``.
  mutating func finish() -> Int? {
    if let apostrophe = heldApostrophe {
      heldApostrophe = nil
      placeSeparator(apostrophe.scalar, apostrophe.start, apostrophe.end)
    }
    if exclamationMarks > 0 { placeExclamationMarks() }
    if inToken { endToken() }
    return gaveUp ? nil : written
  }

  /// The run of `!` as separators, which collapse with their neighbours: one separator from the
  /// first one's start to the last one's end, counted as the run's length in the gap between
  /// tokens.
  private mutating func placeExclamationMarks() {
    placeSeparator(0x21, exclamationsStart, exclamationsEnd)
    gapUnits += exclamationMarks - 1
    exclamationMarks = 0
  }

  /// ``place(_:_:_:_:)`` for what a rule made a separator (an apostrophe, `!`, a symbol), out
  /// of line: `feed` inlines one copy of `place`, for the units that arrive as they stay.
  @inline(never)
  private mutating func placeSeparator(_ scalar: UInt32, _ start: Int32, _ end: Int32) {
    place(scalar, .separator, start, end)
  }

  /// A unit that is not dropped: the token rules, then what `WordShaper`'s `emit` does with it.
  @inline(__always)
  private mutating func place(_ scalar: UInt32, _ scalarClass: ScalarClass, _ start: Int32, _ end: Int32) {
    if scalarClass.isTokenLetter {
      if !inToken {
        // The unit after a lone character that followed CJK: a letter or digit, not CJK.
        optionalIfCJKFollows = false
        inToken = true
        sawToken = true
        tokenLength = 0
        tokenHasLetter = false
        tokenHasDigit = false
        tokenDigits = 0
        classBeforeToken = lastSolidClass
      }
      tokenLength += 1
      // An Arabic-script letter does not make digits letters (`sh1t` is Latin): neither flag.
      if scalarClass == .letter {
        if tokenHasDigit && !tokenHasLetter { resolveDigitsBeforeFirstLetter() }
        tokenHasLetter = true
      } else if scalarClass == .digit {
        tokenHasDigit = true
        tokenDigits += 1
        if tokenHasLetter && readsLookalikes, let letter = UnicodeTables.lookalikeLetter(forSymbol: scalar) {
          // In a token with a letter, a digit that imitates a letter is that letter (`sh1t`).
          lastSolidClass = ScalarClass.letter.rawValue
          emit(letter, .letter, start, end)
          return
        }
      }
    } else {
      if inToken { endToken() }
      gapUnits += 1
      if scalarClass != .separator {
        gapIsSeparators = false
        if optionalIfCJKFollows && scalarClass == .unspaced { markLoneCharacterOptional() }
        optionalIfCJKFollows = false
      }
    }
    if scalarClass != .separator { lastSolidClass = scalarClass.rawValue }
    emit(scalar, scalarClass, start, end)
  }

  /// The token's first letter has come after digits (`2nd`, `l00k` from `1`): under
  /// ``Normalization/lookalikes`` the digits already written that imitate letters become
  /// those letters, and repeats among them merge, as `WordShaper`, which resolves a token's
  /// look-alikes before it writes, writes them. The token's units so far are its digits, one
  /// unit each (digits do not merge), the last ones written; a token with an Arabic letter
  /// among them gives up (those letters do not make digits letters, and may have merged).
  @inline(never)
  private mutating func resolveDigitsBeforeFirstLetter() {
    guard readsLookalikes else { return }
    // `tokenLength` counts the letter that has come, not yet written.
    guard tokenDigits == tokenLength - 1, tokenDigits <= written else {
      gaveUp = true
      return
    }
    let letter = ScalarClass.letter.rawValue
    let first = written - tokenDigits
    var kept = first
    for unit in first..<written {
      var (scalar, info) = (scalars[unit], infos[unit])
      if let imitated = UnicodeTables.lookalikeLetter(forSymbol: scalar) {
        scalar = imitated
        info.flags = letter
      }
      // A repeat of the unit kept before it, both letters (none before the token's first).
      let repeats =
        kept > first && info.flags == letter && infos[kept - 1].flags == letter && scalars[kept - 1] == scalar
      if merges && repeats {
        Self.countRepeat(in: infos, of: kept, endingAt: info.end)
        continue
      }
      scalars[kept] = scalar
      infos[kept] = info
      kept += 1
    }
    written = kept
    if kept > 0 {
      lastScalar = scalars[kept - 1]
      lastClass = infos[kept - 1].flags
    }
  }

  /// CJK has come after a token of one character that followed CJK (with only separators
  /// between): a letter or digit there is optional (`反v动`), as `WordShaper`'s `markOptional`
  /// marks it. It is the last unit written but for separators (written only where separator
  /// runs do not collapse; where they do, they are pending, and CJK on both sides leaves them
  /// out), and it did not merge into the CJK character before it.
  @inline(never)
  private mutating func markLoneCharacterOptional() {
    let separator = ScalarClass.separator.rawValue
    var lone = written - 1
    while lone >= 0 && infos[lone].flags & NormalizedText.classMask == separator { lone -= 1 }
    guard lone >= 0 else {
      gaveUp = true
      return
    }
    let loneClass = infos[lone].flags & NormalizedText.classMask
    // An Arabic letter alone between CJK characters is not marked.
    guard loneClass == ScalarClass.letter.rawValue || loneClass == ScalarClass.digit.rawValue else { return }
    infos[lone].flags |= NormalizedText.optionalFlag
    hasOptionalUnits = true
  }

  /// The token just ended and the one before it are one letter each, with only separators
  /// (three at most) between them: letters spelled one by one (`f u c k`), which `WordShaper`
  /// joins. The units written end with the letter before, one space unit for the separators,
  /// and this letter: the space is dropped, both letters are marked spelled, and a letter that
  /// repeats the one before merges into it, as `WordShaper`'s `emit` merges them once the
  /// separators are dropped. Gives up where the units are not so (a digit, an Arabic letter, an
  /// optional letter), where the joined token's digits would become letters.
  @inline(never)
  private mutating func joinSpelledLetters() {
    let (letter, separator) = (ScalarClass.letter.rawValue, ScalarClass.separator.rawValue)
    let (before, gap, current) = (written - 3, written - 2, written - 1)
    guard before >= 0, infos[current].flags == letter, infos[gap].flags == separator,
      infos[before].flags & ~NormalizedText.spelledFlag == letter
    else {
      gaveUp = true
      return
    }
    infos[before].flags |= NormalizedText.spelledFlag
    hasSpelledUnits = true
    if merges && scalars[before] == scalars[current] {
      infos[before].end = infos[current].end
      let run = UInt32(infos[before].run) + UInt32(infos[current].run)
      infos[before].run = UInt16(clamping: run)
      written = gap
    } else {
      scalars[gap] = scalars[current]
      infos[gap] = infos[current]
      infos[gap].flags |= NormalizedText.spelledFlag
      written = current
    }
  }

  /// The token being read has ended.
  @inline(__always)
  private mutating func endToken() {
    inToken = false
    // `gapUnits` still counts the units between the token before and this one.
    if collapses && tokenLength == 1 && previousTokenLength == 1 && gapUnits <= WordShaper.maximumJoinGap
      && gapIsSeparators
    {
      joinSpelledLetters()
    }
    if marksOptional && tokenLength == 1 && classBeforeToken == ScalarClass.unspaced.rawValue {
      optionalIfCJKFollows = true
    }
    previousTokenLength = tokenLength
    gapUnits = 0
    gapIsSeparators = true
  }

  /// Writes a unit as `WordShaper`'s `emit` does: separator runs collapse to one space (none
  /// at either end or next to CJK), repeated letters and CJK characters merge into one unit
  /// that counts them.
  @inline(__always)
  private mutating func emit(_ scalar: UInt32, _ scalarClass: ScalarClass, _ start: Int32, _ end: Int32) {
    if scalarClass == .separator && collapses {
      if pendingStart < 0 { pendingStart = start }
      pendingEnd = end
      return
    }
    let unspaced = ScalarClass.unspaced.rawValue
    if pendingStart >= 0 {
      if lastClass != Self.noClass && lastClass != unspaced && scalarClass != .unspaced {
        append(0x20, ScalarClass.separator.rawValue, pendingStart, pendingEnd)
      }
      pendingStart = -1
    }
    if merges && scalarClass.mergesRepeats && lastScalar == scalar && lastClass == scalarClass.rawValue {
      countRepeat(endingAt: end)
      return
    }
    append(scalar, scalarClass.rawValue, start, end)
  }

  /// One more repeated character: the last unit written now ends at `end` and counts it.
  @inline(__always)
  private mutating func countRepeat(endingAt end: Int32) { Self.countRepeat(in: infos, of: written, endingAt: end) }

  /// ``countRepeat(endingAt:)`` into `infos` when `written` units are written (the fast loops
  /// keep the count and the buffers in locals).
  @inline(__always)
  private static func countRepeat(
    in infos: UnsafeMutablePointer<NormalizedText.UnitInfo>, of written: Int, endingAt end: Int32
  ) {
    // SAFETY: callers merge only into a unit written (`lastClass` is a class, not ``noClass``),
    // so `written - 1` is in the room.
    infos[written &- 1].end = end
    if infos[written &- 1].run < .max { infos[written &- 1].run &+= 1 }
  }

  /// One unit of a fast loop: counted as a repeat of the last unit written when `merging` and
  /// it is the same scalar (the caller knows the classes match), else written at `written`;
  /// false, with nothing written, when there is no room.
  @inline(__always)
  private static func mergeOrWrite(
    _ scalar: UInt32, _ flags: UInt8, _ start: Int32, _ end: Int32, merging: Bool, written: inout Int,
    lastScalar: inout UInt32, capacity: Int, _ scalars: UnsafeMutablePointer<UInt32>,
    _ infos: UnsafeMutablePointer<NormalizedText.UnitInfo>
  ) -> Bool {
    if merging && lastScalar == scalar {
      countRepeat(in: infos, of: written, endingAt: end)
      return true
    }
    guard written < capacity else { return false }
    write(scalar, flags, start, end, at: written, to: scalars, infos)
    written &+= 1
    lastScalar = scalar
    return true
  }

  /// Writes a unit at `index` of `scalars` and `infos`, below ``capacity``.
  @inline(__always)
  private static func write(
    _ scalar: UInt32, _ flags: UInt8, _ start: Int32, _ end: Int32, at index: Int,
    to scalars: UnsafeMutablePointer<UInt32>, _ infos: UnsafeMutablePointer<NormalizedText.UnitInfo>
  ) {
    // SAFETY: `index < capacity`, and the caller's buffers hold `capacity` units.
    scalars[index] = scalar
    infos[index] = NormalizedText.UnitInfo(start: start, end: end, run: 1, flags: flags)
  }

  @inline(__always)
  private mutating func append(_ scalar: UInt32, _ flags: UInt8, _ start: Int32, _ end: Int32) {
    guard written < capacity else {
      gaveUp = true
      return
    }
    Self.write(scalar, flags, start, end, at: written, to: scalars, infos)
    written += 1
    lastClass = flags
    lastScalar = scalar
  }
}
