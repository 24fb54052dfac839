import Winnow

/// Counts of a scan, mergeable across batches: every line read lands in exactly one of
/// passed, replaced, blocked and errors.
struct ScanTally: Sendable {
  var read = 0
  var passed = 0
  var replaced = 0
  var blocked = 0
  var errors = 0
  var bytes = 0
  /// Blocked items by block type 1–3.
  var byBlockType = [0, 0, 0, 0]
  /// Items read, and flagged (blocked or replaced), by source type 0–2.
  var readBySourceType = [0, 0, 0]
  var flaggedBySourceType = [0, 0, 0]
  /// Lines by format, in the order of `DumpFormat.allCases` (an array: hashing the format of
  /// every line was a hundredth of a scan).
  var byFormat = [Int](repeating: 0, count: DumpFormat.allCases.count)
  /// Matches by list (file name) and by entry, counted by where the entry is written (see
  /// ``EntrySite``) and named only when asked.
  var byList: [String: Int] { Self.merged(bySite.values.map { (Self.shortName($0.list), $0.count) }) }
  var byEntry: [EntryKey: Int] {
    Self.merged(
      bySite.values.map { counted in
        let entry = counted.entry
        let list = Self.shortName(counted.list)
        let place = entry.source.map { "\(Self.shortName($0.file)):\($0.line)" } ?? list
        return (EntryKey(text: (entry.kind == .regex ? "re:" : "") + entry.text, place: place), counted.count)
      })
  }
  private var bySite: [EntrySite: (entry: Entry, list: String, count: Int)] = [:]

  struct EntryKey: Hashable, Sendable {
    var text: String
    var place: String
  }

  /// An entry by its file and line (its text only when it has no source): hashing the text of
  /// every match, and building its name, was a twentieth of a scan of a dump with many matches.
  private struct EntrySite: Hashable {
    var list: String
    var file: String?
    var line: Int
    var text: String

    /// The line and the lengths only: hashing the list's and file's paths for every match was
    /// most of counting one. Sites that share them (the same line of two files) are told apart
    /// by `==`, which compares everything.
    func hash(into hasher: inout Hasher) {
      hasher.combine(line)
      hasher.combine(list.utf8.count)
      hasher.combine(file?.utf8.count ?? -1)
      hasher.combine(text.utf8.count)
    }
  }

  private static func merged<Key: Hashable>(_ counts: [(Key, Int)]) -> [Key: Int] {
    Dictionary(counts, uniquingKeysWith: +)
  }

  mutating func add(_ line: DumpLine, _ result: ModerationResult) {
    read += 1
    switch result.verdict {
    case .pass: passed += 1
    case .replaced: replaced += 1
    case .blocked: blocked += 1
    }
    if let blockType = result.blockType { byBlockType[blockType.rawValue] += 1 }
    let source = line.item.sourceType.rawValue
    readBySourceType[source] += 1
    if result.verdict != .pass { flaggedBySourceType[source] += 1 }
    byFormat[Self.formatIndex(line.format)] += 1
    for match in result.matches {
      let entry = match.match.entry
      let site = EntrySite(
        list: match.match.list, file: entry.source?.file, line: entry.source?.line ?? 0,
        text: entry.source == nil ? entry.text : "")
      bySite[site, default: (entry, match.match.list, 0)].count += 1
    }
  }

  /// Counts what ``add(_:_:)`` counts for a line that passed with nothing found.
  mutating func addClean(_ line: CleanDumpLine) {
    read += 1
    passed += 1
    readBySourceType[line.sourceType.rawValue] += 1
    byFormat[Self.formatIndex(line.format)] += 1
  }

  mutating func addError() {
    read += 1
    errors += 1
  }

  mutating func merge(_ other: ScanTally) {
    read += other.read
    passed += other.passed
    replaced += other.replaced
    blocked += other.blocked
    errors += other.errors
    bytes += other.bytes
    for index in 0..<4 { byBlockType[index] += other.byBlockType[index] }
    for index in 0..<3 {
      readBySourceType[index] += other.readBySourceType[index]
      flaggedBySourceType[index] += other.flaggedBySourceType[index]
    }
    for index in byFormat.indices { byFormat[index] += other.byFormat[index] }
    bySite.merge(other.bySite) { mine, theirs in (mine.entry, mine.list, mine.count + theirs.count) }
  }

  /// The `count` greatest of `elements` by `precedes` (a strict order: `precedes(a, b)` when
  /// `a` comes first), in order: what sorting all of them and taking a prefix gives, without
  /// sorting all of them (a dump's thousands of entries for a top ten).
  static func top<Element>(_ count: Int, of elements: some Sequence<Element>, by precedes: (Element, Element) -> Bool)
    -> [Element]
  {
    var top: [Element] = []
    top.reserveCapacity(count + 1)
    for element in elements {
      if top.count == count, let last = top.last, !precedes(element, last) { continue }
      let index = top.firstIndex { precedes(element, $0) } ?? top.endIndex
      top.insert(element, at: index)
      if top.count > count { top.removeLast() }
    }
    return top
  }

  static func formatIndex(_ format: DumpFormat) -> Int {
    switch format {
    case .item: 0
    case .historyLog: 1
    case .callback: 2
    }
  }

  static func shortName(_ path: String) -> String {
    ModerationEngine.shortName(ofList: path)
  }

  /// The summary for standard error.
  func summary(seconds: Double, jobs: Int) -> String {
    var lines = [
      "winnow scan: \(read) lines read = \(passed) passed + \(replaced) replaced + \(blocked) blocked + \(errors) errors"
    ]
    let megabytes = Double(bytes) / 1_000_000
    let rate = seconds > 0 ? megabytes / seconds : 0
    let messages = seconds > 0 ? Double(read) / seconds : 0
    lines.append(
      "  \(format(megabytes, 2)) MB in \(format(seconds, 2)) s: \(format(rate, 1)) MB/s, "
        + "\(Int(messages.rounded())) messages/s (jobs \(jobs))")
    lines.append(
      "  blocked by blockType: 1 global \(byBlockType[1]), 2 custom \(byBlockType[2]), 3 third-party \(byBlockType[3])")
    let names = ["original", "extension", "edit"]
    lines.append(
      "  by sourceType (read/flagged): "
        + (0..<3).map { "\($0) \(names[$0]) \(readBySourceType[$0])/\(flaggedBySourceType[$0])" }.joined(
          separator: ", "))
    let formats = DumpFormat.allCases.filter { byFormat[Self.formatIndex($0)] > 0 }
    if !formats.isEmpty {
      lines.append(
        "  by format: "
          + formats.map { "\($0.rawValue) \(byFormat[Self.formatIndex($0)])" }.joined(separator: ", "))
    }
    let byList = self.byList
    if !byList.isEmpty {
      let lists = Self.top(10, of: byList) { ($1.value, $0.key) < ($0.value, $1.key) }
      lines.append("  matches by list: " + lists.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
    }
    let byEntry = self.byEntry
    if !byEntry.isEmpty {
      let entries = Self.top(10, of: byEntry) {
        ($1.value, $0.key.text, $0.key.place) < ($0.value, $1.key.text, $1.key.place)
      }
      lines.append(
        "  top entries: "
          + entries.map { "\(jsonString($0.key.text)) \($0.key.place) ×\($0.value)" }.joined(
            separator: ", "))
    }
    return lines.joined(separator: "\n") + "\n"
  }

  private func format(_ value: Double, _ digits: Int) -> String {
    let scale = [1.0, 10.0, 100.0, 1000.0][digits]
    let rounded = (value * scale).rounded() / scale
    var text = String(rounded)
    if let dot = text.firstIndex(of: ".") {
      let decimals = text.distance(from: dot, to: text.endIndex) - 1
      if decimals < digits { text += String(repeating: "0", count: digits - decimals) }
    } else if digits > 0 {
      text += "." + String(repeating: "0", count: digits)
    }
    return text
  }
}
