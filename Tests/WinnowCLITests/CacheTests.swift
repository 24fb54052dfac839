import Foundation
import Testing
@_spi(Tools) import Winnow

@testable import WinnowCLI

/// The compiled global list kept between runs: read back only while the lists are unchanged,
/// and never the cause of a wrong or failed run.
@Suite("compiled global list cache")
struct CacheTests {
  /// A fresh cache directory and a global list directory holding `contents` as `zh.txt`.
  static func setUp(_ contents: String) throws -> (cache: URL, list: String, directory: String) {
    let list = try CLITests.temporaryFile("zh.txt", contents)
    let cache = CLITests.temporaryPath("cache")
    return (cache, list, URL(fileURLWithPath: list).deletingLastPathComponent().path)
  }

  /// The compiled files in `cache`, with their inode numbers (a rewrite renames a new file in).
  static func compiledFiles(in cache: URL) throws -> [String: UInt64] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: cache.path)) ?? []
    var files: [String: UInt64] = [:]
    for name in names where name.hasSuffix(".compiled") {
      let attributes = try FileManager.default.attributesOfItem(atPath: cache.appendingPathComponent(name).path)
      files[name] = (attributes[.systemFileNumber] as? NSNumber)?.uint64Value
    }
    return files
  }

  @Test func aCompiledListIsReadBackAndAnEditedOneIsCompiledAgain() async throws {
    let (cache, list, directory) = try Self.setUp("[sensitive]\n傻逼\n")
    let arguments = ["check", "--global", directory, "秒杀 傻逼"]
    let first = try await CLITests.run(arguments, cache: cache)
    #expect(first.status == 1)
    #expect(first.stdout.contains("傻逼 (block) global \(list):2 [sensitive]"))
    let written = try Self.compiledFiles(in: cache)
    #expect(written.count == 1)

    let second = try await CLITests.run(arguments, cache: cache)
    #expect(second.stdout == first.stdout)
    #expect(try Self.compiledFiles(in: cache) == written, "read back, not written again")

    try "[sensitive]\n傻逼\n[ads]\n秒杀\n".write(toFile: list, atomically: true, encoding: .utf8)
    let edited = try await CLITests.run(arguments, cache: cache)
    #expect(edited.stdout.contains("秒杀 (block) global \(list):4 [ads]"))
    #expect(edited.stdout.hasSuffix("2 matches\n"))
    let rewritten = try Self.compiledFiles(in: cache)
    #expect(rewritten.keys == written.keys && rewritten != written, "the same file, written again")
  }

  /// A match names its list's file as the run was given it, whichever spelling of the same
  /// directory filled the cache first: each spelling has its own compiled file.
  @Test func aMatchNamesTheListAsThisRunWroteIt() async throws {
    let (cache, _, directory) = try Self.setUp("[sensitive]\n傻逼\n")
    let parent = URL(fileURLWithPath: directory).deletingLastPathComponent()
    let relative = URL(fileURLWithPath: directory).lastPathComponent
    for _ in 0..<2 {
      let absolute = try await CLITests.run(["check", "--global", directory, "傻逼"], cache: cache)
      #expect(absolute.stdout.contains("global \(directory)/zh.txt:2"), "\(absolute.stdout)")
      let fromParent = try await CLITests.run(
        ["check", "--global", relative, "傻逼"], directory: parent, cache: cache)
      #expect(fromParent.stdout.contains("global \(relative)/zh.txt:2"), "\(fromParent.stdout)")
    }
    #expect(try Self.compiledFiles(in: cache).count == 2)
  }

  /// An entry's `also=` languages survive the compiled form: read back from the cache, English
  /// `slut` (also Swedish) still matches in French text and not in Swedish text.
  @Test func aCompiledListKeepsTheLanguagesAnEntryIsAlsoAWordOf() async throws {
    let (cache, _, directory) = try Self.setUp("[sexual: lang=en, also=sv]\nslut\n")
    for _ in 0..<2 {
      let french = try await CLITests.run(["check", "--global", directory, "Je suis une slut"], cache: cache)
      #expect(french.status == 1, "\(french.stdout)")
      let swedish = try await CLITests.run(["check", "--global", directory, "Det är slut nu"], cache: cache)
      #expect(swedish.status == 0, "\(swedish.stdout)")
    }
    #expect(try Self.compiledFiles(in: cache).count == 1)
  }

  @Test func aDamagedCacheFileIsCompiledAgain() async throws {
    let (cache, _, directory) = try Self.setUp("[sensitive]\n傻逼\n")
    let arguments = ["check", "--global", directory, "--json", "你是傻 逼"]
    let first = try await CLITests.run(arguments, cache: cache)
    let files = try Self.compiledFiles(in: cache)
    #expect(files.count == 1)
    for (name, _) in files {
      let file = cache.appendingPathComponent(name)
      let bytes = try Data(contentsOf: file)
      for damaged in [Data("garbage".utf8), bytes.prefix(bytes.count / 2), Data(bytes.map { $0 ^ 0x5A })] {
        try damaged.write(to: file)
        let again = try await CLITests.run(arguments, cache: cache)
        #expect(again.status == first.status)
        #expect(again.stdout == first.stdout)
        #expect(again.stderr.isEmpty)
      }
    }
  }

  /// A cache file or directory that someone else may have written is not read: the lists are
  /// compiled, and standard error says why, once.
  @Test func aCacheOthersCanWriteIsNotTrusted() async throws {
    let (cache, _, directory) = try Self.setUp("[sensitive]\n傻逼\n")
    let arguments = ["check", "--global", directory, "--json", "你是傻 逼"]
    let first = try await CLITests.run(arguments, cache: cache)
    #expect(first.stderr.isEmpty)
    let files = try Self.compiledFiles(in: cache)
    #expect(files.count == 1)
    let file = cache.appendingPathComponent(try #require(files.keys.first))
    let manager = FileManager.default
    let warning = "winnow: not using the compiled-list cache: "

    try manager.setAttributes([.posixPermissions: 0o666], ofItemAtPath: file.path)
    let groupWritable = try await CLITests.run(arguments, cache: cache)
    #expect(groupWritable.stdout == first.stdout)
    #expect(
      groupWritable.stderr
        == "\(warning)\(file.path) is writable by group or others (mode 666); compiling the lists\n")
    // Replaced by a file of its own, which the next run trusts.
    let replaced = try await CLITests.run(arguments, cache: cache)
    #expect(replaced.stderr.isEmpty)

    // A link is not followed, and what it points at is left alone.
    let elsewhere = CLITests.temporaryPath("planted")
    let planted = try Data(contentsOf: file)
    try manager.moveItem(at: file, to: elsewhere)
    try manager.createSymbolicLink(at: file, withDestinationURL: elsewhere)
    let linked = try await CLITests.run(arguments, cache: cache)
    #expect(linked.stdout == first.stdout)
    #expect(linked.stderr == "\(warning)\(file.path) is a symbolic link; compiling the lists\n")
    #expect(try Data(contentsOf: elsewhere) == planted, "the link's target is left alone")
    #expect((try? manager.destinationOfSymbolicLink(atPath: file.path)) == nil, "the link was replaced by a file")

    try manager.setAttributes([.posixPermissions: 0o777], ofItemAtPath: cache.path)
    // With the compiled file gone, a cache that wrote here would write it anew: a cache hit
    // writes nothing either way, so the check would not have been tested.
    for name in try Self.compiledFiles(in: cache).keys {
      try manager.removeItem(at: cache.appendingPathComponent(name))
    }
    let before = try Self.compiledFiles(in: cache)
    #expect(before.isEmpty)
    let openDirectory = try await CLITests.run(arguments, cache: cache)
    #expect(openDirectory.stdout == first.stdout)
    #expect(
      openDirectory.stderr
        == "\(warning)\(cache.path) is writable by group or others (mode 777); compiling the lists\n")
    #expect(try Self.compiledFiles(in: cache) == before, "nothing written in a directory others can write")
  }

  @Test func excludedCategoriesAreCompiledApart() async throws {
    let (cache, _, directory) = try Self.setUp("[sensitive]\n傻逼\n[ads]\n秒杀\n")
    let text = "秒杀 傻逼"
    for _ in 0..<2 {
      let all = try await CLITests.run(["check", "--global", directory, text], cache: cache)
      #expect(all.stdout.hasSuffix("2 matches\n"))
      let some = try await CLITests.run(
        ["check", "--global", directory, "--exclude-category", "ads", text], cache: cache)
      #expect(some.stdout.hasSuffix("1 match\n"))
    }
    #expect(try Self.compiledFiles(in: cache).count == 2)
  }

  @Test func noCacheNeitherReadsNorWrites() async throws {
    let (cache, _, directory) = try Self.setUp("[sensitive]\n傻逼\n")
    let result = try await CLITests.run(["check", "--global", directory, "--no-cache", "傻逼"], cache: cache)
    #expect(result.status == 1)
    #expect(try Self.compiledFiles(in: cache).isEmpty)
  }

  /// The cache file is read whole, as `Data` reads it, at sizes around the 4 MiB from which
  /// its memory is advised to huge pages; a missing file is nil.
  @Test(arguments: [0, 1, 4 << 20 - 1, 4 << 20, 5 << 20 + 3])
  func readsAFileWhole(size: Int) throws {
    try FileManager.default.createDirectory(at: CLITests.runDirectory, withIntermediateDirectories: true)
    let path = CLITests.temporaryPath("whole").path
    let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    #expect(CompiledListCache.readWhole(path) == bytes)
    #expect(CompiledListCache.readWhole(path + ".missing") == nil)
  }
}
