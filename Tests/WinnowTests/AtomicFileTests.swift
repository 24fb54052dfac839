import Foundation
import Testing
import WinnowTestSupport

@_spi(Tools) @testable import Winnow

/// `AtomicFile`, the one writer of every file Winnow writes: the target is either the old file
/// or the new one, whatever fails. (The order of its flushes is tested with the service's
/// edits: `anEditIsFlushedBeforeItsRenameAndTheRenameBeforeTheAnswer`.)
@Suite struct AtomicFileTests {
  static func directory() throws -> String {
    try scratchDirectory("winnow-atomic")
  }

  static func entries(_ directory: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
  }

  @Test func aWriteReplacesTheFileAndKeepsItsMode() throws {
    let directory = try Self.directory()
    let path = directory + "/list.txt"
    try AtomicFile.write(Array("one\n".utf8), to: path)
    #expect(try String(contentsOfFile: path, encoding: .utf8) == "one\n")
    #expect(AtomicFile.mode(of: path) == AtomicFile.defaultMode)
    chmod(path, 0o640)
    try AtomicFile.write(Array("two\n".utf8), to: path)
    #expect(try String(contentsOfFile: path, encoding: .utf8) == "two\n")
    #expect(AtomicFile.mode(of: path) == 0o640)
    try AtomicFile.write(Array("three\n".utf8), to: path, mode: 0o600, durable: false)
    #expect(AtomicFile.mode(of: path) == 0o600)
    #expect(Self.entries(directory) == ["list.txt"])
  }

  /// Reading the umask changes it for no one: threads reading it at once leave it as it was,
  /// and a directory made afterwards gets the mode it gives. (Read by setting it to 0 and back,
  /// two readers at once could leave it 0, and every later file writable by anyone.)
  @Test func readingTheUmaskChangesItForNoOne() async throws {
    let before = AtomicFile.currentUmask
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<8 {
        group.addTask { for _ in 0..<5000 { _ = AtomicFile.defaultMode } }
      }
    }
    #expect(AtomicFile.currentUmask == before)
    let probe = try Self.directory() + "/probe"
    #expect(mkdir(probe, 0o777) == 0)
    var status = stat()
    #expect(stat(probe, &status) == 0)
    #expect(status.st_mode & 0o777 == 0o777 & ~before)
  }

  /// A failed flush, a failed write or a dropped file leaves the old file and no temporary one.
  @Test func aFailureLeavesTheOldFileAndNoTemporaryOne() throws {
    let directory = try Self.directory()
    let path = directory + "/list.txt"
    try AtomicFile.write(Array("old\n".utf8), to: path)
    #expect(throws: AtomicFile.Failure.self) {
      try AtomicFile.write(Array("new\n".utf8), to: path) { _ in
        errno = EIO
        return -1
      }
    }
    let unwritten = try AtomicFile(replacing: path)
    #expect(throws: AtomicFile.Failure.self) { try unwritten.commit(durable: false, written: false) }
    try AtomicFile(replacing: path).discard()
    #expect(try String(contentsOfFile: path, encoding: .utf8) == "old\n")
    #expect(Self.entries(directory) == ["list.txt"])
    do {
      _ = try AtomicFile(replacing: directory + "/missing/list.txt")
      Issue.record("a file was made in a missing directory")
    } catch {
      #expect(error.step == "cannot create a temporary file" && error.cause == "No such file or directory")
    }
  }
}
