import ArgumentParser
import AsyncHTTPClient
import Foundation
import Logging
@_spi(Tools) import Winnow
import WinnowWebhook

/// Options for moderating items: which fields of which types, and the third-party reviewer.
struct ModerationOptions: ParsableArguments {
  @Option(
    name: .customLong("message-type"),
    help: ArgumentHelp(
      "Register a custom message type and the paths of its text, read with extra, user.name and the @ mention text; a final ;only reads the paths alone (repeatable).",
      valueName: "NAME=PATH,PATH[;only]"))
  var messageTypes: [String] = []

  @Option(name: .customLong("unknown-types"), help: "Unknown message types: scan every string value, or skip them.")
  var unknownTypes: ContentExtractor.UnknownTypePolicy = .scanAllStrings

  @Option(
    name: .customLong("content-limit"), help: "Largest content moderated, in bytes (default 131072, the platform's).")
  var contentLimit = ContentExtractor.platformContentLimit

  @Option(
    name: .customLong("reviewer-url"), help: "Ask a third-party reviewer at this URL about items the lists let through."
  )
  var reviewerURL: String?

  @Option(name: .customLong("reviewer-protocol"), help: "callback (the platform's message callback form POST) or json.")
  var reviewerProtocol: ReviewerProtocol = .callback

  @Option(name: .customLong("app-key"), help: "The appKey sent in message callbacks (default: the item's own).")
  var appKey = ""

  @Option(
    name: .customLong("reviewer-secret-file"),
    help: "Sign message callbacks with the app secret in this file (mode 0600), as the platform does.")
  var reviewerSecretFile: String?

  @Flag(help: "What a reviewer timeout or failure does: deliver (the default) or block.")
  var reviewerFailure: FailureFlag = .failOpen

  @Option(name: .customLong("timeout"), help: "Seconds to wait for the reviewer (default 3).")
  var timeout: Double = 3

  @Option(name: .customLong("on-review"), help: "What a reviewer's \"review\" answer does: deliver or block.")
  var onReview: ReviewPolicy.ReviewAction = .deliver

  @Option(
    name: .customLong("record-extra"),
    help: ArgumentHelp(
      "What a record's extra, shown to the sender, says: a template of {categories}, {words}, {lists}, {detail}.",
      valueName: "TEMPLATE"))
  var recordExtra = RecordExtra.categories.template

  @Option(
    name: .customLong("on-incomplete"),
    help: "What an item whose check a regex could not finish gets: review (flagged, the default), block or pass.")
  var onIncomplete: ModerationEngine.IncompleteAction = .review

  @Option(
    name: .customLong("ultra-group-channel"),
    help:
      "The channelId a record gives an ultra-group message without one (default RCDefault, apps created after 2022-10-13; \"\" keeps it empty)."
  )
  var ultraGroupChannel = "RCDefault"

  @Option(name: .customLong("reviewer-concurrency"), help: "Most reviewer calls in flight at once (default 16).")
  var reviewerConcurrency = 16

  @Option(
    name: .customLong("scorer"),
    help: ArgumentHelp(
      "A learned second opinion after the lists: builtin (the shipped model), a model FILE, or none (the default).",
      valueName: "builtin|FILE|none"))
  var scorer = "none"

  @Option(
    name: .customLong("score-block"),
    help: "Block (block type 3) an item the scorer scores at or above this, 0 to 1 (default: the model's advice).")
  var scoreBlock: Double?

  @Option(
    name: .customLong("score-review"),
    help: "Flag an item the scorer scores at or above this, 0 to 1 (default: the model's advice).")
  var scoreReview: Double?

  @Option(
    name: .customLong("score-clear"),
    help: ArgumentHelp(
      "Deliver, flagged, an item the global list blocks when the scorer scores its texts and the clauses around the matches under this, 0 to 1 (default: the model's advice; 0: never).",
      valueName: "T"))
  var scoreClear: Double?

  enum ReviewerProtocol: String, ExpressibleByArgument, CaseIterable {
    case callback, json
  }

  enum FailureFlag: String, EnumerableFlag {
    case failOpen, failClosed
  }

  func validate() throws {
    // `!(timeout > 0)` also refuses nan; the upper bound keeps `timeout * 1000` an exact Int64.
    if !(timeout > 0 && timeout <= 86_400) {
      throw ValidationError("--timeout must be a number of seconds more than 0 and at most 86400 (a day)")
    }
    if let reviewerURL, let problem = WebhookReviewer.problem(with: reviewerURL) {
      throw ValidationError("--reviewer-url \(reviewerURL): \(problem)")
    }
    if contentLimit <= 0 { throw ValidationError("--content-limit must be more than 0") }
    if reviewerConcurrency <= 0 { throw ValidationError("--reviewer-concurrency must be more than 0") }
    for (name, value) in [
      ("--score-block", scoreBlock), ("--score-review", scoreReview), ("--score-clear", scoreClear),
    ] {
      guard let value else { continue }
      if !(value >= 0 && value <= 1) { throw ValidationError("\(name) must be a number from 0 to 1") }
      if scorer == "none" { throw ValidationError("\(name) needs --scorer builtin or --scorer FILE") }
    }
    if let scoreBlock, let scoreReview, scoreReview > scoreBlock {
      throw ValidationError("--score-review must not be more than --score-block")
    }
    if let scoreClear, let limit = scoreReview ?? scoreBlock, scoreClear > limit {
      throw ValidationError("--score-clear must not be more than --score-review or --score-block")
    }
    for type in messageTypes where !type.contains("=") {
      throw ValidationError("--message-type \(type): expected NAME=PATH,PATH")
    }
  }

  /// The engine configuration, and the HTTP client to shut down after use (when there is a
  /// reviewer). Reviewer failures are logged on standard error at `logLevel` and above.
  func configuration(logLevel: Logger.Level = .warning) throws -> (ModerationEngine.Configuration, HTTPClient?) {
    var extractor = ContentExtractor(unknownTypes: unknownTypes, contentLimit: contentLimit)
    for type in messageTypes {
      let parts = type.split(separator: "=", maxSplits: 1)
      var list = parts.count > 1 ? parts[1] : ""
      let only = list.hasSuffix(";only")
      if only { list = list.dropLast(5) }
      let paths = list.split(separator: ",").map(String.init)
      do { try extractor.register(objectName: String(parts[0]), textFields: paths, commonFields: !only) } catch {
        throw ValidationError("--message-type \(type): \(error)")
      }
    }
    var configuration = ModerationEngine.Configuration(
      reviewPolicy: ReviewPolicy(
        timeout: .milliseconds(Int64(timeout * 1000)),
        onFailure: reviewerFailure == .failOpen ? .failOpen : .failClosed, onReview: onReview))
    configuration.extractor = extractor
    configuration.logger.logLevel = logLevel
    configuration.recordExtra = RecordExtra(template: recordExtra)
    configuration.onIncomplete = onIncomplete
    configuration.ultraGroupDefaultChannel = ultraGroupChannel.isEmpty ? nil : ultraGroupChannel
    if let scorer = try ScorerOption.load(scorer) {
      let policy = ScoringPolicy(
        scorer: scorer, blockThreshold: scoreBlock, reviewThreshold: scoreReview, clearThreshold: scoreClear)
      if policy.clearThreshold > policy.reviewThreshold {
        throw ValidationError(
          "--score-clear \(scoreClear ?? policy.clearThreshold) is more than the review threshold \(policy.reviewThreshold)"
        )
      }
      configuration.scoring = policy
    }
    guard let reviewerURL else { return (configuration, nil) }
    let secret = try reviewerSecretFile.map(readSecretFile)
    let client = WebhookReviewer.makeFailFastClient()
    configuration.reviewer = WebhookReviewer(
      url: reviewerURL, mode: reviewerProtocol == .json ? .json : .messageCallback(appKey: appKey), client: client,
      maximumConcurrentRequests: reviewerConcurrency, signingSecret: secret)
    return (configuration, client)
  }
}

extension ContentExtractor.UnknownTypePolicy: ExpressibleByArgument {}
extension ReviewPolicy.ReviewAction: ExpressibleByArgument {}
extension ModerationEngine.IncompleteAction: ExpressibleByArgument {}
