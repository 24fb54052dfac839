/// The second pass of normalization: word-level rules over folded scalars. Internal.
///
/// It holds the folded units of one text, rewrites their classes in place (a unit can become
/// a letter, a separator, *dropped* or *optional*), then emits the final units.
struct WordShaper {
  private let rules: Normalization
  private var scalars: [UInt32] = []
  private var classes: [ScalarClass] = []
  private var dropped: [Bool] = []
  private var optional: [Bool] = []
  /// Units of letters spelled one by one that were joined into a longer token.
  private var spelled: [Bool] = []
  private var starts: [Int32] = []
  private var ends: [Int32] = []

  /// Letters spelled one by one are joined across at most this many separator characters.
  private static let maximumJoinGap = 3

  init(rules: Normalization, capacity: Int) {
    self.rules = rules
    scalars.reserveCapacity(capacity)
    classes.reserveCapacity(capacity)
    starts.reserveCapacity(capacity)
    ends.reserveCapacity(capacity)
  }

  mutating func append(_ scalar: UInt32, _ scalarClass: ScalarClass, start: Int32, end: Int32) {
    scalars.append(scalar)
    classes.append(scalarClass)
    starts.append(start)
    ends.append(end)
  }

  /// Applies the word rules and writes the final units into `result`.
  mutating func shape(into result: inout NormalizedText) {
    dropped = Array(repeating: false, count: scalars.count)
    optional = dropped
    spelled = dropped
    resolveApostrophes()
    resolveExclamationMarks()
    let tokens = joinedTokens()
    for token in tokens { resolveLookalikes(in: token) }
    if rules.contains(.interleavedLetters) {
      for token in tokens { markOptional(token) }
    }
    emit(into: &result)
  }

  /// An apostrophe between two letters is dropped (`don't`); any other is a separator.
  private mutating func resolveApostrophes() {
    for index in classes.indices where classes[index] == .apostrophe {
      let inside =
        rules.contains(.separators) && index > 0 && index + 1 < classes.count
        && classes[index - 1] == .letter && classes[index + 1] == .letter
      if inside { dropped[index] = true } else { classes[index] = .separator }
    }
  }

  /// `!` stands for a letter only when a word character follows it (`sh!t`, not `hello!`).
  /// Right to left, so that in `!!!` each mark sees the already resolved one after it.
  private mutating func resolveExclamationMarks() {
    guard rules.contains(.lookalikes) else {
      for index in classes.indices where classes[index] == .symbol { classes[index] = .separator }
      return
    }
    for index in classes.indices.reversed() where scalars[index] == 0x21 && classes[index] == .symbol {
      let next = index + 1 < classes.count ? classes[index + 1] : .separator
      if next != .letter && next != .digit && next != .symbol { classes[index] = .separator }
    }
  }

  /// Word tokens (runs of letters, digits and symbols) as unit index ranges, after joining
  /// letters spelled one by one (`f.u.c.k`): the separators between them are dropped.
  private mutating func joinedTokens() -> [Range<Int>] {
    var tokens: [(range: Range<Int>, length: Int)] = []
    var index = 0
    while index < classes.count {
      guard isWordUnit(index) else {
        index += 1
        continue
      }
      let start = index
      var length = 0
      while index < classes.count, isWordUnit(index) || dropped[index] {
        if !dropped[index] { length += 1 }
        index += 1
      }
      tokens.append((start..<index, length))
    }
    guard rules.contains(.separators), !tokens.isEmpty else { return tokens.map(\.range) }
    var joined: [Range<Int>] = [tokens[0].range]
    for position in 1..<tokens.count {
      let previous = tokens[position - 1]
      let current = tokens[position]
      let gap = previous.range.upperBound..<current.range.lowerBound
      let joinable =
        previous.length == 1 && current.length == 1 && gap.count <= Self.maximumJoinGap
        && gap.allSatisfy { classes[$0] == .separator || dropped[$0] }
      if joinable {
        for index in gap { dropped[index] = true }
        for index in previous.range where !dropped[index] { spelled[index] = true }
        for index in current.range where !dropped[index] { spelled[index] = true }
        joined[joined.count - 1] = joined[joined.count - 1].lowerBound..<current.range.upperBound
      } else {
        joined.append(current.range)
      }
    }
    return joined
  }

  /// Inside a token that holds a letter, digits and symbols that imitate letters become those
  /// letters (`sh1t`, `a$$`). In a token without letters, symbols are separators (`$100`).
  private mutating func resolveLookalikes(in token: Range<Int>) {
    let hasLetter = token.contains { classes[$0] == .letter && !dropped[$0] }
    for index in token where !dropped[index] && (classes[index] == .digit || classes[index] == .symbol) {
      if hasLetter && rules.contains(.lookalikes), let letter = UnicodeTables.lookalikeLetter(forSymbol: scalars[index])
      {
        scalars[index] = letter
        classes[index] = .letter
      } else if classes[index] == .symbol {
        classes[index] = .separator
      }
    }
  }

  /// A token of one letter or digit between two CJK characters is optional (`反v动`).
  private mutating func markOptional(_ token: Range<Int>) {
    var member = -1
    for index in token where !dropped[index] && classes[index] != .separator {
      guard member < 0 else { return }  // more than one character: not a lone letter
      member = index
    }
    guard member >= 0, classes[member] == .letter || classes[member] == .digit else { return }
    if neighbourClass(before: token.lowerBound) == .unspaced && neighbourClass(after: token.upperBound) == .unspaced {
      optional[member] = true
    }
  }

  private func neighbourClass(before index: Int) -> ScalarClass? {
    var cursor = index - 1
    while cursor >= 0, classes[cursor] == .separator || dropped[cursor] { cursor -= 1 }
    return cursor >= 0 ? classes[cursor] : nil
  }

  private func neighbourClass(after index: Int) -> ScalarClass? {
    var cursor = index
    while cursor < classes.count, classes[cursor] == .separator || dropped[cursor] { cursor += 1 }
    return cursor < classes.count ? classes[cursor] : nil
  }

  private func isWordUnit(_ index: Int) -> Bool {
    !dropped[index] && (classes[index] == .letter || classes[index] == .digit || classes[index] == .symbol)
  }

  /// Writes the final units: separator runs collapse to one space (dropped at the ends and
  /// next to CJK or optional units), and repeated letters and CJK characters merge into one
  /// counted unit (`fuuuck`, `考试试试机构`).
  private func emit(into result: inout NormalizedText) {
    let collapses = rules.contains(.separators)
    let merges = rules.contains(.repeatedLetters)
    var pendingSeparators: Range<Int>? = nil
    for index in scalars.indices where !dropped[index] {
      let scalarClass = classes[index]
      if scalarClass == .separator && collapses {
        pendingSeparators = (pendingSeparators?.lowerBound ?? index)..<(index + 1)
        continue
      }
      if let run = pendingSeparators, let last = result.classes.indices.last {
        let previous = result.scalarClass(last)
        let skip =
          previous == .unspaced || scalarClass == .unspaced || result.isOptional(last) || optional[index]
        if !skip {
          result.append(
            0x20, ScalarClass.separator.rawValue, start: starts[run.lowerBound], end: ends[run.upperBound - 1])
        }
      }
      pendingSeparators = nil
      if merges, scalarClass == .letter || scalarClass == .unspaced, !optional[index],
        let last = result.scalars.indices.last,
        result.scalars[last] == scalars[index], result.scalarClass(last) == scalarClass, !result.isOptional(last)
      {
        result.ends[last] = ends[index]
        if result.runs[last] < .max { result.runs[last] += 1 }
        continue
      }
      let flag = (optional[index] ? NormalizedText.optionalFlag : 0) | (spelled[index] ? NormalizedText.spelledFlag : 0)
      result.append(scalars[index], scalarClass.rawValue | flag, start: starts[index], end: ends[index])
      if optional[index] { result.hasOptionalUnits = true }
    }
  }
}
