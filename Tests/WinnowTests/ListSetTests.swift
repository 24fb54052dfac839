import Foundation
import Testing
import WinnowTestSupport

@_spi(Tools) @testable import Winnow

/// `ListSet`, the one road from list files to matchers and engines, and `ListDirectory`, the
/// one listing of a directory's list files.
@Suite struct ListSetTests {
  /// A new directory holding `files` (name → text).
  static func directory(_ files: [String: String]) throws -> String {
    let path = try scratchDirectory("winnow-lists")
    for (name, text) in files { try text.write(toFile: path + "/" + name, atomically: false, encoding: .utf8) }
    return path
  }

  static func verdict(_ engine: ModerationEngine, _ text: String, app: String? = nil) -> ModerationResult.Verdict? {
    var item = MessageItem.text(text, msgUID: "m", targetId: "t")
    item.appKey = app
    return try? engine.screen(item).verdict
  }

  @Test func aDirectoryListsItsTextFilesInNameOrder() throws {
    let path = try Self.directory(["b.txt": "b\n", "a.txt": "a\n", "notes.md": "", "c.txt.bak": ""])
    let directory = ListDirectory(path: path)
    #expect(try directory.names() == ["a.txt", "b.txt"])
    #expect(directory.files() == [path + "/a.txt", path + "/b.txt"])
    #expect(try directory.load(origin: .global).map(\.name) == directory.files())
    let before = directory.fingerprints()
    #expect(before.map(\.path) == directory.files())
    try "a\nmore\n".write(toFile: path + "/a.txt", atomically: true, encoding: .utf8)
    #expect(directory.fingerprints() != before)
    #expect(throws: WordListErrors.self) { try ListDirectory(path: path + "/missing").names() }
    #expect(ListDirectory(path: path + "/missing").files().isEmpty)
  }

  /// Every error of every file comes at once, in file and line order: the bad lines, and what
  /// compiling finds in the lines that parse (a regex PCRE2 rejects) of the same files.
  @Test func everyErrorOfEveryFileIsReportedTogether() throws {
    let global = try Self.directory(["g.txt": "fine\nre:(unclosed\n[bad header\n"])
    let custom = try Self.directory(["c.txt": "ok\nre:\n"])
    let lists = ListSet(globalDirectories: [global], customFiles: [custom + "/c.txt"])
    do {
      _ = try lists.matcher()
      Issue.record("lists with errors compiled")
    } catch {
      #expect(
        error.errors.map(\.location) == [
          SourceLocation(file: global + "/g.txt", line: 2), SourceLocation(file: global + "/g.txt", line: 3),
          SourceLocation(file: custom + "/c.txt", line: 2),
        ])
    }
    #expect(throws: WordListErrors.self) { try lists.engine() }
    #expect(throws: WordListErrors.self) { try lists.globalMatcher() }
  }

  /// Excluded categories leave the global and custom lists; an app's list is its own.
  @Test func excludedCategoriesLeaveTheGlobalAndCustomListsOnly() throws {
    let global = try Self.directory(["g.txt": "[politics]\nglobalpolitics\n[]\nglobalplain\n"])
    let custom = try Self.directory(["c.txt": "[politics]\ncustompolitics\n"])
    let apps = try Self.directory(["app.txt": "[politics]\napppolitics\n"])
    var lists = ListSet(globalDirectories: [global], customFiles: [custom + "/c.txt"])
    lists.excludedCategories = ["politics"]
    let matcher = try lists.matcher()
    #expect(matcher.isClean("globalpolitics custompolitics"))
    #expect(!matcher.isClean("globalplain"))
    var withApps = ListSet(globalDirectories: [global], apps: AppDirectory(path: apps))
    withApps.excludedCategories = ["politics"]
    let engine = try withApps.engine()
    #expect(Self.verdict(engine, "apppolitics", app: "app") == .blocked)
    #expect(Self.verdict(engine, "globalpolitics", app: "app") == .pass)
  }

  /// Both layouts of the apps' lists decide alike, and custom files apply to items of no app.
  @Test func fullAndCompactAppsDecideAlike() throws {
    let global = try Self.directory(["g.txt": "globalword\n[politics: review]\nreviewword\n"])
    let custom = try Self.directory(["c.txt": "customword\n"])
    let apps = try Self.directory(["a.txt": "appword\nallow:globalword here\n", "b.txt": "otherword\n"])
    var lists = ListSet(globalDirectories: [global], customFiles: [custom + "/c.txt"], apps: AppDirectory(path: apps))
    lists.categoryActions = ["politics": .block]
    var compact = lists
    compact.appLayout = .compact
    let engines = [try lists.engine(), try compact.engine()]
    for engine in engines {
      #expect(engine.appKeys == ["a", "b"])
      #expect(engine.configuration.categoryActions == ["politics": .block])
    }
    let cases: [(String, String?)] = [
      ("appword", "a"), ("appword", "b"), ("otherword", "b"), ("customword", nil), ("customword", "a"),
      ("globalword here", "a"), ("globalword here", nil), ("reviewword", "a"), ("reviewword", nil), ("hello", "a"),
    ]
    for (text, app) in cases {
      let verdicts = engines.map { Self.verdict($0, text, app: app) }
      #expect(verdicts[0] == verdicts[1], "\(text) in app \(app ?? "none"): \(verdicts)")
    }
    #expect(Self.verdict(engines[0], "appword", app: "a") == .blocked)
    #expect(Self.verdict(engines[0], "customword", app: nil) == .blocked)
    #expect(Self.verdict(engines[0], "reviewword", app: nil) == .blocked)
    // An app's list is over the global list, not over the custom files.
    #expect(Self.verdict(engines[0], "customword", app: "a") == .pass)
  }

  @Test func aServiceTakesAppsNotCustomFiles() throws {
    let global = try Self.directory(["g.txt": "globalword\n"])
    let custom = try Self.directory(["c.txt": "customword\n"])
    #expect(throws: ModerationServiceError.self) {
      try ModerationService(lists: ListSet(globalDirectories: [global], customFiles: [custom + "/c.txt"]))
    }
    var lists = ListSet(globalDirectories: [global])
    lists.categoryActions = ["x": .block]
    lists.customAllowsGlobal = true
    let service = try ModerationService(lists: lists)
    #expect(service.configuration.categoryActions == ["x": .block] && service.configuration.customAllowsGlobal)
  }
}
