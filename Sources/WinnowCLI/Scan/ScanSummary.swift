import Foundation
@_spi(Tools) import Winnow

/// What a scan found, in numbers: printed on standard error after every scan, written as JSON
/// by `--summary-json`, and added up over the parts of one dump by `winnow summary`.
///
/// Every count but `seconds` and `jobs` adds up: the summary of a dump scanned in parts (by
/// Spark, say) is the sum of the parts' summaries, and equals the summary of one scan of the
/// whole dump. Entries are counted by where they are written (`zh.txt:10520`), or by their
/// text when they have no source.
struct ScanSummary: Codable, Equatable, Sendable {
  var read = 0
  var passed = 0
  var replaced = 0
  var blocked = 0
  var errors = 0
  /// Items whose check a regex's limits stopped (counted in their verdict's column too).
  var stopped = 0
  /// Items delivered with a match of a review entry (counted as passed or replaced too).
  var flagged = 0
  /// Input bytes, newlines included.
  var bytes = 0
  /// The scan's wall time; for a sum, the parts' times added.
  var seconds = 0.0
  /// Parallel workers; for a sum, the parts' workers added.
  var jobs = 0
  /// Scans added up in this summary.
  var parts = 1
  /// Blocked items by block type, "1" to "3".
  var blockedByBlockType: [String: Int] = [:]
  /// Items read, and blocked or replaced, by source type, "0" to "2".
  var bySourceType: [String: SourceCounts] = [:]
  /// Lines by dump format (`item`, `history-log`, `callback`).
  var formats: [String: Int] = [:]
  /// Matches by list file name.
  var lists: [String: Int] = [:]
  /// Matches by entry, most first.
  var entries: [EntryCount] = []
  /// The reviewer's calls, when a reviewer was configured.
  var reviewer: ReviewerCounts?
  /// The worst senders (most blocked, then flagged and replaced), at most ten; nil in summaries
  /// written before senders were counted.
  var senders: [SenderCount]?

  struct SenderCount: Codable, Equatable, Sendable {
    var appKey: String
    var fromUserId: String
    var blocked: Int
    var replaced: Int
    var flagged: Int
  }

  struct SourceCounts: Codable, Equatable, Sendable {
    var read = 0
    var blockedOrReplaced = 0
  }

  struct EntryCount: Codable, Equatable, Sendable {
    var entry: String
    var place: String
    var count: Int

    /// `counts` in the summary's order: most counted first, then by entry and by place as
    /// `String` orders them (by their scalars in NFC). Texts of ASCII and CJK Unified
    /// Ideographs alone, which no normalization changes, are compared by their UTF-8 bytes,
    /// which order them the same: `String`'s own comparison of Chinese entries normalized both
    /// texts every time, and sorting a large scan's tens of thousands of entries took a few
    /// hundredths of a second.
    static func inSummaryOrder(_ counts: [EntryCount]) -> [EntryCount] {
      // The positions are sorted, by tables read through buffers: sorting the counts moved two
      // strings each, and reading a count or a text from the array retained them.
      var bytes: [UInt8] = []
      var spans: [(entry: Range<Int>, place: Range<Int>)] = []
      var plain: [Bool] = []
      // A plain entry's first eight bytes, big-endian, zero-padded: compared first, they order
      // two entries as their bytes do whenever they differ (a shorter text's padding sorts
      // before any byte but zero, where the texts are compared whole).
      var prefixes: [UInt64] = []
      spans.reserveCapacity(counts.count)
      plain.reserveCapacity(counts.count)
      prefixes.reserveCapacity(counts.count)
      for count in counts {
        let start = bytes.count
        bytes += count.entry.utf8
        let middle = bytes.count
        bytes += count.place.utf8
        spans.append((start..<middle, middle..<bytes.count))
        plain.append(isPlain(count.entry) && isPlain(count.place))
        var prefix: UInt64 = 0
        for index in 0..<8 {
          prefix = prefix << 8 | UInt64(start + index < middle ? bytes[start + index] : 0)
        }
        prefixes.append(prefix)
      }
      let numbers = counts.map(\.count)
      let order = bytes.withUnsafeBufferPointer { bytes in
        spans.withUnsafeBufferPointer { spans in
          plain.withUnsafeBufferPointer { plain in
            prefixes.withUnsafeBufferPointer { prefixes in
              numbers.withUnsafeBufferPointer { numbers in
                counts.indices.sorted { i, j in
                  if numbers[i] != numbers[j] { return numbers[i] > numbers[j] }
                  guard plain[i] && plain[j] else {
                    return (counts[i].entry, counts[i].place) < (counts[j].entry, counts[j].place)
                  }
                  if prefixes[i] != prefixes[j] { return prefixes[i] < prefixes[j] }
                  let entries = compare(bytes, spans[i].entry, spans[j].entry)
                  return entries != 0 ? entries < 0 : compare(bytes, spans[i].place, spans[j].place) < 0
                }
              }
            }
          }
        }
      }
      return order.map { counts[$0] }
    }

    /// The order of two runs of `bytes`: negative, zero or positive.
    private static func compare(_ bytes: UnsafeBufferPointer<UInt8>, _ a: Range<Int>, _ b: Range<Int>) -> Int {
      let common = min(a.count, b.count)
      if common > 0, let base = bytes.baseAddress {
        let order = memcmp(base + a.lowerBound, base + b.lowerBound, common)
        if order != 0 { return Int(order) }
      }
      return a.count - b.count
    }

    /// Whether every scalar of `text` is ASCII or a CJK Unified Ideograph (Extension A
    /// included): such a text is its own NFC, and no scalar of it combines with another.
    static func isPlain(_ text: String) -> Bool {
      // By the UTF-8 bytes of the scalars (valid in a `String`): ASCII, or three bytes from
      // U+3400 (E3 90 80) to U+9FFF (E9 BF BF) but for U+4DC0...U+4DFF (E4 B7 xx).
      var text = text
      return text.withUTF8 { bytes in
        var index = 0
        while index < bytes.count {
          let lead = bytes[index]
          if lead < 0x80 {
            index += 1
            continue
          }
          guard (0xE3...0xE9).contains(lead), index + 1 < bytes.count else { return false }
          let second = bytes[index + 1]
          guard lead != 0xE3 || second >= 0x90, lead != 0xE4 || second != 0xB7 else { return false }
          index += 3
        }
        return true
      }
    }
  }

  struct ReviewerCounts: Codable, Equatable, Sendable {
    var calls = 0
    var passed = 0
    var reviewed = 0
    var rejected = 0
    var timeouts = 0
    var failures = 0

    init(_ counts: ReviewerStatistics.Counts) {
      calls = counts.calls
      passed = counts.passed
      reviewed = counts.reviewed
      rejected = counts.rejected
      timeouts = counts.timeouts
      failures = counts.failures
    }

    static func + (left: Self, right: Self) -> Self {
      var sum = left
      sum.calls += right.calls
      sum.passed += right.passed
      sum.reviewed += right.reviewed
      sum.rejected += right.rejected
      sum.timeouts += right.timeouts
      sum.failures += right.failures
      return sum
    }
  }

  /// The exit status of the scan this summary is of (see `winnow scan --help`).
  var exitStatus: Int32 {
    if errors > 0 || stopped > 0 { return 3 }
    return blocked + replaced + flagged > 0 ? 1 : 0
  }

  /// The largest count a summary read from a file may hold (2⁴⁸: no scan reads that many
  /// lines), so that adding up to 2¹⁴ of them cannot pass ``totalLimit``.
  static let countLimit = 1 << 48
  /// The largest count a sum may reach before `winnow summary` stops adding (2⁶²): one more
  /// summary of counts within ``countLimit`` cannot make it wrap.
  static let totalLimit = 1 << 62

  /// Why these counts cannot be a scan's, or nil when they can: the first count that is
  /// negative or above `limit`, a time that is not a finite number of seconds, a sum of no
  /// scans, or lines that do not add up (`read` is `passed + replaced + blocked + errors`;
  /// `flagged` items were delivered, so passed or replaced).
  func problem(limit: Int) -> String? {
    var counts: [(String, Int)] = [
      ("read", read), ("passed", passed), ("replaced", replaced), ("blocked", blocked), ("errors", errors),
      ("stopped", stopped), ("flagged", flagged), ("bytes", bytes), ("jobs", jobs), ("parts", parts),
    ]
    counts += blockedByBlockType.sorted { $0.key < $1.key }.map { ("blockedByBlockType.\($0.key)", $0.value) }
    for (key, value) in bySourceType.sorted(by: { $0.key < $1.key }) {
      counts += [
        ("bySourceType.\(key).read", value.read), ("bySourceType.\(key).blockedOrReplaced", value.blockedOrReplaced),
      ]
    }
    counts += formats.sorted { $0.key < $1.key }.map { ("formats.\($0.key)", $0.value) }
    counts += lists.sorted { $0.key < $1.key }.map { ("lists.\($0.key)", $0.value) }
    counts += entries.map { ("entries.\($0.entry).count", $0.count) }
    for sender in senders ?? [] {
      counts += [
        ("senders.\(sender.fromUserId).blocked", sender.blocked),
        ("senders.\(sender.fromUserId).replaced", sender.replaced),
        ("senders.\(sender.fromUserId).flagged", sender.flagged),
      ]
    }
    if let reviewer {
      counts += [
        ("reviewer.calls", reviewer.calls), ("reviewer.passed", reviewer.passed),
        ("reviewer.reviewed", reviewer.reviewed), ("reviewer.rejected", reviewer.rejected),
        ("reviewer.timeouts", reviewer.timeouts), ("reviewer.failures", reviewer.failures),
      ]
    }
    if let (key, value) = counts.first(where: { $0.1 < 0 || $0.1 > limit }) {
      return "\(key) is \(value), not a count from 0 to \(limit)"
    }
    guard seconds.isFinite, seconds >= 0 else { return "seconds is \(seconds), not a time" }
    guard parts >= 1 else { return "parts is 0: a summary is of one scan or more" }
    // Within the limit, these sums cannot wrap.
    guard read == passed + replaced + blocked + errors else {
      return "read (\(read)) is not passed + replaced + blocked + errors (\(passed + replaced + blocked + errors))"
    }
    guard flagged <= passed + replaced else { return "flagged (\(flagged)) is more than passed + replaced" }
    return nil
  }

  /// Adds `other`'s counts to these. Arithmetic on counts read from files wraps instead of
  /// trapping, and `winnow summary` checks each summary and the sum against ``countLimit`` and
  /// ``totalLimit`` (``problem(limit:)``), so a forged one is refused rather than wrapped.
  mutating func add(_ other: ScanSummary) {
    read &+= other.read
    passed &+= other.passed
    replaced &+= other.replaced
    blocked &+= other.blocked
    errors &+= other.errors
    stopped &+= other.stopped
    flagged &+= other.flagged
    bytes &+= other.bytes
    seconds += other.seconds
    jobs &+= other.jobs
    parts &+= other.parts
    blockedByBlockType.merge(other.blockedByBlockType, uniquingKeysWith: &+)
    bySourceType.merge(other.bySourceType) {
      SourceCounts(read: $0.read &+ $1.read, blockedOrReplaced: $0.blockedOrReplaced &+ $1.blockedOrReplaced)
    }
    formats.merge(other.formats, uniquingKeysWith: &+)
    lists.merge(other.lists, uniquingKeysWith: &+)
    var counts: [EntryKey: Int] = [:]
    for entry in entries + other.entries {
      counts[EntryKey(entry: entry.entry, place: entry.place), default: 0] &+= entry.count
    }
    entries = EntryCount.inSummaryOrder(
      counts.map { EntryCount(entry: $0.key.entry, place: $0.key.place, count: $0.value) })
    // The ten worst of the parts' ten worst: exact for a sender who is among the ten worst of
    // every part that has them (`--offenders` files add up exactly, see `winnow offenders`).
    if senders != nil || other.senders != nil {
      var bySender: [OffenderTally.Key: SenderCount] = [:]
      for sender in (senders ?? []) + (other.senders ?? []) {
        let key = OffenderTally.Key(appKey: sender.appKey, fromUserId: sender.fromUserId)
        if var known = bySender[key] {
          known.blocked &+= sender.blocked
          known.replaced &+= sender.replaced
          known.flagged &+= sender.flagged
          bySender[key] = known
        } else {
          bySender[key] = sender
        }
      }
      senders = Array(
        bySender.values.sorted {
          let left = ($0.blocked, $0.flagged &+ $0.replaced)
          let right = ($1.blocked, $1.flagged &+ $1.replaced)
          if left != right { return left > right }
          return ($0.appKey, $0.fromUserId) < ($1.appKey, $1.fromUserId)
        }.prefix(10))
    }
    switch (reviewer, other.reviewer) {
    case (let mine?, let theirs?): reviewer = mine + theirs
    case (nil, let theirs?): reviewer = theirs
    default: break
    }
  }

  /// An entry as the text summary shows it: a long one (a regex) cut to its first 24
  /// characters and `…`; its file and line say which it is, and the JSON summary has it whole.
  static func shortened(_ entry: String) -> String {
    entry.count > 25 ? String(entry.prefix(24)) + "…" : entry
  }

  private struct EntryKey: Hashable {
    var entry: String
    var place: String
  }

  /// The summary as one line of JSON, keys sorted, with its newline.
  func json() -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    // Encoding plain counts and strings cannot fail.
    return ((try? encoder.encode(self)) ?? Data("{}".utf8)) + Data("\n".utf8)
  }

  /// The summary for standard error.
  var text: String {
    var lines = [
      "winnow scan: \(read) lines read = \(passed) passed + \(replaced) replaced + \(blocked) blocked + \(errors) errors"
    ]
    let megabytes = Double(bytes) / 1_000_000
    let rate = seconds > 0 ? megabytes / seconds : 0
    let messages = seconds > 0 ? Double(read) / seconds : 0
    lines.append(
      "  \(Self.format(megabytes, 2)) MB in \(Self.format(seconds, 2)) s: \(Self.format(rate, 1)) MB/s, "
        + "\(Self.format(messages, 0)) messages/s "
        + (parts == 1 ? "(jobs \(jobs))" : "(the sum of \(parts) scans' times and jobs, \(jobs))"))
    func count(_ counts: [String: Int], _ key: String) -> Int { counts[key] ?? 0 }
    lines.append(
      "  blocked by blockType: 1 global \(count(blockedByBlockType, "1")), 2 custom \(count(blockedByBlockType, "2")), "
        + "3 third-party \(count(blockedByBlockType, "3"))")
    let names = ["original", "extension", "edit"]
    lines.append(
      "  by sourceType (read/blocked or replaced): "
        + (0..<3).map {
          let counts = bySourceType[String($0)] ?? SourceCounts()
          return "\($0) \(names[$0]) \(counts.read)/\(counts.blockedOrReplaced)"
        }.joined(separator: ", "))
    if flagged > 0 {
      lines.append("  flagged for review: \(flagged) (delivered; their results carry \"flagged\": true)")
    }
    if stopped > 0 {
      lines.append("  checks stopped by regex limits: \(stopped) (their results carry \"warnings\")")
    }
    // Formats in their usual order, then any other a summary file names.
    let known = DumpFormat.allCases.map(\.rawValue)
    let formatNames = known.filter { formats[$0] != nil } + formats.keys.filter { !known.contains($0) }.sorted()
    if !formatNames.isEmpty {
      lines.append("  by format: " + formatNames.map { "\($0) \(formats[$0] ?? 0)" }.joined(separator: ", "))
    }
    if !lists.isEmpty {
      let top = lists.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.prefix(10)
      lines.append("  matches by list: " + top.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
    }
    if !entries.isEmpty {
      lines.append(
        "  top entries: "
          + entries.prefix(10).map { "\(jsonString(Self.shortened($0.entry))) \($0.place) ×\($0.count)" }
          .joined(separator: ", "))
    }
    if let reviewer {
      lines.append(
        "  reviewer: \(reviewer.calls) calls, \(reviewer.passed) passed, \(reviewer.reviewed) review, "
          + "\(reviewer.rejected) rejected, \(reviewer.timeouts) timed out, \(reviewer.failures) failed")
    }
    if let senders, !senders.isEmpty {
      lines.append(
        "  worst senders (blocked/replaced/flagged): "
          + senders.map {
            let name = ($0.appKey.isEmpty ? "" : $0.appKey + "/") + $0.fromUserId
            return "\(jsonString(Self.shortened(name))) \($0.blocked)/\($0.replaced)/\($0.flagged)"
          }.joined(separator: ", "))
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// `value` with `digits` decimals (0 to 3), without Foundation's locale-dependent formatting.
  private static func format(_ value: Double, _ digits: Int) -> String {
    let scale = [1.0, 10.0, 100.0, 1000.0][digits]
    let rounded = (value * scale).rounded() / scale
    guard rounded.isFinite, abs(rounded) < 1e15 else { return String(rounded) }
    if digits == 0 { return String(Int64(rounded)) }
    var text = String(rounded)
    if let dot = text.firstIndex(of: ".") {
      let decimals = text.distance(from: dot, to: text.endIndex) - 1
      if decimals < digits { text += String(repeating: "0", count: digits - decimals) }
    } else {
      text += "." + String(repeating: "0", count: digits)
    }
    return text
  }
}
