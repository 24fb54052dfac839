import Foundation

/// Keeps the compiled global list between runs, so that a program reads it back (~0.03 s)
/// instead of parsing and compiling it again (~0.2 s on two cores): `winnow` uses it for every
/// command, and a server embedding Winnow can start with it in well under 0.1 s.
///
/// ```swift
/// let cache = CompiledListCache.standard()  // or CompiledListCache(directory: URL(…))
/// let global = try cache?.matcher(directories: ["wordlists/global"]) {
///   try Matcher(lists: WordList.load(directory: "wordlists/global", origin: .global))
/// }
/// ```
///
/// One file per executable and set of global-list directories (each as written and as an
/// absolute path: matches name their list's file as it was written) and excluded categories,
/// in `$WINNOW_CACHE_DIR`, else `$XDG_CACHE_HOME/winnow`, else `~/.cache/winnow`. The file is
/// used only when its identity matches: the checksum, size and name of every `*.txt` file of
/// the directories, the excluded categories, and the size and modification time of the
/// running executable itself (another build may normalize differently). Anything else (no
/// file, another identity, a damaged file) compiles the lists as before and writes the file
/// again, through a temporary file renamed into place, so that concurrent runs never read half
/// a file. A cache that cannot be read or written costs only the compile: nothing is reported.
/// Custom lists are small and edited often: they are always compiled, over the cached global
/// list. (`winnow --no-cache` compiles afresh and leaves the file alone.)
///
/// The file decides what is blocked, so it is trusted only where no one else can have written
/// it: the directory and the file must be the current user's, not links, and not writable by
/// group or others; the file is opened with `O_NOFOLLOW`. Otherwise the lists are compiled,
/// nothing is read or written there, and `onDistrust` is told why, once. The checksum covers
/// the whole file (header and identity included), and every table index is checked as the
/// file is read back (``Matcher/init(compiledBytes:identity:)``).
@_spi(Tools) public struct CompiledListCache: Sendable {
  /// The directory of the cache files.
  public let directory: URL

  /// A cache in `directory` (created, mode 0700, when first written).
  public init(directory: URL) { self.directory = directory }

  /// The cache directory the environment names, or nil when there is no home to put it in.
  public static func standard() -> CompiledListCache? {
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
  /// cached one has this identity, otherwise made by `compile` (which must compile exactly
  /// that) and cached. `onDistrust` is told why a cache directory or file is not used.
  /// - Throws: what `compile` throws.
  public func matcher(
    directories: [String], excludedCategories: [String] = [], onDistrust: (String) -> Void = { _ in },
    compile: () throws -> Matcher
  ) throws -> Matcher {
    guard let (name, identity) = Self.identity(of: directories, excluding: excludedCategories) else {
      return try compile()
    }
    if let distrust = Self.prepareDirectory(directory.path) {
      onDistrust("\(directory.path) \(distrust)")
      return try compile()
    }
    let file = directory.appendingPathComponent(name)
    // Read, not mapped: a file cut short under a mapping would be a crash, not an error.
    switch Self.readTrusted(file.path) {
    case .bytes(let bytes):
      if let matcher = try? bytes.withUnsafeBytes({ try Matcher(compiledBytes: $0, identity: identity) }) {
        return matcher
      }
    case .distrusted(let reason):
      // Replaced below by a file of our own (rename replaces a link, never its target).
      onDistrust("\(file.path) \(reason)")
    case .missing:
      break
    }
    let matcher = try compile()
    write(matcher.compiledBytes(identity: identity), to: file)
    return matcher
  }

  /// Why a file or directory may not be trusted, from its status: nil when it is the current
  /// user's and no one else may write it.
  package static func distrust(of status: stat) -> String? {
    let user = geteuid()
    if status.st_uid != user { return "is owned by user \(status.st_uid), not by the current user (\(user))" }
    if status.st_mode & 0o022 != 0 {
      return "is writable by group or others (mode \(String(status.st_mode & 0o777, radix: 8)))"
    }
    return nil
  }

  /// Creates the cache directory (mode 0700) when it is missing; nil when it may be trusted,
  /// else why not.
  static func prepareDirectory(_ path: String) -> String? {
    var status = stat()
    if lstat(path, &status) != 0 {
      guard errno == ENOENT else { return "cannot be read: \(String(cString: strerror(errno)))" }
      try? FileManager.default.createDirectory(
        atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true,
        attributes: [.posixPermissions: 0o700])
      guard mkdir(path, 0o700) == 0 || errno == EEXIST, lstat(path, &status) == 0 else {
        return "cannot be created: \(String(cString: strerror(errno)))"
      }
    }
    if status.st_mode & S_IFMT == S_IFLNK { return "is a symbolic link" }
    if status.st_mode & S_IFMT != S_IFDIR { return "is not a directory" }
    return distrust(of: status)
  }

  /// What reading a cache file found.
  enum ReadOutcome {
    case bytes([UInt8])
    case missing
    case distrusted(String)
  }

  /// The bytes of the cache file at `path` when it is a regular file of the current user's that
  /// no one else may write (opened without following a link).
  static func readTrusted(_ path: String) -> ReadOutcome {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
    guard descriptor >= 0 else {
      if errno == ELOOP { return .distrusted("is a symbolic link") }
      return .missing
    }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else { return .missing }
    guard status.st_mode & S_IFMT == S_IFREG else { return .distrusted("is not a regular file") }
    if let reason = distrust(of: status) { return .distrusted(reason) }
    return readWhole(descriptor: descriptor).map(ReadOutcome.bytes) ?? .missing
  }

  /// The bytes of the file at `path` (as many as its size when opened), read into memory
  /// advised to huge pages (see ``HugePages``); nil when it cannot be read.
  package static func readWhole(_ path: String) -> [UInt8]? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    return readWhole(descriptor: descriptor)
  }

  private static func readWhole(descriptor: Int32) -> [UInt8]? {
    var status = stat()
    guard fstat(descriptor, &status) == 0, status.st_size >= 0, status.st_size <= Int.max / 2 else { return nil }
    let size = Int(status.st_size)
    var failed = false
    let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
      HugePages.advise(UnsafeMutableRawBufferPointer(buffer))
      guard let base = buffer.baseAddress else { return }
      while initialized < size {
        let count = read(descriptor, base + initialized, size - initialized)
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

  /// Writes `bytes` through a new temporary file (mode 0600) renamed over `file`, so that
  /// concurrent runs never read half a file; failures are ignored.
  private func write(_ bytes: [UInt8], to file: URL) {
    try? AtomicFile.write(bytes, to: file.path, mode: 0o600, durable: false)
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
      guard let names = try? ListDirectory(path: path).names() else { return nil }
      // The directory as written too: matches report their list's file by the path the lists
      // were compiled from, so `wordlists/global` and its absolute path get a file each (one
      // shared file reported whichever spelling filled it).
      place += "directory \(path) as \(directory)\n"
      identity += "directory \(path) as \(directory)\n"
      for name in names {
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
