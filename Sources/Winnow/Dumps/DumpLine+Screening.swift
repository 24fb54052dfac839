#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// What ``ModerationEngine/screen(dumpLine:inPlace:)`` knows of a line that passes in place: how reading
/// it would take it.
@_spi(Tools) public struct CleanDumpLine: Sendable, Hashable {
  /// The format ``DumpLine/init(utf8:)`` reads the line as.
  public var format: DumpFormat
  /// Whether the line's item is an original message, an extension update or an edit.
  public var sourceType: SourceType

  /// A clean line's format and kind.
  public init(format: DumpFormat, sourceType: SourceType) {
    self.format = format
    self.sourceType = sourceType
  }
}

/// What ``ModerationEngine/screen(dumpLine:inPlace:)`` makes of a dump line.
@_spi(Tools) public enum ScreenedDumpLine: Sendable {
  /// Passed with nothing found, known without building the line's item: its format and kind.
  case clean(CleanDumpLine)
  /// Passed with nothing found, known in place, with the item reading would make of the line
  /// (asked for with `itemsOfClean`, for a scan that counts every sender's messages). Indirect,
  /// as the result of ``screened(_:format:platformFlagged:)`` is.
  indirect case cleanItem(CleanDumpLine, MessageItem)
  /// Read and screened: the result (which holds the item), the format the line was read as,
  /// and a history log's `isSensitiveWord` (``DumpLine/platformFlagged``). Indirect: the
  /// result is large, and held inline it made every clean line's answer as large, copied by
  /// `memcpy` on its way out (2% of a scan's instructions).
  indirect case screened(ModerationResult, format: DumpFormat, platformFlagged: Bool?)
}

/// What the in-place check of a line found in a text, handed to the full screen of the line
/// so that the text is not scanned twice: the matcher's serial number, the text's bytes and
/// the report (every match, `kind` nil).
struct FoundText: Sendable {
  var matcher: UInt64
  var text: [UInt8]
  var report: MatchReport

  /// The report, when it is this matcher's for this text.
  func report(of text: String, by matcher: Matcher) -> MatchReport? {
    guard matcher.serial == self.matcher else { return nil }
    var text = text
    let isSame = text.withUTF8 { bytes in
      self.text.withUnsafeBufferPointer { found in
        // SAFETY: both buffers hold `bytes.count` bytes (checked first).
        bytes.count == found.count
          && (bytes.isEmpty || memcmp(bytes.baseAddress!, found.baseAddress!, bytes.count) == 0)
      }
    }
    return isSame ? report : nil
  }
}

extension ModerationEngine {
  /// Screens one line of a dump (without its newline): the one door of `winnow scan`.
  ///
  /// With `inPlace` (the default), the line is first checked in place, without building its
  /// item: a line whose message passes the word lists of its app with nothing found, as almost
  /// every line of a dump does, gives ``ScreenedDumpLine/clean(_:)``. Any other line is read
  /// (``DumpLine/init(utf8:)``) and its item screened (``screen(_:)``); what the check found in
  /// a text is handed to the screen, which does not scan that text again. Without `inPlace`
  /// every line is read and screened (`scan --all`, which writes every line's result). With a
  /// scorer (``ModerationEngine/Configuration/scoring``), a line is clean only if each of its
  /// texts also scores under the review threshold.
  ///
  /// A clean answer is given only for a line that reading takes in that format, as an item of
  /// that ``SourceType``, and that screening passes with no match and no warning (the fuzz
  /// target and the screening tests hold the two roads to each other).
  ///
  /// With `itemsOfClean` (`scan --offenders`, which counts every message of each sender), a
  /// clean line's answer also holds its item, ``ScreenedDumpLine/cleanItem(_:_:)``: made from
  /// the members the check found, for item JSON; a clean line of another format is read and
  /// screened.
  /// - Throws: ``ItemError`` for a line that is not an item, or whose content is over the size
  ///   limit or malformed.
  @_spi(Tools) public func screen(
    dumpLine line: UnsafeBufferPointer<UInt8>, inPlace: Bool = true, itemsOfClean: Bool = false
  ) throws(ItemError) -> ScreenedDumpLine {
    var found: FoundText? = nil
    if inPlace {
      let check = withUnsafeMutablePointer(to: &found) {
        checkInPlace(ofDumpLine: line, found: $0, makingItem: true, itemOfClean: itemsOfClean)
      }
      switch check {
      case .clean(let clean): return .clean(clean)
      case .cleanItem(let clean, let item): return .cleanItem(clean, item)
      case .item(let item):
        // Made from the members the check found (``MessageItem/init(itemMembers:)``): the
        // whole line parsed again into a tree, then looked up member by member, was a large
        // part of a matched line's cost (`Benchmarks/HISTORY.md`).
        return .screened(try screen(item, found: found), format: .item, platformFlagged: nil)
      case .unknown: break
      }
    }
    let read = try DumpLine(utf8: line)
    let (format, flagged) = (read.format, read.platformFlagged)
    return .screened(try screen(read.item, found: found), format: format, platformFlagged: flagged)
  }

  /// The in-place check alone, what it found dropped (for tests).
  func cleanLine(ofDumpLine line: UnsafeBufferPointer<UInt8>) -> CleanDumpLine? {
    var found: FoundText? = nil
    let check = withUnsafeMutablePointer(to: &found) { checkInPlace(ofDumpLine: line, found: $0, makingItem: false) }
    guard case .clean(let clean) = check else { return nil }
    return clean
  }

  /// What the in-place check of ``screen(dumpLine:inPlace:)`` makes of a line.
  enum InPlaceCheck {
    /// The line passes with nothing found: its format and kind.
    case clean(CleanDumpLine)
    /// The line, item JSON, passes with nothing found: its format and kind, and its item (asked
    /// for with `itemOfClean`).
    indirect case cleanItem(CleanDumpLine, MessageItem)
    /// Item JSON that does not pass, checked through to its content (every member reading
    /// looks at held as reading takes it): its item, read from the members found
    /// (``MessageItem/init(itemMembers:)``). Indirect, so that a clean line's answer stays small.
    indirect case item(MessageItem)
    /// Anything else: the line is left to reading.
    case unknown
  }

  /// The in-place check of ``screen(dumpLine:inPlace:)``: the format and kind of a dump line
  /// whose message passes the word lists with nothing found, decided without building its item.
  ///
  /// The line is checked as closely as reading it would (every byte of its JSON, every field's
  /// type); its user text is found by the same extraction rules and matched from the line's own
  /// bytes (content given as a string of JSON, as callback posts send it, is decoded first).
  /// Originals and edits (item JSON `"kind":"edit"`, callback posts with `originalMsgUID`) take
  /// the fields of their object name; extensions (item JSON `"kind":"extension"`) every key
  /// and string value under `put`. Anything unusual gives ``InPlaceCheck/unknown`` rather than
  /// a second reading of the rules: keys or names written with escapes, content that is not an
  /// object, callback extension updates (`extraContent` without content), object names that
  /// are not strings, and, in an engine with per-app lists, an app key (`appKey`, a history
  /// log's `appId`) that is not a plain string or null. The first text in which the matcher
  /// finds something is written to `found`. With `makingItem`, item JSON that does not pass
  /// gets its item (``InPlaceCheck/item(_:)``); with `itemOfClean`, item JSON that passes
  /// gets its item too (``InPlaceCheck/cleanItem(_:_:)``), and a clean line of another format
  /// is ``InPlaceCheck/unknown``.
  func checkInPlace(
    ofDumpLine line: UnsafeBufferPointer<UInt8>, found: UnsafeMutablePointer<FoundText?>, makingItem: Bool,
    itemOfClean: Bool = false
  ) -> InPlaceCheck {
    // The table of the line's members, on the stack (``LineMembers``).
    withUnsafeTemporaryAllocation(of: UInt64.self, capacity: LineKey.count) { table in
      guard let base = table.baseAddress else { return .unknown }
      table.initialize(repeating: 0)
      let members = LineMembers(base)
      var format: DumpFormat? = nil
      if let clean = cleanLine(ofDumpLine: line, found: found, members: members, format: &format) {
        guard itemOfClean else { return .clean(clean) }
        guard clean.format == .item, let item = Self.item(of: line, members: members) else { return .unknown }
        return .cleanItem(clean, item)
      }
      guard makingItem, format == .item, let item = Self.item(of: line, members: members) else { return .unknown }
      return .item(item)
    }
  }

  /// The item of a line of item JSON whose members the check found, as reading makes it (nil
  /// if a member does not parse, which the check has made impossible).
  private static func item(of line: UnsafeBufferPointer<UInt8>, members: LineMembers) -> MessageItem? {
    let body = UnsafeBufferPointer(rebasing: line[DumpLine.body(of: line).range])
    var failed = false
    let item = withUnsafeMutablePointer(to: &failed) { failed in
      try? MessageItem(itemMembers: ParsedRanges(members: members, body: body, failed: failed))
    }
    return failed ? nil : item
  }

  /// ``checkInPlace(ofDumpLine:found:makingItem:)`` with an empty table of the line's members; `format`
  /// is set once the line is checked through to its content.
  private func cleanLine(
    ofDumpLine line: UnsafeBufferPointer<UInt8>, found: UnsafeMutablePointer<FoundText?>, members: LineMembers,
    format checkedFormat: inout DumpFormat?
  ) -> CleanDumpLine? {
    let (range, prefixed) = DumpLine.body(of: line)
    // Member ranges are packed in 32-bit halves (``LineMembers``).
    guard !range.isEmpty, range.count < Int(UInt32.max) else { return nil }
    let body = UnsafeBufferPointer(rebasing: line[range])
    var parser = JSONParser(body)
    let screening = ContentScreening(bytes: body, matcher: defaultMatcher, found: found, scoring: scoringReference)
    // A text message's content object met after its `objectName` is checked as it is skipped:
    // skipped, then walked again to be checked, its every string was scanned twice. The answer
    // stands if, once the whole line is read, that object is the content and its rule is the
    // text message's; otherwise the content is checked as any other.
    var checkedContent: (range: Range<Int>, isClean: Bool)? = nil
    // With per-app lists, the app (and so the matcher) is known only once the line is read.
    let textTrie = hasApps ? nil : ContentExtractor.textMessagePathTrie
    do {
      parser.skipWhitespace()
      guard parser.position < body.count, body[parser.position] == UInt8(ascii: "{") else { return nil }
      checkedContent = try Self.walkMembers(&parser, members: members, screening: screening, textTrie: textTrie)
      parser.skipWhitespace()
      guard parser.position == body.count else { return nil }
    } catch { return nil }
    // Which format, kind, object name and content: the rules reading a line follows.
    let lookup = ByteLineMembers(members: members, body: body)
    let format = DumpLineRules.format(prefixed: prefixed, lookup)
    // Every member the format reads, as reading would take it (``DumpSchema``).
    let split = DumpSchema.split(of: format)
    let holds =
      members.holdText(split.textKeys, in: body) && members.holdNoPushText(split.pushKeys, in: body)
      && split.others.withUnsafeBufferPointer { schema in
        for member in schema where !screening.holds(member, members) { return false }
        return true
      }
    guard holds else { return nil }
    var sourceType = SourceType.original
    switch format {
    case .historyLog: break
    case .callback:
      // An extension update (`extraContent` alone) is left to reading.
      guard let kind = DumpLineRules.callbackKind(lookup), kind != .extension else { return nil }
      sourceType = kind
    case .item:
      guard let kind = screening.sourceType(members[.kind]) else { return nil }
      sourceType = kind
    }
    let objectName = screening.objectName(lookup.range(DumpLineRules.objectNameKey(format, lookup)))
    let content = lookup.range(DumpLineRules.contentKey(format, sourceType, lookup))
    guard let objectName, let content else { return nil }
    // The lists of the line's app, as ``matcher(for:)`` chooses them for its item.
    var contentScreening = screening
    if hasApps {
      guard let appKey = screening.appKey(format == .historyLog ? members[.appId] : members[.appKey]) else {
        return nil
      }
      contentScreening = ContentScreening(
        bytes: body, matcher: appKey.map(matcher(ofApp:)) ?? defaultMatcher, found: found,
        scoring: scoringReference)
    }
    let rule: ContentRule = sourceType == .extension ? .extension : .fields(objectName)
    checkedFormat = format
    switch body[content.lowerBound] {
    case UInt8(ascii: "{"):
      if let checkedContent, checkedContent.range == content, case .fields(let name) = rule,
        name == MessageItem.defaultObjectName,
        content.count <= configuration.extractor.contentLimit
      {
        return checkedContent.isClean ? CleanDumpLine(format: format, sourceType: sourceType) : nil
      }
      return isClean(content, by: rule, contentScreening) ? CleanDumpLine(format: format, sourceType: sourceType) : nil
    case UInt8(ascii: "\""):
      // A string holding the content's JSON, as callback posts send it.
      var parser = contentScreening.checkedParser(at: content.lowerBound)
      guard var text = try? parser.parseString() else { return nil }
      let clean = text.withUTF8 { json in
        var parser = JSONParser(json)
        do {
          parser.skipWhitespace()
          let start = parser.position
          guard start < json.count, json[start] == UInt8(ascii: "{") else { return false }
          try parser.skipValue(depth: 0)
          parser.skipWhitespace()
          guard parser.position == json.count else { return false }
          let inner = ContentScreening(
            bytes: json, matcher: contentScreening.matcher, found: found, scoring: contentScreening.scoring)
          return isClean(start..<json.count, by: rule, inner)
        } catch { return false }
      }
      return clean ? CleanDumpLine(format: format, sourceType: sourceType) : nil
    default:
      return nil
    }
  }

  /// Moves past the line's object at `parser` (its `{`), noting its members in `members`, and
  /// checks a text message's content object met after its `objectName` as it goes (with
  /// `textTrie`): that object's range and whether it passed, or nil when none was checked.
  /// Throws ``JSONParseError/unsure`` for a key written with escapes.
  ///
  /// The members are walked in this function's own loop (``JSONParser/enterObject(depth:)``),
  /// not by a closure per member, whose call and arguments were a tenth of a clean line's JSON.
  @inline(never)
  private static func walkMembers(
    _ parser: inout JSONParser, members: LineMembers, screening: ContentScreening, textTrie: UnsafeBufferPointer<UInt8>?
  ) throws(JSONParseError) -> (range: Range<Int>, isClean: Bool)? {
    let body = parser.bytes
    var checkedContent: (range: Range<Int>, isClean: Bool)? = nil
    var more = try parser.enterObject(depth: 1)
    while more {
      // A key's name (``LineKey/plainName(in:at:)``), or any other string.
      let key: LineKey?
      if let (plain, length) = LineKey.plainName(in: body, at: parser.position &+ 1) {
        key = plain
        parser.position &+= length &+ 2
      } else {
        let string = try parser.skipString()
        guard !string.isEscaped else { throw .unsure }
        key = LineKey.named(UnsafeBufferPointer(rebasing: body[string.text]))
      }
      try parser.enterValue()
      let start = parser.position
      if let textTrie, key == .content, checkedContent == nil, start < body.count,
        body[start] == UInt8(ascii: "{"), let objectName = members[.objectName],
        isTextMessageName(UnsafeBufferPointer(rebasing: body[objectName]))
      {
        let clean = try screening.skipObject(&parser, depth: 1, checkingPathsOf: textTrie)
        checkedContent = (start..<parser.position, clean)
      } else if start < body.count && body[start] == UInt8(ascii: "\"") {
        // Most values are strings: skipped here, as `skipValue` skips them, without its call.
        _ = try parser.skipString()
      } else {
        try parser.skipValue(depth: 1)
      }
      if let key { members.note(key, start..<parser.position) }
      more = try parser.nextMember()
    }
    return checkedContent
  }

  /// Whether `bytes` are a JSON string of ``MessageItem/defaultObjectName`` written without
  /// escapes.
  @inline(__always)
  fileprivate static func isTextMessageName(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    let name = MessageItem.defaultObjectNameText
    let count = name.utf8CodeUnitCount
    guard let base = bytes.baseAddress, bytes.count == count + 2, bytes[0] == UInt8(ascii: "\""),
      bytes[count + 1] == UInt8(ascii: "\"")
    else { return false }
    // SAFETY: `bytes` holds the name's count and two more (checked above).
    return memcmp(name.utf8Start, base + 1, count) == 0
  }

  /// Which fields of a content object are user text: those of an object name's rule, or an
  /// extension's keys and values under `put`.
  private enum ContentRule {
    case fields(String)
    case `extension`
  }

  /// Whether content (an object, at the start of `content`) has nothing for the matcher in the
  /// fields the extraction rules find by `rule`.
  private func isClean(_ content: Range<Int>, by rule: ContentRule, _ screening: ContentScreening) -> Bool {
    // The content's compact size is at most its bytes as written (escapes and white space only
    // shrink), so content within the limit as written is within it as read.
    guard content.count <= configuration.extractor.contentLimit else { return false }
    guard case .fields(let objectName) = rule else { return screening.isCleanExtension(at: content.lowerBound) }
    // Read before the closure, which then does not capture the engine: captured, the engine
    // (one object that every scanning thread shares) was retained and released for every line.
    let skipsUnknown = configuration.extractor.unknownTypes == .skip
    return configuration.extractor.withPathTrie(for: objectName) { known, trie in
      guard known else { return skipsUnknown || screening.isCleanEverywhere(at: content.lowerBound) }
      guard let trie else { return true }
      return screening.isClean(at: content.lowerBound, trie: trie)
    }
  }
}

extension JSONParseError {
  /// Thrown from a skip's callback to stop it: the line is not known to pass (the screening
  /// gives false for any error).
  fileprivate static let unsure = JSONParseError(message: "not known to pass", offset: 0)
}

/// The value ranges of the members of a line that reading it looks at (``LineKey``), the last
/// of each name as lookups find it. Each range is packed in one word (its end in the high half,
/// 0 for a member the line lacks: a value is never empty): as optional ranges the table was
/// three times as large, and setting it up and copying it cost 2% of a clean line's check.
/// The table is on the stack of ``ModerationEngine/checkInPlace(ofDumpLine:found:makingItem:)``, which holds
/// it for the whole check: this value is where it is, so passing it copies one word (held
/// inline, its 240 bytes were copied for every reader). Lines of 4 GiB or more are left to
/// reading.
private struct LineMembers {
  /// ``LineKey/count`` words, zero for a member the line lacks.
  private let ranges: UnsafeMutablePointer<UInt64>

  /// The table at `ranges`, ``LineKey/count`` words set to zero.
  init(_ ranges: UnsafeMutablePointer<UInt64>) { self.ranges = ranges }

  /// The value's bytes of the member, if the line has it.
  @inline(__always)
  subscript(key: LineKey) -> Range<Int>? {
    let packed = ranges[key.rawValue]
    return packed == 0 ? nil : Int(packed & 0xFFFF_FFFF)..<Int(packed >> 32)
  }

  /// Whether `holds` is true of each member of `keys` (bits of ``LineKey`` raw values) that
  /// the line has, given where its value's bytes begin and how many there are.
  @inline(__always)
  private func allPresent(_ keys: UInt64, _ holds: (_ start: Int, _ count: Int) -> Bool) -> Bool {
    var keys = keys
    while keys != 0 {
      let packed = ranges[keys.trailingZeroBitCount]
      keys &= keys &- 1
      guard packed != 0 else { continue }
      let start = Int(truncatingIfNeeded: packed & 0xFFFF_FFFF)
      if !holds(start, Int(truncatingIfNeeded: packed &>> 32) &- start) { return false }
    }
    return true
  }

  /// Whether each member of `keys` (bits of ``LineKey`` raw values) that the line has is text
  /// as reading takes it (``MessageItem/text(_:_:)``): a string, a number, a boolean or null,
  /// not an object or array.
  @inline(__always)
  func holdText(_ keys: UInt64, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    allPresent(keys) { start, _ in bytes[start] != UInt8(ascii: "{") && bytes[start] != UInt8(ascii: "[") }
  }

  /// Whether each member of `keys` (bits of ``LineKey`` raw values) that the line has holds no
  /// push text as ``ContentScreening/holds(_:_:)`` takes a ``MemberKind/push`` member: `""` or
  /// `null` (a line with push text is read and screened in full).
  @inline(__always)
  func holdNoPushText(_ keys: UInt64, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    allPresent(keys) { start, count in
      (count == 2 && bytes[start] == UInt8(ascii: "\"")) || (count == 4 && bytes[start] == UInt8(ascii: "n"))
    }
  }

  /// Notes the member `key`, whose value's bytes are `value`, within a line shorter than 4 GiB.
  @inline(__always)
  func note(_ key: LineKey, _ value: Range<Int>) {
    ranges[key.rawValue] =
      UInt64(truncatingIfNeeded: value.upperBound) << 32 | UInt64(truncatingIfNeeded: value.lowerBound)
  }
}

/// The members of a checked line, each parsed from its bytes when reading an item looks at it,
/// as parsing the whole line parses it (a value of the line's object, at depth 1). The check
/// has read every byte of the line's JSON, so a parse does not fail; one that did would be
/// written to `failed`, and the item not taken. Parsed into a table of every member first, the
/// table's allocation and destruction cost more than the parsing (`Benchmarks/HISTORY.md`).
private struct ParsedRanges: ItemMemberReading {
  let members: LineMembers
  let body: UnsafeBufferPointer<UInt8>
  let failed: UnsafeMutablePointer<Bool>

  subscript(key: LineKey) -> JSONValue? {
    guard let range = members[key] else { return nil }
    var parser = JSONParser(body)
    parser.position = range.lowerBound
    // The check has checked the line's UTF-8.
    parser.checksUTF8 = false
    do { return try parser.parseValue(depth: 1) } catch {
      failed.pointee = true
      return nil
    }
  }

  /// Whether the line has the member, without parsing it.
  func has(_ key: LineKey) -> Bool { members[key] != nil }
}

/// A line's members as byte ranges of its body, for ``DumpLineRules``.
private struct ByteLineMembers: LineMemberLookup {
  let members: LineMembers
  let body: UnsafeBufferPointer<UInt8>

  /// The value's bytes of the member (the last of its name).
  @inline(__always)
  func range(_ key: LineKey) -> Range<Int>? { members[key] }

  func has(_ key: LineKey) -> Bool { range(key) != nil }

  func isNull(_ key: LineKey) -> Bool {
    guard let range = range(key) else { return false }
    return body[range].elementsEqual("null".utf8)
  }

  func isEmptyString(_ key: LineKey) -> Bool {
    guard let range = range(key) else { return false }
    return range.count == 2 && body[range.lowerBound] == UInt8(ascii: "\"")
  }
}

/// Checks on one line's bytes, already checked as JSON.
private struct ContentScreening {
  let bytes: UnsafeBufferPointer<UInt8>
  /// Not retained. Every closure over a screening retained and released it, and with two
  /// scanning threads both wrote the one matcher's reference count, moving its cache line
  /// between cores on every string.
  /// SAFETY: a screening lives only inside ``ModerationEngine/checkInPlace(ofDumpLine:found:makingItem:)``,
  /// whose engine holds the matcher.
  unowned(unsafe) let matcher: Matcher
  /// Where the first text the matcher finds something in is written, for the full screen.
  let found: UnsafeMutablePointer<FoundText?>
  /// The engine's scorer, if any: a text it scores at or over the review threshold is not
  /// clean (the full screen scores it again and decides). Not retained, as ``matcher``.
  unowned(unsafe) let scoring: ScoringReference?

  /// A parser at `position` of the line, which does not check its strings' UTF-8 again (the
  /// whole line's was).
  func checkedParser(at position: Int) -> JSONParser {
    var parser = JSONParser(bytes)
    parser.position = position
    parser.checksUTF8 = false
    return parser
  }

  /// Whether the line's value of `member`, if it has one, is one reading takes as the
  /// member's kind (push text: none, which the check requires).
  @inline(__always)
  func holds(_ member: DumpSchema.Member, _ members: LineMembers) -> Bool {
    let range = members[member.key]
    switch member.kind {
    // Text and push text: the rules of the masks the check takes such members by
    // (``DumpSchema/split(of:)``).
    case .text: return members.holdText(1 << UInt64(member.key.rawValue), in: bytes)
    case .userIds: return userIdsAreText(range)
    case .conversationType: return isConversationType(range)
    case .time: return isTime(range)
    case .timeOr(let fallback): return isTime(range ?? members[fallback])
    case .logTimeOr(let fallback): return hasLogTime(range, members[fallback])
    case .push:
      return members.holdNoPushText(1 << UInt64(member.key.rawValue), in: bytes)
    }
  }

  /// A history log's time as reading takes it: `timestamp` in Unix milliseconds, else
  /// `dateTime` as `yyyy-MM-dd HH:mm:ss.SSS`, else none.
  func hasLogTime(_ timestamp: Range<Int>?, _ dateTime: Range<Int>?) -> Bool {
    if let timestamp, bytes[timestamp.lowerBound] != UInt8(ascii: "n") {
      return isTime(timestamp)
    }
    return parses(dateTime) { v throws(ItemError) in
      guard let text = v.stringValue, DumpLine.milliseconds(fromLogDateTime: text) != nil else {
        throw ItemError(.invalidField("dateTime", "yyyy-MM-dd HH:mm:ss.SSS"))
      }
    }
  }

  /// The kind of item JSON: original when `kind` is absent, else the kind its string names
  /// without escapes (nil for anything else).
  func sourceType(_ kind: Range<Int>?) -> SourceType? {
    guard let kind else { return .original }
    // The name read as reading reads it (``SourceType/init(kindName:)``); a name written with
    // escapes is left to reading.
    var parser = checkedParser(at: kind.lowerBound)
    guard bytes[kind.lowerBound] == UInt8(ascii: "\""), let text = try? parser.skipString(), !text.isEscaped else {
      return nil
    }
    return SourceType(kindName: String(decoding: UnsafeBufferPointer(rebasing: bytes[text.text]), as: UTF8.self))
  }

  /// `toUserIds` absent, null, a string, or an array of strings, numbers and booleans.
  func userIdsAreText(_ range: Range<Int>?) -> Bool {
    guard let range else { return true }
    switch bytes[range.lowerBound] {
    case UInt8(ascii: "n"), UInt8(ascii: "\""): return true
    case UInt8(ascii: "["):
      var parser = checkedParser(at: range.lowerBound)
      do {
        try parser.skipArray(depth: 1) { element throws(JSONParseError) in
          switch bytes[element.lowerBound] {
          case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "n"): throw .unsure
          default: break
          }
        }
      } catch { return false }
      return true
    default: return false
    }
  }

  /// A conversation type, if present, as reading takes it (``MessageItem/conversationType(_:field:)``).
  func isConversationType(_ range: Range<Int>?) -> Bool {
    if let range, let number = digits(range) { return ConversationType(rawValue: Int(number)) != nil }
    return parses(range) { value throws(ItemError) in _ = try MessageItem.conversationType(value) }
  }

  /// A time, if present, as reading takes it (``MessageItem/time(_:field:)``).
  func isTime(_ range: Range<Int>?) -> Bool {
    if let range, PlainDigits.are(in: bytes, range) { return true }
    return parses(range) { value throws(ItemError) in _ = try MessageItem.time(value, field: "time") }
  }

  /// The value of a number of 1 to 18 digits, or of a string of them (``PlainDigits``).
  private func digits(_ range: Range<Int>) -> Int64? { PlainDigits.value(in: bytes, range) }

  /// A field, if present, read as a value that `check` accepts (the same check reading does).
  func parses(_ range: Range<Int>?, as check: (JSONValue) throws(ItemError) -> Void) -> Bool {
    guard let range else { return true }
    guard let value = try? JSONValue(parsingUTF8: UnsafeBufferPointer(rebasing: bytes[range])) else { return false }
    do { try check(value) } catch { return false }
    return true
  }

  /// The object name: `RC:TxtMsg` when absent or null, the string when it is one without
  /// escapes, else nil (not known).
  /// An app key as reading takes it: nil (the default lists) when the member is absent or
  /// null, its text when it is a plain string; nil for anything else (a number or an escaped
  /// string, left to reading).
  func appKey(_ range: Range<Int>?) -> String?? {
    guard let range, bytes[range.lowerBound] != UInt8(ascii: "n") else { return .some(nil) }
    var parser = checkedParser(at: range.lowerBound)
    guard bytes[range.lowerBound] == UInt8(ascii: "\""), let text = try? parser.skipString(), !text.isEscaped else {
      return nil
    }
    return .some(String(decoding: UnsafeBufferPointer(rebasing: bytes[text.text]), as: UTF8.self))
  }

  func objectName(_ range: Range<Int>?) -> String? {
    guard let range, bytes[range.lowerBound] != UInt8(ascii: "n") else { return MessageItem.defaultObjectName }
    // Most lines are text messages: their name is the shared string, not one decoded again
    // (validating and building it cost about 170 instructions a line).
    if ModerationEngine.isTextMessageName(UnsafeBufferPointer(rebasing: bytes[range])) {
      return MessageItem.defaultObjectName
    }
    var parser = checkedParser(at: range.lowerBound)
    guard bytes[range.lowerBound] == UInt8(ascii: "\""), let text = try? parser.skipString(), !text.isEscaped else {
      return nil
    }
    return String(decoding: UnsafeBufferPointer(rebasing: bytes[text.text]), as: UTF8.self)
  }

  /// Whether every string the field paths of `trie` lead to from the value at `position` has
  /// nothing for the matcher, as ``ContentExtractor/fields(of:)`` finds them: the one walk of
  /// ``PathTrie``, over the line's bytes.
  func isClean(at position: Int, trie: UnsafeBufferPointer<UInt8>) -> Bool {
    var nothing: Void = ()
    do { try PathTrie(bytes: trie).walk(.at(position), from: 0, with: self, into: &nothing) } catch { return false }
    return true
  }

  /// Moves `parser` past the object at its position, checked as skipping a value at `depth`
  /// checks it, and says whether ``isClean(at:trie:)`` holds for it: the two in one walk
  /// (the object's members are the walk's first step).
  func skipObject(
    _ parser: inout JSONParser, depth: Int, checkingPathsOf trie: UnsafeBufferPointer<UInt8>
  ) throws(JSONParseError) -> Bool {
    let paths = PathTrie(bytes: trie)
    let hasKeys = paths.hasKeys(0)
    var clean = true
    var nothing: Void = ()
    try parser.skipObject(depth: depth + 1) { key, value, string throws(JSONParseError) in
      guard clean, hasKeys else { return }
      guard !key.isEscaped else {
        clean = false
        return
      }
      guard let next = paths.child(of: 0, key: UnsafeBufferPointer(rebasing: bytes[key.text])) else { return }
      do {
        try paths.walk(string.map { .string($0) } ?? .at(value.lowerBound), from: next, with: self, into: &nothing)
      } catch {
        clean = false
      }
    }
    return clean
  }

  /// Whether every string value (not key) inside the value at `position` has nothing for the
  /// matcher.
  func isCleanEverywhere(at position: Int) -> Bool {
    var parser = checkedParser(at: position)
    do {
      switch bytes[position] {
      case UInt8(ascii: "\""):
        return isClean(try parser.skipString())
      case UInt8(ascii: "{"):
        try parser.skipObject(depth: 1) { _, value throws(JSONParseError) in
          guard isCleanEverywhere(at: value.lowerBound) else { throw .unsure }
        }
      case UInt8(ascii: "["):
        try parser.skipArray(depth: 1) { element throws(JSONParseError) in
          guard isCleanEverywhere(at: element.lowerBound) else { throw .unsure }
        }
      default:
        break
      }
    } catch { return false }
    return true
  }

  /// Whether an extension's content (an object, at `position`) has nothing for the matcher in
  /// what ``ContentExtractor/fields(of:)`` takes from it: under every member named `put`, which
  /// must be an object, each key and every string value inside its value.
  func isCleanExtension(at position: Int) -> Bool {
    var parser = checkedParser(at: position)
    do {
      try parser.skipObject(depth: 1) { key, value throws(JSONParseError) in
        guard !key.isEscaped else { throw .unsure }
        guard bytes[key.text].elementsEqual("put".utf8) else { return }
        guard bytes[value.lowerBound] == UInt8(ascii: "{") else { throw .unsure }
        var put = checkedParser(at: value.lowerBound)
        try put.skipObject(depth: 1) { key, value throws(JSONParseError) in
          guard isClean(key), isCleanEverywhere(at: value.lowerBound) else { throw .unsure }
        }
      }
    } catch { return false }
    return true
  }

  /// Whether the matcher finds nothing, and warns of nothing, in a string's text.
  private func isClean(_ string: (text: Range<Int>, isEscaped: Bool)) -> Bool {
    guard string.isEscaped else {
      let text = UnsafeBufferPointer(rebasing: bytes[string.text])
      return findsNothing(in: text) && (scoring == nil || scoresLow(text))
    }
    var parser = checkedParser(at: string.text.lowerBound - 1)
    guard var text = try? parser.parseString() else { return false }
    return text.withUTF8 { findsNothing(in: $0) && (scoring == nil || scoresLow($0)) }
  }

  /// Whether the scorer scores `text` under its review threshold, reading the matcher's
  /// normalization of it where it can (``findsNothing(in:)`` has just scanned it).
  @inline(never)
  private func scoresLow(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
    scoring?.scoresUnderReview(text, justScannedBy: matcher) ?? true
  }

  /// Whether the matcher finds nothing, and warns of nothing, in `text`; when it does find
  /// something, the report is written to ``found`` (once: the check stops at the first). The
  /// matcher is called as a guaranteed reference: a call on the unowned reference itself
  /// retained and released the matcher around it, on every string a scan checks.
  @inline(__always)
  private func findsNothing(in text: UnsafeBufferPointer<UInt8>) -> Bool {
    // SAFETY: as for `matcher`, the engine holds the matcher for the whole screening.
    Unmanaged.passUnretained(matcher)._withUnsafeGuaranteedRef { matcher in
      guard let report = matcher.findings(inUTF8: text) else { return true }
      if found.pointee == nil {
        found.pointee = FoundText(matcher: matcher.serial, text: Array(text), report: report)
      }
      return false
    }
  }
}

/// The in-place reading of content on ``PathTrie/walk(_:from:with:into:)``: a value is a
/// position in the line, or a string a skip has already read; a string where a path ends must
/// have nothing for the matcher, and an escaped key makes the walk unsure.
extension ContentScreening: PathWalker {
  enum Value {
    case at(Int)
    case string((text: Range<Int>, isEscaped: Bool))
  }

  @inline(__always)
  func visitEnd(_ value: Value, node: Int, into output: inout Void) throws(JSONParseError) {
    switch value {
    case .string(let string):
      guard isClean(string) else { throw .unsure }
    case .at(let position):
      guard bytes[position] == UInt8(ascii: "\"") else { return }
      var parser = checkedParser(at: position)
      guard isClean(try parser.skipString()) else { throw .unsure }
    }
  }

  @inline(__always)
  func forEachMember(
    of value: Value, on child: (UnsafeBufferPointer<UInt8>) -> Int?,
    _ body: (Int, Value) throws(JSONParseError) -> Void
  ) throws(JSONParseError) {
    guard case .at(let position) = value, bytes[position] == UInt8(ascii: "{") else { return }
    var parser = checkedParser(at: position)
    // A string on a path is checked from the skip's own reading of it: read again from its
    // position (as other values are), the text was scanned twice.
    try parser.skipObject(depth: 1) { key, value, string throws(JSONParseError) in
      guard !key.isEscaped else { throw .unsure }
      guard let next = child(UnsafeBufferPointer(rebasing: bytes[key.text])) else { return }
      try body(next, string.map { .string($0) } ?? .at(value.lowerBound))
    }
  }

  @inline(__always)
  func forEachElement(of value: Value, _ body: (Value) throws(JSONParseError) -> Void) throws(JSONParseError) {
    guard case .at(let position) = value, bytes[position] == UInt8(ascii: "[") else { return }
    var parser = checkedParser(at: position)
    try parser.skipArray(depth: 1) { item throws(JSONParseError) in try body(.at(item.lowerBound)) }
  }
}

/// A number of 1 to 18 digits, or a string of them without escapes, at a range of a line: what
/// `Int64(text)` reads from either (18 digits never overflow); any other value is left to
/// reading. Times and conversation types are written so in almost every line, and building a
/// value to read them was a twentieth of a scan.
enum PlainDigits {
  /// The digits' value, or nil when the range holds something else.
  static func value(in bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int64? {
    guard let digits = span(in: bytes, range) else { return nil }
    var value: Int64 = 0
    for index in digits {
      let digit = bytes[index] &- UInt8(ascii: "0")
      guard digit < 10 else { return nil }
      value = value &* 10 &+ Int64(digit)
    }
    return value
  }

  /// Whether ``value(in:_:)`` has a value, eight bytes at a time: a time's thirteen digits were
  /// read one by one on every line.
  static func are(in bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
    guard let digits = span(in: bytes, range), let base = bytes.baseAddress else { return false }
    let raw = UnsafeRawPointer(base)
    var index = digits.lowerBound
    while digits.upperBound &- index >= 8 {
      // SAFETY: the eight bytes are inside `digits`, inside `bytes`.
      let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
      guard JSONParser.nonDigitBytes(in: word) == 0 else { return false }
      index &+= 8
    }
    while index < digits.upperBound {
      guard bytes[index] &- UInt8(ascii: "0") < 10 else { return false }
      index &+= 1
    }
    return true
  }

  /// The bytes of the digits: the range, or inside its quotes; nil when empty or longer than 18.
  @inline(__always)
  private static func span(in bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Range<Int>? {
    guard !range.isEmpty, range.upperBound <= bytes.count else { return nil }
    var (start, end) = (range.lowerBound, range.upperBound)
    if bytes[start] == UInt8(ascii: "\"") {
      start += 1
      end -= 1
    }
    guard start < end, end - start <= 18 else { return nil }
    return start..<end
  }
}
