import ArgumentParser
import Foundation

/// Maps an input's batches on `jobs` worker threads and hands the outputs, in input order, to
/// `consume` on the calling thread.
///
/// With one job, the calling thread reads, maps and consumes each batch in turn. With more,
/// the input flows without rounds: batches are cut into pieces of at most ``linesPerPiece``
/// lines, the workers take pieces from one queue, and whichever worker finds the queue
/// running low reads the next batch; the calling thread consumes each output as soon as every
/// output before it is there, while the workers go on. Reading and consuming never hold the
/// workers at a barrier: the earlier rounds of `2 × jobs` batches left the workers idle while
/// the calling thread wrote a round's results and cut the next round's batches. At most ``maximumPiecesAhead`` pieces are read ahead
/// of what has been consumed, so a slow output holds the memory in use to a few MiB.
func pipelineBatches<Output: Sendable>(
  of reader: LineReader, jobs: Int, map body: @escaping @Sendable (LineBatch) -> Output,
  consume: ([Output]) throws -> Void
) rethrows {
  guard jobs > 1 else {
    while let batch = reader.nextBatch() { try consume([body(batch)]) }
    return
  }
  let pipeline = BatchPipeline(reader: reader, jobs: jobs, body: body)
  guard pipeline.start() > 0 else {
    // Not one worker thread could be made (the system's thread limit): the calling thread works.
    while let batch = reader.nextBatch() { try consume([body(batch)]) }
    return
  }
  // On a throw from `consume` too: the workers stop taking pieces, and are waited for (a
  // worker in the middle of reading a standard input that is slow to come finishes that read
  // first).
  defer { pipeline.finish() }
  while let outputs = pipeline.nextOutputs() { try consume(outputs) }
}

/// The most workers `--jobs` may ask for: far more than any machine's cores, few enough that
/// their stacks (8 MiB of address space each) fit.
let maximumJobs = 256

/// Refuses a `--jobs` outside `1...maximumJobs`.
func validateJobs(_ jobs: Int) throws {
  guard (1...maximumJobs).contains(jobs) else {
    throw ValidationError("--jobs must be from 1 to \(maximumJobs)")
  }
}

/// Starts a detached thread running `body`; false when the system refuses one (its thread
/// limit, or no memory for the stack).
func startThread(stackSize: Int, _ body: @escaping @Sendable () -> Void) -> Bool {
  final class Box: Sendable {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
  }
  var attributes = pthread_attr_t()
  pthread_attr_init(&attributes)
  defer { pthread_attr_destroy(&attributes) }
  pthread_attr_setstacksize(&attributes, stackSize)
  pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
  let box = Unmanaged.passRetained(Box(body))
  var thread = pthread_t()
  let status = pthread_create(
    &thread, &attributes,
    { argument in
      // SAFETY: `argument` is the retained box passed below, released exactly once here.
      guard let argument else { return nil }
      let box = Unmanaged<Box>.fromOpaque(argument).takeRetainedValue()
      box.body()
      return nil
    }, box.toOpaque())
  if status != 0 {
    box.release()
    return false
  }
  return true
}

/// The most lines in a piece: a few milliseconds of work on chat dumps. Smaller pieces made two
/// jobs slower: each piece costs its hand-over, an output and a tally merged on the calling
/// thread.
let linesPerPiece = 2048

/// Pieces read ahead of the consumed ones, at most: with ``linesPerPiece`` lines a piece,
/// about 8 MiB of chat lines.
let maximumPiecesAhead = 16

/// Outputs in a row the calling thread is woken for at once (see `consumerHasWork`).
private let outputsPerWake = 4

/// The shared state of ``pipelineBatches`` with more than one job. Safety: every property but
/// the constants is read and written with `condition` locked; the reader is used by the one
/// worker whose `reading` is set.
private final class BatchPipeline<Output: Sendable>: @unchecked Sendable {
  private let reader: LineReader
  private let jobs: Int
  private let body: @Sendable (LineBatch) -> Output
  private let condition = NSCondition()
  /// Pieces read and not yet taken, from `queueHead` on; `queue[k]` has index `queueBase + k`.
  private var queue: [LineBatch] = []
  private var queueHead = 0
  private var queueBase = 0
  /// Pieces read so far: the index the next one read gets.
  private var read = 0
  private var results: [Int: Output] = [:]
  private var consumed = 0
  private var reading = false
  private var exhausted = false
  private var cancelled = false
  private var running = 0
  /// Workers mapping a piece.
  private var mapping = 0

  init(reader: LineReader, jobs: Int, body: @escaping @Sendable (LineBatch) -> Output) {
    self.reader = reader
    self.jobs = jobs
    self.body = body
  }

  /// Starts the workers and returns how many threads started: only those are waited for (a
  /// thread the system refuses is not counted, so ``finish()`` never waits for it).
  func start() -> Int {
    condition.lock()
    defer { condition.unlock() }
    for _ in 0..<jobs {
      // Room for content nested as deep as the JSON reader allows (512), read and moderated
      // by recursion.
      guard startThread(stackSize: 8 << 20, { [self] in work() }) else { break }
      running += 1
    }
    if running == 0 { cancelled = true }
    return running
  }

  /// Stops the workers taking pieces and waits until every one has returned.
  func finish() {
    condition.lock()
    cancelled = true
    condition.broadcast()
    while running > 0 { condition.wait() }
    condition.unlock()
  }

  /// The next outputs in input order, waiting for them; nil when every piece is consumed.
  func nextOutputs() -> [Output]? {
    condition.lock()
    defer { condition.unlock() }
    while true {
      var outputs: [Output] = []
      while let output = results.removeValue(forKey: consumed) {
        outputs.append(output)
        consumed += 1
      }
      if !outputs.isEmpty {
        // Room to read ahead again.
        condition.broadcast()
        return outputs
      }
      if exhausted && !reading && consumed == read { return nil }
      condition.wait()
    }
  }

  private var queued: Int { queue.count - queueHead }

  /// Whether the calling thread, waiting in ``nextOutputs()``, has enough to consume to be
  /// woken: ``outputsPerWake`` outputs in a row from the next one, or the next one alone when
  /// no other piece is being mapped (input that comes slowly is not held back), the input
  /// has ended, or the workers are near the read-ahead limit. Waking it for every piece of
  /// 256 lines cost three context switches a piece.
  private var consumerHasWork: Bool {
    guard results[consumed] != nil else { return false }
    if mapping == 0 || exhausted || read - consumed >= maximumPiecesAhead - outputsPerWake { return true }
    return (consumed + 1..<consumed + outputsPerWake).allSatisfy { results[$0] != nil }
  }

  /// A worker: reads when the queue runs low (and the output is not too far behind), else maps
  /// the next piece, else waits.
  private func work() {
    condition.lock()
    while !cancelled {
      if !exhausted && !reading && queued < 2 * jobs && read - consumed < maximumPiecesAhead {
        reading = true
        condition.unlock()
        let pieces = reader.nextBatch()?.pieces(ofAtMost: linesPerPiece)
        condition.lock()
        reading = false
        if let pieces {
          // Taken pieces leave the queue (and free their batch's bytes once mapped).
          queue.removeFirst(queueHead)
          queueBase += queueHead
          queueHead = 0
          queue += pieces
          read += pieces.count
        } else {
          exhausted = true
        }
        condition.broadcast()
        continue
      }
      if queueHead < queue.count {
        let index = queueBase + queueHead
        let piece = queue[queueHead]
        queueHead += 1
        mapping += 1
        condition.unlock()
        let output = body(piece)
        condition.lock()
        results[index] = output
        mapping -= 1
        if consumerHasWork { condition.broadcast() }
        continue
      }
      if exhausted && !reading { break }
      condition.wait()
    }
    running -= 1
    condition.broadcast()
    condition.unlock()
  }
}
