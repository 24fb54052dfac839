import Crypto
import Foundation
import PropertyBased
import Synchronization
import Testing
import WinnowTestSupport

@_spi(Tools) @testable import Winnow

/// The platform's signature, the app directory and the service that swaps engines.
@Suite("Moderation service")
struct ModerationServiceTests {
  // MARK: - SHA-1 and the platform signature

  @Test func sha1OfTheStandardVectors() {
    func hex(_ text: String) -> String {
      SHA1.digest(Array(text.utf8)).map {
        String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16)
      }
      .joined()
    }
    #expect(hex("") == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
    #expect(hex("abc") == "a9993e364706816aba3e25717850c26c9cd0d89d")
    #expect(
      hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") == "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
  }

  /// Our SHA-1 equals swift-crypto's on random messages of every length around the block
  /// edges (55, 56, 63, 64 bytes and beyond).
  @Test func sha1EqualsTheReference() async {
    await propertyCheck(count: 300, input: Gen.int(in: 0...255).map { UInt8($0) }.array(of: 0...200)) { bytes in
      #expect(SHA1.digest(bytes) == Array(Insecure.SHA1.hash(data: bytes)))
    }
  }

  @Test func signatureIsCheckedWhateverTheCase() {
    let signature = PlatformSignature.signature(secret: "secret", nonce: "14314", timestamp: "1408710653491")
    #expect(
      signature
        == Insecure.SHA1.hash(data: Array("secret143141408710653491".utf8)).map { String(format: "%02x", $0) }.joined())
    #expect(
      PlatformSignature.isValid(signature.uppercased(), secret: "secret", nonce: "14314", timestamp: "1408710653491"))
    #expect(!PlatformSignature.isValid(signature, secret: "secret", nonce: "14315", timestamp: "1408710653491"))
    #expect(!PlatformSignature.isValid("", secret: "secret", nonce: "14314", timestamp: "1408710653491"))
  }

  // MARK: - The app directory

  static func directory(_ files: [String: String], secretsMode: mode_t = 0o600) throws -> AppDirectory {
    let path = try scratchDirectory("winnow-apps")
    for (name, text) in files {
      try text.write(toFile: path + "/" + name, atomically: false, encoding: .utf8)
      if name == "secrets.json" { chmod(path + "/" + name, secretsMode) }
    }
    return AppDirectory(path: path)
  }

  @Test func appKeysAreFileNamesThatCannotLeaveTheDirectory() throws {
    let apps = try Self.directory(["a-1.txt": "x\n", "b_2.txt": "y\n", "bad key.txt": "z\n", "notes.md": ""])
    #expect(try apps.appKeys() == ["a-1", "b_2"])
    #expect(!AppDirectory.isValidAppKey("../etc"))
    #expect(!AppDirectory.isValidAppKey(""))
    #expect(!AppDirectory.isValidAppKey(Substring(String(repeating: "a", count: 65))))
  }

  @Test func secretsOpenToOthersAreRefused() throws {
    let open = try Self.directory(["secrets.json": #"{"app":"s"}"#], secretsMode: 0o644)
    #expect(throws: AppDirectoryError.self) { try open.secrets() }
    let closed = try Self.directory(["secrets.json": #"{"app":"s"}"#])
    #expect(try closed.secrets() == ["app": "s"])
    let malformed = try Self.directory(["secrets.json": #"{"app":1}"#])
    #expect(throws: AppDirectoryError.self) { try malformed.secrets() }
    #expect(try Self.directory([:]).secrets() == [:])
  }

  /// What `ssh` refuses for a private key is refused for the secrets: a symbolic link, a file
  /// of another user, a directory others can write (they could put their own secrets there).
  @Test func secretsAreCheckedAsSSHChecksAKey() throws {
    func cause(_ apps: AppDirectory) -> String {
      do {
        _ = try apps.secrets()
        return "accepted"
      } catch { return error.cause }
    }
    let linked = try Self.directory([:])
    let elsewhere = try Self.directory(["secrets.json": #"{"app":"s"}"#])
    #expect(symlink(elsewhere.path + "/secrets.json", linked.path + "/secrets.json") == 0)
    #expect(cause(linked).contains("symbolic link"), "\(cause(linked))")
    let writable = try Self.directory(["secrets.json": #"{"app":"s"}"#])
    #expect(cause(writable) == "accepted")
    chmod(writable.path, 0o777)
    #expect(cause(writable).contains("writable by group or others"), "\(cause(writable))")
    chmod(writable.path, 0o775)
    #expect(cause(writable).contains("writable by group or others"), "\(cause(writable))")
    // Another user's file: only root can give a file away, and CI runs as root.
    let foreign = try Self.directory(["secrets.json": #"{"app":"s"}"#])
    if geteuid() == 0 {
      #expect(chown(foreign.path + "/secrets.json", 65534, 65534) == 0)
      #expect(cause(foreign).contains("owned by user 65534"), "\(cause(foreign))")
    }
  }

  // MARK: - The service

  /// A global list of one word, `globalword`, in a directory of its own.
  static let globalDirectory: String = {
    // Made or not, the tests that read it say so: a missing directory fails them.
    let path = (try? scratchDirectory("winnow-global")) ?? "/nonexistent/winnow-global"
    try? "globalword\n".write(toFile: path + "/global.txt", atomically: true, encoding: .utf8)
    return path
  }()

  /// That global list, and the apps of `apps`.
  static func lists(_ apps: AppDirectory?) -> ListSet { ListSet(globalDirectories: [globalDirectory], apps: apps) }

  static func verdict(_ service: ModerationService, _ text: String, app: String) -> ModerationResult.Verdict? {
    var item = MessageItem.text(text, msgUID: "m", targetId: "t")
    item.appKey = app
    return try? service.engine.screen(item).verdict
  }

  @Test func anAddedWordIsSeenByTheNextEngineAndWrittenToTheFile() throws {
    let apps = try Self.directory(["app.txt": "old\n"])
    let service = try ModerationService(lists: Self.lists(apps))
    let before = service.engine
    #expect(Self.verdict(service, "a new word", app: "app") == .pass)
    #expect(try service.addWords([.init(word: "new"), .init(word: "swap", replacement: "**")], toApp: "app") == 2)
    #expect(Self.verdict(service, "a new word", app: "app") == .blocked)
    #expect(Self.verdict(service, "swap it", app: "app") == .replaced)
    #expect(Self.verdict(service, "a new word", app: "other") == .pass)
    // The engine a request already holds is unchanged.
    var item = MessageItem.text("a new word", msgUID: "m", targetId: "t")
    item.appKey = "app"
    #expect(try before.screen(item).verdict == .pass)
    #expect(try String(contentsOfFile: apps.listPath(of: "app"), encoding: .utf8) == "old\nnew\nswap => **\n")
    #expect(service.words(ofApp: "app").map(\.word) == ["old", "new", "swap"])
    // Adding a word again changes its replacement, not the count.
    #expect(try service.addWords([.init(word: "swap")], toApp: "app") == 0)
    #expect(Self.verdict(service, "swap it", app: "app") == .blocked)
    #expect(try service.removeWords(["new", "swap", "absent"], fromApp: "app") == 2)
    #expect(Self.verdict(service, "a new word", app: "app") == .pass)
    #expect(try String(contentsOfFile: apps.listPath(of: "app"), encoding: .utf8) == "old\n")
  }

  @Test func badWordsAndAppKeysChangeNothing() throws {
    let apps = try Self.directory(["app.txt": "old\n"])
    let service = try ModerationService(lists: Self.lists(apps))
    #expect(throws: ModerationServiceError.self) { try service.addWords([.init(word: "a b")], toApp: "app") }
    #expect(throws: ModerationServiceError.self) {
      try service.addWords([.init(word: String(repeating: "x", count: 33))], toApp: "app")
    }
    #expect(throws: ModerationServiceError.self) { try service.addWords([.init(word: "ok")], toApp: "../x") }
    #expect(try String(contentsOfFile: apps.listPath(of: "app"), encoding: .utf8) == "old\n")
    let withoutApps = try ModerationService(lists: Self.lists(nil))
    #expect(throws: ModerationServiceError.self) { try withoutApps.addWords([.init(word: "ok")], toApp: "app") }
  }

  @Test func reloadCompilesOnlyWhatChangedAndKeepsTheOldListsOnError() throws {
    let apps = try Self.directory(["a.txt": "alpha\n", "b.txt": "beta\n"])
    let service = try ModerationService(lists: Self.lists(apps))
    var report = service.reload()
    #expect(report.succeeded && report.changedApps.isEmpty && !report.globalReloaded)
    let unchanged = service.status.version
    try "alpha\ngamma\n".write(toFile: apps.listPath(of: "a"), atomically: true, encoding: .utf8)
    try "delta\n".write(toFile: apps.listPath(of: "c"), atomically: true, encoding: .utf8)
    report = service.reload()
    #expect(report.succeeded && report.changedApps == ["a", "c"])
    #expect(service.status.version == unchanged + 1)
    #expect(Self.verdict(service, "gamma", app: "a") == .blocked)
    #expect(Self.verdict(service, "delta", app: "c") == .blocked)
    // A list that does not compile: every old list stays, the error names file and line.
    try "re:(\n".write(toFile: apps.listPath(of: "b"), atomically: true, encoding: .utf8)
    try FileManager.default.removeItem(atPath: apps.listPath(of: "c"))
    report = service.reload()
    #expect(!report.succeeded)
    #expect(report.errors.count == 1 && report.errors[0].hasPrefix(apps.listPath(of: "b") + ":1: invalid regex"))
    #expect(Self.verdict(service, "beta", app: "b") == .blocked)
    #expect(Self.verdict(service, "delta", app: "c") == .blocked)
    #expect(service.status.failedReloads == 1)
    try "beta2\n".write(toFile: apps.listPath(of: "b"), atomically: true, encoding: .utf8)
    report = service.reload()
    #expect(report.succeeded && report.changedApps == ["b", "c"])
    #expect(Self.verdict(service, "delta", app: "c") == .pass)
    #expect(Self.verdict(service, "globalword", app: "c") == .blocked)
  }

  @Test func aServiceWithABadListDoesNotStart() throws {
    let apps = try Self.directory(["a.txt": "re:(\n", "b.txt": "[bad\n"])
    #expect {
      try ModerationService(lists: Self.lists(apps))
    } throws: { error in
      (error as? ModerationServiceError)?.errors.count == 2
    }
  }

  /// Edits to one app from many tasks at once are serialized: every word lands.
  @Test func concurrentEditsAllLand() async throws {
    let apps = try Self.directory([:])
    let service = try ModerationService(lists: Self.lists(apps))
    await withTaskGroup(of: Void.self) { group in
      for index in 0..<40 {
        group.addTask { _ = try? service.addWords([.init(word: "word\(index)")], toApp: "app") }
      }
    }
    #expect(Set(service.words(ofApp: "app").map(\.word)) == Set((0..<40).map { "word\($0)" }))
    let file = try String(contentsOfFile: apps.listPath(of: "app"), encoding: .utf8)
    #expect(file.split(separator: "\n").count == 40)
  }

  /// What survives a crash of the machine, not only of the process (`kill -9` keeps the page
  /// cache, so a test of it passes without any `fsync`): the new file is flushed while the
  /// list still reads as before, then renamed over it, and then the directory is flushed,
  /// so that the rename itself is on disk before the edit is answered.
  @Test func anEditIsFlushedBeforeItsRenameAndTheRenameBeforeTheAnswer() throws {
    let apps = try Self.directory(["app.txt": "old\n"])
    let path = apps.listPath(of: "app")
    var steps: [String] = []
    try AtomicFile.write(Array("old\nnew\n".utf8), to: path) { descriptor in
      var status = stat()
      fstat(descriptor, &status)
      let isDirectory = status.st_mode & S_IFMT == S_IFDIR
      let visible = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
      steps.append("\(isDirectory ? "directory" : "file") flushed, list reads \(visible.debugDescription)")
      return fsync(descriptor)
    }
    #expect(
      steps == [#"file flushed, list reads "old\n""#, #"directory flushed, list reads "old\nnew\n""#], "\(steps)")
    // Without `durable`, nothing is flushed (caches, which can be rebuilt).
    var flushed = 0
    try AtomicFile.write(Array("x\n".utf8), to: path, durable: false) { _ in
      flushed += 1
      return 0
    }
    #expect(flushed == 0)
  }

  /// Two services on one directory (two servers' processes share it the same way) edit
  /// under the list file's lock: no acknowledged word is lost, and each sees the other's at
  /// its next look for changes.
  @Test func twoServicesOnOneDirectoryLoseNoWord() async throws {
    let apps = try Self.directory([:])
    let services = [
      try ModerationService(lists: Self.lists(apps)), try ModerationService(lists: Self.lists(apps)),
    ]
    let acknowledged = await withTaskGroup(of: Bool.self) { group in
      for index in 0..<40 {
        group.addTask { (try? services[index % 2].addWords([.init(word: "word\(index)")], toApp: "app")) != nil }
      }
      return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
    }
    #expect(acknowledged == 40)
    let file = try String(contentsOfFile: apps.listPath(of: "app"), encoding: .utf8)
    #expect(Set(file.split(separator: "\n").map(String.init)) == Set((0..<40).map { "word\($0)" }))
    // The audit log has each change once, numbered 1 to 40 in the order they were made.
    let changes = try ChangeLog.read(directory: apps.path)
    #expect(changes.map(\.id) == Array(1...40))
    #expect(Set(changes.map(\.word)) == Set((0..<40).map { "word\($0)" }))
    for service in services {
      service.reload(quietly: true)
      #expect((0..<40).allSatisfy { Self.verdict(service, "a word\($0) here", app: "app") == .blocked })
    }
  }

  /// Reloads racing edits never leave an older engine in use: every acknowledged word is
  /// enforced once both are done, with no further reload.
  @Test func reloadsRacingEditsLeaveEveryWordEnforced() async throws {
    let apps = try Self.directory(["app.txt": "first\n"])
    let service = try ModerationService(lists: Self.lists(apps))
    await withTaskGroup(of: Void.self) { group in
      group.addTask {
        for _ in 0..<200 { service.reload() }
      }
      for index in 0..<60 {
        group.addTask { _ = try? service.addWords([.init(word: "word\(index)")], toApp: "app") }
      }
    }
    #expect((0..<60).allSatisfy { Self.verdict(service, "a word\($0) here", app: "app") == .blocked })
  }

  /// A service started from the compiled-list cache reads back what the first one compiled.
  @Test func aCachedGlobalListIsReadBack() throws {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("winnow-cache-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: root) }
    let lists = root.appendingPathComponent("global").path
    try FileManager.default.createDirectory(atPath: lists, withIntermediateDirectories: true)
    try "cachedword\n".write(toFile: lists + "/g.txt", atomically: true, encoding: .utf8)
    let cache = CompiledListCache(directory: root.appendingPathComponent("cache"))
    var source = ListSet(globalDirectories: [lists])
    source.cache = cache
    let first = try ModerationService(lists: source)
    let files = try FileManager.default.contentsOfDirectory(atPath: cache.directory.path)
    #expect(files.count == 1 && files[0].hasSuffix(".compiled"))
    // A miss would compile and write the file anew (a rename: another inode); the same inode
    // after the second start shows it was read back, not merely that the lists compile.
    func inode() throws -> UInt64? {
      let path = cache.directory.appendingPathComponent(files[0]).path
      return (try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? NSNumber)?.uint64Value
    }
    let written = try inode()
    let second = try ModerationService(lists: source)
    #expect(try inode() == written, "the second start compiled and wrote the file again")
    for service in [first, second] { #expect(Self.verdict(service, "a cachedword", app: "x") == .blocked) }
  }

  @Test func callbackFieldsMakeAnItem() throws {
    let item = try MessageItem(callbackFields: [
      ("appKey", "k"), ("fromUserId", "u1"), ("targetId", "u2"), ("toUserIds", "u2,u3"), ("msgType", "RC:TxtMsg"),
      ("content", #"{"content":"hi"}"#), ("pushContent", ""), ("channelType", "GROUP"),
      ("msgTimeStamp", "1700000000000"), ("messageId", "M1"), ("originalMsgUID", ""), ("busChannel", ""),
    ])
    #expect(item.appKey == "k" && item.toUserIds == ["u2", "u3"] && item.sentTime == 1_700_000_000_000)
    #expect(item.conversationType == .group && item.sourceType == .original && item.msgUID == "M1")
    let edit = try MessageItem(callbackFields: [
      ("content", #"{"content":"hi"}"#), ("originalMsgUID", "M0"), ("messageId", "M2"),
    ])
    #expect(edit.sourceType == .edit && edit.msgUID == "M0")
    #expect(throws: ItemError.self) { try MessageItem(callbackFields: [("content", "{not json")]) }
    #expect(throws: ItemError.self) { try MessageItem(callbackFields: [("msgTimeStamp", "soon"), ("content", "{}")]) }
  }
}
