import Dispatch
import Synchronization

/// Result slots filled from several threads, read once all are filled.
final class ResultSlots<Value: Sendable>: Sendable {
  private let slots: Mutex<[Value?]>

  init(count: Int) { slots = Mutex(Array(repeating: nil, count: count)) }

  func set(_ index: Int, _ value: Value) { slots.withLock { $0[index] = value } }

  /// The values; every slot must be set.
  var values: [Value] { slots.withLock { $0.map { $0! } } }
}

/// Hands out 0, 1, 2, … to whichever thread asks next.
final class IndexCounter: Sendable {
  private let next = Atomic<Int>(0)

  func take(below limit: Int) -> Int? {
    let index = next.add(1, ordering: .relaxed).oldValue
    return index < limit ? index : nil
  }
}

/// Maps an input's batches on `jobs` worker threads, one of which reads the next round's
/// batches first and then joins the others, so that reading (one thread's work) overlaps
/// moderating; `consume` gets each round's outputs in input order, on the calling
/// thread.
func pipelineBatches<Output: Sendable>(
  of reader: LineReader, jobs: Int, map body: @escaping @Sendable (LineBatch) -> Output,
  consume: ([Output]) throws -> Void
) rethrows {
  let shared = ReaderHandoff(reader)
  var pending = reader.nextBatches(jobs * 2)
  while !pending.isEmpty {
    // A round ends when its last batch is done: in pieces of 256 lines (about 1 ms of work
    // each) a worker waits at most that long for the other, where whole 1 MiB batches (~20 ms)
    // left one idle for up to a batch per round (--jobs 2 ran 1.4-1.6x one job, not ~1.9x).
    let round = pending.flatMap { $0.pieces(ofAtMost: 256) }
    let results = ResultSlots<Output>(count: round.count)
    let nextRound = ResultSlots<[LineBatch]>(count: 1)
    let next = IndexCounter()
    // `jobs` threads: iteration 0 reads the next round first, then works like the others on
    // whatever batches of this round are left (with one job, reading and working alternate).
    DispatchQueue.concurrentPerform(iterations: max(jobs, 1)) { iteration in
      if iteration == 0 { nextRound.set(0, shared.reader.nextBatches(jobs * 2)) }
      while let index = next.take(below: round.count) { results.set(index, body(round[index])) }
    }
    try consume(results.values)
    pending = nextRound.values[0]
  }
}

/// A reader handed to the one iteration of ``pipelineBatches`` that reads. Safety: the reader
/// is used by that iteration alone while the calling thread waits in `concurrentPerform`.
private final class ReaderHandoff: @unchecked Sendable {
  let reader: LineReader
  init(_ reader: LineReader) { self.reader = reader }
}
