/// A ``Scorer`` and the thresholds that turn its scores into verdicts (see
/// ``ModerationEngine/Configuration/scoring``).
public struct ScoringPolicy: Sendable {
  /// The model.
  public var scorer: Scorer
  /// A score at or above this blocks the item (block type 3).
  public var blockThreshold: Double
  /// A score at or above this, and under ``blockThreshold``, flags the item for review.
  public var reviewThreshold: Double

  /// A policy with the given thresholds, or the ones the model's trainer advised.
  public init(scorer: Scorer, blockThreshold: Double? = nil, reviewThreshold: Double? = nil) {
    self.scorer = scorer
    self.blockThreshold = blockThreshold ?? scorer.advisedBlockThreshold
    self.reviewThreshold = reviewThreshold ?? min(scorer.advisedReviewThreshold, self.blockThreshold)
  }
}

/// A ``ScoringPolicy`` held by reference (see ``ModerationEngine/scoringReference``).
final class ScoringReference: Sendable {
  let policy: ScoringPolicy

  init(_ policy: ScoringPolicy) { self.policy = policy }
}
