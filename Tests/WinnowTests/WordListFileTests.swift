import Foundation
import Testing

@_spi(Tools) @testable import Winnow

@Suite("Word-list files")
struct WordListFileTests {
  static let sample = """
    # Sample list
    [profanity]
    fuck
    badword => ***
    sub:av
    re:b[a4]d\\s*w[o0]rd

    allow:scunthorpe
    allow:word:class
    \\#hashtag
    []
    plain
    """

  @Test func readsEveryForm() throws {
    let file = WordListFile(parsing: Self.sample, path: "sample.txt")
    #expect(file.errors.isEmpty)
    let entries = file.entries
    #expect(
      entries.map(\.text) == ["fuck", "badword", "av", "b[a4]d\\s*w[o0]rd", "scunthorpe", "class", "#hashtag", "plain"])
    #expect(entries[0].category == "profanity" && entries[0].action == .block && entries[0].boundary == .word)
    #expect(entries[1].action == .replace("***"))
    #expect(entries[2].boundary == .substring)
    #expect(entries[3].kind == .regex)
    #expect(entries[4].action == .allow && entries[4].boundary == .substring)
    #expect(entries[5].action == .allow && entries[5].boundary == .word)
    #expect(entries[7].category == nil)
    #expect(entries[7].source == SourceLocation(file: "sample.txt", line: 12))
  }

  @Test(arguments: [
    "a\nb\n", "a\nb", "", "\n", "# only a comment\n", "a\r\nb\r\n", "  spaced   \n\n\n", "bad => \nre:(\n",
  ])
  func writesBackExactly(_ text: String) {
    #expect(WordListFile(parsing: text, path: "x").text == text)
  }

  @Test func entryLinesReadBackAsThemselves() {
    let entries = [
      Entry(text: "plain"), Entry(text: "x", action: .replace("**")), Entry(text: "sub", boundary: .substring),
      Entry(text: "re:literal"), Entry(text: "#tag"), Entry(text: "a+b", kind: .regex),
      Entry(text: "ok", action: .allow), Entry(text: "ok", action: .allow, boundary: .word),
    ]
    for entry in entries {
      let read = WordListFile(parsing: entry.line, path: "x").entries.first
      #expect(
        read?.text == entry.text && read?.kind == entry.kind && read?.action == entry.action
          && read?.boundary == entry.boundary)
    }
  }

  @Test func badLinesAreReportedAndTheRestIsKept() {
    let file = WordListFile(parsing: "one\nre:\n => x\n[bad section\nallow:x => y\ntwo\n", path: "list.txt")
    #expect(file.entries.map(\.text) == ["one", "two"])
    #expect(
      file.errors.map(\.description) == [
        "list.txt:2: empty entry",
        "list.txt:3: empty entry",
        "list.txt:4: invalid section header \"[bad section\" (expected [name] or [name: options], the name of letters, digits, - or _, the options review, block, name or lang=CODE)",
        "list.txt:5: allow entries cannot have a replacement",
      ])
    #expect(throws: WordListErrors.self) { try WordList(file: file, origin: .custom) }
  }

  @Test func editsKeepCommentsAndOrder() {
    var file = WordListFile(parsing: "# keep me\nb\na\n", path: "x")
    file.append(Entry(text: "c", action: .replace("*")))
    #expect(file.removeEntries { $0.text == "b" } == 1)
    #expect(file.text == "# keep me\na\nc => *\n")
  }

  @Test func crlfFilesAreReadLineByLine() throws {
    let file = WordListFile(parsing: "[a]\r\nfoo\r\nbar => x\r\n", path: "crlf.txt")
    #expect(file.lines.count == 3)
    #expect(file.entries.map(\.text) == ["foo", "bar"])
    #expect(file.entries.map(\.category) == ["a", "a"])
    var edited = file
    edited.append(Entry(text: "baz"))
    #expect(edited.text == "[a]\r\nfoo\r\nbar => x\r\nbaz\r\n")
  }

  /// A byte-order mark (as Windows editors save UTF-8) is no part of the first line: a comment
  /// there stays a comment, not an entry that would block its text; it is written back.
  @Test func aByteOrderMarkIsNotPartOfTheFirstLine() {
    let text = "\u{FEFF}# app words\r\n[ads]\r\nspam\r\n"
    var file = WordListFile(parsing: text, path: "bom.txt")
    #expect(file.startsWithByteOrderMark)
    #expect(file.lines.first?.content == .comment)
    #expect(file.entries.map(\.text) == ["spam"])
    #expect(file.entries.first?.category == "ads")
    #expect(file.text == text)
    file.append(Entry(text: "ham"))
    #expect(file.text == text + "ham\r\n")
    #expect(!WordListFile(parsing: "# a\n", path: "plain.txt").startsWithByteOrderMark)
  }

  /// `winnow words lint` finds every error that loading and compiling the list reports (a user
  /// fixes a list with lint, then runs it), with the same cause on the same line; and lexicon
  /// words that are never read, which compiling skips.
  @Test func lintFindsEveryErrorCompilingReports() throws {
    let text = "ok\n\\\\\nre:(\nre:a|\n[bad\nsub:\n\u{200B}\nallow:x => y\nlexicon:...\nfine\n"
    let file = WordListFile(parsing: text, path: "app.txt")
    var errors = file.errors
    do throws(WordListErrors) {
      _ = try Matcher(lists: [WordList(name: "app.txt", origin: .custom, entries: file.entries)])
    } catch {
      errors += error.errors
    }
    #expect(errors.count == 7)
    let findings = Set(WordListLint.lint([file], origin: .custom).map { "\($0.location.line): \($0.message)" })
    for error in errors { #expect(findings.contains("\(error.location.line): \(error.cause)")) }
    #expect(
      findings.contains(
        "9: lexicon word is not read: it normalizes to nothing, and only words of one to three (or syllables of ASCII letters) are read"
      ))
  }

  /// A list is read from a pipe as from a file (`--custom <(…)` in a shell), and a list that
  /// cannot be read names the system's cause.
  @Test func readsAPipeAndNamesWhyAFileCannotBeRead() throws {
    let pipe = Pipe()
    pipe.fileHandleForWriting.write(Data("[x]\nbadword\n".utf8))
    try pipe.fileHandleForWriting.close()
    let path = "/dev/fd/\(pipe.fileHandleForReading.fileDescriptor)"
    let file = try WordListFile(contentsOf: path)
    #expect(file.entries.map(\.text) == ["badword"])
    #expect(file.entries.first?.source == SourceLocation(file: path, line: 2))
    #expect(
      throws: WordListError(.unreadable("no such file or directory"), at: SourceLocation(file: "/nonexistent", line: 0))
    ) {
      try WordListFile(contentsOf: "/nonexistent")
    }
    #expect(throws: WordListError(.unreadable("is a directory"), at: SourceLocation(file: "/", line: 0))) {
      try WordListFile(contentsOf: "/")
    }
  }
}
