/// The second pass of normalization: word-level rules over folded scalars. Internal.
///
/// It holds the folded units of one text, rewrites their classes in place (a unit can become
/// a letter, a separator, *dropped* or *optional*), then emits the final units. A `WordShaper`
/// is a workspace: ``NormalizedText`` keeps one, so that a text normalized into a reused value
/// allocates nothing once the buffers have grown. Every pass works on the borrowed buffer of
/// units, one array of 16-byte records, not on parallel arrays each checked on every access.
struct WordShaper: Sendable {
  /// One folded scalar with its class, its original byte range and what the rules made of it.
  struct Unit: Sendable {
    var scalar: UInt32
    var start: Int32
    var end: Int32
    var scalarClass: ScalarClass
    var flags: UInt8

    /// Left out of the output (an apostrophe inside a word, separators between spelled letters).
    static let dropped: UInt8 = 1
    /// A single letter between CJK characters, see ``NormalizedText/optionalFlag``.
    static let optional: UInt8 = 2
    /// A letter spelled one by one and joined with its neighbours, see ``NormalizedText/spelledFlag``.
    static let spelled: UInt8 = 4

    /// What unused storage holds.
    static let blank = Unit(scalar: 0, start: 0, end: 0, scalarClass: .separator, flags: 0)

    @inline(__always) var isDropped: Bool { flags & Self.dropped != 0 }
    @inline(__always) var isOptional: Bool { flags & Self.optional != 0 }
    /// A letter (an Arabic-script one too), digit or symbol not dropped: part of a word token.
    @inline(__always) var isWordUnit: Bool {
      flags & Self.dropped == 0 && (scalarClass.isTokenLetter || scalarClass == .symbol)
    }
  }

  /// A run of word units, as unit indices, and how many of them are not dropped.
  struct Token: Sendable {
    var start: Int
    var end: Int
    var length: Int
  }

  /// Storage for the units of the text: the first `count` are the text's, the rest is room kept
  /// from earlier texts, so that loading a text writes through one pointer with no per-unit
  /// capacity or uniqueness checks.
  private var units: [Unit] = []
  private var count = 0
  /// One bit per ``ScalarClass`` raw value met while loading: a rule with nothing to act on
  /// (no apostrophe, no digit or symbol, no CJK) skips its pass.
  private var classesSeen: UInt8 = 0
  private var tokens: [Token] = []

  /// Letters spelled one by one are joined across at most this many separator characters.
  static let maximumJoinGap = 3

  /// Workspaces for texts of more units than this are not kept for reuse: one huge text must
  /// not pin its buffers (about 36 bytes a unit) for the life of a long-running scanner.
  static let keptCapacity = 1 << 16

  /// Whether the storage is small enough to keep for the next text (see ``keptCapacity``).
  var isWorthKeeping: Bool { units.capacity <= Self.keptCapacity }

  /// Loads a text's folded units: `produce` calls the function it is given once per unit, in
  /// order. Room is made for `expected` units; should the text hold more (scalars that fold to
  /// several), `produce` runs again with room for all of them.
  @inline(__always)
  mutating func load(
    expected: Int, _ produce: (_ write: (UInt32, ScalarClass, Int32, Int32) -> Void) -> Void
  ) {
    var needed = max(expected, 16)
    while true {
      if units.count < needed { units.append(contentsOf: repeatElement(Unit.blank, count: needed - units.count)) }
      var written = 0
      var seen: UInt8 = 0
      units.withUnsafeMutableBufferPointer { buffer in
        let base = buffer.baseAddress!
        let capacity = buffer.count
        produce { scalar, scalarClass, start, end in
          if written < capacity {
            base[written] = Unit(scalar: scalar, start: start, end: end, scalarClass: scalarClass, flags: 0)
          }
          written += 1
          seen |= 1 &<< scalarClass.rawValue
        }
      }
      if written <= units.count {
        count = written
        classesSeen = seen
        return
      }
      needed = written
    }
  }

  /// Whether a unit of `scalarClass` was loaded.
  @inline(__always) private func saw(_ scalarClass: ScalarClass) -> Bool {
    classesSeen & 1 &<< scalarClass.rawValue != 0
  }

  /// Applies the word rules of `rules` and writes the final units over the start of `scalars`
  /// and `infos` (the storage of a ``NormalizedText``, grown as needed); returns how many it
  /// wrote and whether any is optional, and any spelled.
  mutating func shape(
    rules: Normalization, scalars: inout [UInt32], infos: inout [NormalizedText.UnitInfo]
  ) -> (count: Int, hasOptionalUnits: Bool, hasSpelledUnits: Bool) {
    // Every loaded unit yields at most one emitted unit, and belongs to at most one token.
    NormalizedText.grow(&scalars, to: count, with: 0)
    NormalizedText.grow(&infos, to: count, with: .blank)
    NormalizedText.grow(&tokens, to: count, with: Token(start: 0, end: 0, length: 0))
    let (count, apostrophes, symbols) = (self.count, saw(.apostrophe), saw(.symbol))
    let words = saw(.letter) || saw(.digit) || symbols || saw(.arabicLetter)
    let (digits, unspaced) = (saw(.digit), saw(.unspaced))
    // Swapped out (no copy, no reference counting) so that the passes hold the units and the
    // tokens at the same time.
    var tokenStorage: [Token] = []
    swap(&tokenStorage, &self.tokens)
    defer { swap(&tokenStorage, &self.tokens) }
    return units.withUnsafeMutableBufferPointer { storage in
      tokenStorage.withUnsafeMutableBufferPointer { tokenStorage in
        let pass = ShapingPass(units: UnsafeMutableBufferPointer(rebasing: storage[..<count]), rules: rules)
        if apostrophes { pass.resolveApostrophes() }
        if symbols { pass.resolveExclamationMarks() }
        let tokens = words ? pass.joinTokens(into: tokenStorage.baseAddress!) : 0
        if digits || symbols {
          for token in tokenStorage[..<tokens] { pass.resolveLookalikes(in: token) }
        }
        if rules.contains(.interleavedLetters) && unspaced {
          for token in tokenStorage[..<tokens] { pass.markOptional(token) }
        }
        return scalars.withUnsafeMutableBufferPointer { scalars in
          infos.withUnsafeMutableBufferPointer { infos in
            pass.emit(scalars: scalars.baseAddress!, infos: infos.baseAddress!)
          }
        }
      }
    }
  }
}

/// The word rules, each a pass over the borrowed units of one text.
private struct ShapingPass {
  typealias Unit = WordShaper.Unit
  let units: UnsafeMutableBufferPointer<Unit>
  let rules: Normalization

  /// An apostrophe between two letters is dropped (`don't`); any other is a separator.
  func resolveApostrophes() {
    let separators = rules.contains(.separators)
    for index in units.indices where units[index].scalarClass == .apostrophe {
      let inside =
        separators && index > 0 && index + 1 < units.count
        && units[index - 1].scalarClass == .letter && units[index + 1].scalarClass == .letter
      if inside { units[index].flags |= Unit.dropped } else { units[index].scalarClass = .separator }
    }
  }

  /// `!` stands for a letter only when a word character follows it (`sh!t`, not `hello!`).
  /// Right to left, so that in `!!!` each mark sees the already resolved one after it.
  func resolveExclamationMarks() {
    guard rules.contains(.lookalikes) else {
      for index in units.indices where units[index].scalarClass == .symbol { units[index].scalarClass = .separator }
      return
    }
    for index in units.indices.reversed() where units[index].scalar == 0x21 && units[index].scalarClass == .symbol {
      let next = index + 1 < units.count ? units[index + 1].scalarClass : .separator
      if next != .letter && next != .digit && next != .symbol { units[index].scalarClass = .separator }
    }
  }

  /// Writes the word tokens (runs of letters, digits and symbols) to `tokens` (room for one per
  /// unit) and says how many, after joining letters spelled one by one (`f.u.c.k`): the
  /// separators between them are dropped and the letters marked spelled.
  func joinTokens(into tokens: UnsafeMutablePointer<WordShaper.Token>) -> Int {
    var count = 0
    var index = 0
    while index < units.count {
      guard units[index].isWordUnit else {
        index += 1
        continue
      }
      let start = index
      var length = 0
      while index < units.count, units[index].isWordUnit || units[index].isDropped {
        if !units[index].isDropped { length += 1 }
        index += 1
      }
      tokens[count] = WordShaper.Token(start: start, end: index, length: length)
      count += 1
    }
    guard rules.contains(.separators), count > 0 else { return count }
    var previous = tokens[0]
    // Joined in place: the write position never passes the read position.
    var joinedCount = 1
    for position in 1..<count {
      let current = tokens[position]
      let gap = previous.end..<current.start
      let joinable =
        previous.length == 1 && current.length == 1 && gap.count <= WordShaper.maximumJoinGap
        && gap.allSatisfy { units[$0].scalarClass == .separator || units[$0].isDropped }
      if joinable {
        for index in gap { units[index].flags |= Unit.dropped }
        for index in previous.start..<previous.end where !units[index].isDropped { units[index].flags |= Unit.spelled }
        for index in current.start..<current.end where !units[index].isDropped { units[index].flags |= Unit.spelled }
        tokens[joinedCount - 1].end = current.end
      } else {
        tokens[joinedCount] = current
        joinedCount += 1
      }
      previous = current
    }
    return joinedCount
  }

  /// Inside a token that holds a letter, digits and symbols that imitate letters become those
  /// letters (`sh1t`, `a$$`). In a token without letters, symbols are separators (`$100`).
  func resolveLookalikes(in token: WordShaper.Token) {
    let range = token.start..<token.end
    let hasLetter = range.contains { units[$0].scalarClass == .letter && !units[$0].isDropped }
    let lookalikes = rules.contains(.lookalikes)
    for index in range where !units[index].isDropped {
      let scalarClass = units[index].scalarClass
      guard scalarClass == .digit || scalarClass == .symbol else { continue }
      if hasLetter && lookalikes, let letter = UnicodeTables.lookalikeLetter(forSymbol: units[index].scalar) {
        units[index].scalar = letter
        units[index].scalarClass = .letter
      } else if scalarClass == .symbol {
        units[index].scalarClass = .separator
      }
    }
  }

  /// A token of one letter or digit between two CJK characters is optional (`反v动`).
  func markOptional(_ token: WordShaper.Token) {
    var member = -1
    for index in token.start..<token.end where !units[index].isDropped && units[index].scalarClass != .separator {
      guard member < 0 else { return }  // more than one character: not a lone letter
      member = index
    }
    guard member >= 0, units[member].scalarClass == .letter || units[member].scalarClass == .digit else { return }
    if neighbourClass(before: token.start) == .unspaced && neighbourClass(after: token.end) == .unspaced {
      units[member].flags |= Unit.optional
    }
  }

  private func neighbourClass(before index: Int) -> ScalarClass? {
    var cursor = index - 1
    while cursor >= 0, units[cursor].scalarClass == .separator || units[cursor].isDropped { cursor -= 1 }
    return cursor >= 0 ? units[cursor].scalarClass : nil
  }

  private func neighbourClass(after index: Int) -> ScalarClass? {
    var cursor = index
    while cursor < units.count, units[cursor].scalarClass == .separator || units[cursor].isDropped { cursor += 1 }
    return cursor < units.count ? units[cursor].scalarClass : nil
  }

  /// Writes the final units to `scalars` and `infos` (room for one per loaded unit) and says how
  /// many it wrote, whether any is optional and whether any is spelled: separator runs collapse
  /// to one space (dropped at the ends and next to CJK or optional units), and repeated letters
  /// and CJK characters merge into one counted unit (`fuuuck`, `考试试试机构`, `طيززز`).
  func emit(
    scalars: UnsafeMutablePointer<UInt32>, infos: UnsafeMutablePointer<NormalizedText.UnitInfo>
  ) -> (count: Int, hasOptionalUnits: Bool, hasSpelledUnits: Bool) {
    let collapses = rules.contains(.separators)
    let merges = rules.contains(.repeatedLetters)
    var written = 0
    var hasOptionalUnits = false
    var hasSpelledUnits = false
    @inline(__always) func append(_ scalar: UInt32, _ flags: UInt8, start: Int32, end: Int32) {
      scalars[written] = scalar
      infos[written] = NormalizedText.UnitInfo(start: start, end: end, run: 1, flags: flags)
      written += 1
    }
    var pendingSeparators: Range<Int>? = nil
    // The last unit written: its class, whether it is optional, and its scalar.
    var lastClass: ScalarClass? = nil
    var lastOptional = false
    var lastScalar: UInt32 = 0
    for index in units.indices where !units[index].isDropped {
      let unit = units[index]
      let scalarClass = unit.scalarClass
      if scalarClass == .separator && collapses {
        pendingSeparators = (pendingSeparators?.lowerBound ?? index)..<(index + 1)
        continue
      }
      if let run = pendingSeparators, let previous = lastClass {
        let skip = previous == .unspaced || scalarClass == .unspaced || lastOptional || unit.isOptional
        if !skip {
          append(
            0x20, ScalarClass.separator.rawValue, start: units[run.lowerBound].start, end: units[run.upperBound - 1].end
          )
          lastClass = .separator
          lastOptional = false
          lastScalar = 0x20
        }
      }
      pendingSeparators = nil
      if merges, scalarClass.mergesRepeats, !unit.isOptional, lastScalar == unit.scalar,
        lastClass == scalarClass, !lastOptional
      {
        // One more repeated character: the last unit now ends here and counts it.
        infos[written - 1].end = unit.end
        if infos[written - 1].run < .max { infos[written - 1].run += 1 }
        continue
      }
      let flag =
        (unit.isOptional ? NormalizedText.optionalFlag : 0)
        | (unit.flags & Unit.spelled != 0 ? NormalizedText.spelledFlag : 0)
      append(unit.scalar, scalarClass.rawValue | flag, start: unit.start, end: unit.end)
      lastClass = scalarClass
      lastOptional = unit.isOptional
      lastScalar = unit.scalar
      if unit.isOptional { hasOptionalUnits = true }
      if unit.flags & Unit.spelled != 0 { hasSpelledUnits = true }
    }
    return (written, hasOptionalUnits, hasSpelledUnits)
  }
}
