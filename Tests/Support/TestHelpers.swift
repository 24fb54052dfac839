import Dispatch
import Foundation
import Synchronization

/// The repository's root directory (this file is `Tests/Support/TestHelpers.swift`), for tests
/// that read the built-in lists and the samples.
public let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
  .deletingLastPathComponent()

/// SplitMix64: a random number generator with a fixed seed, so that a property test draws the
/// same cases on every run and a failure can be replayed.
public struct SeededGenerator: RandomNumberGenerator {
  public var state: UInt64

  public init(state: UInt64) { self.state = state }

  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var value = state
    value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
    value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
    return value ^ (value >> 31)
  }
}

/// Runs `body` on a Dispatch thread and returns its result. Long synchronous work in a test
/// would hold one of the concurrency pool's threads (two on these machines) for its whole
/// time, and every other suite's task, a reviewer's answer among them, would queue behind it.
public func offThePool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
  await withCheckedContinuation { continuation in
    DispatchQueue.global().async { continuation.resume(returning: body()) }
  }
}

/// A new empty directory under the system's temporary directory, named `prefix-UUID`, removed
/// with everything in it when the test process exits (tests that hand a directory to a service
/// or a matcher cannot remove it when they return: a suite's shared lists outlive any one test).
public func scratchDirectory(_ prefix: String) throws -> String {
  let path = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)").path
  try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  ScratchDirectories.made.withLock { made in
    if made.isEmpty { atexit { ScratchDirectories.removeAll() } }
    made.append(path)
  }
  return path
}

/// The directories ``scratchDirectory(_:)`` made, removed at exit.
private enum ScratchDirectories {
  static let made = Mutex<[String]>([])

  static func removeAll() {
    for path in made.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
  }
}

/// A port of 127.0.0.1 that refuses connections for as long as this lives: a socket bound to it
/// that never listens. A port freed by closing a server could be taken at once by another
/// test's server (the connection was then reset, not refused); a bound port cannot.
public final class RefusingPort: @unchecked Sendable {
  public let port: Int
  private let descriptor: Int32

  public init() throws {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0 else {
      close(descriptor)
      throw POSIXError(.EADDRINUSE)
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
    }
    self.descriptor = descriptor
    port = Int(UInt16(bigEndian: address.sin_port))
  }

  deinit { close(descriptor) }
}

/// How a child process ended: `exit` with a status, or a signal.
public enum ChildExit: Equatable, Sendable, CustomStringConvertible {
  case exited(Int32)
  case signalled(Int32)

  public var description: String {
    switch self {
    case .exited(let status): "exit status \(status)"
    case .signalled(let signal): "signal \(signal)"
    }
  }
}

extension Process {
  /// Waits for the process (started) to end, blocking the calling thread, and says how.
  ///
  /// Foundation's `Process` can miss a child's exit while other tests start processes: the
  /// child stays a zombie, `isRunning` stays true and `waitUntilExit` spins in its run loop (a
  /// CI run hung a quarter of an hour in it). So Foundation is given `grace` to see the exit,
  /// and then the child is reaped here with `waitpid` and its status read. After that,
  /// Foundation's `terminationStatus` must not be read (it would still say running): read the
  /// answer instead.
  public func waitForExit(grace: Duration = .seconds(10)) -> ChildExit {
    waitForFoundation(grace)
    while true {
      if let outcome = reaped(blocking: true) { return outcome }
    }
  }

  /// Waits up to `limit` for the process to end and says how, as ``waitForExit(grace:)`` does;
  /// one still running then is killed (`SIGKILL`) and reaped, and the answer is nil.
  public func waitForExit(orKillAfter limit: Duration) -> ChildExit? {
    waitForFoundation(limit)
    if let outcome = reaped(blocking: false) { return outcome }
    kill(processIdentifier, SIGKILL)
    while reaped(blocking: true) == nil {}
    return nil
  }

  /// Waits up to `grace` for Foundation to say that the process has ended.
  private func waitForFoundation(_ grace: Duration) {
    let deadline = ContinuousClock.now + grace
    var pause: UInt32 = 1_000
    while isRunning && ContinuousClock.now < deadline {
      usleep(pause)
      pause = min(pause * 2, 20_000)
    }
  }

  /// How the process ended, by Foundation's account or else by `waitpid` (which reaps it);
  /// nil when not `blocking` and it is still running.
  private func reaped(blocking: Bool) -> ChildExit? {
    while true {
      if !isRunning {
        return terminationReason == .uncaughtSignal ? .signalled(terminationStatus) : .exited(terminationStatus)
      }
      var status: Int32 = 0
      let reaped = waitpid(processIdentifier, &status, blocking ? 0 : WNOHANG)
      if reaped == processIdentifier {
        // Ended by a signal: its number in the low seven bits (0 is an exit, 0x7F a stop).
        let signal = status & 0x7F
        return signal != 0 && signal != 0x7F ? .signalled(signal) : .exited(status >> 8 & 0xFF)
      }
      if reaped == 0 { return nil }
      if reaped == -1 && errno == EINTR { continue }
      // Foundation reaped it meanwhile: its fields say how, once it has written them.
      usleep(1_000)
    }
  }

  /// ``waitForExit(grace:)`` on a Dispatch thread, keeping no thread of the concurrency pool.
  public func ended(grace: Duration = .seconds(10)) async -> ChildExit {
    await offThePool { [self] in waitForExit(grace: grace) }
  }
}
