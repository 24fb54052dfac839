import Dispatch
import Foundation
import Synchronization

/// `(0..<count).map(transform)`, computed in as many contiguous chunks at once as the machine
/// has active cores (one chunk when `count` is below `minimumChunk` per core). Internal: list
/// loading and compilation use it, so a server restarting or reloading its lists, and every
/// `winnow` command, get the build done on all cores.
func concurrentMap<T: Sendable>(
  count: Int, minimumChunk: Int = 2048, _ transform: @Sendable (Int) -> T
) -> [T] {
  concurrentMap(count: count, minimumChunk: minimumChunk, workspace: ()) { _, index in transform(index) }
}

/// ``concurrentMap(count:minimumChunk:_:)`` where each chunk has a workspace of its own, a copy
/// of `workspace` passed to every `transform` of the chunk: buffers reused from one element to
/// the next instead of allocated per element.
func concurrentMap<T: Sendable, Workspace: Sendable>(
  count: Int, minimumChunk: Int = 2048, workspace: Workspace, _ transform: @Sendable (inout Workspace, Int) -> T
) -> [T] {
  @Sendable func part(_ range: Range<Int>) -> [T] {
    var space = workspace
    return range.map { transform(&space, $0) }
  }
  let workers = min(ProcessInfo.processInfo.activeProcessorCount, count / max(minimumChunk, 1))
  guard workers > 1 else { return part(0..<count) }
  let parts = Mutex<[[T]]>(Array(repeating: [], count: workers))
  DispatchQueue.concurrentPerform(iterations: workers) { worker in
    let result = part(count * worker / workers..<count * (worker + 1) / workers)
    parts.withLock { $0[worker] = result }
  }
  return parts.withLock { $0.flatMap { $0 } }
}

/// `(0..<count).map(transform)` with each element its own unit of work, handed to whichever core
/// is free: for a few uneven pieces (files of a list directory, two of which are most of it),
/// where contiguous chunks could put the big ones on one core.
func concurrentMapEach<T: Sendable>(count: Int, _ transform: @Sendable (Int) -> T) -> [T] {
  guard count > 1, ProcessInfo.processInfo.activeProcessorCount > 1 else { return (0..<count).map(transform) }
  let results = Mutex<[T?]>(Array(repeating: nil, count: count))
  DispatchQueue.concurrentPerform(iterations: count) { index in
    let result = transform(index)
    results.withLock { $0[index] = result }
  }
  return results.withLock { $0.map { $0! } }
}

/// `(first(), second())`, the two computed at once when the machine has two cores: for the two
/// independent halves of a build (an automaton, and the tables read beside it).
func concurrently<A: Sendable, B: Sendable>(_ first: @Sendable () -> A, _ second: @Sendable () -> B) -> (A, B) {
  guard ProcessInfo.processInfo.activeProcessorCount > 1 else { return (first(), second()) }
  let firstResult = Mutex<A?>(nil)
  let secondResult = Mutex<B?>(nil)
  DispatchQueue.concurrentPerform(iterations: 2) { index in
    if index == 0 {
      let result = first()
      firstResult.withLock { $0 = result }
    } else {
      let result = second()
      secondResult.withLock { $0 = result }
    }
  }
  return (firstResult.withLock { $0! }, secondResult.withLock { $0! })
}
