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
    // A scan's sites name a few lists, mostly as the very same strings: compared, not hashed.
    var byPath: [(path: String, count: Int)] = []
    for index in sites.counts.indices {
      let list = sites.lists[index]
      if let known = byPath.firstIndex(where: { $0.path == list }) {
        byPath[known].count += sites.counts[index]
      } else {
        byPath.append((list, sites.counts[index]))
      }
    }
    return Self.merged(byPath.map { (Self.shortName($0.path), $0.count) })
  }
  var byEntry: [EntryKey: Int] {
    Dictionary(entryCounts.map { (EntryKey(text: $0.entry, place: $0.place), $0.count) }, uniquingKeysWith: +)
  }
  /// ``byEntry`` as a list, in no particular order: the sites that name the same entry text and
  /// place merged. A place is a short name and a line (``Place``), compared as numbers, and only
  /// the few sites of one place compare their texts: keyed by the texts and place strings, a
  /// dictionary hashed every entry's text with its Unicode normalization, and the place strings
  /// cost as much again, most of a large scan's summary.
  var entryCounts: [ScanSummary.EntryCount] {
    var names = Place.Names()
    var counts: [ScanSummary.EntryCount] = []
    counts.reserveCapacity(sites.counts.count)
    // Per place, the last count of that place; each count, the one before it of its place.
    var lastByPlace: [Place: Int] = [:]
    lastByPlace.reserveCapacity(sites.counts.count)
    var previous: [Int] = []
    previous.reserveCapacity(sites.counts.count)
    sites: for index in sites.counts.indices {
      let entry = sites.entries[index]
      let (place, name) = names.place(of: entry.source, list: sites.lists[index])
      let text = entry.prefixedText
      let last = lastByPlace[place] ?? -1
      var same = last
      while same >= 0 {
        if counts[same].entry == text {
          counts[same].count += sites.counts[index]
          continue sites
        }
        same = previous[same]
      }
      previous.append(last)
      lastByPlace[place] = counts.count
      counts.append(ScanSummary.EntryCount(entry: text, place: name, count: sites.counts[index]))
    }
    return counts
  }

  /// Where an entry is written, as the summary names it: the short name of its file and its
  /// line (`zh.txt:471`), or the short name of its list when it has no source (line `nil`);
  /// the name as its index among the distinct short names. Two places are equal exactly when
  /// their names are: a list's short name of the form `name:line` is the place of that line.
  struct Place: Hashable {
    var name: Int
    var line: Int?

    /// The distinct short names of a tally's files and lists, each made once.
    struct Names {
      private var names: [String] = []
      /// Per path seen, the index of its short name (paths repeat, mostly as the very same
      /// strings, so comparing is fast).
      private var byPath: [(path: String, name: Int)] = []

      /// The place of an entry from `source` of `list`, and its name.
      mutating func place(of source: SourceLocation?, list: String) -> (Place, String) {
        guard let source else {
          let name = shortName(list)
          // `name:line` names that line's place, as the summary writes it.
          if let colon = name.lastIndex(of: ":"), let line = Int(name[name.index(after: colon)...]),
            String(line) == name[name.index(after: colon)...]
          {
            return (Place(name: index(of: String(name[..<colon])), line: line), name)
          }
          return (Place(name: index(of: name), line: nil), name)
        }
        let name = index(ofPath: source.file)
        return (Place(name: name, line: source.line), names[name] + ":" + String(source.line))
      }

      private mutating func index(ofPath path: String) -> Int {
        if let known = byPath.first(where: { $0.path == path }) { return known.name }
        let name = index(of: ScanTally.shortName(path))
        byPath.append((path, name))
        return name
      }

      private mutating func index(of name: String) -> Int {
        if let index = names.firstIndex(of: name) { return index }
        names.append(name)
        return names.count - 1
      }
    }
  }
  private var sites = Sites()
  /// Counts by sender; with ``everyMessage``, every message and its incidents (`--offenders`).
  var offenders = OffenderTally()
  var everyMessage = false
  /// A batch's tally, which is only ever merged into another (``ScanWorker``): its matches and
  /// its senders' messages are kept as lists, in the order of its lines, and counted by the
  /// tally it is merged into. Counted in the batch and then merged, each was looked up twice,
  /// in two tables (the batch's grown from empty each time): a large part of a matched line's
  /// cost (`Benchmarks/HISTORY.md`). The merged counts are the same, in the same order.
  var defersCounting = false {
    didSet { offenders.defersCounting = defersCounting }
  }
  /// A deferring tally's matches, in order (``defersCounting``).
  private var pendingMatches: [(entry: Entry, list: String)] = []

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
      if defersCounting {
        pendingMatches.append((result.matches[index].match.entry, result.matches[index].match.list))
      } else {
        addMatch(result.matches[index].match.entry, list: result.matches[index].match.list)
      }
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
    for match in other.pendingMatches { sites.add(match.entry, list: match.list, count: 1) }
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
    summary.entries = ScanSummary.EntryCount.inSummaryOrder(entryCounts)
    summary.reviewer = reviewer.map(ScanSummary.ReviewerCounts.init)
    let worst = offenders.worst()
    summary.senders = worst.isEmpty ? nil : worst
    return summary
  }
}
