import Winnow

/// Counts of a scan, mergeable across batches: every line read lands in exactly one of
/// passed, replaced, blocked and errors.
struct ScanTally: Sendable {
  var read = 0
  var passed = 0
  var replaced = 0
  var blocked = 0
  var errors = 0
  /// Items whose check a regex's limits stopped (counted in their verdict's column too).
  var stopped = 0
  var bytes = 0
  /// Blocked items by block type 1–3.
  var byBlockType = [0, 0, 0, 0]
  /// Items read, and blocked or replaced, by source type 0–2.
  var readBySourceType = [0, 0, 0]
  var actedOnBySourceType = [0, 0, 0]
  /// Items delivered with a match of a review entry (counted as passed or replaced too).
  var flagged = 0
  /// Lines by format, in the order of `DumpFormat.allCases` (an array: hashing the format of
  /// every line was a hundredth of a scan).
  var byFormat = [Int](repeating: 0, count: DumpFormat.allCases.count)
  /// Matches by list (file name) and by entry, counted by where the entry is written (see
  /// ``Sites``) and named only when asked.
  ///
  /// A list's or file's short name is made once (a dump's scan counts thousands of sites, 18,000
  /// on the corpus dump, of a few lists and files), and so is each place named.
  var byList: [String: Int] {
    var byPath: [String: Int] = [:]
    for index in sites.counts.indices { byPath[sites.lists[index], default: 0] += sites.counts[index] }
    return Self.merged(byPath.map { (Self.shortName($0.key), $0.value) })
  }
  var byEntry: [EntryKey: Int] {
    var shortNames: [String: String] = [:]
    func shortName(_ path: String) -> String {
      if let name = shortNames[path] { return name }
      let name = Self.shortName(path)
      shortNames[path] = name
      return name
    }
    return Self.merged(
      sites.counts.indices.map { index in
        let entry = sites.entries[index]
        let place = entry.source.map { shortName($0.file) + ":" + String($0.line) } ?? shortName(sites.lists[index])
        let text = entry.kind == .regex ? "re:" + entry.text : entry.text
        return (EntryKey(text: text, place: place), sites.counts[index])
      })
  }
  private var sites = Sites()

  struct EntryKey: Hashable, Sendable {
    var text: String
    var place: String
  }

  /// Match counts by where the entry is written: its list and its file and line, or its text
  /// when it has no source. Columns, with the sites of each line chained (`next`) from
  /// `firstByLine`: a match is counted by hashing its line alone and comparing the few sites
  /// of that line, whose strings are mostly the very same objects. Keyed by a struct of the
  /// strings and line, with each site's entry in the dictionary's values, counting was 14% of
  /// a scan of blocked lines (hashing, and moving the large values at every resize).
  private struct Sites {
    var entries: [Entry] = []
    var lists: [String] = []
    var counts: [Int] = []
    var next: [Int] = []
    var firstByLine: [Int: Int] = [:]

    /// Adds `count` matches of `entry` of `list`.
    mutating func add(_ entry: Entry, list: String, count: Int) {
      let line = entry.source?.line ?? 0
      let first = firstByLine[line] ?? -1
      var site = first
      while site >= 0 {
        if lists[site] == list, entries[site].source?.file == entry.source?.file,
          entry.source != nil || entries[site].text == entry.text
        {
          counts[site] += count
          return
        }
        site = next[site]
      }
      next.append(first)
      firstByLine[line] = entries.count
      entries.append(entry)
      lists.append(list)
      counts.append(count)
    }
  }

  private static func merged<Key: Hashable>(_ counts: [(Key, Int)]) -> [Key: Int] {
    Dictionary(counts, uniquingKeysWith: +)
  }

  mutating func add(_ line: ScanWorker.ScreenedLine, _ result: ModerationResult) {
    read += 1
    switch result.verdict {
    case .pass: passed += 1
    case .replaced: replaced += 1
    case .blocked: blocked += 1
    }
    if !result.warnings.isEmpty { stopped += 1 }
    if let blockType = result.blockType { byBlockType[blockType.rawValue] += 1 }
    let source = result.item.sourceType.rawValue
    readBySourceType[source] += 1
    if result.verdict != .pass { actedOnBySourceType[source] += 1 }
    if result.flagged { flagged += 1 }
    byFormat[Self.formatIndex(line.format)] += 1
    for index in result.matches.indices {
      addMatch(result.matches[index].match.entry, list: result.matches[index].match.list)
    }
  }

  /// Counts a match of `entry` of `list`.
  mutating func addMatch(_ entry: Entry, list: String) {
    sites.add(entry, list: list, count: 1)
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
    stopped += other.stopped
    flagged += other.flagged
    bytes += other.bytes
    for index in 0..<4 { byBlockType[index] += other.byBlockType[index] }
    for index in 0..<3 {
      readBySourceType[index] += other.readBySourceType[index]
      actedOnBySourceType[index] += other.actedOnBySourceType[index]
    }
    for index in byFormat.indices { byFormat[index] += other.byFormat[index] }
    for site in other.sites.counts.indices {
      sites.add(other.sites.entries[site], list: other.sites.lists[site], count: other.sites.counts[site])
    }
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
      "  by sourceType (read/blocked or replaced): "
        + (0..<3).map { "\($0) \(names[$0]) \(readBySourceType[$0])/\(actedOnBySourceType[$0])" }.joined(
          separator: ", "))
    if flagged > 0 {
      lines.append("  flagged for review: \(flagged) (delivered; their results carry \"flagged\": true)")
    }
    if stopped > 0 {
      lines.append("  checks stopped by regex limits: \(stopped) (their results carry \"warnings\")")
    }
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
