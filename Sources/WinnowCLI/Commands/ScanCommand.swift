import ArgumentParser
import Foundation
import Synchronization
@_spi(Tools) import Winnow

/// `winnow scan`: moderate every item of JSON Lines dumps, in parallel, output in input order.
struct ScanCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "scan",
    abstract: "Moderate every item of JSON Lines message dumps.",
    discussion: """
      Reads Winnow's item JSON, the platform's message history log (with or without its \
      yyyy/MM/dd HH:mm:ss prefix) and message callback posts, detected line by line; .gz files \
      are read through gzip. Writes one JSON result per blocked, replaced or flagged item (--all: \
      per item), and one per line that cannot be read, in input order whatever --jobs is. A summary \
      on standard error accounts for every line: read = passed + replaced + blocked + errors.

      Exit status: 0 nothing blocked, replaced or flagged for review; 1 something was; 3 some lines \
      could not be read, or a regex's limits stopped their check (their results are in the \
      output, with "warnings"); 2 the scan could not run \
      (word lists, output file); 64 usage.
      """
  )

  @Argument(help: "JSON Lines files (.gz read directly); - or nothing for standard input.")
  var files: [String] = []

  @Option(
    name: [.short, .customLong("output")], help: "Write results to this file (replaced only when the scan ends).")
  var output: String?

  @Flag(help: "Write a result for every item, passed ones included.")
  var all = false

  @Option(help: "Parallel workers (default: the number of cores).")
  var jobs = ProcessInfo.processInfo.activeProcessorCount

  @Flag(name: .customLong("no-progress"), help: "No progress bar, even on a terminal.")
  var noProgress = false

  @Flag(help: "No summary on standard error (errors are still reported there).")
  var quiet = false

  @Option(
    name: .customLong("summary-json"),
    help: ArgumentHelp(
      "Also write the summary as JSON to FILE (-: as a last line {\"summary\":…} of standard output).",
      discussion: "`winnow summary` adds up the summaries of a dump's parts.", valueName: "FILE"))
  var summaryJSON: String?

  @Flag(
    name: .customLong("tagged"),
    help: ArgumentHelp(
      "Each input line is ORIGIN<TAB>FIRST<TAB>LINE: results name ORIGIN and the line's number there.",
      discussion: """
        FIRST is the number of the first line of the run of consecutive lines with this same tag; \
        what a distributed scan feeds each part (integrations/spark).
        """))
  var tagged = false

  @Option(
    help: ArgumentHelp(
      "Write one JSON line per sender (appKey, fromUserId) with a blocked, replaced or flagged message to FILE.",
      discussion: """
        Each line has the sender's counts, first and last sentTime, categories, conversations, \
        the policy's recommendation and the messages behind it (Docs/offenders.md). Every line \
        is read in full, as with --all. -: as lines {"offender":…} of standard output after the \
        results, for every sender, so that the parts of a distributed scan add up (`winnow \
        offenders` reads both forms and keeps the offenders).
        """, valueName: "FILE"))
  var offenders: String?

  @Option(
    help: ArgumentHelp(
      "The offender policy (JSON) for --offenders; default: the built-in one (winnow offenders --print-policy).",
      valueName: "FILE"))
  var policy: String?

  @OptionGroup var lists: ListOptions

  @OptionGroup(title: "Items") var moderation: ModerationOptions

  func validate() throws {
    try validateJobs(jobs)
    if policy != nil && offenders == nil {
      throw ValidationError("--policy applies to --offenders: give both")
    }
  }

  func run() async throws {
    // A scan can meet thousands of reviewer failures: they are counted in the summary, and only
    // errors are logged.
    let (configuration, client) = try moderation.configuration(logLevel: .error)
    let status: Int32
    do {
      status = try await scan(configuration: configuration)
    } catch {
      try? await client?.shutdown()
      throw error
    }
    try? await client?.shutdown()
    if status != 0 { throw ExitCode(status) }
  }

  private func scan(configuration: ModerationEngine.Configuration) async throws -> Int32 {
    var offenderPolicy = OffenderPolicy.builtIn
    if let policy {
      do { offenderPolicy = try loadPolicy(policy) } catch {
        FileHandle.standardError.write(Data("winnow: \(error)\n".utf8))
        throw CLIError.exitCode
      }
    }
    let engine: ModerationEngine
    do { engine = try lists.engine(configuration: configuration) } catch let error as CLIError {
      FileHandle.standardError.write(Data("winnow: \(error)\n".utf8))
      throw CLIError.exitCode
    }
    var sink: ResultSink
    do { sink = try ResultSink(path: output, inputs: files.isEmpty ? ["-"] : files) } catch {
      FileHandle.standardError.write(Data("winnow: \(error)\n".utf8))
      throw CLIError.exitCode
    }
    let inputs = files.isEmpty ? ["-"] : files
    let sizes = inputs.map(LineReader.knownSize(of:))
    let progress = ProgressBar(
      totalBytes: sizes.contains(nil) ? nil : sizes.reduce(0) { $0 + $1! },
      enabled: !noProgress && isatty(STDERR_FILENO) == 1)
    let clock = ContinuousClock()
    let start = clock.now
    var tally = ScanTally()
    tally.everyMessage = offenders != nil
    var offenderSink: ResultSink?
    if let offenders, offenders != "-" {
      do { offenderSink = try ResultSink(path: offenders, inputs: inputs) } catch {
        FileHandle.standardError.write(Data("winnow: \(error)\n".utf8))
        throw CLIError.exitCode
      }
    }
    let worker = ScanWorker(
      engine: engine, writeAll: all, everyMessage: offenders != nil,
      reviewerWidth: moderation.reviewerConcurrency > Int.max / 2 ? Int.max : moderation.reviewerConcurrency * 2)
    do {
      for file in inputs {
        let reader = LineReader(file: file, tagged: tagged)
        func consume(_ outputs: [BatchOutput]) throws {
          for output in outputs {
            try sink.write(output.bytes)
            tally.merge(output.tally)
            progress.update(items: tally.read, bytes: tally.bytes)
          }
        }
        if configuration.reviewer == nil {
          try pipelineBatches(of: reader, jobs: jobs, map: worker.process(_:), consume: consume)
        } else {
          while case let batches = reader.nextBatches(jobs * 2), !batches.isEmpty {
            try consume(await worker.processWithReviewer(batches))
          }
        }
      }
      progress.finish()
      if let offenders {
        var writer = JSONWriter()
        let wrapped = offenders == "-"
        // For merging, every sender: one whose clean messages are in this part and whose
        // blocked ones are in another must add up to the same counts.
        let senders = wrapped ? tally.offenders.everySender() : tally.offenders.offenders()
        for (key, sender) in senders {
          if wrapped { writer.raw(#"{"offender":"#) }
          OffenderTally.writeLine(key: key, sender: sender, policy: offenderPolicy, to: &writer)
          if wrapped {
            // The closing brace goes before the line's newline.
            writer.removeBytes(from: writer.byteCount - 1)
            writer.raw("}\n")
          }
        }
        if wrapped {
          // After every result line on standard output (those of -o FILE go to the file).
          guard writeAll(writer.bytes, to: STDOUT_FILENO) else {
            throw CLIError("cannot write standard output: \(String(cString: strerror(errno)))")
          }
        } else {
          try offenderSink?.write(writer.bytes)
          try offenderSink?.commit()
        }
      }
      try sink.commit()
    } catch {
      // The output cannot be written (a full disk, a directory as the target): the scan could
      // not run, whatever it found. Dropping the sink removes its temporary file.
      progress.finish()
      FileHandle.standardError.write(Data("winnow: \(error)\n".utf8))
      throw CLIError.exitCode
    }
    let summary = tally.summary(
      seconds: (clock.now - start).seconds, jobs: jobs,
      reviewer: configuration.reviewer == nil ? nil : engine.reviewerStatistics.counts)
    if !quiet { FileHandle.standardError.write(Data(summary.text.utf8)) }
    if let summaryJSON {
      do { try writeSummary(summary, to: summaryJSON) } catch {
        FileHandle.standardError.write(Data("winnow: \(error)\n".utf8))
        throw CLIError.exitCode
      }
    }
    return summary.exitStatus
  }

  /// Writes `summary` as JSON to `path`: after the results for `-` (one line, `{"summary":…}`),
  /// otherwise to the file, through a temporary file renamed over it.
  private func writeSummary(_ summary: ScanSummary, to path: String) throws {
    if path == "-" {
      let line = Data("{\"summary\":".utf8) + summary.json().dropLast() + Data("}\n".utf8)
      guard writeAll(Array(line), to: STDOUT_FILENO) else {
        throw CLIError("cannot write standard output: \(String(cString: strerror(errno)))")
      }
      return
    }
    var sink = try ResultSink(path: path, inputs: files)
    try sink.write(Array(summary.json()))
    try sink.commit()
  }
}

/// Where results go: standard output, or a temporary file beside `--output` renamed over it
/// when the scan ends, so that a crash never leaves a half-written result file.
///
/// The temporary file (``AtomicFile``) is removed when the scan fails, when the sink is
/// dropped without ``commit()``, and on SIGINT, SIGTERM and SIGHUP. Only a regular file or a
/// new path is replaced: a FIFO, a device or a socket (`-o /dev/null`, `-o >(gzip > out.gz)`)
/// is opened and written directly, and a path that is one of the inputs (or a link to one) is
/// refused, since renaming over it would throw away what is being read.
struct ResultSink: ~Copyable {
  private enum Target {
    case standardOutput
    /// A FIFO, device or socket, written in place.
    case direct(path: String, descriptor: Int32)
    /// A regular file or a new path, replaced whole by a temporary file beside it.
    case replacing(path: String, temporary: AtomicFile)
  }
  private let target: Target
  private var committed = false

  /// A sink for `path` (standard output when nil); `inputs` are the files being read (`-` for
  /// standard input), which `path` must not be.
  init(path: String?, inputs: [String] = []) throws {
    guard let path else {
      target = .standardOutput
      return
    }
    var status = stat()
    if stat(path, &status) == 0 {
      let kind = status.st_mode & S_IFMT
      if kind == S_IFDIR { throw CLIError("cannot write \(path): \(String(cString: strerror(EISDIR)))") }
      if kind != S_IFREG {
        let descriptor = open(path, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw CLIError("cannot write \(path): \(String(cString: strerror(errno)))") }
        target = .direct(path: path, descriptor: descriptor)
        return
      }
      for input in inputs where input != "-" {
        var read = stat()
        if stat(input, &read) == 0, read.st_dev == status.st_dev, read.st_ino == status.st_ino {
          throw CLIError("\(path) is also an input (\(input)): writing it would replace what is being read")
        }
      }
    }
    let temporary: AtomicFile
    do { temporary = try TemporaryFiles.make(replacing: path) } catch {
      throw CLIError("cannot write \(path): \(error.cause)")
    }
    // A result file is as readable as any file its user writes.
    temporary.setMode(AtomicFile.defaultMode)
    target = .replacing(path: path, temporary: temporary)
  }

  deinit {
    guard !committed else { return }
    switch target {
    case .standardOutput: break
    case .direct(_, let descriptor): close(descriptor)
    case .replacing(_, let temporary):
      temporary.discard()
      TemporaryFiles.forget()
    }
  }

  func write(_ bytes: [UInt8]) throws {
    let (descriptor, name): (Int32, String) =
      switch target {
      case .standardOutput: (STDOUT_FILENO, "standard output")
      case .direct(let path, let descriptor): (descriptor, path)
      case .replacing(let path, let temporary): (temporary.descriptor, path)
      }
    guard writeAll(bytes, to: descriptor) else {
      throw CLIError("cannot write \(name): \(String(cString: strerror(errno)))")
    }
  }

  /// Makes the file whole: synchronized to disk and renamed over `--output` (or removed); a
  /// FIFO, device or socket is closed.
  mutating func commit() throws {
    switch target {
    case .standardOutput: return
    case .direct(let path, let descriptor):
      committed = true
      guard close(descriptor) == 0 else {
        throw CLIError("cannot write \(path): \(String(cString: strerror(errno)))")
      }
    case .replacing(let path, let temporary):
      committed = true
      TemporaryFiles.forget()
      do { try temporary.commit(durable: true) } catch { throw CLIError("cannot write \(path): \(error.cause)") }
    }
  }
}

/// The output of one batch: result lines and counts.
struct BatchOutput: Sendable {
  var bytes: [UInt8] = []
  var tally = ScanTally()
}

/// Moderates batches of lines into result lines.
struct ScanWorker: Sendable {
  let engine: ModerationEngine
  let writeAll: Bool
  /// Every message is counted by sender (`--offenders`): a clean line's item is made too.
  var everyMessage = false
  /// Items of a batch moderated at once with the reviewer.
  var reviewerWidth = 32

  /// Word lists only: one batch, on the calling thread (``pipelineBatches`` runs several).
  /// Each line is read, moderated and written in turn: its item is built once and never
  /// copied (holding a batch's items in an array copied each one, a retain per string, on the
  /// way out).
  ///
  /// Each line goes through ``ModerationEngine/screen(dumpLine:inPlace:itemsOfClean:)``: a line
  /// that passes in place, as almost every line of a dump does, is counted without building
  /// its item (with `--offenders`, with the item made from what the check found, for its
  /// sender); the others are read and screened in full. With `--all`, every line is read,
  /// since every line's result is written.
  @Sendable func process(_ batch: LineBatch) -> BatchOutput {
    batch.bytes.withUnsafeBufferPointer { bytes in
      process(batch) { (offset) throws(ItemError) -> LineOutcome in
        let bytes = UnsafeBufferPointer(rebasing: bytes[batch.lines[offset]])
        // Counting every message of each sender (`--offenders`), a clean line's item is made in
        // place: every line read and screened in full cost far more (`Benchmarks/HISTORY.md`).
        switch try engine.screen(dumpLine: bytes, inPlace: !writeAll, itemsOfClean: everyMessage) {
        case .clean(let clean): return .clean(clean)
        case .cleanItem(let clean, let item): return .cleanItem(clean, item)
        case .screened(let result, let format, let flagged):
          return .screened(ScreenedLine(format: format, platformFlagged: flagged), result)
        }
      }
    }
  }

  /// What became of one line: passed with nothing found, known without reading it (the line's
  /// format and kind), or read and screened.
  enum LineOutcome {
    case clean(CleanDumpLine)
    /// Passed with nothing found, known in place, with its item (for counting its sender).
    case cleanItem(CleanDumpLine, MessageItem)
    case screened(ScreenedLine, ModerationResult)
    /// Not moderated, for a reason that is not the line's (an error record says it).
    case failed(String)
  }

  /// What the output needs of a screened line besides its result. The item itself is moved into
  /// the result (its id and kind are the result's item's): kept with the line as well, it was
  /// copied, a retain for each of its strings.
  struct ScreenedLine {
    var format: DumpFormat
    var platformFlagged: Bool?

    init(format: DumpFormat, platformFlagged: Bool?) {
      self.format = format
      self.platformFlagged = platformFlagged
    }

    init(_ line: DumpLine) { self.init(format: line.format, platformFlagged: line.platformFlagged) }
  }

  /// With the reviewer: each batch's items concurrently, at most twice `--reviewer-concurrency`
  /// at a time, so that an item's reviewer timeout measures the reviewer's answer and not a
  /// queue of the whole batch (all of a batch's items at once made most of them wait past
  /// their timeout, or past the engine's cap on calls in flight).
  /// Every line gets its result: read errors, moderation errors and answers are kept in one
  /// array by line, and a line whose task gave nothing back (which cannot happen) would be an
  /// error record, never a crash.
  func processWithReviewer(_ batches: [LineBatch]) async -> [BatchOutput] {
    var outputs: [BatchOutput] = []
    let width = reviewerWidth
    for batch in batches {
      let lines = Self.read(batch)
      var results = [Result<ModerationResult, ItemError>?](repeating: nil, count: lines.count)
      await withTaskGroup(of: Moderated.self) { group in
        var running = 0
        for (index, line) in lines.enumerated() {
          // A line whose tag cannot be read gets its error record, and no reviewer call.
          guard case .success(let line) = line, batch.origins?[index].problem == nil else { continue }
          if running == width, let moderated = await group.next() {
            results[moderated.index] = moderated.result
            running -= 1
          }
          let item = line.item
          group.addTask { Moderated(index: index, result: await Self.moderate(item, with: engine)) }
          running += 1
        }
        for await moderated in group { results[moderated.index] = moderated.result }
      }
      outputs.append(
        process(batch) { (offset) throws(ItemError) -> LineOutcome in
          let line = try lines[offset].get()
          guard let result = results[offset] else { return .failed("internal error: no result for this line") }
          return .screened(ScreenedLine(line), try result.get())
        })
    }
    return outputs
  }

  /// One item's result and its line's place in the batch, from a task of the reviewer's group.
  struct Moderated: Sendable {
    var index: Int
    var result: Result<ModerationResult, ItemError>
  }

  /// The engine's answer for `item`, or its error, as a value.
  static func moderate(_ item: MessageItem, with engine: ModerationEngine) async -> Result<ModerationResult, ItemError>
  {
    do { return .success(try await engine.moderate(item)) } catch { return .failure(error) }
  }

  /// Each line of a batch read as a dump item, or the reason it cannot be.
  static func read(_ batch: LineBatch) -> [Result<DumpLine, ItemError>] {
    batch.bytes.withUnsafeBufferPointer { bytes in
      batch.lines.map { range in
        Result { () throws(ItemError) in try DumpLine(utf8: UnsafeBufferPointer(rebasing: bytes[range])) }
      }
    }
  }

  /// Writes the result of each line of a batch; `moderate` gives what became of a line from
  /// its offset in the batch, or the reason it cannot be read.
  func process(_ batch: LineBatch, moderate: (Int) throws(ItemError) -> LineOutcome) -> BatchOutput {
    var output = BatchOutput()
    output.tally.bytes = batch.byteCount
    output.tally.everyMessage = everyMessage
    output.tally.defersCounting = true
    var writer = JSONWriter()
    for offset in batch.lines.indices {
      var file = batch.file
      var number = batch.firstLine + offset
      if let origin = batch.origins?[offset] {
        file = origin.file
        number = origin.line
        if let problem = origin.problem {
          output.tally.addError()
          writeError(problem, file: file, number: number, to: &writer)
          continue
        }
      }
      do throws(ItemError) {
        switch try moderate(offset) {
        case .clean(let line):
          output.tally.addClean(line)
        case .cleanItem(let line, let item):
          output.tally.addClean(line)
          output.tally.offenders.addClean(item)
        case .screened(let line, let result):
          output.tally.add(line, result)
          // A check a regex's limits stopped is written even when nothing was found: it
          // must never look clean.
          if writeAll || result.verdict != .pass || result.flagged || !result.warnings.isEmpty {
            write(result, of: line, file: file, number: number, to: &writer)
          }
        case .failed(let reason):
          output.tally.addError()
          writeError(reason, file: file, number: number, to: &writer)
        }
      } catch {
        output.tally.addError()
        writeError(error.description, file: file, number: number, to: &writer)
      }
    }
    if let failure = batch.failure {
      output.tally.addError()
      writeError(
        failure, file: batch.file, number: batch.firstLine == 0 ? 0 : batch.firstLine + batch.lines.count,
        to: &writer)
    }
    output.bytes = writer.takeBytes()
    return output
  }

  /// Opens an output record with where its input line is: `{"file":…,"line":…`.
  private static func beginRecord(file: String, number: Int, to writer: inout JSONWriter) {
    writer.beginObject()
    writer.key("file")
    writer.string(file)
    writer.key("line")
    writer.number(number)
  }

  /// One result line: where the line is, what it is, then the result's members (see
  /// ``ModerationResult/json``), written straight to bytes.
  private func write(
    _ result: ModerationResult, of line: ScreenedLine, file: String, number: Int, to writer: inout JSONWriter
  ) {
    Self.beginRecord(file: file, number: number, to: &writer)
    if !result.item.msgUID.isEmpty {
      writer.key("msgUID")
      writer.string(result.item.msgUID)
    }
    writer.key("format")
    writer.string(line.format.rawValue)
    writer.key("sourceType")
    writer.number(result.item.sourceType.rawValue)
    result.writeMembers(to: &writer)
    if let flagged = line.platformFlagged {
      writer.key("platformFlagged")
      writer.bool(flagged)
    }
    writer.endObject()
    writer.endLine()
  }

  private func writeError(_ message: String, file: String, number: Int, to writer: inout JSONWriter) {
    Self.beginRecord(file: file, number: number, to: &writer)
    writer.key("verdict")
    writer.string("error")
    writer.key("error")
    writer.string(message)
    writer.endObject()
    writer.endLine()
  }
}
