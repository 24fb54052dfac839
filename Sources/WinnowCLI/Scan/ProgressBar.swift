import Foundation
import Synchronization

/// A one-line progress display on standard error (items, MB/s, percent and ETA when the total
/// size is known), redrawn at most five times a second. Disabled, it prints nothing.
final class ProgressBar: Sendable {
  private struct State {
    var items = 0
    var bytes = 0
    var lastDraw: ContinuousClock.Instant?
    var drew = false
  }

  private let totalBytes: Int?
  private let enabled: Bool
  private let start = ContinuousClock.now
  private let state = Mutex(State())

  init(totalBytes: Int?, enabled: Bool) {
    self.totalBytes = totalBytes
    self.enabled = enabled
  }

  func update(items: Int, bytes: Int) {
    guard enabled else { return }
    let now = ContinuousClock.now
    let line: String? = state.withLock { state in
      state.items = items
      state.bytes = bytes
      if let last = state.lastDraw, now - last < .milliseconds(200) { return nil }
      state.lastDraw = now
      state.drew = true
      return render(items: items, bytes: bytes, now: now)
    }
    if let line { FileHandle.standardError.write(Data(line.utf8)) }
  }

  /// Clears the line so the summary starts clean.
  func finish() {
    guard enabled, state.withLock({ $0.drew }) else { return }
    FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
  }

  private func render(items: Int, bytes: Int, now: ContinuousClock.Instant) -> String {
    let elapsed = now - start
    let seconds = max(elapsed.seconds, 0.001)
    let rate = Double(bytes) / 1_000_000 / seconds
    var text = "\r\u{1B}[2K\(items) items  \(String(format: "%.1f", rate)) MB/s"
    if let totalBytes, totalBytes > 0 {
      let fraction = min(Double(bytes) / Double(totalBytes), 1)
      let width = 30
      let filled = Int(fraction * Double(width))
      let remaining = rate > 0 ? Double(totalBytes - bytes) / 1_000_000 / rate : 0
      text =
        "\r\u{1B}[2K[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] "
        + "\(Int(fraction * 100))%  \(items) items  \(String(format: "%.1f", rate)) MB/s  ETA \(Int(remaining.rounded())) s"
    }
    return text
  }
}
