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
