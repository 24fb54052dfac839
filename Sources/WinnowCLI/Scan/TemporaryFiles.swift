import Foundation
@_spi(Tools) import Winnow

/// The one temporary output file a signal must not leave behind. The handler may only call
/// async-signal-safe functions: it reads a path prepared in advance and unlinks it.
///
/// The handlers are in place before the file exists: a signal that arrives while it is being
/// made is held until its path is known, then removes it and ends the process as it would
/// have (the test that kills a scan as soon as its file appears once found it left behind).
enum TemporaryFiles {
  private nonisolated(unsafe) static var path: UnsafeMutablePointer<CChar>?
  /// Whether the file is being made: a signal then only sets ``held``.
  private nonisolated(unsafe) static var making: sig_atomic_t = 0
  /// A signal that arrived while the file was being made, or 0.
  private nonisolated(unsafe) static var held: sig_atomic_t = 0

  /// A new temporary file beside `target`, removed if the process is ended by SIGINT, SIGTERM
  /// or SIGHUP before ``forget()``.
  /// - Throws: ``AtomicFile/Failure``.
  static func make(replacing target: String) throws(AtomicFile.Failure) -> AtomicFile {
    making = 1
    for signalNumber in [SIGINT, SIGTERM, SIGHUP] {
      signal(signalNumber) { number in
        if TemporaryFiles.making != 0 {
          TemporaryFiles.held = number
          return
        }
        if let path = TemporaryFiles.path { unlink(path) }
        signal(number, SIG_DFL)
        raise(number)
      }
    }
    let file: AtomicFile
    do { file = try AtomicFile(replacing: target) } catch {
      endMaking()
      throw error
    }
    path = strdup(file.path)
    endMaking()
    return file
  }

  /// Lets signals act again, and acts on one that was held.
  private static func endMaking() {
    making = 0
    let number = held
    guard number != 0 else { return }
    if let path { unlink(path) }
    signal(number, SIG_DFL)
    raise(number)
  }

  /// The file was renamed or removed: a signal has nothing to remove.
  static func forget() {
    let old = path
    path = nil
    free(old)
  }
}
