import Synchronization

/// The characters of a text that can become a scalar of a layer's patterns, for the texts that
/// hold none: a scan leaves such a text unnormalized, since no walk over it could find a match.
///
/// A match needs every scalar of its pattern among the text's units, and a pattern (every one
/// a layer's automaton holds, regexes' literals included) has some scalar that is not a space
/// (checked: else the layer has no filter). A unit's scalar comes from one character: what the
/// fold table makes of it, the letter a folded digit or symbol imitates, or a space for a run of
/// separators (``Normalizer/forEachOtherSource(_:)``). So a text none of whose characters can
/// become a scalar of the alphabet, space apart, matches nothing, whatever the word rules do.
/// A text in a script no list writes (Devanagari, Hebrew or Shavian for a Chinese and English
/// list) is then a check of its characters, where it was normalized and filtered unit by unit.
///
/// ASCII characters are held exactly; the others up to U+1FFFF by blocks of 64 (a block passes
/// if any of its characters may), so that a filter takes 272 bytes, for every layer of ten
/// thousand apps. Scalars from U+20000 on, and bytes that are not UTF-8, always pass. A layer
/// whose regexes include one without a literal, which runs on every text, has no filter.
struct AlphabetFilter: Sendable, Equatable {
  /// Bit `c` (`c` below 64, then `c - 64`) for each ASCII character `c` that may.
  private var asciiLow: UInt64 = 0
  private var asciiHigh: UInt64 = 0
  /// Bit `b` (word `b / 64`) for each block of 64 scalars from U+0080 to U+1FFFF, `b` being the
  /// scalar shifted right by 6, that holds one that may (the two ASCII blocks stay 0).
  private var blocks = [UInt64](repeating: 0, count: Self.blockWords)
  private static let blockWords = 0x20000 >> 12

  /// Bytes of memory a filter holds.
  static let memoryFootprint = 16 + blockWords * 8

  private init() {}

  /// The filter of a layer: the characters that its `normalizer` may make into a scalar of
  /// `automaton`'s patterns (without an automaton, none: no text can match). Nil when
  /// `runsOnEveryText` (a regex without a literal) or when a pattern is nothing but spaces.
  init?(automaton: AhoCorasick?, normalizer: Normalizer, runsOnEveryText: Bool) {
    guard !runsOnEveryText else { return nil }
    self.init()
    guard let automaton else { return }
    guard !automaton.hasPattern(madeOnlyOf: 0x20) else { return nil }
    let sources = Self.sources(of: normalizer)
    sources.pairs.withUnsafeBufferPointer { pairs in
      sources.bmpStarts.withUnsafeBufferPointer { bmpStarts in
        automaton.forEachAlphabetScalar { scalar in
          guard scalar != 0x20 else { return }
          insert(scalar)
          // The characters that become it: a run of `pairs`, sorted by unit, found by the
          // BMP's index or, beyond it, by a binary search of the pairs after the BMP's.
          var low: Int
          if scalar < 0x10000 {
            low = Int(bmpStarts[Int(scalar)])
          } else {
            low = Int(bmpStarts[0x10000])
            var high = pairs.count
            let key = UInt64(scalar) << 32
            while low < high {
              let middle = (low + high) / 2
              if pairs[middle] < key { low = middle + 1 } else { high = middle }
            }
          }
          while low < pairs.count && pairs[low] >> 32 == UInt64(scalar) {
            insert(UInt32(truncatingIfNeeded: pairs[low]))
            low += 1
          }
        }
      }
    }
  }

  /// Adds a character.
  private mutating func insert(_ scalar: UInt32) {
    if scalar < 0x40 {
      asciiLow |= 1 << UInt64(scalar)
    } else if scalar < 0x80 {
      asciiHigh |= 1 << UInt64(scalar - 0x40)
    } else if scalar < 0x20000 {
      blocks[Int(scalar >> 12)] |= 1 << UInt64(scalar >> 6 & 63)
    }
  }

  /// The filter of layers that share a text: a character passes if it passes any of theirs.
  func union(_ other: AlphabetFilter) -> AlphabetFilter {
    var result = self
    result.asciiLow |= other.asciiLow
    result.asciiHigh |= other.asciiHigh
    for index in result.blocks.indices { result.blocks[index] |= other.blocks[index] }
    return result
  }

  /// Whether some character of `bytes` (UTF-8) may become a scalar of the patterns: false
  /// says the text matches nothing. Stops at the first that may, which in a text of a script
  /// the lists write is one of its first.
  func admits(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    withUnsafeTemporaryAllocation(of: UInt64.self, capacity: Self.words) { words in
      write(to: words.baseAddress.unsafelyUnwrapped)
      return Self.admits(bytes, words: UnsafePointer(words.baseAddress.unsafelyUnwrapped))
    }
  }

  /// The words of a filter laid out flat: the ASCII bits, then the blocks'.
  static let words = 2 + blockWords

  /// Writes the filter's ``words`` to `words`.
  func write(to words: UnsafeMutablePointer<UInt64>) {
    words[0] = asciiLow
    words[1] = asciiHigh
    for index in blocks.indices { words[2 + index] = blocks[index] }
  }

  /// ``admits(_:)`` for the filter whose ``words`` are at `words`: a matcher keeps its texts'
  /// filters flat, where reading one out of an array of filters took the array's storage
  /// through a reference count.
  @inline(__always)
  static func admits(_ bytes: UnsafeBufferPointer<UInt8>, words: UnsafePointer<UInt64>) -> Bool {
    let count = bytes.count
    var index = 0
    // Whether the block of 64 scalars `block` (a scalar shifted right by 6) passes.
    @inline(__always) func passes(_ block: UInt32) -> Bool {
      words[2 &+ Int(block &>> 6)] &>> UInt64(block & 63) & 1 != 0
    }
    @inline(__always) func isContinuation(_ byte: UInt8) -> Bool { byte & 0xC0 == 0x80 }
    while index < count {
      let lead = bytes[index]
      if lead < 0x80 {
        if words[Int(lead &>> 6)] &>> UInt64(lead & 63) & 1 != 0 { return true }
        index &+= 1
        continue
      }
      // Two to four bytes. A sequence's block is in its first bytes, so a text whose first
      // character passes (most texts) is not decoded further; one that does not is checked as
      // `UTF8Decoding` decodes it, and anything else (an invalid sequence, a scalar from
      // U+20000 on) passes.
      if lead >= 0xC2 && lead < 0xE0 {
        if passes(UInt32(lead & 0x1F)) { return true }
        guard index &+ 1 < count, isContinuation(bytes[index &+ 1]) else { return true }
        index &+= 2
      } else if lead >= 0xE0 && lead < 0xF0 {
        guard index &+ 2 < count else { return true }
        let second = bytes[index &+ 1]
        let block = UInt32(lead & 0x0F) &<< 6 | UInt32(second & 0x3F)
        if passes(block) { return true }
        // Not overlong (below U+0800) nor a surrogate (U+D800 to U+DFFF).
        guard isContinuation(second) && isContinuation(bytes[index &+ 2]) && block >= 0x20 && block & 0x3E0 != 0x360
        else { return true }
        index &+= 3
      } else if lead == 0xF0 {
        guard index &+ 3 < count else { return true }
        let (second, third) = (bytes[index &+ 1], bytes[index &+ 2])
        // U+10000 to U+1FFFF: a second byte of 0x90 to 0x9F.
        guard second & 0xF0 == 0x90 else { return true }
        if passes(UInt32(second & 0x3F) &<< 6 | UInt32(third & 0x3F)) { return true }
        guard isContinuation(third) && isContinuation(bytes[index &+ 3]) else { return true }
        index &+= 4
      } else {
        return true
      }
    }
    return false
  }

  /// `normalizer`'s ``Normalizer/forEachOtherSource(_:)`` as `unit << 32 | character`, sorted,
  /// with the index of each BMP unit's first pair (and of the first pair beyond the BMP):
  /// made once per rule set (about 70,000 scalars read) and shared. A binary search of the
  /// pairs for each scalar of an app's list was most of the filter's making, for ten thousand
  /// apps.
  private static func sources(of normalizer: Normalizer) -> Sources {
    let rules = normalizer.rules
    if let sources = cache.withLock({ $0[rules] }) { return sources }
    var pairs: [UInt64] = []
    normalizer.forEachOtherSource { unit, value in pairs.append(UInt64(unit) << 32 | UInt64(value)) }
    pairs.sort()
    var bmpStarts = [UInt32](repeating: 0, count: 0x10001)
    var next = 0
    for unit in 0...0x10000 {
      while next < pairs.count && pairs[next] >> 32 < UInt64(unit) { next += 1 }
      bmpStarts[unit] = UInt32(truncatingIfNeeded: next)
    }
    let sources = Sources(pairs: pairs, bmpStarts: bmpStarts)
    return cache.withLock { cache in
      if let existing = cache[rules] { return existing }
      cache[rules] = sources
      return sources
    }
  }

  /// See ``sources(of:)``.
  private struct Sources: Sendable {
    let pairs: [UInt64]
    let bmpStarts: [UInt32]
  }

  private static let cache = Mutex<[Normalization: Sources]>([:])
}

/// The filters of a matcher's texts (``AlphabetFilter``), flat: ``AlphabetFilter/words`` words
/// for each of the first 64 texts, and which of them have a filter.
final class AlphabetFilters: @unchecked Sendable {
  // SAFETY (`@unchecked Sendable`): written once, in `init`, and only read after.
  let words: UnsafeMutablePointer<UInt64>
  /// Bit `slot` for each text that has a filter.
  let filtered: UInt64

  init(_ filters: [AlphabetFilter?]) {
    let count = min(filters.count, 64)
    words = .allocate(capacity: max(1, count) * AlphabetFilter.words)
    var filtered: UInt64 = 0
    for slot in 0..<count {
      let start = words + slot * AlphabetFilter.words
      if let filter = filters[slot] {
        filter.write(to: start)
        filtered |= 1 << UInt64(slot)
      } else {
        start.initialize(repeating: ~0, count: AlphabetFilter.words)
      }
    }
    self.filtered = filtered
  }

  deinit { words.deallocate() }

  /// Whether a scan must normalize `bytes` for text `slot` (see ``AlphabetFilter/admits(_:)``).
  @inline(__always)
  func admits(_ bytes: UnsafeBufferPointer<UInt8>, slot: Int) -> Bool {
    guard slot < 64 && filtered &>> UInt64(slot) & 1 != 0 else { return true }
    return AlphabetFilter.admits(bytes, words: words + slot &* AlphabetFilter.words)
  }
}
