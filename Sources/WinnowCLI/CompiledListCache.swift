import Foundation
import Winnow

/// Keeps the compiled global list between runs, so that a command reads it back (~0.03 s)
/// instead of parsing and compiling it again (~0.2 s on two cores).
///
/// One file per executable and set of global-list directories (and excluded categories), in
/// `$WINNOW_CACHE_DIR`, else `$XDG_CACHE_HOME/winnow`, else `~/.cache/winnow`. The file is
/// used only when its identity matches: the checksum, size and name of every `*.txt` file of
/// the directories, the excluded categories, and the size and modification time of the
/// `winnow` executable itself (another build may normalize differently). Anything else (no
/// file, another identity, a damaged file) compiles the lists as before and writes the file
/// again, through a temporary file renamed into place, so that concurrent runs never read half
/// a file. A cache that cannot be read or written costs only the compile: nothing is reported.
/// Custom lists are small and edited often: they are always compiled, over the cached global
/// list. `--no-cache` compiles afresh and leaves the file alone.
struct CompiledListCache {
  let directory: URL

  /// The cache directory the environment names, or nil when there is no home to put it in.
  static func standard() -> CompiledListCache? {
    let environment = ProcessInfo.processInfo.environment
    if let path = environment["WINNOW_CACHE_DIR"], !path.isEmpty {
      return CompiledListCache(directory: URL(fileURLWithPath: path))
    }
    if let path = environment["XDG_CACHE_HOME"], path.hasPrefix("/") {
      return CompiledListCache(directory: URL(fileURLWithPath: path).appendingPathComponent("winnow"))
    }
    guard let home = environment["HOME"], home.hasPrefix("/") else { return nil }
    return CompiledListCache(directory: URL(fileURLWithPath: home).appendingPathComponent(".cache/winnow"))
  }

  /// The global matcher of `directories` without `excludedCategories`: read back when the
  /// cached one has this identity, otherwise made by `compile` and cached.
  func matcher(
    directories: [String], excludedCategories: [String], compile: () throws -> Matcher
  ) throws -> Matcher {
    guard let (name, identity) = Self.identity(of: directories, excluding: excludedCategories) else {
      return try compile()
    }
    let file = directory.appendingPathComponent(name)
    // Read, not mapped: a file cut short under a mapping would be a crash, not an error.
    if let bytes = Self.readWhole(file.path),
      let matcher = try? bytes.withUnsafeBytes({ try Matcher(compiledBytes: $0, identity: identity) })
    {
      return matcher
    }
    let matcher = try compile()
    write(matcher.compiledBytes(identity: identity), to: file)
    return matcher
  }

  /// The bytes of the file at `path` (as many as its size when opened), read into memory
  /// advised to huge pages (see ``HugePages``); nil when it cannot be read.
  static func readWhole(_ path: String) -> [UInt8]? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0, status.st_size >= 0 else { return nil }
    let size = Int(status.st_size)
    var failed = false
    let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
      HugePages.advise(UnsafeMutableRawBufferPointer(buffer))
      while initialized < size {
        let count = read(descriptor, buffer.baseAddress! + initialized, size - initialized)
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else {
          failed = count < 0
          return
        }
        initialized += count
      }
    }
    return failed ? nil : bytes
  }

  /// Writes `bytes` through a temporary file renamed over `file`; failures are ignored.
  private func write(_ bytes: [UInt8], to file: URL) {
    let manager = FileManager.default
    try? manager.createDirectory(
      at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    let temporary = directory.appendingPathComponent(".\(file.lastPathComponent).\(getpid()).tmp")
    guard manager.createFile(atPath: temporary.path, contents: Data(bytes), attributes: [.posixPermissions: 0o600])
    else { return }
    if rename(temporary.path, file.path) != 0 { try? manager.removeItem(at: temporary) }
  }

  /// The cache file's name (which executable and directories it serves) and the identity of
  /// what it must hold; nil when a directory cannot be listed (compiling then reports why).
  static func identity(of directories: [String], excluding excluded: [String]) -> (name: String, identity: [UInt8])? {
    guard let executable = executableIdentity() else { return nil }
    var place = "executable \(executable.path)\n"
    var identity = "winnow compiled global list\nexecutable \(executable.path) \(executable.stamp)\n"
    let exclusions = "exclude \(excluded.sorted().joined(separator: ","))\n"
    place += exclusions
    identity += exclusions
    for directory in directories {
      let path = URL(fileURLWithPath: directory).standardizedFileURL.path
      guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return nil }
      place += "directory \(path)\n"
      identity += "directory \(path)\n"
      // The files WordList.load(directory:) reads, in its order.
      for name in names.filter({ $0.hasSuffix(".txt") }).sorted() {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path).appendingPathComponent(name)) else {
          return nil
        }
        let checksum = data.withUnsafeBytes { CompiledChecksum.of($0) }
        identity += "file \(name) \(data.count) \(String(checksum, radix: 16))\n"
      }
    }
    let key = Array(place.utf8).withUnsafeBytes { CompiledChecksum.of($0) }
    return ("global-\(String(key, radix: 16)).compiled", Array(identity.utf8))
  }

  /// The running executable's path and a stamp of its size and modification time; nil when
  /// it cannot be found (no cache then: another build must not read this one's file).
  private static func executableIdentity() -> (path: String, stamp: String)? {
    guard let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
    var status = stat()
    guard stat(path, &status) == 0 else { return nil }
    return (path, "\(status.st_size) \(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec)")
  }
}
