import Foundation
import Testing
import WinnowTestSupport

@_spi(Tools) @testable import Winnow

/// The file store's audit log: what each edit logs, ids across restarts and torn lines, and an
/// edit whose log cannot be written.
@Suite("Change log")
struct ChangeLogTests {
  static func service() throws -> (ModerationService, AppDirectory) {
    let apps = try ModerationServiceTests.directory([:])
    return (try ModerationService(lists: ModerationServiceTests.lists(apps)), apps)
  }

  @Test func eachEditLogsWhatChangedAndWho() throws {
    let (service, apps) = try Self.service()
    let origin = ChangeOrigin(replica: "r1", address: "127.0.0.1", requestId: "req-1")
    try service.addWords([.init(word: "秒杀"), .init(word: "代购", replacement: "**")], toApp: "app1", origin: origin)
    // The same words again: nothing changes, nothing is logged.
    try service.addWords([.init(word: "秒杀")], toApp: "app1", origin: origin)
    try service.addWords([.init(word: "秒杀", replacement: "##")], toApp: "app1", origin: origin)
    try service.addWords([.init(word: "word")], toApp: "app2")
    try service.removeWords(["代购", "absent"], fromApp: "app1", origin: origin)
    let all = try ChangeLog.read(directory: apps.path)
    #expect(all.map(\.id) == [1, 2, 3, 4, 5])
    #expect(all.map(\.op) == ["add", "add", "update", "add", "delete"])
    #expect(all.map(\.word) == ["秒杀", "代购", "秒杀", "word", "代购"])
    #expect(all.map(\.replaceWord) == [nil, "**", "##", nil, nil])
    #expect(all[0].origin == origin)
    #expect(all[3].origin.replica == ChangeOrigin.defaultReplica && all[3].origin.address == nil)
    #expect(try ChangeLog.read(directory: apps.path, app: "app1", since: 2).map(\.id) == [3, 5])
    // Read back from its JSON.
    #expect(all.allSatisfy { ListChange(json: $0.json) == $0 })
  }

  @Test func idsGoOnAfterARestartAndATornLineIsCutOff() throws {
    let (service, apps) = try Self.service()
    try service.addWords([.init(word: "one")], toApp: "app")
    // A crash in the middle of an append left half a line.
    let log = apps.path + "/" + ChangeLog.fileName
    let handle = try #require(FileHandle(forWritingAtPath: log))
    try handle.seekToEnd()
    try handle.write(contentsOf: Data(#"{"id":2,"app":"app","op":"ad"#.utf8))
    try handle.close()
    #expect(try ChangeLog.read(directory: apps.path).map(\.id) == [1])
    let restarted = try ModerationService(lists: ModerationServiceTests.lists(apps))
    try restarted.addWords([.init(word: "two")], toApp: "app")
    let changes = try ChangeLog.read(directory: apps.path)
    #expect(changes.map(\.id) == [1, 2])
    #expect(changes.map(\.word) == ["one", "two"])
    #expect(try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").count == 2)
  }

  @Test func anEditWhoseLogCannotBeWrittenChangesNothing() throws {
    let (service, apps) = try Self.service()
    try service.addWords([.init(word: "kept")], toApp: "app")
    // A directory where the log should be: it cannot be opened for writing.
    let log = apps.path + "/" + ChangeLog.fileName
    try FileManager.default.removeItem(atPath: log)
    try FileManager.default.createDirectory(atPath: log, withIntermediateDirectories: false)
    #expect(throws: ModerationServiceError.self) { try service.addWords([.init(word: "lost")], toApp: "app") }
    #expect(throws: ModerationServiceError.self) { try service.addWords([.init(word: "new")], toApp: "other") }
    #expect(try String(contentsOfFile: apps.listPath(of: "app"), encoding: .utf8) == "kept\n")
    #expect(!FileManager.default.fileExists(atPath: apps.listPath(of: "other")))
    #expect(ModerationServiceTests.verdict(service, "lost", app: "app") == .pass)
    #expect(ModerationServiceTests.verdict(service, "kept", app: "app") == .blocked)
  }
}
