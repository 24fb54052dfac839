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
/// the start-up (38.4 ms, one-line scan; 31.8 ms with glibc's `malloc.hugetlb` tunable, medians
/// of 15).
package enum HugePages {
  private static let size = 2 << 20

  /// The largest block ``prepareHeap(for:)`` prepares.
  package static let largestPreparedHeap = 56 << 20

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

  /// Prepares the calling thread's malloc heap to take the next `bytes` of allocations in huge
  /// pages: for a process that is about to fill many megabytes of fresh memory (a command
  /// reading a compiled list back) and keeps most of it. Large allocations then come from the
  /// heap rather than from mappings of their own (each of which faulted in page by page), freed
  /// memory stays in the heap, and a block of `bytes` is allocated, advised (see ``advise(_:)``)
  /// before any of it is written, and freed, so that what follows is carved from it. Linux with
  /// glibc only; elsewhere nothing. At most ``largestPreparedHeap``: glibc's heaps for threads
  /// other than the main one hold 64 MiB, and a larger block would be a mapping of its own.
  package static func prepareHeap(for bytes: Int) {
    #if os(Linux) && canImport(Glibc)
      // `mallopt` is glibc's, outside the Glibc module: looked up by name.
      typealias MallOpt = @convention(c) (Int32, Int32) -> Int32
      guard let symbol = dlsym(nil, "mallopt") else { return }
      let mallopt = unsafeBitCast(symbol, to: MallOpt.self)
      let trimThreshold: Int32 = -1  // M_TRIM_THRESHOLD
      let mmapThreshold: Int32 = -3  // M_MMAP_THRESHOLD
      _ = mallopt(mmapThreshold, Int32(largestPreparedHeap))
      _ = mallopt(trimThreshold, 256 << 20)
      guard let block = malloc(min(bytes, largestPreparedHeap)) else { return }
      advise(UnsafeMutableRawBufferPointer(start: block, count: bytes))
      free(block)
    #endif
  }
}
