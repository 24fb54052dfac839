extension AhoCorasick {
  /// Whether the tables of an automaton read back from a compiled matcher are consistent, so
  /// that no walk over any text can read outside them or loop: see
  /// ``AutomatonLayout/isConsistent(alphabet:patternLengths:patternByteLengths:)``.
  var isConsistent: Bool {
    // The alphabet: codes 1..<size, each the code of exactly one scalar.
    var scalarBytes: [UInt8] = [0]
    var codes: [(code: UInt32, bytes: UInt8)] = []
    for (scalar, code) in bmpCodes.enumerated() where code != 0 {
      codes.append((code, scalar < 0x80 ? 1 : scalar < 0x800 ? 2 : 3))
    }
    for (scalar, code) in supplementaryCodes {
      guard (0x10000...0x10FFFF).contains(scalar), code != 0 else { return false }
      codes.append((code, 4))
    }
    scalarBytes += [UInt8](repeating: 0, count: codes.count)
    for (code, bytes) in codes {
      guard code <= codes.count, scalarBytes[Int(code)] == 0 else { return false }
      scalarBytes[Int(code)] = bytes
    }
    return layout.isConsistent(
      alphabet: scalarBytes, patternLengths: patternLengths, patternByteLengths: patternByteLengths)
  }
}

extension AutomatonLayout {
  /// Whether the layout is one ``init(codedPatterns:alphabetSize:)`` could have built for an
  /// alphabet whose code `c` stands for a scalar of `alphabet[c]` UTF-8 bytes, and patterns of
  /// these lengths. Checked: the records tile `program` exactly (a dense root, then sparse or
  /// hashed rows); the transitions form a tree over every state in breadth-first order; a
  /// sparse row's codes increase and a hashed row has an empty slot (so a lookup ends); every
  /// failure link leads to a strictly shallower state (so a walk down the chain ends at the
  /// dense root); every slot lies inside `slots` and `slotPatterns`, chains to an earlier slot
  /// of a shallower or equal owner, and lists patterns whose lengths, in scalars and bytes, are
  /// its owner's depth. A walk then never reads outside the tables, and a match never starts
  /// before its text.
  func isConsistent(alphabet: [UInt8], patternLengths: [UInt32], patternByteLengths: [UInt32]) -> Bool {
    let alphabetSize = alphabet.count
    let count = program.count
    guard alphabetSize >= 1, count >= Self.rowOffset + alphabetSize, program[Self.headerOffset] == Self.denseFlag,
      program[Self.failOffset] == 0, slots.count % 3 == 0, slots.count >= 3,
      patternByteLengths.count == patternLengths.count
    else { return false }
    // The records, in order.
    var index = [Int32](repeating: -1, count: count)
    var states = [0]
    index[0] = 0
    var offset = Self.rowOffset + alphabetSize
    while offset < count {
      guard count - offset >= Self.rowOffset else { return false }
      let header = program[offset + Self.headerOffset]
      guard header & Self.denseFlag == 0 else { return false }
      let words: Int
      if header & Self.hashedFlag != 0 {
        let bits = header & Self.rowSizeMask
        guard (1...24).contains(bits) else { return false }
        words = 2 << bits
      } else {
        words = 2 * Int(header & Self.rowSizeMask)
        guard words <= 2 * Self.sparseLimit else { return false }
      }
      guard count - offset - Self.rowOffset >= words else { return false }
      index[offset] = Int32(states.count)
      states.append(offset)
      offset += Self.rowOffset + words
    }
    guard states.count == stateCount, states.count < Int(Int32.max) else { return false }
    // The tree: each state but the root is the child of exactly one earlier state.
    var depth = [Int](repeating: -1, count: states.count)
    var byteDepth = [Int](repeating: 0, count: states.count)
    depth[0] = 0
    for (number, state) in states.enumerated() {
      guard depth[number] >= 0 else { return false }
      var consistent = true
      func child(_ code: UInt32, _ target: UInt32) {
        guard Int(code) < alphabetSize, code != 0, Int(target) < count, index[Int(target)] > Int32(number) else {
          consistent = false
          return
        }
        let child = Int(index[Int(target)])
        guard depth[child] < 0 else {
          consistent = false
          return
        }
        depth[child] = depth[number] + 1
        byteDepth[child] = byteDepth[number] + Int(alphabet[Int(code)])
      }
      let header = program[state + Self.headerOffset]
      let row = state + Self.rowOffset
      if number == 0 {
        guard program[row] == 0 else { return false }
        for code in 1..<alphabetSize where program[row + code] != 0 { child(UInt32(code), program[row + code]) }
      } else if header & Self.hashedFlag != 0 {
        let slotCount = 1 << Int(header & Self.rowSizeMask)
        var empty = false
        for slot in 0..<slotCount {
          let code = program[row + 2 * slot]
          if code == 0 { empty = true } else { child(code, program[row + 2 * slot + 1]) }
        }
        guard empty else { return false }
      } else {
        let children = Int(header & Self.rowSizeMask)
        for position in 0..<children {
          guard position == 0 || program[row + position] > program[row + position - 1] else { return false }
          child(program[row + position], program[row + children + position])
        }
      }
      guard consistent else { return false }
    }
    // Failure links, and who owns each slot.
    var ownerDepth = [Int](repeating: -1, count: slots.count / 3)
    var ownerBytes = [Int](repeating: 0, count: slots.count / 3)
    for (number, state) in states.enumerated() where number > 0 {
      let fail = Int(program[state + Self.failOffset])
      guard fail < count, index[fail] >= 0, depth[Int(index[fail])] < depth[number] else { return false }
      let word = program[state + Self.slotOffset]
      if word & Self.ownFlag != 0 {
        let slot = Int(word & ~Self.ownFlag)
        guard slot > 0, slot < ownerDepth.count, ownerDepth[slot] < 0 else { return false }
        ownerDepth[slot] = depth[number]
        ownerBytes[slot] = byteDepth[number]
      }
    }
    for slot in 0..<ownerDepth.count {
      let (start, end, next) = (Int(slots[slot * 3]), Int(slots[slot * 3 + 1]), Int(slots[slot * 3 + 2]))
      guard start <= end, end <= slotPatterns.count else { return false }
      if slot == 0 {
        guard start == end, next == 0 else { return false }
        continue
      }
      guard ownerDepth[slot] > 0 else { return false }
      guard next == 0 || (next < slot && ownerDepth[next] > 0 && ownerDepth[next] <= ownerDepth[slot]) else {
        return false
      }
      for pattern in slotPatterns[start..<end] {
        guard Int(pattern) < patternLengths.count, Int(patternLengths[Int(pattern)]) == ownerDepth[slot],
          Int(patternByteLengths[Int(pattern)]) == ownerBytes[slot]
        else { return false }
      }
    }
    // What each state reports: its own single pattern, or its slot and the chain below.
    for (number, state) in states.enumerated() {
      let word = program[state + Self.slotOffset]
      let slot = Int(word & ~Self.ownFlag)
      guard slot < ownerDepth.count, slot == 0 || (ownerDepth[slot] > 0 && ownerDepth[slot] <= depth[number]) else {
        return false
      }
      let single = program[state + Self.headerOffset] &>> Self.singlePatternShift & Self.singlePatternLimit
      if number == 0 { guard single == 0, word == 0 else { return false } }
      if single == Self.singlePatternLimit {
        guard word & Self.ownFlag != 0 else { return false }
      } else if single != 0 {
        let pattern = Int(single) - 1
        guard pattern < patternLengths.count, Int(patternLengths[pattern]) == depth[number],
          Int(patternByteLengths[pattern]) == byteDepth[number]
        else { return false }
      }
    }
    return true
  }
}
