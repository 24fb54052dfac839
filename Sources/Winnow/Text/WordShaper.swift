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

    @inline(__always) var isDropped: Bool { flags & Self.dropped != 0 }
    @inline(__always) var isOptional: Bool { flags & Self.optional != 0 }
    /// A letter, digit or symbol not dropped: part of a word token.
    @inline(__always) var isWordUnit: Bool {
      flags & Self.dropped == 0 && (scalarClass == .letter || scalarClass == .digit || scalarClass == .symbol)
    }
  }

  /// A run of word units, as unit indices, and how many of them are not dropped.
  struct Token: Sendable {
    var start: Int
    var end: Int
    var length: Int
  }

  private var units: [Unit] = []
  private var tokens: [Token] = []

  /// Workspaces for texts of more units than this are not kept for reuse: one huge text must
  /// not pin its buffers (16 bytes a unit) for the life of a long-running scanner.
  static let keptCapacity = 1 << 16

  /// Whether the storage is small enough to keep for the next text (see ``keptCapacity``).
  var isWorthKeeping: Bool { units.capacity <= Self.keptCapacity }

  /// Empties the workspace, keeping its storage, for a text of about `capacity` units.
  mutating func reset(capacity: Int) {
    units.removeAll(keepingCapacity: true)
    units.reserveCapacity(capacity)
  }

  @inline(__always)
  mutating func append(_ scalar: UInt32, _ scalarClass: ScalarClass, start: Int32, end: Int32) {
    units.append(Unit(scalar: scalar, start: start, end: end, scalarClass: scalarClass, flags: 0))
  }

  /// Applies the word rules of `rules` and writes the final units into `result`.
  mutating func shape(rules: Normalization, into result: inout NormalizedText) {
    tokens.removeAll(keepingCapacity: true)
    var tokens = self.tokens
    self.tokens = []  // the local copy is unique while it grows
    units.withUnsafeMutableBufferPointer { units in
      let pass = ShapingPass(units: units, rules: rules)
      pass.resolveApostrophes()
      pass.resolveExclamationMarks()
      pass.joinTokens(into: &tokens)
      for token in tokens { pass.resolveLookalikes(in: token) }
      if rules.contains(.interleavedLetters) {
        for token in tokens { pass.markOptional(token) }
      }
      pass.emit(into: &result)
    }
    self.tokens = tokens
  }
}

/// The word rules, each a pass over the borrowed units of one text.
private struct ShapingPass {
  typealias Unit = WordShaper.Unit
  let units: UnsafeMutableBufferPointer<Unit>
  let rules: Normalization

  /// Letters spelled one by one are joined across at most this many separator characters.
  static let maximumJoinGap = 3

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

  /// Word tokens (runs of letters, digits and symbols), after joining letters spelled one by
  /// one (`f.u.c.k`): the separators between them are dropped and the letters marked spelled.
  func joinTokens(into tokens: inout [WordShaper.Token]) {
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
      tokens.append(WordShaper.Token(start: start, end: index, length: length))
    }
    guard rules.contains(.separators), var previous = tokens.first else { return }
    // Joined in place: the write position never passes the read position.
    var joinedCount = 1
    for position in tokens.indices.dropFirst() {
      let current = tokens[position]
      let gap = previous.end..<current.start
      let joinable =
        previous.length == 1 && current.length == 1 && gap.count <= Self.maximumJoinGap
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
    tokens.removeLast(tokens.count - joinedCount)
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

  /// Writes the final units: separator runs collapse to one space (dropped at the ends and
  /// next to CJK or optional units), and repeated letters and CJK characters merge into one
  /// counted unit (`fuuuck`, `考试试试机构`).
  func emit(into result: inout NormalizedText) {
    let collapses = rules.contains(.separators)
    let merges = rules.contains(.repeatedLetters)
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
          result.append(
            0x20, ScalarClass.separator.rawValue, start: units[run.lowerBound].start, end: units[run.upperBound - 1].end
          )
          lastClass = .separator
          lastOptional = false
          lastScalar = 0x20
        }
      }
      pendingSeparators = nil
      if merges, scalarClass == .letter || scalarClass == .unspaced, !unit.isOptional, lastScalar == unit.scalar,
        lastClass == scalarClass, !lastOptional
      {
        result.extendLast(to: unit.end)
        continue
      }
      let flag =
        (unit.isOptional ? NormalizedText.optionalFlag : 0)
        | (unit.flags & Unit.spelled != 0 ? NormalizedText.spelledFlag : 0)
      result.append(unit.scalar, scalarClass.rawValue | flag, start: unit.start, end: unit.end)
      lastClass = scalarClass
      lastOptional = unit.isOptional
      lastScalar = unit.scalar
      if unit.isOptional { result.hasOptionalUnits = true }
    }
  }
}
