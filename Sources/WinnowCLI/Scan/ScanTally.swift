@_spi(Tools) import Winnow

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
        let text = entry.prefixedText
        return (EntryKey(text: text, place: place), sites.counts[index])
      })
  }
  private var sites = Sites()
  /// Counts by sender; with ``everyMessage``, every message and its incidents (`--offenders`).
  var offenders = OffenderTally()
  var everyMessage = false

  struct EntryKey: Hashable, Sendable {
    var text: String
    var place: String
  }

  /// Match counts by where the entry is written: its list and its file and line, or its text
  /// when it has no source. Columns, with the sites of each line chained (`next`) from
  /// `firstByLine`: a match is counted by hashing its line alone and comparing the few sites
  /// of that line, whose strings are mostly the very same objects. Keyed by a struct of the
  /// strings and line, with each site's entry in the dictionary's values, counting cost a
  /// large part of a scan of blocked lines (hashing, and moving the large values at every
  /// resize).
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
    offenders.add(result, everyMessage: everyMessage)
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
    offenders.merge(other.offenders)
    for site in other.sites.counts.indices {
      sites.add(other.sites.entries[site], list: other.sites.lists[site], count: other.sites.counts[site])
    }
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

  /// The summary of a scan that took `seconds` with `jobs` workers: what it prints and what
  /// `--summary-json` writes.
  func summary(seconds: Double, jobs: Int, reviewer: ReviewerStatistics.Counts?) -> ScanSummary {
    var summary = ScanSummary()
    summary.read = read
    summary.passed = passed
    summary.replaced = replaced
    summary.blocked = blocked
    summary.errors = errors
    summary.stopped = stopped
    summary.flagged = flagged
    summary.bytes = bytes
    summary.seconds = seconds
    summary.jobs = jobs
    summary.blockedByBlockType = Dictionary(uniqueKeysWithValues: (1...3).map { (String($0), byBlockType[$0]) })
    summary.bySourceType = Dictionary(
      uniqueKeysWithValues: (0..<3).map {
        (String($0), ScanSummary.SourceCounts(read: readBySourceType[$0], blockedOrReplaced: actedOnBySourceType[$0]))
      })
    for format in DumpFormat.allCases where byFormat[Self.formatIndex(format)] > 0 {
      summary.formats[format.rawValue] = byFormat[Self.formatIndex(format)]
    }
    summary.lists = byList
    summary.entries = ScanSummary.EntryCount.inSummaryOrder(
      byEntry.map { ScanSummary.EntryCount(entry: $0.key.text, place: $0.key.place, count: $0.value) })
    summary.reviewer = reviewer.map(ScanSummary.ReviewerCounts.init)
    let worst = offenders.worst()
    summary.senders = worst.isEmpty ? nil : worst
    return summary
  }
}
