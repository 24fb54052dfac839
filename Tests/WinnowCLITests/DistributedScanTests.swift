import Foundation
import Testing
@_spi(Tools) import Winnow

/// What a scan split across machines needs of `winnow scan`: lines tagged with where they come
/// from (`--tagged`), a summary as JSON (`--summary-json`), and the sum of the parts' summaries
/// (`winnow summary`). Run against the release binary too: `integrations/spark` runs it.
@Suite("winnow scan in parts")
struct DistributedScanTests {
  static func run(_ arguments: [String], stdin: String = "") async throws -> CLITests.Result {
    try await CLITests.run(arguments, stdin: stdin)
  }

  /// `text` as JSON, or null.
  static func json(_ text: String) -> JSONValue { (try? JSONValue(parsing: text)) ?? .null }

  /// A result line with its file and line replaced, to compare results of different inputs:
  /// every result begins `{"file":…,"line":N,`.
  static func relocated(_ line: Substring, file: String, line number: Int) -> String {
    guard let comma = line.firstRange(of: #","line":"#),
      let end = line[comma.upperBound...].firstIndex(of: ",")
    else { return "not a result: \(line)" }
    return #"{"file":\#(JSONValue.string(file).jsonString),"line":\#(number)"# + line[end...]
  }

  /// Two files cut into splits, the splits tagged with the number of their first line and fed
  /// in one stream with a line whose tag cannot be read among them: every result names its
  /// file and line as a scan of the files does, and the bad line gets an error record at its
  /// place in the stream, without ending the run it interrupts. With 1 job or 2.
  @Test func taggedLinesAreNamedByTheirFileAndLine() async throws {
    let global = try ScanTests.globalList()
    let lines = ScanTests.lines
    let dump = try CLITests.temporaryFile("dump.jsonl", lines.joined(separator: "\n") + "\n")
    let plain = try await Self.run(["scan", "--global", global, "--no-progress", dump])
    let expected = plain.stdout.split(separator: "\n")
    #expect(expected.count == 4)
    // dump.jsonl as splits of lines 1–2 and 3–5 with the other file's split between, and a
    // broken tag inside the second split.
    var stream = lines[0..<2].map { "hdfs://a/dump.jsonl\t1\t\($0)" }
    stream += ["hdfs://b/other.jsonl\t1\t\(lines[1])"]
    stream += ["hdfs://a/dump.jsonl\t3\t\(lines[2])", "no tag here", "hdfs://a/dump.jsonl\t3\t\(lines[3])"]
    stream += ["hdfs://a/dump.jsonl\t3\t\(lines[4])"]
    for jobs in ["1", "2"] {
      let tagged = try await Self.run(
        ["scan", "--global", global, "--no-progress", "--tagged", "--jobs", jobs, "-"],
        stdin: stream.joined(separator: "\n") + "\n")
      #expect(tagged.status == 3)
      let results = tagged.stdout.split(separator: "\n")
      #expect(results.count == 6)
      guard results.count == 6 else { continue }
      // Lines 2 and 3 of dump.jsonl, line 1 of other.jsonl (dump.jsonl's line 2), the bad tag
      // at line 5 of the stream, then lines 4 and 5.
      #expect(results[0] == Substring(Self.relocated(expected[0], file: "hdfs://a/dump.jsonl", line: 2)))
      #expect(results[1] == Substring(Self.relocated(expected[0], file: "hdfs://b/other.jsonl", line: 1)))
      #expect(results[2] == Substring(Self.relocated(expected[1], file: "hdfs://a/dump.jsonl", line: 3)))
      #expect(
        results[3]
          == #"{"file":"-","line":5,"verdict":"error","error":"not a tagged line: expected ORIGIN<TAB>FIRST-LINE<TAB>TEXT"}"#
      )
      #expect(results[4] == Substring(Self.relocated(expected[2], file: "hdfs://a/dump.jsonl", line: 4)))
      #expect(results[5] == Substring(Self.relocated(expected[3], file: "hdfs://a/dump.jsonl", line: 5)))
      #expect(
        ScanTests.summary(tagged.stderr).first
          == "winnow scan: 7 lines read = 1 passed + 0 replaced + 4 blocked + 2 errors")
    }
  }

  /// Tags that cannot be read: each line is an error record, and none traps.
  @Test func unreadableTagsAreErrorRecords() async throws {
    let global = try ScanTests.globalList()
    let bad = [
      "a\t0\t{}", "a\t-1\t{}", "\t1\t{}", "a\t\t{}", "a\t99999999999999999999\t{}", "a\t1", "a1{}", "a\t1x\t{}",
    ]
    let result = try await Self.run(
      ["scan", "--global", global, "--no-progress", "--tagged", "-"], stdin: bad.joined(separator: "\n"))
    #expect(result.status == 3)
    let records = result.stdout.split(separator: "\n")
    #expect(records.count == bad.count)
    for (index, record) in records.enumerated() {
      #expect(record.hasPrefix(#"{"file":"-","line":\#(index + 1),"verdict":"error","error":"not a tagged line"#))
    }
  }

  /// The summaries of a dump's two halves add up to the summary of the whole: the same text
  /// (but for the timing line), the same JSON counts, the same exit status.
  @Test func summariesOfTheHalvesAddUpToTheWhole() async throws {
    let global = try ScanTests.globalList()
    let lines = ScanTests.lines
    let whole = try CLITests.temporaryFile("whole.jsonl", lines.joined(separator: "\n") + "\n")
    let first = try CLITests.temporaryFile("first.jsonl", lines[0..<3].joined(separator: "\n") + "\n")
    let second = try CLITests.temporaryFile("second.jsonl", lines[3...].joined(separator: "\n") + "\n")
    var summaries: [String] = []
    for file in [whole, first, second] {
      let path = CLITests.temporaryPath("summary").path
      let scan = try await Self.run(["scan", "--global", global, "--no-progress", "--summary-json", path, file])
      #expect(scan.status == (file == first ? 1 : 3))
      summaries.append(path)
    }
    let sumPath = CLITests.temporaryPath("sum").path
    let sum = try await Self.run(["summary", "--json", sumPath, summaries[1], summaries[2]])
    #expect(sum.status == 3, "a line of the second half cannot be read")
    let scanOfWhole = try await Self.run(["scan", "--global", global, "--no-progress", whole])
    #expect(ScanTests.summary(sum.stderr) == ScanTests.summary(scanOfWhole.stderr))
    #expect(sum.stderr.contains("(the sum of 2 scans' times and jobs, "))
    func counts(_ path: String) throws -> JSONValue {
      guard case .object(let members) = Self.json(try String(contentsOfFile: path, encoding: .utf8)) else {
        return .null
      }
      return .object(members.filter { !["seconds", "jobs", "parts"].contains($0.key) })
    }
    #expect(try counts(sumPath) == counts(summaries[0]))
    // The last line of standard output, with `-`, is the same summary.
    let inline = try await Self.run(["scan", "--global", global, "--no-progress", "--summary-json", "-", whole])
    let last = inline.stdout.split(separator: "\n").last.map(String.init) ?? ""
    #expect(last.hasPrefix(#"{"summary":{"blocked":3,"#))
    let fromStdout = try CLITests.temporaryFile("inline.jsonl", last + "\n")
    let again = try await Self.run(["summary", fromStdout])
    #expect(ScanTests.summary(again.stderr) == ScanTests.summary(scanOfWhole.stderr))
    // `-` is standard input, as the help says (it was read as a file named `-`).
    let piped = try await Self.run(["summary", "-"], stdin: last + "\n")
    #expect(piped.status == 3 && ScanTests.summary(piped.stderr) == ScanTests.summary(scanOfWhole.stderr))
  }

  /// A line that is not a summary stops `winnow summary` with its file and line.
  @Test func summaryRefusesALineThatIsNotASummary() async throws {
    let file = try CLITests.temporaryFile("parts.jsonl", "\n{\"read\":1}\n")
    let result = try await Self.run(["summary", file])
    #expect(result.status == 2)
    #expect(result.stderr.hasPrefix("winnow: \(file):2: not a scan summary: no \""))
    let empty = try await Self.run(["summary", try CLITests.temporaryFile("none.jsonl", "")])
    #expect(empty.status == 2)
    #expect(empty.stderr.contains("no summaries in"))
  }

  /// Forged counts (negative, past any scan, lines that do not add up) are refused with their
  /// file, line and field, not added up and wrapped.
  @Test(arguments: [
    (#""read":-5,"passed":-5"#, "read is -5"),
    (#""read":4611686018427387904,"passed":4611686018427387904"#, "read is 4611686018427387904"),
    (#""read":3,"passed":1"#, "read (3) is not passed + replaced + blocked + errors (1)"),
    (#""read":1,"passed":1,"flagged":2"#, "flagged (2) is more than passed + replaced"),
    (#""read":1,"passed":1,"lists":{"en.txt":-1}"#, "lists.en.txt is -1"),
    (#""read":1,"passed":1,"parts":0"#, "parts is 0"),
  ])
  func summaryRefusesForgedCounts(fields: String, cause: String) async throws {
    let valid =
      #"{"read":2,"passed":2,"replaced":0,"blocked":0,"errors":0,"stopped":0,"flagged":0,"bytes":10,"#
      + #""seconds":0.1,"jobs":1,"parts":1,"blockedByBlockType":{},"bySourceType":{},"formats":{},"lists":{},"#
      + #""entries":[]}"#
    let forged = valid.replacingOccurrences(of: #""read":2,"passed":2"#, with: fields)
    let file = try CLITests.temporaryFile("forged.jsonl", valid + "\n" + forged + "\n")
    let result = try await Self.run(["summary", file])
    #expect(result.status == 2, "\(result.stderr)")
    #expect(result.stderr.contains("\(file):2: not a scan summary: \(cause)"), "\(result.stderr)")
    let alone = try await Self.run(["summary", try CLITests.temporaryFile("valid.jsonl", valid + "\n")])
    #expect(alone.status == 0, "\(alone.stderr)")
  }
}
