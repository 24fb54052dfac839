import Foundation
@_spi(Tools) import Winnow

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
  /// Where each line comes from, when the input is tagged (``LineReader/init(file:chunkSize:tagged:)``):
  /// one origin a line. Nil for an ordinary input, whose lines are `file`'s from `firstLine` on.
  var origins: [LineOrigin]?

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
      piece.origins = origins.map { Array($0[first..<last]) }
      return piece
    }
  }
}

/// Where a line of a tagged input comes from: the file and line number its tag names, or why
/// its tag cannot be read (then `file` and `line` are the input's own).
struct LineOrigin: Sendable {
  var file: String
  var line: Int
  var problem: String?
}

/// Reads an input in large chunks and cuts it into batches of whole lines. Lines may be of any
/// size; `.gz` files are read through `gzip -dc`.
final class LineReader {
  let file: String
  /// Each line is `ORIGIN<TAB>FIRST<TAB>TEXT` (see ``Tags``).
  let tagged: Bool
  private var tags = Tags()
  private var handle: FileHandle?
  private var gzip: Process?
  private var gzipErrors: Pipe?
  private var carry: [UInt8] = []
  private var nextLine = 1
  /// How many lines the last batch had: room for about as many is made in the next one's
  /// table of lines, which grew from empty in every batch.
  private var lastLineCount = 0
  private var finished = false
  private var openFailure: String?

  /// How much one read asks for: a batch is read into room for its target and one read more.
  let chunkSize: Int

  init(file: String, chunkSize: Int = 1 << 20, tagged: Bool = false) {
    self.file = file
    self.chunkSize = chunkSize
    self.tagged = tagged
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
    lines.reserveCapacity(lastLineCount + lastLineCount / 8)
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
    var batch = LineBatch(file: file, firstLine: nextLine, bytes: buffer, lines: lines, failure: failure)
    nextLine += lines.count
    lastLineCount = lines.count
    if lines.isEmpty && failure == nil { return nil }
    if tagged { tags.untag(&batch) }
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

/// Calls `body` with each line of `files` (`-` for standard input, the default) that is not
/// blank: its file, its number from 1 and its bytes. A file that cannot be read is reported on
/// standard error and ends the command with status 2.
func forEachNonBlankLine(of files: [String], _ body: (String, Int, Data.SubSequence) throws -> Void) throws {
  for file in files.isEmpty ? ["-"] : files {
    let data: Data
    do { data = file == "-" ? readStandardInput() : try readWholeFile(file) } catch {
      FileHandle.standardError.write(Data("winnow: \(error)\n".utf8))
      throw CLIError.exitCode
    }
    for (index, line) in data.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated()
    where !line.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) {
      try body(file, index + 1, line)
    }
  }
}

/// The reading of a tagged input, whose lines carry where they come from: what a distributed
/// scan (`integrations/spark`) feeds each `winnow scan`, whose input is pieces of many files.
///
/// Each line is `ORIGIN<TAB>FIRST<TAB>TEXT`: `TEXT` is a line of the file `ORIGIN`, and
/// `FIRST` is the line number in `ORIGIN` of the first line of the run of consecutive input
/// lines with this same tag. What a reader of a file's split knows is exactly that: the number
/// of the split's first line, and that the split's lines follow in order. A line's number is
/// `FIRST` plus the number of lines before it in its run. A line whose tag cannot be read
/// (no two tabs, an empty origin, `FIRST` not a positive decimal number) gets an error record
/// on the input's own name and line, and does not end the run it interrupts.
struct Tags {
  private var tag: [UInt8] = []
  private var origin = ""
  private var next = 0

  /// Removes the tags from `batch`'s lines, in place (the bytes a scan reads and counts are
  /// the lines' own), and records each line's origin.
  mutating func untag(_ batch: inout LineBatch) {
    var origins: [LineOrigin] = []
    origins.reserveCapacity(batch.lines.count)
    var lines: [Range<Int>] = []
    lines.reserveCapacity(batch.lines.count)
    var end = 0
    let input = batch.file
    let firstLine = batch.firstLine
    batch.bytes.withUnsafeMutableBufferPointer { bytes in
      for (index, range) in batch.lines.enumerated() {
        let text: Range<Int>
        if let (tagEnd, first) = Self.parse(UnsafeBufferPointer(rebasing: bytes[range])) {
          let tag = UnsafeBufferPointer(rebasing: bytes[range.lowerBound..<(range.lowerBound + tagEnd)])
          if !tag.elementsEqual(self.tag) {
            self.tag = Array(tag)
            let originEnd = tag.firstIndex(of: 0x09) ?? tag.endIndex
            origin = String(decoding: UnsafeBufferPointer(rebasing: tag[..<originEnd]), as: UTF8.self)
            next = first
          }
          origins.append(LineOrigin(file: origin, line: next))
          next = next < Int.max ? next + 1 : next
          text = (range.lowerBound + tagEnd + 1)..<range.upperBound
        } else {
          origins.append(
            LineOrigin(
              file: input, line: firstLine + index,
              problem: "not a tagged line: expected ORIGIN<TAB>FIRST-LINE<TAB>TEXT"))
          text = range
        }
        // Moved down over the tags removed so far (never up: `end` ≤ `text.lowerBound`).
        let start = end
        if text.lowerBound != start, let base = bytes.baseAddress {
          (base + start).update(from: base + text.lowerBound, count: text.count)
        }
        end = start + text.count
        lines.append(start..<end)
        // The last line may have no newline (then there is no room for one, nor need).
        if end < bytes.count {
          bytes[end] = 0x0A
          end += 1
        }
      }
    }
    batch.bytes.removeSubrange(end...)
    batch.lines = lines
    batch.byteCount = end
    batch.origins = origins
  }

  /// The length of a line's tag (up to its second tab) and its `FIRST`, or nil when the line
  /// has no readable tag.
  private static func parse(_ line: UnsafeBufferPointer<UInt8>) -> (Int, Int)? {
    guard let firstTab = line.firstIndex(of: 0x09), firstTab > 0,
      let secondTab = line[(firstTab + 1)...].firstIndex(of: 0x09), secondTab > firstTab + 1
    else { return nil }
    var number = 0
    for byte in line[(firstTab + 1)..<secondTab] {
      guard (0x30...0x39).contains(byte) else { return nil }
      let (times, overflow) = number.multipliedReportingOverflow(by: 10)
      let (sum, carry) = times.addingReportingOverflow(Int(byte - 0x30))
      guard !overflow, !carry else { return nil }
      number = sum
    }
    return number > 0 ? (secondTab, number) : nil
  }
}
