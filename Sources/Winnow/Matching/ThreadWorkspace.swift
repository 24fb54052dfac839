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
  /// The storage a thread's key points to. The workspace lives in memory of its own, so that a
  /// scan works on it in place: moving it out and back, or copying it, retained and released
  /// every buffer of its texts.
  private final class Slot {
    let workspace: UnsafeMutablePointer<ScanWorkspace>
    /// Whether a scan on this thread is using the workspace.
    var isInUse = false

    init() {
      workspace = .allocate(capacity: 1)
      workspace.initialize(to: ScanWorkspace())
    }

    deinit {
      workspace.deinitialize(count: 1)
      workspace.deallocate()
    }
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

  /// Calls `body` with the calling thread's workspace, or with a new one when a scan on this
  /// thread is using it. A workspace that a huge text grew is emptied afterwards.
  static func withWorkspace<Result>(_ body: (inout ScanWorkspace) -> Result) -> Result {
    let slot: Slot
    if let pointer = pthread_getspecific(key) {
      slot = Unmanaged<Slot>.fromOpaque(pointer).takeUnretainedValue()
    } else {
      slot = Slot()
      pthread_setspecific(key, Unmanaged.passRetained(slot).toOpaque())
    }
    guard !slot.isInUse else {
      var workspace = ScanWorkspace()
      return body(&workspace)
    }
    slot.isInUse = true
    defer {
      if !slot.workspace.pointee.isWorthKeeping { slot.workspace.pointee = ScanWorkspace() }
      slot.isInUse = false
    }
    return body(&slot.workspace.pointee)
  }
}
