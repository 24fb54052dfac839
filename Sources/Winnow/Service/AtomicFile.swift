import Foundation

/// A new file beside a target, written whole and then renamed over it, so that a crash leaves
/// either the old file or the new one, never half of one. Every file Winnow writes goes this
/// way: app lists edited by a server, lists edited by `winnow words`, `scan --output` and the
/// compiled-list cache.
///
/// The file is made by `mkstemp` in the target's directory (`.NAME.XXXXXX`: a name no one can
/// have planted a link at, opened close-on-exec, mode 0600 until ``setMode(_:)``). A durable
/// commit (``commit(durable:sync:)``) also flushes the file before the rename and the directory
/// after it, so that an answered write survives a crash of the machine; a cache, which can be
/// rebuilt, leaves both out.
package struct AtomicFile {
  /// Why a file could not be written: the step and the system's cause.
  package struct Failure: Error, CustomStringConvertible {
    /// What was being done (`cannot create a temporary file`, `cannot write`, `cannot replace
    /// the file`).
    package let step: String
    /// The system's cause (`No space left on device`).
    package let cause: String

    /// `step: cause`.
    package var description: String { "\(step): \(cause)" }
  }

  /// The open temporary file.
  package let descriptor: Int32
  /// The temporary file's path.
  package let path: String
  /// The file it replaces when committed.
  package let target: String

  /// A new temporary file in the directory of `target`.
  /// - Throws: ``Failure`` with the system's cause (`No such file or directory`).
  package init(replacing target: String) throws(Failure) {
    let directory = (target as NSString).deletingLastPathComponent
    let name = (target as NSString).lastPathComponent
    var template = Array(((directory.isEmpty ? "." : directory) + "/.\(name).XXXXXX").utf8CString)
    let descriptor = template.withUnsafeMutableBufferPointer { buffer in
      buffer.baseAddress.map { mkstemp($0) } ?? -1
    }
    guard descriptor >= 0 else { throw Self.failure("cannot create a temporary file") }
    _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
    self.descriptor = descriptor
    self.target = target
    self.path = template.withUnsafeBufferPointer { buffer in
      buffer.baseAddress.map { String(cString: $0) } ?? ""
    }
  }

  /// The mode a new file of this user gets (0666 less the umask).
  package static var defaultMode: mode_t { 0o666 & ~currentUmask }

  /// The process's umask, read without changing it. `umask` can only be read by setting it, and
  /// setting it to 0 and back, as this did, raced with every thread creating a file meanwhile
  /// (which got mode 0666 or 0777) and with itself: two threads at once could leave the mask 0
  /// for good, and the files and directories made after it writable by anyone. Linux gives the
  /// mask in `/proc/self/status`; elsewhere it is read once, the first time it is needed.
  package static var currentUmask: mode_t {
    #if os(Linux)
      if let mask = umaskFromProc() { return mask }
    #endif
    return umaskAtFirstUse
  }

  private static let umaskAtFirstUse: mode_t = {
    let mask = umask(0o022)
    umask(mask)
    return mask
  }()

  /// The `Umask:` line of `/proc/self/status` (Linux 4.7 and later), in octal; nil without it.
  private static func umaskFromProc() -> mode_t? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
    for line in status.split(separator: "\n") where line.hasPrefix("Umask:") {
      return mode_t(line.dropFirst("Umask:".count).trimmingCharacters(in: .whitespaces), radix: 8)
    }
    return nil
  }

  /// The mode of the file at `path`, or ``defaultMode`` when there is none: an edit keeps a
  /// file's permissions.
  package static func mode(of path: String) -> mode_t {
    var status = stat()
    return stat(path, &status) == 0 ? status.st_mode & 0o7777 : defaultMode
  }

  /// Gives the file `mode`.
  package func setMode(_ mode: mode_t) { fchmod(descriptor, mode) }

  /// Writes all of `bytes`; false when the system refuses (a full disk), with `errno` saying why.
  package func write(_ bytes: [UInt8]) -> Bool { writeAll(bytes, to: descriptor) }

  /// Closes the file and renames it over ``target``; `durable` flushes the file first and the
  /// directory after. `written: false` (a write that failed) removes the file instead.
  /// - Throws: ``Failure`` with the system's cause; the temporary file is then removed and the
  ///   target is unchanged.
  /// - Parameter sync: `fsync`, or a test's stand-in that records what is flushed and when.
  package func commit(durable: Bool, written: Bool = true, sync: (Int32) -> Int32 = { fsync($0) }) throws(Failure) {
    guard written, !durable || sync(descriptor) == 0 else {
      let failure = Self.failure("cannot write")
      discard()
      throw failure
    }
    guard close(descriptor) == 0 else {
      let failure = Self.failure("cannot write")
      unlink(path)
      throw failure
    }
    guard rename(path, target) == 0 else {
      let failure = Self.failure("cannot replace the file")
      unlink(path)
      throw failure
    }
    guard durable else { return }
    let directory = (target as NSString).deletingLastPathComponent
    let directoryDescriptor = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if directoryDescriptor >= 0 {
      _ = sync(directoryDescriptor)
      close(directoryDescriptor)
    }
  }

  /// Closes and removes the temporary file; the target is unchanged.
  package func discard() {
    close(descriptor)
    unlink(path)
  }

  /// Replaces `path` with `bytes`, with `mode` (by default the file's own, ``defaultMode`` for
  /// a new file); `durable: false` leaves out the two flushes (for caches, which can be
  /// rebuilt).
  /// - Throws: ``Failure``; the target is then unchanged.
  package static func write(
    _ bytes: [UInt8], to path: String, mode: mode_t? = nil, durable: Bool = true,
    sync: (Int32) -> Int32 = { fsync($0) }
  ) throws(Failure) {
    let file = try AtomicFile(replacing: path)
    file.setMode(mode ?? Self.mode(of: path))
    try file.commit(durable: durable, written: file.write(bytes), sync: sync)
  }

  private static func failure(_ step: String) -> Failure {
    Failure(step: step, cause: String(cString: strerror(errno)))
  }
}
