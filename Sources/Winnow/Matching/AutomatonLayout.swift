/// The states of an ``AhoCorasick`` automaton, laid out in one flat `[UInt32]`. Internal.
///
/// A state is identified by its offset in `program`. Each state is a record:
///
/// ```
/// [fail] [header] [slot] [codes…] [targets…]     sparse: header = n ≤ 12, codes sorted
/// [fail] [header] [slot] [code, target]×2^b      hashed: header = hashedFlag | b (wide rows)
/// [fail] [header] [slot] [target for code 0, 1, …, alphabetSize-1]   dense: header = denseFlag
/// ```
///
/// A header's bits 5 to 29 hold 0 when no pattern ends at the state itself, 1 + the pattern
/// when exactly one does (and it is below `singlePatternLimit - 1`), and `singlePatternLimit`
/// when more do (those are read through `slots`). A walk from a start position then reports a
/// match, or moves on, from the record it has just read; reading every pattern through `slots`
/// and `slotPatterns` took two more random reads a match.
///
/// The root (offset 0) is dense, so a scalar outside every pattern costs one read. A state
/// with more than ``sparseLimit`` children (a CJK character that starts hundreds of words) keeps
/// them in an open-addressing table at most half full, found in one or two probes rather than
/// a binary search's eight dependent reads; an empty slot has code 0, which no child has. `slot` is 0
/// when no pattern ends at the state or at any state its failure chain reaches; otherwise its
/// low 31 bits index `slots`, which lists the patterns that end there and the next slot down the
/// chain (the "dictionary suffix link"), and ``ownFlag`` says whether that entry is the state's
/// own (patterns end at the state itself) rather than its failure target's. A walk from a start
/// position, which reports only a state's own patterns, then reads nothing outside the state's
/// record: looking up the failure target's slot instead was a second random read per step.
/// Invariant: a state's failure target is strictly shallower.
struct AutomatonLayout: Sendable {
  static let denseFlag: UInt32 = 0x8000_0000
  static let hashedFlag: UInt32 = 0x4000_0000
  /// Rows with more children than this are hashed.
  static let sparseLimit = 12
  static let failOffset = 0
  static let headerOffset = 1
  static let slotOffset = 2
  static let rowOffset = 3
  /// Set in a state's slot word when patterns end at the state itself.
  static let ownFlag: UInt32 = 0x8000_0000
  /// The header bits that hold a sparse row's length or a hashed row's size.
  static let rowSizeMask: UInt32 = 0x1F
  /// Where a header holds what ends at the state itself (see above).
  static let singlePatternShift: UInt32 = 5
  /// The header's value for patterns reported through `slots`: several, or one from index
  /// `singlePatternLimit - 1` on.
  static let singlePatternLimit: UInt32 = 1 << 25 - 1

  private(set) var program: [UInt32] = []
  /// Per slot: start and end in `slotPatterns`, then the next slot (0 for none). Slot 0 is unused.
  private(set) var slots: [UInt32] = [0, 0, 0]
  private(set) var slotPatterns: [UInt32] = []
  private(set) var stateCount = 0

  var memoryFootprint: Int { (program.capacity + slots.capacity + slotPatterns.capacity) * 4 }

  /// The one transition step: follows failure links until a state has a row for `code`.
  /// (The root's row is dense, and no state's child is the root, so a child of 0 means none.)
  @inline(__always)
  static func next(_ program: UnsafeBufferPointer<UInt32>, _ state: UInt32, _ code: UInt32) -> UInt32 {
    var state = state
    while true {
      let target = child(program, state, code)
      if target != 0 || program[Int(state) + headerOffset] & denseFlag != 0 { return target }
      state = program[Int(state) + failOffset]
    }
  }

  /// The child of `state` for `code` in the trie, or 0 (the root, nobody's child) when it has none.
  @inline(__always)
  static func child(_ program: UnsafeBufferPointer<UInt32>, _ state: UInt32, _ code: UInt32) -> UInt32 {
    let state = Int(state)
    let header = program[state + headerOffset]
    let row = state + rowOffset
    if header & denseFlag != 0 { return program[row + Int(code)] }
    if header & hashedFlag != 0 {
      let bits = header & rowSizeMask
      let mask = (1 << Int(bits)) - 1
      var slot = hashSlot(code, bits: bits)
      while true {
        let candidate = program[row + 2 * slot]
        if candidate == code { return program[row + 2 * slot + 1] }
        if candidate == 0 { return 0 }
        slot = (slot + 1) & mask
      }
    }
    let count = Int(header & rowSizeMask)
    for position in 0..<count {
      let candidate = program[row + position]
      if candidate == code { return program[row + count + position] }
      if candidate > code { break }
    }
    return 0
  }

  /// The first slot of `code` in a hashed row of `2^bits` slots (Fibonacci hashing).
  @inline(__always)
  static func hashSlot(_ code: UInt32, bits: UInt32) -> Int {
    Int((code &* 0x9E37_79B1) >> (32 - bits))
  }

  /// The number of slots (a power of two, as bits) of a hashed row for `children`.
  static func hashBits(children: Int) -> UInt32 {
    var bits: UInt32 = 1
    while (1 << bits) < 2 * children { bits += 1 }
    return bits
  }

  /// Words of a row for a state with `children` children.
  static func rowWords(children: Int) -> Int {
    children > sparseLimit ? 2 << hashBits(children: children) : 2 * children
  }

  /// Calls `body` with every pattern that ends at `state` (its own, then down the chain).
  @inline(__always)
  func forEachPattern(_ program: UnsafeBufferPointer<UInt32>, at state: UInt32, _ body: (Int) -> Void) {
    var slot = Int(program[Int(state) + Self.slotOffset] & ~Self.ownFlag)
    while slot != 0 {
      for index in Int(slots[slot * 3])..<Int(slots[slot * 3 + 1]) { body(Int(slotPatterns[index])) }
      slot = Int(slots[slot * 3 + 2])
    }
  }

  /// Calls `body` with every pattern that is the string of `state` itself (not its suffixes).
  @inline(__always)
  func forEachOwnPattern(_ program: UnsafeBufferPointer<UInt32>, at state: UInt32, _ body: (Int) -> Void) {
    let single = program[Int(state) + Self.headerOffset] &>> Self.singlePatternShift & Self.singlePatternLimit
    if single == 0 { return }
    if single != Self.singlePatternLimit { return body(Int(single) &- 1) }
    let slot = Int(program[Int(state) + Self.slotOffset] & ~Self.ownFlag)
    for index in Int(slots[slot * 3])..<Int(slots[slot * 3 + 1]) { body(Int(slotPatterns[index])) }
  }

  /// A layout from its arrays, as read back from a compiled matcher.
  init(program: [UInt32], slots: [UInt32], slotPatterns: [UInt32], stateCount: Int) {
    self.program = program
    self.slots = slots
    self.slotPatterns = slotPatterns
    self.stateCount = stateCount
  }

  /// Builds the layout from patterns already coded into the alphabet `1..<alphabetSize`.
  init(codedPatterns patterns: [[UInt32]], alphabetSize: Int) {
    let trie = Trie(sortedInsertionOf: patterns)
    // Breadth-first order, so that a state's failure target (shallower) is complete before it.
    var order: [Int32] = [0]
    var cursor = 0
    while cursor < order.count {
      trie.forEachChild(of: order[cursor]) { order.append($0) }
      cursor += 1
    }
    var offsets = [UInt32](repeating: 0, count: trie.nodeCount)
    var size = Self.rowOffset + alphabetSize
    for node in order.dropFirst() {
      offsets[Int(node)] = UInt32(size)
      size += Self.rowOffset + Self.rowWords(children: trie.childCount(of: node))
    }
    var program = [UInt32](repeating: 0, count: size)
    program[Self.headerOffset] = Self.denseFlag
    for node in order {
      let row = Int(offsets[Int(node)]) + Self.rowOffset
      if node == 0 {
        trie.forEachChild(of: node) { program[row + Int(trie.code[Int($0)])] = offsets[Int($0)] }
        continue
      }
      let count = trie.childCount(of: node)
      if count > Self.sparseLimit {
        let bits = Self.hashBits(children: count)
        let mask = (1 << Int(bits)) - 1
        program[row - Self.rowOffset + Self.headerOffset] = Self.hashedFlag | bits
        trie.forEachChild(of: node) { child in
          let code = trie.code[Int(child)]
          var slot = Self.hashSlot(code, bits: bits)
          while program[row + 2 * slot] != 0 { slot = (slot + 1) & mask }
          program[row + 2 * slot] = code
          program[row + 2 * slot + 1] = offsets[Int(child)]
        }
        continue
      }
      program[row - Self.rowOffset + Self.headerOffset] = UInt32(count)
      var position = 0
      trie.forEachChild(of: node) { child in
        program[row + position] = trie.code[Int(child)]
        program[row + count + position] = offsets[Int(child)]
        position += 1
      }
    }
    var slots: [UInt32] = [0, 0, 0]
    var slotPatterns: [UInt32] = []
    program.withUnsafeMutableBufferPointer { program in
      for node in order {
        let state = Int(offsets[Int(node)])
        let parentFail = program[state + Self.failOffset]
        trie.forEachChild(of: node) { child in
          let target =
            node == 0 ? 0 : Self.next(UnsafeBufferPointer(program), parentFail, trie.code[Int(child)])
          program[Int(offsets[Int(child)]) + Self.failOffset] = target
        }
        // Patterns ending here, then the chain of the failure target (already final).
        let chain = node == 0 ? 0 : program[Int(program[state + Self.failOffset]) + Self.slotOffset] & ~Self.ownFlag
        let own = trie.patterns(endingAt: node)
        if own.isEmpty {
          program[state + Self.slotOffset] = chain
        } else {
          program[state + Self.slotOffset] = UInt32(slots.count / 3) | Self.ownFlag
          let single = own.count == 1 && own.first! + 1 < Self.singlePatternLimit
          program[state + Self.headerOffset] |=
            (single ? own.first! + 1 : Self.singlePatternLimit) << Self.singlePatternShift
          slots.append(UInt32(slotPatterns.count))
          slots.append(UInt32(slotPatterns.count + own.count))
          slots.append(chain)
          slotPatterns += own
        }
      }
    }
    self.program = program
    self.slots = slots
    self.slotPatterns = slotPatterns
    self.stateCount = trie.nodeCount
  }
}

/// A trie built by inserting patterns in sorted order, in flat arrays. Internal to the build.
///
/// Sorted insertion means the child to follow, if it exists, is always the last one created
/// for its parent, and a new child always sorts after its siblings: no search, no per-node
/// collection, children already in code order.
struct Trie {
  private(set) var firstChild: [Int32] = [-1]
  private(set) var lastChild: [Int32] = [-1]
  private(set) var nextSibling: [Int32] = [-1]
  private(set) var code: [UInt32] = [0]
  private var childCounts: [Int32] = [0]
  /// Per node, where its patterns start in `terminalPatterns` and how many there are: equal
  /// patterns are adjacent once sorted, so a node's patterns are one run (flat arrays rather
  /// than a dictionary, whose lookups per node were a twentieth of a build).
  private var terminalStarts: [Int32] = [0]
  private var terminalCounts: [Int32] = [0]
  private var terminalPatterns: [UInt32] = []

  var nodeCount: Int { code.count }

  init(sortedInsertionOf patterns: [[UInt32]]) {
    let order = patterns.indices.sorted { patterns[$0].lexicographicallyPrecedes(patterns[$1]) }
    for index in order {
      var node: Int32 = 0
      for symbol in patterns[index] {
        let last = lastChild[Int(node)]
        if last >= 0 && code[Int(last)] == symbol {
          node = last
          continue
        }
        let child = Int32(code.count)
        firstChild.append(-1)
        lastChild.append(-1)
        nextSibling.append(-1)
        code.append(symbol)
        childCounts.append(0)
        terminalStarts.append(0)
        terminalCounts.append(0)
        if last >= 0 { nextSibling[Int(last)] = child } else { firstChild[Int(node)] = child }
        lastChild[Int(node)] = child
        childCounts[Int(node)] += 1
        node = child
      }
      if terminalCounts[Int(node)] == 0 { terminalStarts[Int(node)] = Int32(terminalPatterns.count) }
      terminalCounts[Int(node)] += 1
      terminalPatterns.append(UInt32(index))
    }
  }

  func childCount(of node: Int32) -> Int { Int(childCounts[Int(node)]) }

  /// The patterns that end at `node`, in insertion order.
  func patterns(endingAt node: Int32) -> ArraySlice<UInt32> {
    let start = Int(terminalStarts[Int(node)])
    return terminalPatterns[start..<start + Int(terminalCounts[Int(node)])]
  }

  func forEachChild(of node: Int32, _ body: (Int32) -> Void) {
    var child = firstChild[Int(node)]
    while child >= 0 {
      body(child)
      child = nextSibling[Int(child)]
    }
  }
}
