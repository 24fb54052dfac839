extension AhoCorasick {
  /// Whether the tables of an automaton read back from a compiled matcher are consistent, so
  /// that no walk over any text can read outside them or loop: see
  /// ``AutomatonLayout/isConsistent(alphabet:patternLengths:patternByteLengths:)``.
  var isConsistent: Bool {
    // The alphabet: codes 1..<size, each the code of exactly one scalar.
    var scalarBytes: [UInt8] = [0]
    var codes: [(code: UInt32, bytes: UInt8)] = []
    for (scalar, code) in flatBMPCodes.enumerated() where code != 0 {
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
  /// hashed rows); the transitions form a tree over every state in breadth-first order (the
  /// children of the root and of a sparse row in the order of their codes); a
  /// sparse row's codes increase and a hashed row has an empty slot (so a lookup ends); every
  /// failure link leads to a strictly shallower state (so a walk down the chain ends at the
  /// dense root); every slot lies inside `slots` and `slotPatterns`, chains to an earlier slot
  /// of a shallower or equal owner, and lists patterns whose lengths, in scalars and bytes, are
  /// its owner's depth. A walk then never reads outside the tables, and a match never starts
  /// before its text.
  func isConsistent(alphabet: [UInt8], patternLengths: [UInt32], patternByteLengths: [UInt32]) -> Bool {
    // Read through buffers: the arrays' own subscripts in these loops cost a tenth of a
    // command's start-up.
    program.withUnsafeBufferPointer { program in
      slots.withUnsafeBufferPointer { slots in
        slotPatterns.withUnsafeBufferPointer { slotPatterns in
          Self.isConsistent(
            program: program, slots: slots, slotPatterns: slotPatterns, stateCount: stateCount, alphabet: alphabet,
            patternLengths: patternLengths, patternByteLengths: patternByteLengths)
        }
      }
    }
  }

  private static func isConsistent(
    program: UnsafeBufferPointer<UInt32>, slots: UnsafeBufferPointer<UInt32>,
    slotPatterns: UnsafeBufferPointer<UInt32>, stateCount: Int, alphabet: [UInt8], patternLengths: [UInt32],
    patternByteLengths: [UInt32]
  ) -> Bool {
    let alphabetSize = alphabet.count
    let count = program.count
    guard alphabetSize >= 1, count >= Self.rowOffset + alphabetSize, program[Self.headerOffset] == Self.denseFlag,
      program[Self.failOffset] == 0, slots.count % 3 == 0, slots.count >= 3,
      patternByteLengths.count == patternLengths.count
    else { return false }
    // The records, in order.
    var states = [0]
    // Room for every state the file claims, within what its records could hold: grown one
    // append at a time, the array was copied and checked for sharing at every state.
    states.reserveCapacity(min(max(stateCount, 1), count / Self.rowOffset + 1))
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
      states.append(offset)
      offset += Self.rowOffset + words
    }
    var numbers = states.withUnsafeBufferPointer { StateNumbers(wordCount: count, states: $0) }
    // Depths in scalars (below the state count) and bytes (four times that) fit an Int32.
    guard states.count == stateCount, states.count < Int(Int32.max) / 4 else { return false }
    // The tree, in breadth-first order: each state but the root is the child of the state
    // adopting it, and the states are adopted in their order. (Through buffers and a helper that
    // captures nothing: a nested function capturing the arrays boxed them.)
    var depth = [Int32](repeating: -1, count: states.count)
    var byteDepth = [Int32](repeating: 0, count: states.count)
    depth[0] = 0
    let tree = alphabet.withUnsafeBufferPointer { alphabet in
      depth.withUnsafeMutableBufferPointer { depth in
        byteDepth.withUnsafeMutableBufferPointer { byteDepth in
          states.withUnsafeBufferPointer { states in
            Self.isTree(
              program: program, states: states, alphabet: alphabet, numbers: &numbers, depth: depth,
              byteDepth: byteDepth)
          }
        }
      }
    }
    guard tree else { return false }
    // Breadth-first, so depths never decrease along the states: a state is shallower than one
    // of depth d exactly when it starts before the first state of depth d.
    var depthStarts = [0]
    for (number, state) in states.enumerated() {
      while depthStarts.count <= Int(depth[number]) { depthStarts.append(state) }
    }
    // The rest through buffers too: the arrays' subscripts, checked for sharing at every
    // write, were most of this check.
    var ownerDepth = [Int32](repeating: -1, count: slots.count / 3)
    var ownerBytes = [Int32](repeating: 0, count: slots.count / 3)
    return depth.withUnsafeBufferPointer { depth in
      byteDepth.withUnsafeBufferPointer { byteDepth in
        ownerDepth.withUnsafeMutableBufferPointer { ownerDepth in
          ownerBytes.withUnsafeMutableBufferPointer { ownerBytes in
            patternLengths.withUnsafeBufferPointer { patternLengths in
              patternByteLengths.withUnsafeBufferPointer { patternByteLengths in
                states.withUnsafeBufferPointer { states in
                  Self.areReportsConsistent(
                    program: program, slots: slots, slotPatterns: slotPatterns, states: states, numbers: numbers,
                    depthStarts: depthStarts, depth: depth, byteDepth: byteDepth, ownerDepth: ownerDepth,
                    ownerBytes: ownerBytes,
                    patternLengths: patternLengths, patternByteLengths: patternByteLengths)
                }
              }
            }
          }
        }
      }
    }
  }

  /// The second half of ``isConsistent(alphabet:patternLengths:patternByteLengths:)``, once
  /// every state's depth is known: failure links lead to shallower states, each slot has one
  /// owner and chains to a shallower or equal one, and what each state reports (its own
  /// patterns, or a slot owned by a state no later than it) has its depth.
  /// `ownerDepth` starts at -1 and `ownerBytes` at 0, one of each per slot; `depthStarts[d]` is
  /// the offset of the first state of depth `d`.
  private static func areReportsConsistent(
    program: UnsafeBufferPointer<UInt32>, slots: UnsafeBufferPointer<UInt32>,
    slotPatterns: UnsafeBufferPointer<UInt32>, states: UnsafeBufferPointer<Int>, numbers: StateNumbers,
    depthStarts: [Int], depth: UnsafeBufferPointer<Int32>, byteDepth: UnsafeBufferPointer<Int32>,
    ownerDepth: UnsafeMutableBufferPointer<Int32>, ownerBytes: UnsafeMutableBufferPointer<Int32>,
    patternLengths: UnsafeBufferPointer<UInt32>, patternByteLengths: UnsafeBufferPointer<UInt32>
  ) -> Bool {
    // Per state, in one pass over the records: its failure link, the slot it owns, and what it
    // reports, its own single pattern or a slot owned by it or by a state before it (the build
    // gives a state its own slot or its failure target's, a shallower state's). In two passes,
    // every record was read twice.
    for (number, state) in states.enumerated() {
      let word = program[state + Self.slotOffset]
      if number > 0 {
        let fail = Int(program[state + Self.failOffset])
        guard numbers.isState(at: fail), fail < depthStarts[Int(depth[number])] else { return false }
        if word & Self.ownFlag != 0 {
          let slot = Int(word & ~Self.ownFlag)
          guard slot > 0, slot < ownerDepth.count, ownerDepth[slot] < 0 else { return false }
          ownerDepth[slot] = depth[number]
          ownerBytes[slot] = byteDepth[number]
        }
      }
      let slot = Int(word & ~Self.ownFlag)
      guard slot < ownerDepth.count, slot == 0 || (ownerDepth[slot] > 0 && ownerDepth[slot] <= depth[number])
      else {
        return false
      }
      let single = program[state + Self.headerOffset] &>> Self.singlePatternShift & Self.singlePatternLimit
      if number == 0 { guard single == 0, word == 0 else { return false } }
      if single == Self.singlePatternLimit {
        guard word & Self.ownFlag != 0 else { return false }
      } else if single != 0 {
        let pattern = Int(single) - 1
        guard pattern < patternLengths.count, Int(patternLengths[pattern]) == Int(depth[number]),
          Int(patternByteLengths[pattern]) == Int(byteDepth[number])
        else { return false }
      }
    }
    // Each slot, once every owner is known: its patterns and the next slot down the chain.
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
        guard Int(pattern) < patternLengths.count, Int(patternLengths[Int(pattern)]) == Int(ownerDepth[slot]),
          Int(patternByteLengths[Int(pattern)]) == Int(ownerBytes[slot])
        else { return false }
      }
    }
    return true
  }

  /// Whether the transitions make a tree of `states` in breadth-first order, filling in each
  /// state's depth in scalars and in bytes; and whether every row can be searched (a sparse
  /// row's codes increase, a hashed row has an empty slot). Breadth-first as the build lays it
  /// out: the children of each state are the next states not yet adopted, in the order of their
  /// codes for the dense root and sparse rows (so each is checked against the next state's
  /// offset, without looking up a number), in any order within that run for a hashed row.
  private static func isTree(
    program: UnsafeBufferPointer<UInt32>, states: UnsafeBufferPointer<Int>, alphabet: UnsafeBufferPointer<UInt8>,
    numbers: inout StateNumbers, depth: UnsafeMutableBufferPointer<Int32>,
    byteDepth: UnsafeMutableBufferPointer<Int32>
  ) -> Bool {
    // The number of the next state to adopt.
    var next = 1
    @inline(__always) func adopt(_ child: Int, _ code: UInt32, by parent: Int) -> Bool {
      guard code != 0, Int(code) < alphabet.count else { return false }
      depth[child] = depth[parent] + 1
      byteDepth[child] = byteDepth[parent] + Int32(alphabet[Int(code)])
      return true
    }
    @inline(__always) func adoptNext(_ code: UInt32, _ target: UInt32, by parent: Int) -> Bool {
      guard next < states.count, states[next] == Int(target), adopt(next, code, by: parent) else { return false }
      next += 1
      return true
    }
    for (number, state) in states.enumerated() {
      // Adopted before its own children are read (the root by no one).
      guard number < next else { return false }
      let header = program[state + headerOffset]
      let row = state + rowOffset
      if number == 0 {
        guard program[row] == 0 else { return false }
        for code in 1..<alphabet.count where program[row + code] != 0 {
          guard adoptNext(UInt32(code), program[row + code], by: 0) else { return false }
        }
      } else if header & hashedFlag != 0 {
        // The children are the run of states from `next` on, one per used slot, in any order.
        let size = 1 << Int(header & rowSizeMask)
        var children = 0
        for slot in 0..<size where program[row + 2 * slot] != 0 { children += 1 }
        guard children < size, children <= states.count - next else { return false }
        for slot in 0..<size {
          let code = program[row + 2 * slot]
          guard code != 0 else { continue }
          guard let child = numbers.number(at: Int(program[row + 2 * slot + 1])),
            child >= next, child - next < children, depth[child] < 0, adopt(child, code, by: number)
          else { return false }
        }
        next += children
      } else {
        let children = Int(header & rowSizeMask)
        for position in 0..<children {
          guard position == 0 || program[row + position] > program[row + position - 1],
            adoptNext(program[row + position], program[row + children + position], by: number)
          else { return false }
        }
      }
    }
    return next == states.count
  }
}

/// Which words of a program start a state, and the number of such a state, in little memory: a
/// bit per word of the program marks where a state starts, and a state's number is the count of
/// marks before it (with the count before each 64 words kept, made at the first number asked
/// for). An array of a number per word of the program was a quarter of a command's start-up,
/// most of it the memory's first touch.
struct StateNumbers {
  private var marks: [UInt64]
  private var before: [UInt32] = []

  /// The states starting at `states`, each below `wordCount` and at least 0.
  init(wordCount: Int, states: UnsafeBufferPointer<Int>) {
    marks = [UInt64](repeating: 0, count: wordCount / 64 + 1)
    marks.withUnsafeMutableBufferPointer { marks in
      for offset in states { marks[offset >> 6] |= 1 << UInt64(offset & 63) }
    }
  }

  /// Whether a state starts at `offset`.
  func isState(at offset: Int) -> Bool {
    offset >= 0 && offset >> 6 < marks.count && marks[offset >> 6] & 1 << UInt64(offset & 63) != 0
  }

  /// The number of the state that starts at `offset`, or nil when none does (fewer than
  /// `UInt32.max` states).
  mutating func number(at offset: Int) -> Int? {
    guard isState(at: offset) else { return nil }
    if before.isEmpty {
      before.reserveCapacity(marks.count)
      var total: UInt32 = 0
      for word in marks {
        before.append(total)
        total &+= UInt32(word.nonzeroBitCount)
      }
    }
    let word = marks[offset >> 6]
    return Int(before[offset >> 6]) + (word & (1 << UInt64(offset & 63) &- 1)).nonzeroBitCount
  }
}
