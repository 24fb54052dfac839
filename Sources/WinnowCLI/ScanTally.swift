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
  var byFormat: [DumpFormat: Int] = [:]
  /// Matches by list (file name) and by entry.
  var byList: [String: Int] = [:]
  var byEntry: [EntryKey: Int] = [:]

  struct EntryKey: Hashable, Sendable {
    var text: String
    var place: String
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
    byFormat[line.format, default: 0] += 1
    for match in result.matches {
      let list = Self.shortName(match.match.list)
      byList[list, default: 0] += 1
      let place = match.match.entry.source.map { "\(Self.shortName($0.file)):\($0.line)" } ?? list
      let text = (match.match.entry.kind == .regex ? "re:" : "") + match.match.entry.text
      byEntry[EntryKey(text: text, place: place), default: 0] += 1
    }
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
    byFormat.merge(other.byFormat, uniquingKeysWith: +)
    byList.merge(other.byList, uniquingKeysWith: +)
    byEntry.merge(other.byEntry, uniquingKeysWith: +)
  }

  static func shortName(_ path: String) -> String {
    path.split(separator: "/").last.map(String.init) ?? path
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
    if !byFormat.isEmpty {
      lines.append(
        "  by format: "
          + DumpFormat.allCases.compactMap { format in byFormat[format].map { "\(format.rawValue) \($0)" } }.joined(
            separator: ", "))
    }
    if !byList.isEmpty {
      let lists = byList.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.prefix(10)
      lines.append("  matches by list: " + lists.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
    }
    if !byEntry.isEmpty {
      let entries = byEntry.sorted {
        ($1.value, $0.key.text, $0.key.place) < ($0.value, $1.key.text, $1.key.place)
      }.prefix(10)
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
