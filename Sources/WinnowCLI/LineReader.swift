import Foundation
import Winnow

/// A run of whole lines read from one input, in one buffer: what a scan worker processes.
struct LineBatch: Sendable {
  /// The input's name as given (`-` for standard input).
  var file: String
  /// The 1-based number of the first line.
  var firstLine: Int
  /// The bytes of the lines, newlines included; a piece (``pieces(ofAtMost:)``) shares its
  /// batch's bytes.
  var bytes: [UInt8]
  /// Each line's byte range in `bytes`, without its newline.
  var lines: [Range<Int>]
  /// A problem reading the input after these lines (unreadable file, gzip failure): reported
  /// as an error record on the line after the last.
  var failure: String?
  /// The number of input bytes these lines stand for, newlines included: all of `bytes` for a
  /// batch, its own span for a piece.
  var byteCount: Int

  init(file: String, firstLine: Int, bytes: [UInt8], lines: [Range<Int>], failure: String?) {
    self.file = file
    self.firstLine = firstLine
    self.bytes = bytes
    self.lines = lines
    self.failure = failure
    byteCount = bytes.count
  }
}

extension LineBatch {
  /// The batch cut into batches of at most `limit` lines each, in order, each sharing the
  /// batch's bytes (not copying them), with its own byte count (so that counts add up) and the
  /// read failure, if any, on the last. Workers take pieces one at a time; the smaller they
  /// are, the less one waits for the other at the input's end.
  func pieces(ofAtMost limit: Int) -> [LineBatch] {
    guard lines.count > limit else { return [self] }
    return stride(from: 0, to: lines.count, by: limit).map { first in
      let last = min(first + limit, lines.count)
      // The first piece from the batch's start: a skipped byte-order mark counts as read.
      let start = first == 0 ? 0 : lines[first].lowerBound
      let end = last == lines.count ? bytes.count : lines[last].lowerBound
      var piece = LineBatch(
        file: file, firstLine: firstLine + first, bytes: bytes, lines: Array(lines[first..<last]),
        failure: last == lines.count ? failure : nil)
      piece.byteCount = end - start
      return piece
    }
  }
}

/// Reads an input in large chunks and cuts it into batches of whole lines. Lines may be of any
/// size; `.gz` files are read through `gzip -dc`.
final class LineReader {
  let file: String
  private var handle: FileHandle?
  private var gzip: Process?
  private var gzipErrors: Pipe?
  private var carry: [UInt8] = []
  private var nextLine = 1
  private var finished = false
  private var openFailure: String?

  /// How much one read asks for: a batch is read into room for its target and one read more.
  let chunkSize: Int

  init(file: String, chunkSize: Int = 1 << 20) {
    self.file = file
    self.chunkSize = chunkSize
    if file == "-" {
      handle = .standardInput
    } else if file.hasSuffix(".gz") {
      // Opened here too, for the cause of a failure: gzip's own message would come as a read
      // error on line 1.
      switch openInputFile(file) {
      case .failure(let failure):
        openFailure = failure.description
        return
      case .success(let opened): try? opened.close()
      }
      let process = Process()
      process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
      process.arguments = ["gzip", "-dc", "--", file]
      let output = Pipe()
      let errors = Pipe()
      process.standardOutput = output
      process.standardError = errors
      do {
        try process.run()
        gzip = process
        gzipErrors = errors
        handle = output.fileHandleForReading
      } catch {
        openFailure = "cannot run gzip to read \(file): \(error.localizedDescription)"
      }
    } else {
      switch openInputFile(file) {
      case .success(let opened): handle = opened
      case .failure(let failure): openFailure = failure.description
      }
    }
  }

  /// The next batch of about `targetBytes` (whole lines; a longer line makes a larger batch),
  /// or nil at the end.
  func nextBatch(targetBytes: Int = 1 << 20) -> LineBatch? {
    if finished { return nil }
    if let openFailure {
      finished = true
      return LineBatch(file: file, firstLine: 0, bytes: [], lines: [], failure: openFailure)
    }
    var failure: String?
    var atEnd = false
    var hasLineEnd = false
    // One read into `base` of at most `count` bytes: the bytes read, 0 at the end of the input
    // or on a failure (then recorded).
    func readChunk(into base: UnsafeMutablePointer<UInt8>, count: Int) -> Int {
      guard let descriptor = handle?.fileDescriptor else {
        atEnd = true
        return 0
      }
      while true {
        let got = read(descriptor, base, count)
        if got < 0 && errno == EINTR { continue }
        if got < 0 { failure = "read error in \(file): \(String(cString: strerror(errno)))" }
        if got <= 0 { atEnd = true }
        return max(got, 0)
      }
    }
    // Read straight into the batch's buffer: read as `Data` chunks and appended, every byte was
    // copied twice and every chunk allocated. Only new bytes are searched for a line end, so a
    // very long line costs one pass.
    let room = max(targetBytes, carry.count) + chunkSize
    var buffer = [UInt8](unsafeUninitializedCapacity: room) { space, count in
      let base = space.baseAddress!
      carry.withUnsafeBufferPointer { carried in
        if let from = carried.baseAddress { base.update(from: from, count: carried.count) }
      }
      count = carry.count
      hasLineEnd = Self.containsNewline(UnsafeRawBufferPointer(start: base, count: count))
      while !atEnd && (count < targetBytes || !hasLineEnd) && count < room {
        let got = readChunk(into: base + count, count: min(chunkSize, room - count))
        if !hasLineEnd { hasLineEnd = Self.containsNewline(UnsafeRawBufferPointer(start: base + count, count: got)) }
        count += got
      }
    }
    carry = []
    // A line longer than the room: on a read at a time, into room added at the end.
    while !atEnd && !hasLineEnd {
      let start = buffer.count
      buffer.append(contentsOf: repeatElement(0, count: chunkSize))
      let got = buffer.withUnsafeMutableBufferPointer { readChunk(into: $0.baseAddress! + start, count: chunkSize) }
      buffer.removeLast(chunkSize - got)
      hasLineEnd = buffer.withUnsafeBytes { Self.containsNewline(UnsafeRawBufferPointer(rebasing: $0[start...])) }
    }
    if atEnd {
      finished = true
      if failure == nil { failure = finishGzip() }
    } else if let lastNewline = buffer.lastIndex(of: UInt8(ascii: "\n")) {
      carry = Array(buffer[(lastNewline + 1)...])
      buffer.removeSubrange((lastNewline + 1)...)
    }
    var lines: [Range<Int>] = []
    // A byte-order mark (as some Windows tools save UTF-8) is not part of the first line's JSON.
    var start = nextLine == 1 && buffer.starts(with: Self.byteOrderMark) ? Self.byteOrderMark.count : 0
    buffer.withUnsafeBufferPointer { bytes in
      guard let base = bytes.baseAddress else { return }
      while start < bytes.count, let found = memchr(base + start, 0x0A, bytes.count - start) {
        let index = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        lines.append(start..<index)
        start = index + 1
      }
    }
    if start < buffer.count { lines.append(start..<buffer.count) }
    let batch = LineBatch(file: file, firstLine: nextLine, bytes: buffer, lines: lines, failure: failure)
    nextLine += lines.count
    if lines.isEmpty && failure == nil { return nil }
    return batch
  }

  /// U+FEFF in UTF-8.
  private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

  private static func containsNewline(_ bytes: UnsafeRawBufferPointer) -> Bool {
    guard let base = bytes.baseAddress, !bytes.isEmpty else { return false }
    return memchr(base, 0x0A, bytes.count) != nil
  }

  /// Up to `count` next batches: the work of one round of `count` parallel workers.
  func nextBatches(_ count: Int) -> [LineBatch] {
    var batches: [LineBatch] = []
    while batches.count < count, let batch = nextBatch() { batches.append(batch) }
    return batches
  }

  /// Waits for gzip and describes its failure, if it failed.
  private func finishGzip() -> String? {
    guard let gzip else { return nil }
    gzip.waitUntilExit()
    guard gzip.terminationStatus != 0 else { return nil }
    let message = gzipErrors.map {
      String(decoding: $0.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }
    let detail = message?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
    return "cannot decompress \(file): gzip exit status \(gzip.terminationStatus)\(detail.isEmpty ? "" : ": \(detail)")"
  }

  /// An input's size in bytes when known (a regular file that is not compressed).
  static func knownSize(of file: String) -> Int? {
    guard file != "-", !file.hasSuffix(".gz"),
      let attributes = try? FileManager.default.attributesOfItem(atPath: file),
      (attributes[.type] as? FileAttributeType) == .typeRegular
    else { return nil }
    return (attributes[.size] as? NSNumber)?.intValue
  }
}

/// `file` opened for reading, or why it cannot be, as `cannot read FILE: CAUSE` (see
/// `openFileForReading`).
func openInputFile(_ file: String) -> Result<FileHandle, CLIError> {
  openFileForReading(file).map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
    .mapError { CLIError("cannot read \(file): \($0.reason)") }
}

/// The whole of `file` (a pipe too), or why it cannot be read.
func readWholeFile(_ file: String) throws(CLIError) -> Data {
  let handle = try openInputFile(file).get()
  do { return try handle.readToEnd() ?? Data() } catch {
    throw CLIError("cannot read \(file): \(error.localizedDescription)")
  }
}
