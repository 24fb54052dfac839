import Foundation
import Synchronization
@_spi(Tools) import Winnow

/// What the console shows of the traffic: the last blocked, replaced and flagged items (a
/// bounded ring, in memory only, never written to disk) and the verdicts of each of the last
/// minutes. Off (nothing kept, counts included) when its capacity is 0.
final class RecentDecisions: Sendable {
  /// The most items kept; 0 keeps nothing.
  let capacity: Int
  /// How many minutes of counts are kept.
  static let minutes = 15

  private struct State {
    var items: [Item] = []
    /// The next slot to overwrite once the ring is full.
    var next = 0
    var minutes: [Minute] = []
  }

  struct Item: Sendable {
    var time: Date
    var result: JSONValue
  }

  struct Minute: Sendable {
    /// Minutes since 1970.
    var minute: Int64
    var pass = 0
    var replaced = 0
    var blocked = 0
    var flagged = 0
  }

  private let state = Mutex(State())

  init(capacity: Int) {
    self.capacity = max(0, capacity)
  }

  /// Counts `result`, and keeps it when it is not a plain pass.
  func record(_ result: ModerationResult, at time: Date = Date()) {
    guard capacity > 0 else { return }
    let keep = result.verdict != .pass || result.flagged
    let json = keep ? result.json : nil
    let minute = Int64(time.timeIntervalSince1970 / 60)
    state.withLock { state in
      if state.minutes.last?.minute != minute {
        state.minutes.append(Minute(minute: minute))
        if state.minutes.count > Self.minutes { state.minutes.removeFirst(state.minutes.count - Self.minutes) }
      }
      let last = state.minutes.count - 1
      switch result.verdict {
      case .pass: state.minutes[last].pass += 1
      case .replaced: state.minutes[last].replaced += 1
      case .blocked: state.minutes[last].blocked += 1
      }
      if result.flagged { state.minutes[last].flagged += 1 }
      guard let json else { return }
      let item = Item(time: time, result: json)
      if state.items.count < capacity {
        state.items.append(item)
      } else {
        state.items[state.next] = item
        state.next = (state.next + 1) % capacity
      }
    }
  }

  /// `{"capacity", "items": [{"time", "result"}…] newest first, "minutes": [{"minute", "pass",
  /// "replaced", "blocked", "flagged"}…] oldest first}`; minutes with no traffic are left out.
  var json: JSONValue {
    let (items, minutes) = state.withLock { state in
      (Array(state.items[state.next...] + state.items[..<state.next]), state.minutes)
    }
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return [
      "capacity": .number(String(capacity)),
      "items": .array(
        items.reversed().map { item in ["time": .string(formatter.string(from: item.time)), "result": item.result] }),
      "minutes": .array(
        minutes.map { minute in
          [
            "minute": .string(formatter.string(from: Date(timeIntervalSince1970: Double(minute.minute) * 60))),
            "pass": .number(String(minute.pass)), "replaced": .number(String(minute.replaced)),
            "blocked": .number(String(minute.blocked)), "flagged": .number(String(minute.flagged)),
          ]
        }),
    ]
  }
}
