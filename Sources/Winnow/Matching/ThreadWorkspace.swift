#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The scan workspace of the calling thread: the normalized-text buffers its last scan left, for
/// the next scan on the same thread (of any ``Matcher``) to reuse, so that a scan allocates no
/// normalization storage. Internal to ``Matcher``.
///
/// One per thread, in thread-local storage, rather than a pool shared by all threads: with a
/// pool (a lock around a stack of workspaces), the workspace one thread had just put back was
/// often the one the other took next, so with two scanning threads the scans kept moving
/// workspaces' buffers from one core's cache to the other's, and both threads wrote the pool's
/// lock and array: part of the 5% more CPU time a line that `winnow scan --jobs 2` spent than
/// one job. A thread that ends releases its workspace.
enum ThreadWorkspace {
  /// The storage a thread's key points to.
  private final class Slot {
    var workspace = ScanWorkspace()
    /// Whether a scan on this thread holds the workspace.
    var isTaken = false
  }

  private static let key: pthread_key_t = {
    var key = pthread_key_t()
    #if canImport(Darwin)
      let status = pthread_key_create(&key) { Unmanaged<Slot>.fromOpaque($0).release() }
    #else
      let status = pthread_key_create(&key) { pointer in
        if let pointer { Unmanaged<Slot>.fromOpaque(pointer).release() }
      }
    #endif
    precondition(status == 0, "pthread_key_create failed (\(status))")
    return key
  }()

  /// The calling thread's workspace, taken out (nil when a scan on this thread holds it). The
  /// workspace moves out by swapping: copying it would retain and release every buffer of its
  /// texts, twice a scan.
  static func take() -> ScanWorkspace? {
    let slot: Slot
    if let pointer = pthread_getspecific(key) {
      slot = Unmanaged<Slot>.fromOpaque(pointer).takeUnretainedValue()
    } else {
      slot = Slot()
      pthread_setspecific(key, Unmanaged.passRetained(slot).toOpaque())
    }
    guard !slot.isTaken else { return nil }
    slot.isTaken = true
    var workspace = ScanWorkspace()
    swap(&workspace, &slot.workspace)
    return workspace
  }

  /// Gives back a workspace that ``take()`` returned, as the calling thread's, for its next
  /// scan; `workspace` is left empty.
  static func keep(_ workspace: inout ScanWorkspace) {
    guard let pointer = pthread_getspecific(key) else { return }
    let slot = Unmanaged<Slot>.fromOpaque(pointer).takeUnretainedValue()
    swap(&workspace, &slot.workspace)
    slot.isTaken = false
  }
}
