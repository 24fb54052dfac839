import Foundation
import Testing
@_spi(Tools) import Winnow
import WinnowTestSupport

@testable import WinnowCLI

/// The summary's counts of matches by entry and by list, and the sum of summaries.
@Suite("Scan tally")
struct ScanTallyTests {
  /// The summaries of a dump's parts, each written as JSON and read back, add up to the summary
  /// of the whole: what `winnow summary` prints for a scan split across Spark's tasks. Entries
  /// come most counted first, ties by text and place.
  @Test func summariesOfPartsAddUpToTheSummaryOfTheWhole() throws {
    var random = SeededGenerator(state: 23)
    let pool = (0..<12).map { index in
      (
        Entry(text: "w\(index % 5)", source: SourceLocation(file: "g/l\(index % 3).txt", line: index)),
        "g/l\(index % 3).txt"
      )
    }
    for _ in 0..<200 {
      var whole = ScanTally()
      var parts: [ScanTally] = [ScanTally()]
      for _ in 0..<Int.random(in: 0...60, using: &random) {
        var tally = ScanTally()
        switch Int.random(in: 0..<3, using: &random) {
        case 0: tally.addError()
        default:
          tally.read = 1
          tally.passed = 1
          tally.bytes = Int.random(in: 1...90, using: &random)
          for _ in 0..<Int.random(in: 0...3, using: &random) {
            let pick = pool[Int.random(in: 0..<pool.count, using: &random)]
            tally.addMatch(pick.0, list: pick.1)
          }
        }
        whole.merge(tally)
        if Int.random(in: 0..<8, using: &random) == 0 { parts.append(ScanTally()) }
        parts[parts.count - 1].merge(tally)
      }
      let decoder = JSONDecoder()
      var sum: ScanSummary?
      for part in parts {
        let json = part.summary(seconds: 0.5, jobs: 1, reviewer: nil).json()
        let read = try decoder.decode(ScanSummary.self, from: json)
        if sum == nil { sum = read } else { sum?.add(read) }
      }
      var expected = whole.summary(seconds: 0.5 * Double(parts.count), jobs: parts.count, reviewer: nil)
      expected.parts = parts.count
      #expect(sum == expected)
      let counts = expected.entries.map(\.count)
      #expect(counts == counts.sorted(by: >))
      for (first, second) in zip(expected.entries, expected.entries.dropFirst()) where first.count == second.count {
        #expect((first.entry, first.place) < (second.entry, second.place))
      }
    }
  }

  /// Matches counted piece by piece, then merged as a scan merges its workers' tallies, give
  /// the counts by entry and by list that naming each match and counting the names gives:
  /// entries of different files or lists on the same line stay apart, and entries without a
  /// source are told apart by their text and list.
  @Test func countsByEntryAndListAgreeWithCountingNames() {
    var random = SeededGenerator(state: 17)
    let files = ["g/en.txt", "g/zh.txt", "h/zh.txt"]
    var pool: [(entry: Entry, list: String)] = []
    for (index, file) in files.enumerated() {
      for line in 1...4 {
        pool.append((Entry(text: "w\(index)\(line)", source: SourceLocation(file: file, line: line)), file))
      }
    }
    // One list of two files (entries included from another file), their lines alike.
    for file in ["g/a.txt", "g/b.txt"] {
      for line in 1...2 {
        pool.append((Entry(text: "v\(file)\(line)", source: SourceLocation(file: file, line: line)), "g/all"))
      }
    }
    for text in ["x", "y"] {
      for list in ["app", "other"] { pool.append((Entry(text: text), list)) }
    }
    // One text at one place, `zh.txt:9`, from two files of that name and from a list named so
    // (`zh.txt:09` is another place).
    for file in ["g/zh.txt", "h/zh.txt"] {
      pool.append((Entry(text: "same", source: SourceLocation(file: file, line: 9)), file))
    }
    for list in ["apps/zh.txt:9", "zh.txt:09"] { pool.append((Entry(text: "same"), list)) }
    for _ in 0..<300 {
      let picks = (0..<Int.random(in: 0...80, using: &random)).map { _ in
        pool[Int.random(in: 0..<pool.count, using: &random)]
      }
      var total = ScanTally()
      var piece = ScanTally()
      for pick in picks {
        piece.addMatch(pick.entry, list: pick.list)
        if Int.random(in: 0..<10, using: &random) == 0 {
          total.merge(piece)
          piece = ScanTally()
        }
      }
      total.merge(piece)
      var byEntry: [ScanTally.EntryKey: Int] = [:]
      var byList: [String: Int] = [:]
      for pick in picks {
        let list = ScanTally.shortName(pick.list)
        let place = pick.entry.source.map { "\(ScanTally.shortName($0.file)):\($0.line)" } ?? list
        byEntry[ScanTally.EntryKey(text: pick.entry.text, place: place), default: 0] += 1
        byList[list, default: 0] += 1
      }
      #expect(total.byEntry == byEntry)
      // Each entry and place once: merged where counted, not by `byEntry`'s dictionary.
      let counts = total.entryCounts
      #expect(Set(counts.map { ScanTally.EntryKey(text: $0.entry, place: $0.place) }).count == counts.count)
      #expect(total.byList == byList)
    }
  }

  /// The summary's worst senders, chosen in one pass, are the first of the sorted offenders,
  /// ties of counts included (by app and user), for any count asked.
  @Test func worstSendersAreTheFirstOfTheSortedOffenders() {
    var random = SeededGenerator(state: 58)
    for _ in 0..<300 {
      var tally = OffenderTally()
      for _ in 0..<Int.random(in: 0...40, using: &random) {
        let key = OffenderTally.Key(
          appKey: ["", "a", "b"][Int.random(in: 0..<3, using: &random)],
          fromUserId: "u\(Int.random(in: 0..<25, using: &random))")
        var sender = OffenderTally.Sender()
        sender.messages = 1
        sender.blocked = Int.random(in: 0...2, using: &random)
        sender.replaced = Int.random(in: 0...1, using: &random)
        sender.flagged = Int.random(in: 0...2, using: &random)
        tally.senders[key] = sender
      }
      let sorted = tally.offenders()
      for count in [0, 1, 3, 10, 50] {
        let expected = sorted.prefix(count).map {
          ScanSummary.SenderCount(
            appKey: $0.key.appKey, fromUserId: $0.key.fromUserId, blocked: $0.sender.blocked,
            replaced: $0.sender.replaced, flagged: $0.sender.flagged)
        }
        #expect(tally.worst(count) == expected)
      }
    }
  }

  /// Tallies merged batch by batch, as a scan merges its workers', hold each sender's counts
  /// and times summed over the batches, whichever batch saw the sender first.
  @Test func mergedOffenderTalliesSumEachSender() {
    var random = SeededGenerator(state: 59)
    for _ in 0..<200 {
      var merged = OffenderTally()
      var expected: [OffenderTally.Key: (counts: [Int], first: Int64, last: Int64)] = [:]
      for _ in 0..<Int.random(in: 0...6, using: &random) {
        var batch = OffenderTally()
        for _ in 0..<Int.random(in: 0...8, using: &random) {
          let key = OffenderTally.Key(appKey: "", fromUserId: "u\(Int.random(in: 0..<6, using: &random))")
          var sender = OffenderTally.Sender()
          sender.messages = Int.random(in: 1...3, using: &random)
          sender.blocked = Int.random(in: 0...2, using: &random)
          sender.firstSentTime = Int64.random(in: 0...100, using: &random)
          sender.lastSentTime = sender.firstSentTime + Int64.random(in: 0...100, using: &random)
          batch.senders[key] = sender
        }
        for (key, sender) in batch.senders {
          let old = expected[key] ?? (counts: [0, 0], first: .max, last: .min)
          expected[key] = (
            [old.counts[0] + sender.messages, old.counts[1] + sender.blocked],
            min(old.first, sender.firstSentTime), max(old.last, sender.lastSentTime)
          )
        }
        merged.merge(batch)
      }
      #expect(Set(merged.senders.keys) == Set(expected.keys))
      for (key, sender) in merged.senders {
        let want = expected[key]
        #expect(want?.counts == [sender.messages, sender.blocked])
        #expect(want?.first == sender.firstSentTime && want?.last == sender.lastSentTime)
      }
    }
  }

  /// A tally that keeps every message (`--offenders`) and one that keeps only the counts (the
  /// summary's worst senders) count the same blocked, replaced and flagged messages of each
  /// sender: those its kept incidents record. The counting one keeps no incident and no sender
  /// that has none.
  @Test func offenderCountsAreWhatTheIncidentsRecord() throws {
    let list = try WordList(name: "g.txt", origin: .global, parsing: "bad\nrep => <rep>\nreview:meh")
    let engine = try ModerationEngine(global: [list])
    var random = SeededGenerator(state: 61)
    let words = ["bad", "rep", "meh", "fine", "ok"]
    for _ in 0..<50 {
      var every = OffenderTally()
      var counting = OffenderTally()
      var messages: [String: Int] = [:]
      for index in 0..<Int.random(in: 0...30, using: &random) {
        let text = (0..<Int.random(in: 1...3, using: &random)).map { _ in
          words[Int.random(in: 0..<words.count, using: &random)]
        }.joined(separator: " ")
        let sender = "u\(Int.random(in: 0..<5, using: &random))"
        let item = MessageItem(
          sourceType: .original, msgUID: "M\(index)", fromUserId: sender, targetId: "g1", conversationType: .group,
          content: ["content": .string(text)], sentTime: 1_700_000_000_000 + Int64(index))
        let result = try engine.screen(item)
        every.add(result, everyMessage: true)
        counting.add(result, everyMessage: false)
        messages[sender, default: 0] += 1
      }
      for (key, sender) in every.senders {
        #expect(sender.messages == messages[key.fromUserId])
        let kinds = sender.incidents.map(\.kinds)
        let recorded = [
          kinds.filter { $0.contains(.blocked) }.count, kinds.filter { $0.contains(.replaced) }.count,
          kinds.filter { $0.contains(.flagged) }.count,
        ]
        #expect([sender.blocked, sender.replaced, sender.flagged] == recorded)
        let counted = counting.senders[key]
        #expect((counted != nil) == !sender.incidents.isEmpty)
        if let counted {
          #expect([counted.blocked, counted.replaced, counted.flagged] == recorded)
          #expect(counted.messages == sender.incidents.count && counted.incidents.isEmpty)
        }
      }
      #expect(Set(counting.senders.keys).isSubset(of: Set(every.senders.keys)))
    }
  }

  /// The summary's order of entries, which compares plain texts by their bytes, is the order of
  /// `String`'s comparison: over texts of ASCII, Chinese, composed and decomposed accents,
  /// Hangul and full-width letters, with ties of count and of entry.
  @Test func entriesComeInStringOrder() {
    var random = SeededGenerator(state: 41)
    let pieces = [
      "a", "b", "Z", "1", " ", "傻", "逼", "㐀", "é", "e\u{301}", "한", "ᄒ", "ａ", "ß", "か", "鿿", "\u{10000}", "~",
      "\u{0}",
    ]
    // Up to six pieces: texts that share their first eight bytes, and zero bytes, where the
    // order's prefix keys end.
    func text() -> String {
      (0..<Int.random(in: 0...6, using: &random)).map { _ in pieces[Int.random(in: 0..<pieces.count, using: &random)] }
        .joined()
    }
    for _ in 0..<300 {
      var counts: [String: [String: Int]] = [:]
      for _ in 0..<Int.random(in: 0...40, using: &random) {
        counts[text(), default: [:]][["g/a.txt", "g/b.txt", "é.txt"][Int.random(in: 0..<3, using: &random)]] =
          Int.random(in: 1...3, using: &random)
      }
      let entries = counts.flatMap { entry, places in
        places.map { ScanSummary.EntryCount(entry: entry, place: $0.key, count: $0.value) }
      }
      let reference = entries.sorted { ($1.count, $0.entry, $0.place) < ($0.count, $1.entry, $1.place) }
      let ordered = ScanSummary.EntryCount.inSummaryOrder(entries)
      #expect(ordered.map(\.count) == reference.map(\.count))
      #expect(zip(ordered, reference).allSatisfy { $0.entry == $1.entry && $0.place == $1.place })
    }
    #expect(ScanSummary.EntryCount.isPlain("傻逼 ok") && !ScanSummary.EntryCount.isPlain("e\u{301}"))
  }

  /// A text is plain, read by its UTF-8 bytes, exactly when each scalar is ASCII or a CJK
  /// Unified Ideograph of the BMP (Extension A included): every scalar of the BMP and the
  /// first of each supplementary plane, alone and after a plain one.
  @Test func plainTextsAreASCIIAndCJKIdeographs() {
    var checked = 0
    for value in Array(0..<0xD800) + Array(0xE000...0xFFFF) + (1...16).map({ $0 << 16 }) {
      guard let scalar = Unicode.Scalar(UInt32(value)) else { continue }
      let plain = value < 0x80 || (0x4E00...0x9FFF).contains(value) || (0x3400...0x4DBF).contains(value)
      for text in [String(scalar), "傻" + String(scalar) + "a"] {
        #expect(ScanSummary.EntryCount.isPlain(text) == plain, "U+\(String(value, radix: 16))")
        checked += 1
      }
    }
    #expect(checked > 120_000)
  }
}
