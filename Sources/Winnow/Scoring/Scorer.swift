import Foundation

/// A small learned model that scores how abusive a text is: the second opinion for what word
/// lists cannot hold (insults made of ordinary words, attacks on groups).
///
/// The model is linear over hashed features of the text as the matcher normalizes it (case,
/// width, look-alikes, separators and repeats folded; Traditional characters read as
/// Simplified): character 1–3-grams of runs of Han, kana and the other scripts written without
/// spaces, and, for scripts with spaces, word unigrams, word bigrams and the character 3–5-grams
/// of each word with its edges (see ``ScorerFeatures``). Each feature adds or takes away its
/// bucket's weight; the sum, divided by the square root of the number of features, plus a bias,
/// is a logit, and ``score(_:)`` is its logistic: a probability from 0 to 1.
///
/// A model is read from a file (``init(contentsOf:)``) that `scripts/train-scorer` writes; the
/// format is in `Docs/scorer.md`. It is immutable and `Sendable`: load it once and share it, as
/// compiled lists are shared.
///
/// A score is only as good as the labelled posts the model learned from: it reads group words
/// (`女权`, `black`) as evidence of abuse because attacks on groups use them. It is a second
/// opinion after the lists, never the only one (see `Docs/scorer.md`, the model card).
public struct Scorer: Sendable {
  /// The version of the feature hashing this build computes; a model file names the version
  /// it was trained with, and only that one loads.
  public static let featureVersion: UInt32 = 1

  /// The category a block by this model names in its record (`abuse`).
  public let category: String
  /// The threshold at or above which the trainer advises blocking.
  public let advisedBlockThreshold: Double
  /// The threshold at or above which the trainer advises flagging for review.
  public let advisedReviewThreshold: Double
  /// The threshold under which the trainer advises clearing a global list's block (0: never;
  /// see ``ScoringPolicy/clearThreshold``).
  public let advisedClearThreshold: Double
  /// The model's own description (data, date, figures), as the trainer wrote it.
  public let description: String

  let bias: Float
  let scale: Float
  let mask: UInt32
  /// One weight a bucket, quantized: a bucket's weight is `weights[i] * scale`.
  let weights: [Int8]
  /// The default rules' normalizer, made on the first text a scorer normalizes itself: a
  /// matcher read from a compiled list shares its fold table by then, which a normalizer made
  /// with the model would have built again.
  private static let normalizer = Normalizer()

  /// Reads a model file.
  /// - Throws: ``ScorerFileError`` naming the file and what is wrong with it.
  public init(contentsOf path: String) throws(ScorerFileError) {
    let data: Data
    do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
      throw ScorerFileError(file: path, problem: "cannot be read: \(error.localizedDescription)")
    }
    try self.init(bytes: [UInt8](data), file: path)
  }

  /// Reads a model from the bytes of a model file; `file` names it in errors.
  /// - Throws: ``ScorerFileError`` naming `file` and what is wrong with the bytes.
  public init(bytes: [UInt8], file: String = "model") throws(ScorerFileError) {
    let model: ScorerModel
    do { model = try ScorerModel(decoding: bytes) } catch { throw ScorerFileError(file: file, problem: error.problem) }
    self.category = model.category
    self.advisedBlockThreshold = Double(model.blockThreshold)
    self.advisedReviewThreshold = Double(model.reviewThreshold)
    self.advisedClearThreshold = Double(model.clearThreshold)
    self.description = model.description
    self.bias = model.bias
    self.scale = model.scale
    self.mask = UInt32(model.weights.count - 1)
    self.weights = model.weights
  }

  /// The score of a text: the model's probability that it is abusive, from 0 to 1.
  public func score(_ text: String) -> Double {
    var text = text
    return text.withUTF8 { score(utf8: $0) }
  }

  /// ``score(_:)`` of UTF-8 bytes (invalid bytes read as U+FFFD).
  func score(utf8 text: UnsafeBufferPointer<UInt8>) -> Double { Self.logistic(logit(utf8: text)) }

  /// The logit of a text: what ``score(_:)`` is the logistic of (for the trainer's check).
  @_spi(Tools) public func logit(_ text: String) -> Double {
    var text = text
    return text.withUTF8 { logit(utf8: $0) }
  }

  /// ``logit(_:)`` of UTF-8 bytes, normalized into the thread's workspace.
  private func logit(utf8 text: UnsafeBufferPointer<UInt8>) -> Double {
    ThreadWorkspace.withWorkspace { workspace in
      Self.normalizer.normalize(utf8: text, into: &workspace.scorerText)
      return logit(of: workspace.scorerText)
    }
  }

  /// The features of a text in a table of 2^`bits` buckets, in the order they are computed:
  /// what `winnow score --features` writes for the trainer.
  @_spi(Tools) public static func features(of text: String, bits: Int) -> [(index: UInt32, negative: Bool)] {
    let normalized = normalizer.normalize(text)
    let mask = UInt32(truncatingIfNeeded: (1 << min(max(bits, 1), 31)) - 1)
    var features: [(index: UInt32, negative: Bool)] = []
    ScorerFeatures.forEach(in: normalized, mask: mask) { features.append(($0, $1)) }
    return features
  }

  /// ``score(_:)`` of a text's units as the default rules normalize it (the matcher's own
  /// normalization of the text, where its rules are those).
  func score(normalized units: NormalizedUnits) -> Double { Self.logistic(logit(of: units)) }

  /// The logit of normalized text: bias plus the features' weights over the square root of
  /// their number.
  func logit(of text: NormalizedText) -> Double { text.withUnits { logit(of: $0) } }

  /// ``logit(of:)`` of a normalized text's units.
  private func logit(of units: NormalizedUnits) -> Double {
    // The weights are whole numbers: summed as integers, the sum is exact in any order (a text
    // has a few features a unit, each at most 127 either way, far from overflowing).
    var sum = 0
    var count = 0
    weights.withUnsafeBufferPointer { weights in
      ScorerFeatures.forEach(in: units, mask: mask) { index, negative in
        // SAFETY: `index` is masked to the table's size, a power of two (checked on reading).
        let weight = Int(weights[Int(index)])
        sum &+= negative ? -weight : weight
        count &+= 1
      }
    }
    guard count > 0 else { return Double(bias) }
    return Double(bias) + Double(Float(sum) * scale) / Double(count).squareRoot()
  }

  static func logistic(_ logit: Double) -> Double { 1 / (1 + exp(-logit)) }
}

/// A model file that cannot be used: which file, and why.
public struct ScorerFileError: Error, Sendable, CustomStringConvertible {
  /// The file.
  public let file: String
  /// What is wrong with it.
  public let problem: String
  /// `FILE: PROBLEM`.
  public var description: String { "\(file): \(problem)" }
}
