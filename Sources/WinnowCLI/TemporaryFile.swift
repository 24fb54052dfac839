import Foundation
import Winnow

/// A new file beside a target, written whole and then renamed over it, so that a crash never
/// leaves the target half-written: the compiled-list cache, `scan --output` and the word-list
/// edits all write this way.
///
/// The file is made by `mkstemp` in the target's directory: a name no one can have planted a
/// link at, opened close-on-exec, mode 0600 until ``setMode(_:)``.
struct TemporaryFile {
  let descriptor: Int32
  let path: String

  /// A new temporary file in the directory of `target`, named `.NAME.XXXXXX`.
  /// - Throws: the system's cause (`No such file or directory`, `Permission denied`).
  init(beside target: String) throws(CLIError) {
    let directory = (target as NSString).deletingLastPathComponent
    let name = (target as NSString).lastPathComponent
    var template = Array(((directory.isEmpty ? "." : directory) + "/.\(name).XXXXXX").utf8CString)
    let descriptor = template.withUnsafeMutableBufferPointer { buffer in
      buffer.baseAddress.map { mkstemp($0) } ?? -1
    }
    guard descriptor >= 0 else { throw CLIError(String(cString: strerror(errno))) }
    _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
    self.descriptor = descriptor
    self.path = template.withUnsafeBufferPointer { buffer in
      buffer.baseAddress.map { String(cString: $0) } ?? ""
    }
  }

  /// The mode a new file of this user gets (0666 less the umask).
  static var defaultMode: mode_t {
    let mask = umask(0)
    umask(mask)
    return 0o666 & ~mask
  }

  func setMode(_ mode: mode_t) { fchmod(descriptor, mode) }

  /// Writes all of `bytes`; false when the system refuses (a full disk).
  func write(_ bytes: [UInt8]) -> Bool { writeAll(bytes, to: descriptor) }

  /// Closes the file and renames it over `target`, or removes it when writing failed.
  /// - Throws: the system's cause, the file removed.
  func commit(over target: String, written: Bool = true) throws(CLIError) {
    let closed = close(descriptor) == 0
    guard written && closed else {
      let cause = String(cString: strerror(errno))
      unlink(path)
      throw CLIError(cause)
    }
    guard rename(path, target) == 0 else {
      let cause = String(cString: strerror(errno))
      unlink(path)
      throw CLIError(cause)
    }
  }
}

/// The one temporary output file a signal must not leave behind. The handler may only call
/// async-signal-safe functions: it reads a path prepared in advance and unlinks it.
enum TemporaryFiles {
  private nonisolated(unsafe) static var path: UnsafeMutablePointer<CChar>?

  /// Removes `temporary` if the process is ended by SIGINT, SIGTERM or SIGHUP.
  static func remove(onSignal temporary: String) {
    path = strdup(temporary)
    for signalNumber in [SIGINT, SIGTERM, SIGHUP] {
      signal(signalNumber) { number in
        if let path = TemporaryFiles.path { unlink(path) }
        signal(number, SIG_DFL)
        raise(number)
      }
    }
  }

  /// The file was renamed or removed: a signal has nothing to remove.
  static func forget() {
    let old = path
    path = nil
    free(old)
  }
}
