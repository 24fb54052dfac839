import CPCRE2

/// One compiled PCRE2 pattern (UTF, UCP, JIT where available), matched on normalized text.
///
/// ```swift
/// let regex = try RegexProgram(pattern: #"b[a4]d\s*w[o0]rd"#)
/// var scratch = RegexScratch()
/// regex.forEachMatch(in: utf8, scratch: &scratch) { range in … }   // byte ranges
/// ```
///
/// Every match runs under limits (``matchLimit``, ``depthLimit``, ``heapLimitKiB``), so a
/// pattern with catastrophic backtracking is stopped and reported rather than stalling a scan.
/// PCRE2 counts its match limit afresh at every start position, so a fixed limit lets one
/// text cost its length times the limit; ``forEachMatch(in:scratch:includingEmpty:_:)`` gives
/// each text a budget instead: ``textBudget`` steps spread over its start positions (never
/// fewer than ``minimumLimitPerPosition`` a position, never more than ``matchLimit``).
/// The compiled code is immutable and PCRE2 documents it as safe to share between threads;
/// match data is per caller (``RegexScratch``).
final class RegexProgram: @unchecked Sendable {
  // @unchecked: `code` is written only in init and read-only afterwards, which PCRE2
  // documents as safe for concurrent matching.
  private let code: OpaquePointer
  /// Whether the pattern was JIT-compiled (false where JIT is unavailable).
  let isJIT: Bool
  let pattern: String

  /// Backtracking steps one match may take at one start position, at most.
  static let matchLimit: UInt32 = 1_000_000
  /// Backtracking steps one regex may take over one text, about: the limit at each start
  /// position is this divided by the text's length in bytes.
  static let textBudget = 20_000_000
  /// The limit at each start position is never less than this, whatever the text's length.
  static let minimumLimitPerPosition: UInt32 = 200
  /// Start positions one call to PCRE2 may try: between calls the time is looked at.
  static let startPositionsPerCall = 256
  /// The longest one regex may search one text. A step count cannot bound everything: PCRE2
  /// reads a possessive or auto-possessified repeat (`\w+` before `\s`) to its end without
  /// counting, so `re:(\w+)\s\1` read a 100 KB word 100,000 times, 11 s within its limits.
  static let timeBudget: Duration = .milliseconds(200)
  /// Nesting depth of backtracking (interpreter only; the JIT uses its own stack).
  static let depthLimit: UInt32 = 10_000
  /// Heap memory one match may use, in KiB.
  static let heapLimitKiB: UInt32 = 20_000

  /// Compiles a pattern.
  /// - Throws: ``WordListError/Kind/invalidRegex(message:offset:)`` or
  ///   ``WordListError/Kind/regexMatchesEmpty(_:)`` (without a location; the caller adds it).
  init(pattern: String, caseless: Bool = true) throws(RegexCompileError) {
    var errorCode: Int32 = 0
    var errorOffset = 0
    // USE_OFFSET_LIMIT: a search is cut into windows of start positions (see forEachMatch).
    var options = UInt32(PCRE2_UTF) | UInt32(PCRE2_UCP) | UInt32(PCRE2_USE_OFFSET_LIMIT)
    if caseless { options |= UInt32(PCRE2_CASELESS) }
    var pattern = pattern
    // SAFETY: the pointer is valid for the call; PCRE2 copies what it needs into the code.
    let compiled = pattern.withUTF8 { bytes in
      pcre2_compile_8(bytes.baseAddress, bytes.count, options, &errorCode, &errorOffset, nil)
    }
    guard let compiled else {
      throw RegexCompileError(kind: .invalidRegex(message: Self.message(for: errorCode), offset: errorOffset))
    }
    // SAFETY: `compiled` is a valid code; JIT failure (e.g. unsupported) leaves it usable.
    self.isJIT = pcre2_jit_compile_8(compiled, UInt32(PCRE2_JIT_COMPLETE)) == 0
    self.code = compiled
    self.pattern = pattern
    var scratch = RegexScratch()
    var matchesEmpty = false
    _ = forEachMatch(in: UnsafeBufferPointer(start: nil, count: 0), scratch: &scratch, includingEmpty: true) { _ in
      matchesEmpty = true
    }
    if matchesEmpty { throw RegexCompileError(kind: .regexMatchesEmpty(pattern)) }
  }

  deinit {
    // SAFETY: created in init and not shared beyond this object's lifetime.
    pcre2_code_free_8(code)
  }

  /// The outcome of a scan with one regex.
  enum Outcome: Equatable {
    case completed
    /// PCRE2 stopped at a limit (its error code); matches found before it were reported.
    case limitExceeded(Int32)
    /// The search took longer than ``timeBudget``; matches found before it were reported.
    case timeExceeded
  }

  /// Calls `body` with the UTF-8 byte range of each non-empty, non-overlapping match in
  /// `subject`, which must be valid UTF-8 (normalized text always is).
  @discardableResult
  func forEachMatch(
    in subject: UnsafeBufferPointer<UInt8>, scratch: inout RegexScratch, includingEmpty: Bool = false,
    _ body: (Range<Int>) -> Void
  ) -> Outcome {
    let data = scratch.matchData
    let context = scratch.context
    pcre2_set_match_limit_8(context, Self.limitPerPosition(forBytes: subject.count))
    var start = 0
    // An empty subject still needs a non-null pointer.
    let base = subject.baseAddress ?? UnsafePointer(bitPattern: 1)!
    let clock = ContinuousClock()
    // Read only once a search goes past its first window or finds a match: reading the clock
    // for every text a raw regex runs on cost much of its time on short messages. The time of
    // the first window is bounded by the match limit.
    var began: ContinuousClock.Instant? = nil
    func overBudget() -> Bool {
      guard let began else {
        began = clock.now
        return false
      }
      return clock.now - began > Self.timeBudget
    }
    while start <= subject.count {
      // Matches may start in the next window of positions only; the time is looked at between
      // windows. A window with no match moves the search on to the next one, so the matches
      // are the ones one unbounded search finds.
      let windowEnd = start + Self.startPositionsPerCall
      pcre2_set_offset_limit_8(context, windowEnd)
      // SAFETY: `base` is valid for `subject.count` bytes, which are valid UTF-8 (so the UTF
      // check may be skipped); `data` and `context` are owned and live for the call.
      let result =
        isJIT
        ? pcre2_jit_match_8(code, base, subject.count, start, 0, data, context)
        : pcre2_match_8(code, base, subject.count, start, UInt32(PCRE2_NO_UTF_CHECK), data, context)
      if result == PCRE2_ERROR_NOMATCH {
        guard windowEnd < subject.count else { return .completed }
        if overBudget() { return .timeExceeded }
        start = windowEnd
        continue
      }
      if result < 0 { return .limitExceeded(result) }
      // SAFETY: after a successful match the ovector holds at least one pair.
      let ovector = pcre2_get_ovector_pointer_8(data)!
      let range = Int(ovector[0])..<Int(ovector[1])
      if !range.isEmpty || includingEmpty { body(range) }
      if range.isEmpty {
        if includingEmpty { return .completed }
        // Step over one whole UTF-8 character.
        var next = range.upperBound + 1
        while next < subject.count, subject[next] & 0xC0 == 0x80 { next += 1 }
        start = next
      } else {
        start = range.upperBound
      }
      if overBudget() { return .timeExceeded }
    }
    return .completed
  }

  private static func message(for errorCode: Int32) -> String {
    var buffer = [UInt8](repeating: 0, count: 256)
    // SAFETY: PCRE2 writes at most `count` code units, zero-terminated.
    let length = buffer.withUnsafeMutableBufferPointer {
      pcre2_get_error_message_8(errorCode, $0.baseAddress, $0.count)
    }
    return length > 0 ? String(decoding: buffer[..<Int(length)], as: UTF8.self) : "error \(errorCode)"
  }

  /// The match limit at each start position for a text of `bytes` bytes (see the type's doc).
  static func limitPerPosition(forBytes bytes: Int) -> UInt32 {
    let share = textBudget / max(bytes, 1)
    return UInt32(clamping: min(max(share, Int(minimumLimitPerPosition)), Int(matchLimit)))
  }

  /// A short description of why a search stopped.
  static func describe(_ outcome: Outcome) -> String {
    switch outcome {
    case .completed: "completed"
    case .limitExceeded(let code): message(for: code)
    case .timeExceeded: "time budget of \(timeBudget) exceeded"
    }
  }
}

/// Why a pattern did not compile; the caller adds the entry's location.
struct RegexCompileError: Error {
  let kind: WordListError.Kind
}

/// Per-caller PCRE2 match data and match context (whose match limit is set for each text),
/// reused across matches. Not `Sendable`: one per task.
struct RegexScratch: ~Copyable {
  let matchData: OpaquePointer
  let context: OpaquePointer

  init() {
    // SAFETY: a match data block with one ovector pair (the whole match is all we read), and
    // a match context with the default allocator; both freed in deinit.
    matchData = pcre2_match_data_create_8(1, nil)!
    context = pcre2_match_context_create_8(nil)!
    pcre2_set_depth_limit_8(context, RegexProgram.depthLimit)
    pcre2_set_heap_limit_8(context, RegexProgram.heapLimitKiB)
  }

  deinit {
    // SAFETY: created in init, owned by this value alone (non-copyable).
    pcre2_match_data_free_8(matchData)
    pcre2_match_context_free_8(context)
  }
}

/// A thread's ``RegexScratch``, kept in its scan workspace. Safety of `@unchecked Sendable`:
/// a workspace, and so its store, is used by one thread at a time (``ThreadWorkspace``).
final class RegexScratchStore: @unchecked Sendable {
  var scratch = RegexScratch()
  /// Room for the offsets of a text's first digits, which ``RawPrefilter/scan(_:digitOffsets:)``
  /// writes (a `let`, so that reading it checks no exclusivity; a buffer made per text cost a
  /// call and its set-up on every line).
  let digitOffsets = UnsafeMutableBufferPointer<Int32>.allocate(capacity: 32)

  deinit { digitOffsets.deallocate() }
}

extension RegexProgram {
  /// The longest run of literal characters that every match of `pattern` must contain, or
  /// nil when none can be told for sure. The scan runs a regex only where its automaton has
  /// found this literal (a prefilter), so it must be a true requirement: the reading is
  /// deliberately simple and gives up on anything it does not understand.
  ///
  /// Understood: plain characters, `\` + punctuation (a literal), `.`, classes `[…]`, groups
  /// `(…)` (skipped as a whole: they may be optional or alternatives), anchors, `\` + letter
  /// (`\d`, `\b`: not literals), and quantifiers (`?`, `*`, `{…}` make the character before
  /// them optional; `+` keeps it but ends the run). A top-level `|`, `(?` options and `\Q`
  /// give up. `傻.{0,2}逼` → `傻`; `fu+ck` → `fu`; `a|b` → nil.
  static func requiredLiteral(of pattern: String) -> String? {
    let characters = Array(pattern.unicodeScalars)
    if pattern.contains("(?") || pattern.contains("\\Q") { return nil }
    var runs: [[Unicode.Scalar]] = []
    var run: [Unicode.Scalar] = []
    func endRun() {
      if !run.isEmpty { runs.append(run) }
      run = []
    }
    var index = 0
    while index < characters.count {
      let character = characters[index]
      var literal: Unicode.Scalar? = nil
      var next = index + 1
      switch character {
      case "|":
        return nil
      case "\\":
        guard next < characters.count else { return nil }
        let escaped = characters[next]
        next += 1
        if escaped.properties.isAlphabetic || ("0"..."9").contains(escaped) {
          endRun()  // \d, \w, \b, back references: not a literal we can name
          if ["x", "p", "P", "N", "g", "k", "o", "c"].contains(escaped) {
            return nil  // forms with arguments (`\x{…}`, `\p{…}`): too much to read safely
          }
        } else {
          literal = escaped
        }
      case "[":
        endRun()
        guard let close = Self.endOfClass(characters, from: next) else { return nil }
        next = close + 1
      case "(":
        endRun()
        var depth = 1
        var cursor = next
        while cursor < characters.count, depth > 0 {
          switch characters[cursor] {
          case "\\": cursor += 1
          case "(": depth += 1
          case ")": depth -= 1
          case "[":
            // A `)` inside a class does not close the group.
            guard let close = Self.endOfClass(characters, from: cursor + 1) else { return nil }
            cursor = close
          default: break
          }
          cursor += 1
        }
        guard depth == 0 else { return nil }
        next = cursor
      case ".", "^", "$", ")":
        endRun()
      case "?", "*", "+", "{":
        return nil  // a quantifier with nothing before it is not what we read
      default:
        literal = character
      }
      // A quantifier after the atom.
      if let quantifier = Self.quantifier(characters, at: next) {
        let isPlus = characters[next] == "+"
        guard let end = quantifier.end else { return nil }
        next = end
        if isPlus, let literal { run.append(literal) }
        endRun()
      } else if let literal {
        run.append(literal)
      }
      index = next
    }
    endRun()
    guard let longest = runs.max(by: { $0.count < $1.count }) else { return nil }
    var result = String.UnicodeScalarView()
    result.append(contentsOf: longest)
    return String(result)
  }

  /// What in `pattern` can make matching backtrack without bound, for `words lint`: a
  /// backreference (`\1`, `\g{…}`, `\k<…>`, `(?P=…)`), or a repeated group that itself holds
  /// a repeat (`(a+)+`, `(\w*x)*`). Read as simply as ``requiredLiteral(of:)`` reads: escapes
  /// and classes are skipped, groups are matched by their parentheses. Empty when none.
  /// The kind of text on which the pattern's check stops at its limits, trying texts of 1,000
  /// characters made to make backtracking patterns fail slowly (letters, digits, Han
  /// characters, words between spaces, each followed by a space and the printable ASCII);
  /// nil when it finishes on all of them. What `winnow words lint` warns of, beside the risks
  /// ``backtrackingRisks(of:)`` reads in the pattern: adjacent repeats such as `\w*\w*\w*z`
  /// have neither a backreference nor a nested repeat, and still stop on a 300-byte message.
  static func stoppingProbe(of pattern: String, caseless: Bool = true) -> String? {
    guard let program = try? RegexProgram(pattern: pattern, caseless: caseless) else { return nil }
    // Each ends with a space and every printable ASCII character, so that a pattern's required
    // last character is in the text and PCRE2 cannot reject the text without trying it.
    let tail = " " + String((0x21...0x7E).map { Character(Unicode.Scalar(UInt8($0))) }) + "。！"
    let probes: [(String, String)] = [
      ("letters", String(repeating: "abcdefghij", count: 100)),
      ("digits", String(repeating: "0123456789", count: 100)),
      ("Han characters", String(repeating: "的一是不了人我在有他", count: 100)),
      ("words between spaces", String(repeating: "ab cd ", count: 166)),
      ("letters and digits", String(repeating: "a1b2c3d4e5", count: 100)),
    ]
    var scratch = RegexScratch()
    for (kind, body) in probes {
      var text = body + tail
      let outcome = text.withUTF8 { program.forEachMatch(in: $0, scratch: &scratch) { _ in } }
      if outcome != .completed { return kind }
    }
    return nil
  }

  static func backtrackingRisks(of pattern: String) -> [String] {
    let characters = Array(pattern.unicodeScalars)
    var backreference = false
    var nested = false
    // Per open group: whether a repeat is inside it.
    var groups: [Bool] = []
    func isRepeat(at position: Int) -> Bool {
      position < characters.count && ["*", "+", "{"].contains(characters[position])
    }
    func markRepeated(after position: Int) {
      if isRepeat(at: position), !groups.isEmpty { groups[groups.count - 1] = true }
    }
    var index = 0
    while index < characters.count {
      switch characters[index] {
      case "\\":
        if index + 1 < characters.count,
          ("1"..."9").contains(characters[index + 1]) || "gk".unicodeScalars.contains(characters[index + 1])
        {
          backreference = true
        }
        index += 2
        markRepeated(after: index)
        continue
      case "[":
        index = (endOfClass(characters, from: index + 1) ?? characters.count) + 1
        markRepeated(after: index)
        continue
      case "(":
        if characters[(index + 1)...].starts(with: "?P=".unicodeScalars) { backreference = true }
        groups.append(false)
      case ")":
        if let hasRepeat = groups.popLast() {
          if hasRepeat && isRepeat(at: index + 1) { nested = true }
          if hasRepeat || isRepeat(at: index + 1), !groups.isEmpty { groups[groups.count - 1] = true }
        }
      case "*", "+", "{":
        if !groups.isEmpty { groups[groups.count - 1] = true }
      default:
        markRepeated(after: index + 1)
      }
      index += 1
    }
    return (backreference ? ["a backreference"] : []) + (nested ? ["a repeated group that holds a repeat"] : [])
  }

  /// The quantifier at `start`, just after an atom, when there is one (`?`, `*`, `+`, `{…}`,
  /// with a lazy `?` or possessive `+` after it): its least number of repetitions (nil for a
  /// `{…}` whose minimum is not digits of at most 1,000, which a reader treats as it must) and
  /// the index after it. Nil when there is none; `end` is nil when a `{` is unclosed.
  static func quantifier<Characters: RandomAccessCollection<Unicode.Scalar>>(
    _ characters: Characters, at start: Int
  ) -> (minimum: Int?, end: Int?)? where Characters.Index == Int {
    guard start < characters.endIndex, ["?", "*", "+", "{"].contains(characters[start]) else { return nil }
    var minimum: Int?
    var end: Int
    if characters[start] == "{" {
      guard let close = characters[start...].firstIndex(of: "}") else { return (nil, nil) }
      let digits = String(String.UnicodeScalarView(characters[(start + 1)..<close].prefix { $0 != "," }))
      minimum = digits.isEmpty ? 0 : Int(digits).flatMap { $0 <= 1000 ? $0 : nil }
      end = close + 1
    } else {
      minimum = characters[start] == "+" ? 1 : 0
      end = start + 1
    }
    if end < characters.endIndex, characters[end] == "?" || characters[end] == "+" { end += 1 }
    return (minimum, end)
  }

  /// The index of the `]` that closes a class whose body starts at `start` (just after `[`):
  /// a `]` first (or after `^`) is a member, `\` escapes one character. Nil when unclosed.
  static func endOfClass<Characters: RandomAccessCollection<Unicode.Scalar>>(
    _ characters: Characters, from start: Int
  ) -> Int? where Characters.Index == Int {
    var cursor = start
    if cursor < characters.endIndex, characters[cursor] == "^" { cursor += 1 }
    if cursor < characters.endIndex, characters[cursor] == "]" { cursor += 1 }
    while cursor < characters.endIndex, characters[cursor] != "]" {
      cursor += characters[cursor] == "\\" ? 2 : 1
    }
    return cursor < characters.endIndex ? cursor : nil
  }
}
