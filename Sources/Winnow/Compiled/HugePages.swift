#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Advice that a large buffer about to be filled be backed by huge pages (2 MiB), where the
/// system takes that advice: Linux with transparent huge pages in `madvise` mode, the default of
/// many distributions. Elsewhere, or for a small buffer, nothing.
///
/// A `winnow` run starts by reading its compiled global list, about 12 MB, into fresh memory
/// and copying its tables out of it; filled 4 KiB page by page, the page faults were a third of
/// the start-up.
package enum HugePages {
  private static let size = 2 << 20

  /// Advises the whole 2 MiB pages inside `buffer`, when it holds at least two; before the
  /// buffer is first written, so that it faults in huge pages. Failure is ignored: it is advice.
  package static func advise(_ buffer: UnsafeMutableRawBufferPointer) {
    #if os(Linux)
      guard let base = buffer.baseAddress, buffer.count >= 2 * size else { return }
      let start = (Int(bitPattern: base) + size - 1) & ~(size - 1)
      let end = (Int(bitPattern: base) + buffer.count) & ~(size - 1)
      guard end > start, let pointer = UnsafeMutableRawPointer(bitPattern: start) else { return }
      _ = madvise(pointer, end - start, Int32(MADV_HUGEPAGE))
    #endif
  }
}
