/// A third-party content reviewer: a moderation service, a model, a human queue. Winnow asks it
/// after the word lists, about items they did not block, with the content as it would be
/// delivered (replace words already replaced).
///
/// Contract:
/// - ``review(_:)`` may be called concurrently from many tasks; implementations must be safe for
///   that (the type is `Sendable`).
/// - It must honour task cancellation and never block a thread: Winnow cancels the call when
///   the policy's timeout passes and stops waiting for it either way, but a call that goes on
///   still counts against ``ReviewPolicy/maximumCallsInFlight`` until it returns, and once that
///   many are in flight further items wait for one to end, and time out when none does. A
///   call that blocks its thread takes one of the concurrency pool's few threads from every
///   other task.
/// - Throwing means "no answer" (unreachable service, malformed answer). It is not a reject:
///   the ``ReviewPolicy/onFailure`` policy decides (fail open delivers, fail closed blocks), and
///   the failure is counted in ``ReviewerStatistics`` and logged.
public protocol ContentReviewer: Sendable {
  /// Reviews one item.
  func review(_ request: ReviewRequest) async throws -> ReviewDecision
}

/// What a reviewer is asked about.
public struct ReviewRequest: Sendable, Hashable {
  /// The item as it would be delivered: its content has replace words replaced.
  public var item: MessageItem
  /// The user text of the item, as the extractor found it (after replacement).
  public var fields: [TextField]
  /// What the word lists found: ``SensitiveType/replaceWord`` when words were replaced.
  public var sensitiveType: SensitiveType
  /// The matches of review entries (``Entry/Action/review``): what the word lists ask the
  /// reviewer to judge. Empty when none matched; the reviewer is asked about every item the
  /// lists did not block either way.
  public var flagged: [FieldMatch]

  /// Creates a request.
  public init(item: MessageItem, fields: [TextField], sensitiveType: SensitiveType, flagged: [FieldMatch] = []) {
    self.item = item
    self.fields = fields
    self.sensitiveType = sensitiveType
    self.flagged = flagged
  }
}

/// A reviewer's answer.
public struct ReviewDecision: Sendable, Hashable {
  /// The verdict of the reviewer.
  public enum Outcome: String, Sendable, Hashable, CaseIterable {
    /// Deliver.
    case pass
    /// Unsure: ``ReviewPolicy/onReview`` decides.
    case review
    /// Block (block type 3).
    case reject
  }

  /// The verdict.
  public var outcome: Outcome
  /// New content to deliver instead (in the item's content shape), for pass and review.
  public var replacementContent: JSONValue?
  /// The reviewer's labels (`porn`, `ads`, …), reported beside the result.
  public var labels: [String]
  /// A note for the sender, carried in the record's `extra` when the item is blocked
  /// (cut to 1024 characters).
  public var extra: String?

  /// Creates a decision.
  public init(outcome: Outcome, replacementContent: JSONValue? = nil, labels: [String] = [], extra: String? = nil) {
    self.outcome = outcome
    self.replacementContent = replacementContent
    self.labels = labels
    self.extra = extra
  }
}

/// How reviewer answers and failures turn into verdicts.
public struct ReviewPolicy: Sendable, Hashable {
  /// What a `review` answer does.
  public enum ReviewAction: String, Sendable, Hashable, CaseIterable {
    /// Deliver, and mark the result as needing review (the default).
    case deliver
    /// Block as a reject would.
    case block
  }

  /// What happens when the reviewer times out or fails.
  public enum FailureAction: String, Sendable, Hashable, CaseIterable {
    /// Deliver: the platform's default.
    case failOpen = "open"
    /// Block with block type 3.
    case failClosed = "closed"
  }

  /// How long to wait for an answer: 3 s by default, as the platform waits for its message
  /// callback. Any value is accepted: zero or less times out at once, and one too long for
  /// the clock (some 292 years) waits without a limit.
  public var timeout: Duration
  /// What a timeout or failure does.
  public var onFailure: FailureAction
  /// What a `review` answer does.
  public var onReview: ReviewAction
  /// The most reviewer calls in flight at once, calls that timed out but whose reviewer has
  /// not returned included (1,024 by default). Past it an item's call waits, in order, for one
  /// to end; the wait counts against ``timeout``, so a reviewer that ignores cancellation
  /// cannot pile up work without bound, and its items time out and follow ``onFailure``. It
  /// limits concurrency and refuses no call.
  public var maximumCallsInFlight: Int

  /// Creates a policy.
  public init(
    timeout: Duration = .seconds(3), onFailure: FailureAction = .failOpen, onReview: ReviewAction = .deliver,
    maximumCallsInFlight: Int = 1024
  ) {
    self.timeout = timeout
    self.onFailure = onFailure
    self.onReview = onReview
    self.maximumCallsInFlight = maximumCallsInFlight
  }
}

/// A reviewer call that did not answer within the policy's timeout.
@_spi(Tools) public struct ReviewTimeoutError: Error, Sendable, CustomStringConvertible {
  /// The timeout that passed.
  public let timeout: Duration
  /// The timeout as one line.
  public var description: String { "no answer within \(timeout)" }
}
