import Logging
import Synchronization

/// Logs each regex entry whose check stopped at its limits once per process, however many
/// texts it stops on: a pattern that backtracks catastrophically stops on every long text, and
/// one line per text would bury the log. The count of stopped checks is in the results (their
/// `warnings`), the scan summary and `/metrics`.
enum StoppedRegexLog {
  /// The entries logged so far, by source line and text; at most `limit` are remembered.
  private static let logged = Mutex<Set<String>>([])
  private static let limit = 10_000

  static func note(_ warnings: [MatchWarning], logger: Logger) {
    for warning in warnings {
      let key = "\(warning.entry.source.map(\.description) ?? "")\u{0}\(warning.entry.text)"
      let isNew = logged.withLock { logged in
        guard logged.count < limit else { return false }
        return logged.insert(key).inserted
      }
      guard isNew else { continue }
      logger.warning(
        "regex check stopped at its limits; the item's check is incomplete (logged once per entry)",
        metadata: [
          "entry": "\(warning.entry.source.map(\.description) ?? warning.entry.text)",
          "regex": "\(warning.entry.text)", "cause": "\(warning.message)",
        ])
    }
  }
}
