import Foundation
import Testing
import WinnowTestSupport

/// `wordlists/global/DECISIONS.tsv`, which `scripts/build-global-list.py` writes beside the
/// lists, describes every line of every list it writes: rebuilding the lists from it (as
/// `scripts/lists/decisions.py` renders them) changes nothing.
@Suite("The decisions table")
struct DecisionsTableTests {
  static let wordlists = repositoryRoot.appendingPathComponent("wordlists")

  /// A row's five fields, as byte ranges of the table.
  typealias Row = [Range<Int>]

  /// The table's bytes and its rows (list, section, line, rules, evidence); its first two
  /// lines, the engine's commit and the column names, are checked and left out.
  static func table() throws -> (bytes: [UInt8], rows: [Row]) {
    let bytes = try [UInt8](Data(contentsOf: wordlists.appendingPathComponent("global/DECISIONS.tsv")))
    var rows: [Row] = []
    var fields: Row = []
    var start = 0
    var lineNumber = 1
    for index in bytes.indices where bytes[index] == UInt8(ascii: "\t") || bytes[index] == UInt8(ascii: "\n") {
      fields.append(start..<index)
      start = index + 1
      guard bytes[index] == UInt8(ascii: "\n") else { continue }
      if lineNumber == 1 {
        #expect(String(decoding: bytes[fields[0]], as: UTF8.self).hasPrefix("# winnow "))
      } else if lineNumber == 2 {
        let names = fields.map { String(decoding: bytes[$0], as: UTF8.self) }
        #expect(names == ["list", "section", "line", "rules", "evidence"])
      } else {
        #expect(fields.count == 5, "DECISIONS.tsv:\(lineNumber): \(fields.count) fields, expected 5")
        rows.append(fields)
      }
      fields = []
      lineNumber += 1
    }
    #expect(start == bytes.count, "DECISIONS.tsv does not end with a line break")
    return (bytes, rows)
  }

  /// The files the rows describe: a section starts with a blank line and its `[name]` line.
  static func render(_ bytes: [UInt8], _ rows: [Row]) -> [String: [UInt8]] {
    var files: [String: [UInt8]] = [:]
    var sections: [String: ArraySlice<UInt8>] = [:]
    for row in rows where row.count == 5 {
      let name = String(decoding: bytes[row[0]], as: UTF8.self)
      let section = bytes[row[1]]
      var file = files.removeValue(forKey: name) ?? []
      if !section.isEmpty, sections[name] != section {
        file += Array("\n[".utf8) + section + Array("]\n".utf8)
        sections[name] = section
      }
      file += bytes[row[2]]
      file.append(UInt8(ascii: "\n"))
      files[name] = file
    }
    return files
  }

  @Test func rebuildingTheListsFromTheTableChangesNothing() throws {
    let (bytes, rows) = try Self.table()
    let files = Self.render(bytes, rows)
    // Every list the build writes is in the table: the global lists (but the lexicon, a
    // vocabulary of one rule, and the pinyin list, another script's) and the opt-in ones.
    func lists(_ folder: String) throws -> [String] {
      try FileManager.default.contentsOfDirectory(atPath: Self.wordlists.appendingPathComponent(folder).path)
        .filter {
          $0.hasSuffix(".txt") && $0 != "zh-lexicon.txt" && $0 != "zh-pinyin.txt" && $0 != "zh-pinyin-lexicon.txt"
        }.map { "\(folder)/\($0)" }
    }
    #expect(Set(files.keys) == Set(try lists("global") + lists("optional")))
    for (name, rendered) in files.sorted(by: { $0.key < $1.key }) {
      let onDisk = try [UInt8](Data(contentsOf: Self.wordlists.appendingPathComponent(name)))
      guard onDisk != rendered else { continue }
      let diskLines = onDisk.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
      let tableLines = rendered.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
      let line =
        diskLines.indices.first { $0 >= tableLines.count || diskLines[$0] != tableLines[$0] } ?? diskLines.count
      Issue.record("\(name):\(line + 1) differs from its rows of DECISIONS.tsv")
    }
  }

  @Test func everyEntryNamesItsRulesAndEvidence() throws {
    let (bytes, rows) = try Self.table()
    for row in rows where row.count == 5 && !bytes[row[3]].elementsEqual("header".utf8) {
      if bytes[row[3]].isEmpty || bytes[row[4]].isEmpty {
        Issue.record(
          "\(String(decoding: bytes[row[0]], as: UTF8.self)): \(String(decoding: bytes[row[2]], as: UTF8.self)) has no rule or evidence"
        )
      }
    }
  }
}
