import Foundation
import Testing
@_spi(Tools) import Winnow
import WinnowTestSupport

/// `winnow scan`, `winnow words` and `winnow diff`, run as the built binary.
@Suite("winnow scan and word-list tools")
struct ScanTests {
  /// A directory with a small global list; returns its path.
  static func globalList() throws -> String {
    let file = try CLITests.temporaryFile("zh.txt", "[sensitive]\n傻逼\n[profanity]\nfuck\n")
    return URL(fileURLWithPath: file).deletingLastPathComponent().path
  }

  static func run(_ arguments: [String], stdin: String = "") async throws -> CLITests.Result {
    try await CLITests.run(arguments, stdin: stdin)
  }

  /// Standard error without the timing line, which changes from run to run.
  static func summary(_ stderr: String) -> [String] {
    stderr.split(separator: "\n").map(String.init).filter { !$0.contains(" MB in ") }
  }

  static let lines = [
    #"{"msgUID":"A1","fromUserId":"u1","targetId":"g1","conversationType":3,"objectName":"RC:TxtMsg","content":{"content":"hello"},"sentTime":1}"#,
    #"2024/01/02 03:04:05{"appId":"app","fromUserId":"u2","targetId":"u3","targetType":3,"GroupId":"g7","classname":"RC:TxtMsg","content":{"content":"你是傻 逼"},"dateTime":"2024-01-02 03:04:05.678","msgUID":"B2","isSensitiveWord":"true"}"#,
    #"{"fromUserId":"u4","toUserId":"u5","msgType":"RC:TxtMsg","content":"{\"content\":\"f.u.c.k\"}","channelType":"PERSON","msgTimeStamp":"1700000000000","messageId":"C3"}"#,
    #"{"msgUID":"D4","content":{"content":"#,
    #"{"kind":"extension","msgUID":"E5","targetId":"g1","conversationType":10,"channelId":"c1","sentTime":9,"sourceContent":{"mid":"E5","put":{"傻逼":"x"}}}"#,
  ]

  @Test func scansEveryFormatAndAccountsForEveryLine() async throws {
    let global = try Self.globalList()
    let dump = try CLITests.temporaryFile("dump.jsonl", Self.lines.joined(separator: "\n") + "\n")
    let result = try await Self.run(["scan", "--global", global, "--no-progress", dump])
    #expect(result.status == 3, "a line could not be read")
    let records = result.stdout.split(separator: "\n").map(String.init)
    #expect(records.count == 4)
    #expect(
      records[0].hasPrefix(
        #"{"file":"\#(dump)","line":2,"msgUID":"B2","format":"history-log","sourceType":0,"appKey":"app","fromUserId":"u2","verdict":"blocked","blockType":1,"sensitiveType":1,"record":{"type":3,"targetId":"g7","channelId":"","blockedMsgUId":"B2","blockType":1,"#
      ))
    #expect(records[0].contains(#""sentTime":1704164645678,"sourceType":0,"sourceContent":null}"#))
    #expect(records[0].hasSuffix(#","platformFlagged":true}"#))
    #expect(
      records[1].hasPrefix(
        #"{"file":"\#(dump)","line":3,"msgUID":"C3","format":"callback","sourceType":0,"fromUserId":"u4","verdict":"blocked","blockType":1,"#
      ))
    #expect(records[1].contains(#""record":{"type":1,"targetId":"u5","#))
    #expect(
      records[2]
        == #"{"file":"\#(dump)","line":4,"verdict":"error","error":"invalid JSON at byte 36: unexpected end of input, expected a value"}"#
    )
    #expect(records[3].contains(#""line":5,"msgUID":"E5","format":"item","sourceType":1,"verdict":"blocked""#))
    #expect(records[3].contains(#""sourceContent":"{\"mid\":\"E5\",\"put\":{\"傻逼\":\"x\"}}"}"#))
    #expect(
      Self.summary(result.stderr) == [
        "winnow scan: 5 lines read = 1 passed + 0 replaced + 3 blocked + 1 errors",
        "  blocked by blockType: 1 global 3, 2 custom 0, 3 third-party 0",
        "  by sourceType (read/blocked or replaced): 0 original 3/2, 1 extension 1/1, 2 edit 0/0",
        "  by format: item 2, history-log 1, callback 1",
        "  matches by list: zh.txt 3",
        #"  top entries: "傻逼" zh.txt:2 ×2, "fuck" zh.txt:4 ×1"#,
        #"  worst senders (blocked/replaced/flagged): "u4" 1/0/0, "app/u2" 1/0/0"#,
      ])
  }

  /// Review entries deliver and flag; `--category-action` switches a category; a scoped entry
  /// keeps out of text in another language. Run against the release binary too.
  @Test func reviewEntriesFlagAndCategoryActionsSwitch() async throws {
    let list = try CLITests.temporaryFile(
      "zh.txt", "[politics: review]\n民主\n[profanity]\n傻逼\n[profanity: lang=nl]\nnicht\n")
    let global = URL(fileURLWithPath: list).deletingLastPathComponent().path
    let dump = try CLITests.temporaryFile(
      "dump.jsonl",
      [
        #"{"msgUID":"R1","content":{"content":"我们要民主"}}"#,
        #"{"msgUID":"R2","content":{"content":"Er ist nicht da"}}"#,
        #"{"msgUID":"R3","content":{"content":"Jij bent een nicht"}}"#,
        #"{"msgUID":"R4","content":{"content":"hello"}}"#,
      ].joined(separator: "\n") + "\n")
    let flagged = try await Self.run(["scan", "--global", global, "--no-progress", dump])
    #expect(flagged.status == 1, "a flagged line is something found")
    let records = flagged.stdout.split(separator: "\n").map(String.init)
    #expect(records.count == 2)
    #expect(
      records[0].contains(
        #""msgUID":"R1","format":"item","sourceType":0,"verdict":"pass","blockType":null,"sensitiveType":0,"flagged":true,"#
      ))
    #expect(records[0].contains(#""action":"review""#))
    #expect(records[1].contains(#""msgUID":"R3""#) && records[1].contains(#""verdict":"blocked""#))
    #expect(
      Self.summary(flagged.stderr).prefix(5) == [
        "winnow scan: 4 lines read = 3 passed + 0 replaced + 1 blocked + 0 errors",
        "  blocked by blockType: 1 global 1, 2 custom 0, 3 third-party 0",
        "  by sourceType (read/blocked or replaced): 0 original 4/1, 1 extension 0/0, 2 edit 0/0",
        #"  flagged for review: 1 (delivered; their results carry "flagged": true)"#,
        "  by format: item 4",
      ])
    let blocking = try await Self.run([
      "scan", "--global", global, "--no-progress", "--category-action", "politics=block", dump,
    ])
    #expect(blocking.status == 1)
    #expect(
      Self.summary(blocking.stderr).first == "winnow scan: 4 lines read = 2 passed + 0 replaced + 2 blocked + 0 errors")
    let check = try await Self.run(["check", "--global", global, "--suppressed", "Er ist nicht da"])
    #expect(check.status == 0)
    #expect(check.stdout.contains("the text is written in another language than the entry's"))
    let bad = try await Self.run(["scan", "--global", global, "--category-action", "politics=maybe", dump])
    #expect(bad.status == 64)
    #expect(bad.stderr.contains("--category-action politics=maybe: expected CATEGORY=block or CATEGORY=review"))
  }

  /// Clean item and history-log lines are counted without being read unless `--all` writes
  /// them: the counts must not tell the two apart.
  @Test func countsCleanItemsAlikeReadOrNot() async throws {
    let global = try Self.globalList()
    let clean = [
      #"{"msgUID":"K1","content":{"content":"hello","extra":"x"},"conversationType":"GROUP"}"#,
      #"{"msgUID":"K2","objectName":"RC:ImgMsg","content":{"content":"傻逼 is not read in images"}}"#,
      #"{"msgUID":"K3","objectName":"My:Card","content":{"title":["fine",{"t":"ok"}]}}"#,
      #"2024/01/02 03:04:05{"classname":"RC:TxtMsg","content":{"content":"hi"},"msgUID":"K4","timestamp":5}"#,
    ]
    let dump = try CLITests.temporaryFile("mixed.jsonl", (Self.lines + clean).joined(separator: "\n") + "\n")
    let counted = try await Self.run(["scan", "--global", global, "--no-progress", dump])
    let read = try await Self.run(["scan", "--global", global, "--no-progress", "--all", dump])
    #expect(Self.summary(counted.stderr) == Self.summary(read.stderr))
    #expect(
      Self.summary(counted.stderr).first == "winnow scan: 9 lines read = 5 passed + 0 replaced + 3 blocked + 1 errors")
    #expect(Self.summary(counted.stderr).contains("  by format: item 5, history-log 2, callback 1"))
    #expect(read.stdout.split(separator: "\n").filter { $0.contains(#""verdict":"pass""#) }.count == 5)
  }

  @Test func allWritesPassedItemsAndReplacedContent() async throws {
    let custom = try CLITests.temporaryFile("app.txt", "秒杀 => **\n")
    let dump =
      #"{"msgUID":"R1","content":{"content":"限时秒杀","extra":"keep"}}"# + "\n"
      + #"{"msgUID":"P2","content":{"content":"hi"}}"#
    let result = try await Self.run(["scan", "--no-global", "--custom", custom, "--all", "-"], stdin: dump)
    #expect(result.status == 1)
    #expect(
      result.stdout == """
        {"file":"-","line":1,"msgUID":"R1","format":"item","sourceType":0,"verdict":"replaced","blockType":null,\
        "sensitiveType":2,"content":{"content":"限时**","extra":"keep"},"matches":[{"field":"content","text":"秒杀",\
        "start":6,"end":12,"entry":"秒杀","kind":"literal","action":"replace","replacement":"**","origin":"custom",\
        "list":"\(custom)","file":"\(custom)","line":1,"category":null}]}
        {"file":"-","line":2,"msgUID":"P2","format":"item","sourceType":0,"verdict":"pass","blockType":null,\
        "sensitiveType":0,"matches":[]}

        """)
  }

  /// `--apps DIR`: each line gets its own app's list (appKey of items and callbacks, appId of
  /// history logs); lines of an app without a list, and lines of no app, the global list only.
  @Test func appsApplyEachAppsListToItsLines() async throws {
    let global = try Self.globalList()
    let apps = CLITests.temporaryPath("apps").path
    try FileManager.default.createDirectory(atPath: apps, withIntermediateDirectories: true)
    try "appword\n秒杀 => **\n".write(toFile: apps + "/appA.txt", atomically: true, encoding: .utf8)
    try "otherword\n".write(toFile: apps + "/appB.txt", atomically: true, encoding: .utf8)
    let dump = try CLITests.temporaryFile(
      "apps.jsonl",
      [
        #"{"msgUID":"1","targetId":"t","appKey":"appA","content":{"content":"an appword here"}}"#,
        #"{"msgUID":"2","targetId":"t","appKey":"appB","content":{"content":"an appword here"}}"#,
        #"{"msgUID":"3","targetId":"t","content":{"content":"an appword here"}}"#,
        #"{"appId":"appA","fromUserId":"u","targetId":"g","targetType":3,"classname":"RC:TxtMsg","content":{"content":"秒杀 now"},"dateTime":"2023-11-14 22:13:20.354","msgUID":"4"}"#,
        #"{"msgUID":"5","targetId":"t","appKey":"appB","content":{"content":"otherword"}}"#,
        #"{"msgUID":"6","targetId":"t","appKey":"nolist","content":{"content":"otherword"}}"#,
      ].joined(separator: "\n") + "\n")
    let result = try await Self.run(["scan", "--global", global, "--apps", apps, dump])
    #expect(result.status == 1)
    let records = result.stdout.split(separator: "\n").compactMap { try? JSONValue(parsing: String($0)) }
    let verdicts = records.compactMap { record -> String? in
      guard let line = record["line"]?.int64Value, let verdict = record["verdict"]?.stringValue else { return nil }
      return "\(line):\(verdict)"
    }
    #expect(verdicts == ["1:blocked", "4:replaced", "5:blocked"])
    #expect(records.first?["blockType"]?.int64Value == 2)
    let refused = try await Self.run(["scan", "--global", global, "--apps", apps, "--custom", apps + "/appA.txt", dump])
    #expect(refused.status == 64)
  }

  @Test func emptyFileAndCleanInputExitZero() async throws {
    let global = try Self.globalList()
    let empty = try CLITests.temporaryFile("empty.jsonl", "")
    let result = try await Self.run(["scan", "--global", global, empty])
    #expect(result.status == 0)
    #expect(result.stdout.isEmpty)
    #expect(
      Self.summary(result.stderr).first == "winnow scan: 0 lines read = 0 passed + 0 replaced + 0 blocked + 0 errors")
  }

  /// A file that cannot be opened (missing, a directory, plain or `.gz`) is one error record
  /// on line 0 naming the cause, and the scan goes on with the next file.
  @Test func readsGzipAndReportsAMissingFile() async throws {
    let global = try Self.globalList()
    let plain = try CLITests.temporaryFile("dump.jsonl", Self.lines[1] + "\n")
    let gzip = Process()
    gzip.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    gzip.arguments = ["gzip", "-k", plain]
    try gzip.run()
    #expect(gzip.waitForExit() == .exited(0))
    let directory = URL(fileURLWithPath: plain).deletingLastPathComponent().path
    let result = try await Self.run([
      "scan", "--global", global, plain + ".gz", "/nonexistent/x.jsonl", directory, "/nonexistent/y.gz", plain,
    ])
    #expect(result.status == 3)
    let records = result.stdout.split(separator: "\n").map(String.init)
    #expect(records.count == 5)
    #expect(records[0].hasPrefix(#"{"file":"\#(plain).gz","line":1,"msgUID":"B2","format":"history-log""#))
    #expect(
      records[1] == #"{"file":"/nonexistent/x.jsonl","line":0,"verdict":"error","#
        + #""error":"cannot read /nonexistent/x.jsonl: No such file or directory"}"#)
    #expect(
      records[2]
        == #"{"file":"\#(directory)","line":0,"verdict":"error","error":"cannot read \#(directory): Is a directory"}"#)
    #expect(
      records[3] == #"{"file":"/nonexistent/y.gz","line":0,"verdict":"error","#
        + #""error":"cannot read /nonexistent/y.gz: No such file or directory"}"#)
    #expect(records[4].hasPrefix(#"{"file":"\#(plain)","line":1,"msgUID":"B2","format":"history-log""#))
    #expect(
      Self.summary(result.stderr).first == "winnow scan: 5 lines read = 0 passed + 0 replaced + 2 blocked + 3 errors")
  }

  @Test func readsATenMegabyteLine() async throws {
    let global = try Self.globalList()
    let text = String(repeating: "好", count: 3_500_000) + "傻逼"
    let line = #"{"msgUID":"L1","content":{"content":"\#(text)"}}"#
    let dump = try CLITests.temporaryFile("long.jsonl", Self.lines[0] + "\n" + line + "\n" + Self.lines[0])
    let result = try await Self.run(["scan", "--global", global, "--content-limit", "20000000", dump])
    #expect(result.status == 1)
    #expect(result.stdout.hasPrefix(#"{"file":"\#(dump)","line":2,"msgUID":"L1","#))
    #expect(
      Self.summary(result.stderr).first == "winnow scan: 3 lines read = 2 passed + 0 replaced + 1 blocked + 0 errors")
    let limited = try await Self.run(["scan", "--global", global, dump])
    #expect(
      limited.stdout.contains(
        #""line":2,"verdict":"error","error":"content: content of 10500020 bytes is over the limit of 131072 bytes"}"#))
  }

  @Test func contentNestedAsDeepAsAllowedIsModeratedByEveryWorker() async throws {
    let global = try Self.globalList()
    let nested = String(repeating: "[", count: 510) + #""傻逼""# + String(repeating: "]", count: 510)
    let line =
      #"{"msgUID":"N1","targetId":"g1","conversationType":3,"objectName":"App:Nested","content":{"a":"#
      + nested + #"},"sentTime":1}"#
    let dump = try CLITests.temporaryFile("nested.jsonl", String(repeating: line + "\n", count: 600))
    for jobs in ["1", "2"] {
      let result = try await Self.run(["scan", "--global", global, "--no-progress", "--jobs", jobs, dump])
      #expect(result.status == 1)
      #expect(
        Self.summary(result.stderr).first
          == "winnow scan: 600 lines read = 0 passed + 0 replaced + 600 blocked + 0 errors")
    }
  }

  @Test func outputIsTheSameWhateverTheJobs() async throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let sample = root.appendingPathComponent("samples/messages.jsonl").path
    let global = root.appendingPathComponent("wordlists/global").path
    let output = try CLITests.temporaryFile("out.jsonl", "old contents")
    let one = try await Self.run(["scan", "--global", global, "--jobs", "1", "--all", sample])
    let four = try await Self.run(["scan", "--global", global, "--jobs", "4", "--all", "--output", output, sample])
    #expect(one.status == 1 && four.status == 1)
    let records = one.stdout.split(separator: "\n")
    #expect(records.count == 6421)
    // Numbered across the pieces the workers share (`linesPerPiece` lines each).
    #expect(records.enumerated().allSatisfy { $1.contains("\"line\":\($0 + 1),") })
    #expect(try String(contentsOfFile: output, encoding: .utf8) == one.stdout)
    #expect(Self.summary(one.stderr).dropFirst() == Self.summary(four.stderr).dropFirst())
    let leftovers = try FileManager.default.contentsOfDirectory(
      atPath: URL(fileURLWithPath: output).deletingLastPathComponent().path)
    #expect(leftovers == ["out.jsonl"], "the temporary file was renamed over the output")
  }

  @Test func wordsLintReportsEachFindingWithFileAndLine() async throws {
    let list = try CLITests.temporaryFile(
      "app.txt",
      "傻逼\n傻逼玩意\nｆｕｃｋ\nfuck\nx\nre:(\n" + String(repeating: "长", count: 33) + "\nre:\\bass\\b\nre:腦.*殘\nre:fu+ck\n")
    let result = try await Self.run(["words", "lint", list])
    #expect(result.status == 1)
    #expect(
      result.stdout == """
        \(list):2: redundant: "傻逼" at \(list):1 already blocks every text this entry matches
        \(list):4: normalizes to the same entry as "ｆｕｃｋ" at \(list):3
        \(list):5: too short to be safe: a single Latin letter
        \(list):6: invalid regex at offset 1: missing closing parenthesis
        \(list):7: longer than the platform's 32-character limit for custom words (33)
        \(list):8: regex never matches: it requires "ss", and repeated letters are one letter in normalized text (write "s+")
        \(list):9: regex never matches: it requires "腦", which normalized text always writes "脑"

        """)
    #expect(result.stderr == "7 findings\n")
  }

  @Test func wordsAddRemoveAndSortEditInPlace() async throws {
    let list = try CLITests.temporaryFile("app.txt", "# ads\r\n[ads]\r\nzeta\r\nalpha\r\n")
    let add = try await Self.run(["words", "add", list, "beta => **", "alpha"])
    #expect(add.status == 0)
    #expect(add.stderr == "already in \(list):4: alpha\nadded 1 entry to \(list)\n")
    let bad = try await Self.run(["words", "add", list, "re:("])
    #expect(bad.status == 2)
    #expect(bad.stderr == "winnow: entry 1 \"re:(\": invalid regex at offset 1: missing closing parenthesis\n")
    let sort = try await Self.run(["words", "sort", list])
    #expect(sort.status == 0)
    #expect(try String(contentsOfFile: list, encoding: .utf8) == "# ads\r\n[ads]\r\nalpha\r\nbeta => **\r\nzeta\r\n")
    let remove = try await Self.run(["words", "rm", list, "zeta", "gamma"])
    #expect(remove.status == 1)
    #expect(remove.stderr == "not in \(list): gamma\nremoved 1 line from \(list)\n")
    #expect(try String(contentsOfFile: list, encoding: .utf8) == "# ads\r\n[ads]\r\nalpha\r\nbeta => **\r\n")
  }

  @Test func wordsStatsAndDiffOnACorpus() async throws {
    let old = try CLITests.temporaryFile("old.txt", "[x]\nhello\nnever\n")
    let new = try CLITests.temporaryFile("new.txt", "[x]\nnever\n傻逼\n")
    let dump = try CLITests.temporaryFile("dump.jsonl", Self.lines.joined(separator: "\n") + "\n")
    let stats = try await Self.run(["words", "stats", old, "--corpus", dump])
    #expect(
      stats.stdout == """
        2 entries in 1 list
        by category:
          x 2
        by kind:
          literal block 2
        corpus: 5 items, 1 blocked, 0 replaced, 1 errors
        fire most:
          1 "hello" old.txt:2
        never fire: 1 of 2
          \(old):3: never

        """)
    // Over the built-in global list, which blocks 傻逼 anyway, adding it changes nothing.
    let diff = try await Self.run(["diff", "--old", old, "--new", new, dump])
    #expect(diff.status == 1)
    #expect(
      diff.stdout == """
        5 items read, 1 unreadable, 1 changed verdict
        newly blocked: 0
        newly passed: 1
          1 × hello old.txt:2
          e.g. \(dump):1: "hello"
        newly replaced: 0

        """)
    let alone = try await Self.run(["diff", "--alone", "--old", old, "--new", new, dump])
    #expect(alone.status == 1)
    #expect(
      alone.stdout == """
        5 items read, 1 unreadable, 3 changed verdict
        newly blocked: 2
          2 × 傻逼 new.txt:3
          e.g. \(dump):2: "你是傻 逼"
          e.g. \(dump):5: "傻逼 | x"
        newly passed: 1
          1 × hello old.txt:2
          e.g. \(dump):1: "hello"
        newly replaced: 0

        """)
  }

  /// `diff` reads both sides before it fails: a bad old list does not hide the new list's
  /// errors, and a regex error shows beside a line that does not parse.
  @Test func diffReportsTheErrorsOfBothSidesAtOnce() async throws {
    let old = try CLITests.temporaryFile("old.txt", "re:(\n")
    let new = try CLITests.temporaryFile("new.txt", "re:(x\n[bad\n")
    let dump = try CLITests.temporaryFile("dump.jsonl", Self.lines[0] + "\n")
    let diff = try await Self.run(["diff", "--old", old, "--new", new, dump])
    #expect(diff.status == 2)
    #expect(
      diff.stderr == """
        winnow: \(old):1: invalid regex at offset 1: missing closing parenthesis
        \(new):1: invalid regex at offset 2: missing closing parenthesis
        \(new):2: invalid section header "[bad" (expected [name] or [name: options], the name of letters, digits, - or _, the options review, block, name or lang=CODE)

        """)
    let compiles = try await Self.run(["diff", "--old", new, "--new", old, dump])
    #expect(compiles.stderr.hasPrefix("winnow: \(new):1: invalid regex at offset 2"))
  }

  /// The platform's fidelity, as `check --item` answers: an ultra-group item without a channel
  /// is recorded in `RCDefault` (or as `--ultra-group-channel` says), and the `@` mention
  /// text of an image message is moderated.
  @Test func ultraGroupChannelsAndMentionsOfEveryType() async throws {
    let ultra = #"{"msgUID":"u","targetId":"g","conversationType":10,"content":{"content":"傻逼"},"sentTime":1}"#
    let recorded = try await Self.run(["check", "--json", "--item", "-"], stdin: ultra)
    #expect(recorded.stdout.contains(#""channelId":"RCDefault""#), "\(recorded.stdout.prefix(300))")
    let empty = try await Self.run(["check", "--json", "--ultra-group-channel", "", "--item", "-"], stdin: ultra)
    #expect(empty.stdout.contains(#""type":10,"targetId":"g","channelId":"","#), "\(empty.stdout.prefix(300))")
    let image =
      #"{"msgUID":"i","targetId":"g","conversationType":3,"objectName":"RC:ImgMsg","content":{"imageUri":"u","mentionedInfo":{"type":2,"mentionedContent":"@你 傻逼"}},"sentTime":1}"#
    let mentioned = try await Self.run(["check", "--json", "--item", "-"], stdin: image)
    #expect(
      mentioned.status == 1 && mentioned.stdout.contains(#""verdict":"blocked""#), "\(mentioned.stdout.prefix(300))")
  }

  @Test func reviewerFailuresFollowThePolicyInAScan() async throws {
    let global = try Self.globalList()
    let dump = try CLITests.temporaryFile("dump.jsonl", Self.lines[0] + "\n" + Self.lines[1] + "\n")
    // Nothing listens on port 9 of 127.0.0.1: every call is refused at once.
    let result = try await Self.run([
      "scan", "--global", global, "--reviewer-url", "http://127.0.0.1:9/review", "--fail-closed", "--timeout", "30",
      dump,
    ])
    #expect(result.status == 1)
    let records = result.stdout.split(separator: "\n").map(String.init)
    #expect(records.count == 2)
    #expect(
      records[0].contains(
        #""line":1,"msgUID":"A1","format":"item","sourceType":0,"fromUserId":"u1","verdict":"blocked","blockType":3,"#
      ))
    #expect(records[0].contains(#""review":{"failure":"reviewer unreachable: "#))
    #expect(
      records[1].contains(
        #""line":2,"msgUID":"B2","format":"history-log","sourceType":0,"appKey":"app","fromUserId":"u2","verdict":"blocked","blockType":1,"#
      ))
    #expect(Self.summary(result.stderr).contains("  blocked by blockType: 1 global 1, 2 custom 0, 3 third-party 1"))
    #expect(
      Self.summary(result.stderr).contains(
        "  reviewer: 1 calls, 0 passed, 0 review, 0 rejected, 0 timed out, 1 failed"))
  }

  @Test func categoriesCanBeSwitchedOffAndListsAdded() async throws {
    let global = try CLITests.temporaryFile("zh.txt", "[politics]\n反动\n[profanity]\n傻逼\n")
    let optional = try CLITests.temporaryFile("zh-ordinary.txt", "[ordinary]\n政府\n")
    let globalDirectory = URL(fileURLWithPath: global).deletingLastPathComponent().path
    let optionalDirectory = URL(fileURLWithPath: optional).deletingLastPathComponent().path
    let text = "反动 傻逼 政府"
    let all = try await Self.run(["check", "--json", "--global", globalDirectory, "--global", optionalDirectory, text])
    #expect(all.stdout.contains(#""masked":"** ** **""#))
    let some = try await Self.run([
      "check", "--json", "--global", globalDirectory, "--exclude-category", "politics", text,
    ])
    #expect(some.stdout.contains(#""masked":"反动 ** 政府""#))
  }

  /// The pinyin entries are part of the built-in list, and `--exclude-category pinyin`
  /// switches them off.
  @Test func pinyinIsOnByDefault() async throws {
    let text = "ni shi sha bi"
    let on = try await Self.run(["check", "--json", text])
    #expect(on.status == 1)
    #expect(on.stdout.contains(#""category":"pinyin.profanity""#))
    let off = try await Self.run(["check", "--exclude-category", "pinyin", text])
    #expect(off.status == 0)
  }

  /// The contact list is on beside the built-in list: a WeChat id is flagged with its kind;
  /// `--exclude-category contact.wechat` leaves that kind out and `--no-contact` the whole list;
  /// naming its directory with `--global` too does not load it twice; `--no-global` loads
  /// neither. Run against the release binary too.
  @Test func contactListIsOnByDefault() async throws {
    let text = "加微信 abc123"
    let on = try await Self.run(["check", "--json", text])
    #expect(on.status == 1)
    #expect(on.stdout.contains(#""category":"contact.wechat""#))
    #expect(on.stdout.contains(#""action":"review""#))
    let off = try await Self.run(["check", "--no-contact", text])
    #expect(off.status == 0)
    let excluded = try await Self.run(["check", "--exclude-category", "contact.wechat", text])
    #expect(excluded.status == 0)
    let wordlists = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("wordlists")
    let named = try await Self.run([
      "check", "--json", "--contact", "--global", wordlists.appendingPathComponent("global").path, "--global",
      wordlists.appendingPathComponent("contact").path, text,
    ])
    #expect(named.status == 1)
    #expect(named.stdout.components(separatedBy: #""category":"contact.wechat""#).count == 2)
    let customOnly = try await Self.run(["check", "--no-global", "--custom", "/dev/null", text])
    #expect(customOnly.status == 0)
  }
  /// The contact list's digit tests, through the release binary too: a mobile number written in
  /// Chinese numerals with separators is found, also after more digits than the prefilter's
  /// pass keeps offsets for (the text is read again); as many numerals scattered through prose
  /// run no phone regex and flag nothing; a domain written with `。` is found, and a text that
  /// merely ends in `。` is not.
  @Test func contactDigitsAndFullStops() async throws {
    let spaced = "我的电话 一三八 一二三四 五六七八，随时打"
    // Fourteen numerals, eleven of them within 144 bytes, none closer together than a phone's.
    let prose = String(repeating: "一个人三天两夜去了五个地方，第一天和第二天都很累，十个景点。", count: 2)
    let manyDigits = (1...40).map(String.init).joined(separator: "、") + "，电话13812345678"
    for (text, category) in [
      (spaced, "contact.phone"), (manyDigits, "contact.phone"), (prose, nil), ("网址是example。com", "contact.url"),
      ("这家店还不错。", nil),
    ] as [(String, String?)] {
      let result = try await Self.run(["check", "--json", text])
      if let category {
        #expect(result.status == 1 && result.stdout.contains(#""category":"\#(category)""#), "\(text)")
      } else {
        #expect(result.status == 0, "\(text): \(result.stdout)")
      }
    }
  }
}

/// Where results are written: never over an input, never by renaming over a FIFO or device.
extension ScanTests {
  @Test func anOutputThatIsAnInputIsRefused() async throws {
    let global = try Self.globalList()
    let contents = Self.lines[0] + "\n" + Self.lines[2] + "\n"
    let dump = try CLITests.temporaryFile("own-output.jsonl", contents)
    let result = try await Self.run(["scan", "--global", global, "--no-progress", "-o", dump, dump])
    #expect(result.status == 2)
    #expect(result.stderr.contains("is also an input"), "\(result.stderr)")
    #expect(try String(contentsOfFile: dump, encoding: .utf8) == contents, "the input is as it was")
    let summary = try await Self.run(["scan", "--global", global, "--no-progress", "--summary-json", dump, dump])
    #expect(summary.status == 2 && summary.stderr.contains("is also an input"), "\(summary.stderr)")
    #expect(try String(contentsOfFile: dump, encoding: .utf8) == contents)
    // A link to the input is the input.
    let link = URL(fileURLWithPath: dump).deletingLastPathComponent().appendingPathComponent("link.jsonl").path
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: dump)
    let linked = try await Self.run(["scan", "--global", global, "--no-progress", "-o", link, dump])
    #expect(linked.status == 2 && linked.stderr.contains("is also an input"), "\(linked.stderr)")
    #expect(try String(contentsOfFile: dump, encoding: .utf8) == contents)
  }

  @Test func aFifoOutputIsWrittenNotReplaced() async throws {
    let global = try Self.globalList()
    let dump = try CLITests.temporaryFile("to-fifo.jsonl", Self.lines[0] + "\n" + Self.lines[2] + "\n")
    let fifo = URL(fileURLWithPath: dump).deletingLastPathComponent().appendingPathComponent("results.fifo").path
    #expect(mkfifo(fifo, 0o600) == 0)
    // A reader is there first, so the scan's open for writing does not wait; the results fit
    // in the pipe's buffer.
    let reader = open(fifo, O_RDONLY | O_NONBLOCK)
    #expect(reader >= 0)
    defer { close(reader) }
    let result = try await Self.run(["scan", "--global", global, "--no-progress", "--all", "-o", fifo, dump])
    #expect(result.status == 1, "\(result.stderr)")
    var status = stat()
    #expect(stat(fifo, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO, "still a FIFO")
    var buffer = [UInt8](repeating: 0, count: 65536)
    let count = read(reader, &buffer, buffer.count)
    let written = String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self)
    #expect(written.split(separator: "\n").count == 2, "\(written)")
  }
}
