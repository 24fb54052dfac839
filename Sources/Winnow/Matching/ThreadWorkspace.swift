import CWinnowFilter

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
/// lock and array: part of the extra CPU time a line cost with `winnow scan --jobs 2` over one
/// job. A scan finds its thread's workspace through a C thread-local variable
/// (`winnow_thread_workspace`), read without a call; a pthread key, set once per thread, only
/// has the workspace released when the thread ends.
enum ThreadWorkspace {
  /// What a thread's key points to: memory of its own, so that a scan works on the workspace in
  /// place (moving it out and back, or copying it, retained and released every buffer of its
  /// texts). A plain allocation rather than an object: reaching an object through the key
  /// retained and released it on every scan, two atomic operations each time, and a scan of
  /// a short message does little more than that.
  private struct Slot {
    var workspace = ScanWorkspace()
    /// Whether a scan on this thread is using the workspace.
    var isInUse = false
  }

  private static let key: pthread_key_t = {
    var key = pthread_key_t()
    #if canImport(Darwin)
      let status = pthread_key_create(&key) { ThreadWorkspace.freeSlot($0) }
    #else
      let status = pthread_key_create(&key) { pointer in
        if let pointer { ThreadWorkspace.freeSlot(pointer) }
      }
    #endif
    precondition(status == 0, "pthread_key_create failed (\(status))")
    return key
  }()

  /// Frees a thread's slot when the thread ends (on that thread, which no longer finds it).
  private static func freeSlot(_ pointer: UnsafeMutableRawPointer) {
    if winnow_thread_workspace() == pointer { winnow_set_thread_workspace(nil) }
    let slot = pointer.assumingMemoryBound(to: Slot.self)
    slot.deinitialize(count: 1)
    slot.deallocate()
  }

  /// Calls `body` with the calling thread's workspace, or with a new one when a scan on this
  /// thread is using it. A workspace that a huge text grew is emptied afterwards. Inlined: as a
  /// function specialized for its closure, it was handed the closure's matcher owned, a retain
  /// and a release on every scan.
  @inline(__always)
  static func withWorkspace<Result>(_ body: (inout ScanWorkspace) -> Result) -> Result {
    let slot: UnsafeMutablePointer<Slot>
    if let pointer = winnow_thread_workspace() {
      // SAFETY: the variable only ever holds a `Slot` this function allocated and initialized
      // for this thread, freed by `freeSlot` when the thread ends; no other thread reads it.
      slot = pointer.assumingMemoryBound(to: Slot.self)
    } else {
      slot = .allocate(capacity: 1)
      slot.initialize(to: Slot())
      winnow_set_thread_workspace(slot)
      pthread_setspecific(key, slot)
    }
    guard !slot.pointee.isInUse else {
      var workspace = ScanWorkspace()
      return body(&workspace)
    }
    slot.pointee.isInUse = true
    defer {
      if !slot.pointee.workspace.isWorthKeeping { slot.pointee.workspace = ScanWorkspace() }
      slot.pointee.isInUse = false
    }
    return body(&slot.pointee.workspace)
  }
}
