/// A ``Scorer`` and the thresholds that turn its scores into verdicts (see
/// ``ModerationEngine/Configuration/scoring``).
public struct ScoringPolicy: Sendable {
  /// The model.
  public var scorer: Scorer
  /// A score at or above this blocks the item (block type 3).
  public var blockThreshold: Double
  /// A score at or above this, and under ``blockThreshold``, flags the item for review.
  public var reviewThreshold: Double
  /// Under this, the scorer clears a block by the global list: the item is delivered, flagged
  /// for review, as if the matched entries were review entries (0: never).
  ///
  /// An item is cleared when the score of each text with a global block match, and of the
  /// clause around each such match, are all under the threshold. The clause runs to the
  /// nearest clause punctuation or line break, at most 24 characters either side (a Han or
  /// kana character counts three), so that friendly sentences around an insult do not clear
  /// it. Only words the model knows are cleared: each matched text, scored alone, must reach
  /// ``knownWord``; else a low score in context would be the model's ignorance of the word,
  /// not evidence of an ordinary sense. Custom lists are never cleared (an app's own words
  /// stand), nor entries a category action makes block
  /// (``ModerationEngine/Configuration/categoryActions``).
  public var clearThreshold: Double

  /// The score a matched word must reach alone for the scorer to clear it: 0.5, where the
  /// model reads the word as more likely abusive than not (see ``clearThreshold``).
  public static let knownWord = 0.5

  /// A policy with the given thresholds, or the ones the model's trainer advised.
  public init(
    scorer: Scorer, blockThreshold: Double? = nil, reviewThreshold: Double? = nil, clearThreshold: Double? = nil
  ) {
    self.scorer = scorer
    self.blockThreshold = blockThreshold ?? scorer.advisedBlockThreshold
    self.reviewThreshold = reviewThreshold ?? min(scorer.advisedReviewThreshold, self.blockThreshold)
    self.clearThreshold = clearThreshold ?? min(scorer.advisedClearThreshold, self.reviewThreshold)
  }
}

/// A ``ScoringPolicy`` held by reference (see ``ModerationEngine/scoringReference``).
final class ScoringReference: Sendable {
  let policy: ScoringPolicy

  init(_ policy: ScoringPolicy) { self.policy = policy }

  /// Whether the scorer scores `text` under the review threshold. `matcher` has just scanned
  /// `text`: where it normalized it by the scorer's rules, the scorer reads that text instead
  /// of normalizing it again. The policy is read in place (a copy of it retained the model's
  /// strings and weights on every text).
  func scoresUnderReview(_ text: UnsafeBufferPointer<UInt8>, justScannedBy matcher: Matcher) -> Bool {
    let score =
      matcher.withDefaultNormalizedText { policy.scorer.score(normalized: $0) } ?? policy.scorer.score(utf8: text)
    return score < policy.reviewThreshold
  }
}
