import Foundation

/// The exclusive advisory lock (`flock`) every edit of a list file holds while it reads,
/// changes and writes the file: `winnow serve`'s word API and `winnow words add|rm|sort` alike,
/// in one process or several, so that no edit is written over another one's read (two servers
/// on one apps directory lost 15 to 19 of 40 acknowledged words without it).
///
/// The lock is taken on the list's directory, not on the list: an edit replaces the list by a
/// rename, which a lock on the old file would not cover, and a lock file beside it would be
/// left behind (removing one is a race). Edits of one directory's lists take turns; they are
/// short. Readers need no lock: a rename shows them the old file or the new one, whole.
package enum ListFileLock {
  /// Waits for the lock of `listPath`'s directory and takes it; closing the descriptor
  /// returned releases it.
  /// - Throws: ``AppDirectoryError`` naming the directory when it cannot be opened or locked.
  package static func lock(_ listPath: String) throws(AppDirectoryError) -> Int32 {
    let parent = (listPath as NSString).deletingLastPathComponent
    let directory = parent.isEmpty ? "." : parent
    let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard descriptor >= 0 else {
      throw AppDirectoryError(file: directory, cause: "cannot open to lock it: \(String(cString: strerror(errno)))")
    }
    while flock(descriptor, LOCK_EX) != 0 {
      guard errno == EINTR else {
        let cause = String(cString: strerror(errno))
        close(descriptor)
        throw AppDirectoryError(file: directory, cause: "cannot lock: \(cause)")
      }
    }
    return descriptor
  }
}
