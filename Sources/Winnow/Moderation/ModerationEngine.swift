import Logging

/// The moderation pipeline: extract an item's user text, match it against the global list and
/// the app's custom lists, decide, and ask the third-party reviewer.
///
/// ```swift
/// let global = try WordList.load(directory: "wordlists/global", origin: .global)
/// let engine = try ModerationEngine(global: global)
///   .addingApp("app-42", custom: [try WordList(name: "app-42", origin: .custom, parsing: "秒杀 => **")])
/// let result = try await engine.moderate(item)
/// switch result.verdict {
/// case .pass: deliver(item)
/// case .replaced: deliver(result.item)            // content rewritten in its own shape
/// case .blocked: notifySender(result.record!)      // BlockedMessageInfo
/// }
/// ```
///
/// The decision order:
/// 0. A category's action may be switched (``Configuration/categoryActions``, or an app's own
///    with ``addingApp(_:custom:categoryActions:)``): every block and review entry of the
///    category takes it.
/// 1. A block entry beats a replace entry. A global block entry blocks with block type 1; else
///    a custom block entry blocks with block type 2 (``SensitiveType/blockWord``).
/// 2. Otherwise replace entries rewrite the matched characters (``SensitiveType/replaceWord``);
///    the item goes on with its content rewritten.
///    Every entry that matches anywhere takes part, whatever it overlaps: a longer or earlier
///    replace or review match never hides a block match, nor a review match a replace match
///    (the matches reported are chosen tier by tier, see `DecidingMatches`).
///    Review entries (``Entry/Action/review``) never block: their matches are reported and
///    make the result ``ModerationResult/flagged``.
/// 3. Then the scorer, if configured (``Configuration/scoring``), scores the item's texts as
///    they would be delivered: at or above its block threshold the item is blocked with block
///    type 3, at or above its review threshold it is flagged. Before that, with a clear
///    threshold, it is asked about an item a global block entry blocks: when the texts and the
///    clauses around the matches all score under it, and the model knows each matched word,
///    the item is decided again with those entries as review entries
///    (``ScoringPolicy/clearThreshold``).
/// 4. Then the reviewer, if configured, sees the item as it would be delivered, with the
///    flagged matches (``ReviewRequest/flagged``): reject blocks
///    with block type 3; review follows ``ReviewPolicy/onReview``; a timeout or failure follows
///    ``ReviewPolicy/onFailure``; replacement content from the reviewer is delivered as is.
///
/// Replace entries rewrite whatever list they are in; `winnow words lint` flags them in a global
/// list, since the platform's global list only blocks.
///
/// Custom lists are per app: ``addingApp(_:custom:)`` compiles an app's lists over the already
/// compiled global list, so one engine serves many apps without compiling the global list per
/// app. Items whose ``MessageItem/appKey`` names no app use the engine's default custom lists.
///
/// An engine is immutable and `Sendable`: build it once, share it, and build a new one to
/// change lists.
public final class ModerationEngine: Sendable {
  /// Settings besides the word lists.
  public struct Configuration: Sendable {
    /// Which fields of which message types are moderated, and the content size limit.
    @_spi(Tools) public var extractor = ContentExtractor()
    /// The third-party reviewer, if any.
    public var reviewer: (any ContentReviewer)?
    /// Timeout, failure and review policy for the reviewer.
    public var reviewPolicy: ReviewPolicy
    /// Where reviewer failures are logged.
    public var logger: Logger
    /// Whether `allow:` entries of custom lists may hide matches of the global list (false:
    /// an app's list cannot weaken the built-in one; see
    /// ``Matcher/init(lists:over:customAllowsGlobal:)``).
    public var customAllowsGlobal: Bool
    /// Actions that replace the lists' own for every block and review entry of a category
    /// (`["politics": .block]` blocks what the shipped list only flags). Empty: the lists decide.
    public var categoryActions: [String: CategoryAction]
    /// What a record's `extra`, shown to the sender, says (by default the deciding categories).
    @_spi(Tools) public var recordExtra = RecordExtra.categories
    /// What an item decides whose check a regex could not finish (by default review).
    public var onIncomplete: IncompleteAction = .review
    /// The built-in second opinion: a learned ``Scorer`` asked, after the lists, about every
    /// item they did not block (nil: none, the default). Its block is block type 3, as a
    /// reviewer's reject, and the reviewer is not asked about an item it blocked. A block by a
    /// custom list stands whatever it says; a block by the global list stands unless the
    /// policy's ``ScoringPolicy/clearThreshold`` clears it, and then the item is delivered
    /// flagged for review, never silently.
    public var scoring: ScoringPolicy? = nil
    /// The channel a record names for an ultra-group item that has none: `RCDefault`, every
    /// ultra group's default channel in apps created after 2022-10-13 (the platform's seed 004);
    /// nil keeps the empty `channelId` (older apps, whose channel-less messages have none).
    public var ultraGroupDefaultChannel: String? = "RCDefault"

    /// Creates a configuration.
    public init(
      reviewer: (any ContentReviewer)? = nil, reviewPolicy: ReviewPolicy = ReviewPolicy(),
      logger: Logger = Logger(label: "winnow.moderation"), customAllowsGlobal: Bool = false,
      categoryActions: [String: CategoryAction] = [:]
    ) {
      self.reviewer = reviewer
      self.reviewPolicy = reviewPolicy
      self.logger = logger
      self.customAllowsGlobal = customAllowsGlobal
      self.categoryActions = categoryActions
    }

    /// A default configuration with these message types and record `extra`.
    @_spi(Tools) public init(extractor: ContentExtractor, recordExtra: RecordExtra = .categories) {
      self.init()
      self.extractor = extractor
      self.recordExtra = recordExtra
    }
  }

  /// What a check that could not finish decides (a regex stopped at its limits: see
  /// ``MatchWarning``), when the lists block nothing. Its result always carries the warnings.
  public enum IncompleteAction: String, Sendable, Hashable, CaseIterable {
    /// Deliver, flagged for review (``ModerationResult/flagged``), so people or the reviewer
    /// look at it: the default.
    case review
    /// Block (block type 1 when a stopped regex is global, else 2; `extra` says `incomplete
    /// check`).
    case block
    /// Deliver as the finished part of the check says.
    case pass
  }

  /// What the entries of a category do when the configuration or an app switches it.
  public enum CategoryAction: String, Sendable, Hashable, CaseIterable {
    /// Block the item (block type 1 for a global entry, 2 for a custom one).
    case block
    /// Flag the match for review (``Entry/Action/review``).
    case review

    var entryAction: Entry.Action { self == .block ? .block : .review }
  }

  /// An app's compiled lists and its category actions.
  private struct App: Sendable {
    let matcher: Matcher
    let categoryActions: [String: CategoryAction]
  }

  /// The settings.
  public let configuration: Configuration
  /// The compiled global list alone.
  public let globalMatcher: Matcher
  /// The global list with the default custom lists, for items of no registered app.
  public let defaultMatcher: Matcher
  private let apps: [String: App]
  /// ``Configuration/scoring`` as an object, for the in-place check of dump lines, which
  /// holds it unretained: a struct of arrays in each of its copies was retained and released
  /// with every copy, even when nil, and slowed a lists-only scan by two fifths.
  let scoringReference: ScoringReference?
  /// Counters of reviewer calls (shared with engines made by ``addingApp(_:custom:)``).
  @_spi(Tools) public let reviewerStatistics: ReviewerStatistics

  /// Compiles the global list and default custom lists.
  /// - Throws: ``WordListErrors`` with every entry that cannot be compiled.
  public convenience init(global: [WordList], custom: [WordList] = [], configuration: Configuration = Configuration())
    throws(WordListErrors)
  {
    try self.init(global: try Matcher(lists: global), custom: custom, configuration: configuration)
  }

  /// Uses an already compiled global list (read back from `winnow`'s cache, or shared with
  /// another engine) and compiles the default custom lists over it.
  /// - Throws: ``WordListErrors`` with every entry of `custom` that cannot be compiled.
  public convenience init(global: Matcher, custom: [WordList] = [], configuration: Configuration = Configuration())
    throws(WordListErrors)
  {
    let defaultMatcher =
      custom.isEmpty
      ? global : try Matcher(lists: custom, over: global, customAllowsGlobal: configuration.customAllowsGlobal)
    self.init(
      global: global, default: defaultMatcher, apps: [:], configuration: configuration,
      statistics: ReviewerStatistics())
  }

  private init(
    global: Matcher, default: Matcher, apps: [String: App], configuration: Configuration,
    statistics: ReviewerStatistics
  ) {
    self.globalMatcher = global
    self.defaultMatcher = `default`
    self.apps = apps
    self.configuration = configuration
    self.reviewerStatistics = statistics
    self.scoringReference = configuration.scoring.map(ScoringReference.init)
  }

  /// An engine of a compiled global list and apps' lists already compiled over it (for
  /// ``ModerationService``, which compiles only the apps that change); `default` is the
  /// matcher of items of no app (the global list when nil).
  convenience init(
    global: Matcher, default: Matcher? = nil, appMatchers: [String: Matcher], configuration: Configuration,
    statistics: ReviewerStatistics
  ) {
    self.init(
      global: global, default: `default` ?? global,
      apps: appMatchers.mapValues { App(matcher: $0, categoryActions: configuration.categoryActions) },
      configuration: configuration, statistics: statistics)
  }

  /// A copy of this engine with an app's custom lists added (or replaced), compiled over the
  /// shared global list. `categoryActions` switch categories for this app's items, over the
  /// configuration's (``Configuration/categoryActions``).
  /// - Throws: ``WordListErrors`` with every entry of `custom` that cannot be compiled.
  public func addingApp(_ appKey: String, custom: [WordList], categoryActions: [String: CategoryAction] = [:])
    throws(WordListErrors) -> ModerationEngine
  {
    var apps = self.apps
    let matcher = try Matcher(
      lists: custom, over: globalMatcher, customAllowsGlobal: configuration.customAllowsGlobal)
    apps[appKey] = App(
      matcher: matcher,
      categoryActions: configuration.categoryActions.merging(categoryActions) { _, app in app })
    return ModerationEngine(
      global: globalMatcher, default: defaultMatcher, apps: apps, configuration: configuration,
      statistics: reviewerStatistics)
  }

  /// Whether any app has its own custom lists.
  var hasApps: Bool { !apps.isEmpty }

  /// The matcher of the items of app `appKey`: its own lists, or the default ones.
  func matcher(ofApp appKey: String) -> Matcher { apps[appKey]?.matcher ?? defaultMatcher }

  /// The apps with their own custom lists.
  public var appKeys: [String] { apps.keys.sorted() }

  /// The matcher that applies to an item: its app's, or the default.
  public func matcher(for item: MessageItem) -> Matcher { app(for: item).matcher }

  /// The category actions that apply to an item: its app's, or the defaults.
  @_spi(Tools) public func categoryActions(for item: MessageItem) -> [String: CategoryAction] {
    app(for: item).categoryActions
  }

  /// The lists and category actions that apply to an item: its app's, or the defaults.
  private func app(for item: MessageItem) -> App {
    apps.isEmpty
      ? App(matcher: defaultMatcher, categoryActions: configuration.categoryActions)
      : item.appKey.flatMap { apps[$0] }
        ?? App(matcher: defaultMatcher, categoryActions: configuration.categoryActions)
  }

  /// Whether a match blocks its item: a block entry, or a replace entry in an extension key.
  private static func blocks(_ found: FieldMatch) -> Bool {
    found.match.action == .block || (found.match.action.isReplace && found.field.isKey)
  }

  /// Gives every block and review match of a switched category the category's action.
  private static func switchCategories(_ matches: inout [FieldMatch], to actions: [String: CategoryAction]) {
    for index in matches.indices { matches[index].match = matches[index].match.switchingCategory(actions) }
  }

  /// Whether the word lists deliver the item as it is: nothing blocks, replaces or flags it for
  /// review (the reviewer is not asked; see ``moderate(_:)``).
  /// - Throws: ``ItemError`` when the item's content is over the size limit or malformed.
  public func passes(_ item: MessageItem) throws(ItemError) -> Bool {
    let result = try screen(item)
    return result.verdict == .pass && !result.flagged
  }

  /// Moderates an item with the word lists only (steps 1 and 2): synchronous, for batch scans
  /// and for callers that ask their reviewer themselves.
  /// - Throws: ``ItemError`` when the item's content is over the size limit or malformed.
  public func screen(_ item: __owned MessageItem) throws(ItemError) -> ModerationResult {
    try screenFields(item).result
  }

  /// ``screen(_:)``, taking what the in-place check of a dump line found in one of the item's
  /// texts instead of scanning that text again.
  func screen(_ item: __owned MessageItem, found: FoundText?) throws(ItemError) -> ModerationResult {
    try screenFields(item, found: found).result
  }

  /// ``screen(_:)``, and the item's text fields as delivered (replacements applied), which the
  /// reviewer is shown.
  ///
  /// A blocked item's matches, result and record are built once each and moved, not copied:
  /// copying them (a retain for every string of the item and of each match) was a tenth of a
  /// blocked line's scan.
  private func screenFields(_ item: __owned MessageItem, found: FoundText? = nil) throws(ItemError) -> (
    result: ModerationResult, fields: [TextField]
  ) {
    // Without a scorer the item is handed on, not copied (a copy retains each of its strings).
    guard let scoring = configuration.scoring else { return try screenLists(item, found: found) }
    let received = item
    var (result, fields) = try screenLists(item, found: found)
    if result.verdict != .blocked { score(&result, fields: fields, received: received, by: scoring) }
    return (result, fields)
  }

  /// The scorer's part (step 3): the highest score of the item's delivered texts; at or above
  /// the block threshold the item is blocked with block type 3 (`extra` naming the model's
  /// category), at or above the review threshold it is flagged.
  private func score(
    _ result: inout ModerationResult, fields: [TextField], received item: MessageItem, by scoring: ScoringPolicy
  ) {
    var best = 0.0
    for index in fields.indices { best = max(best, scoring.scorer.score(fields[index].text)) }
    result.score = max(result.score ?? 0, best)
    if best >= scoring.blockThreshold {
      let category = scoring.scorer.category
      let extra = configuration.recordExtra.render(categories: [category], words: [], lists: []) {
        JSONValue.object([
          JSONMember(
            key: "scorer",
            value: .object([
              JSONMember(key: "category", value: .string(category)),
              JSONMember(key: "score", value: .number(Self.scoreText(best))),
            ]))
        ]).jsonString
      }
      block(&result, received: item, extra: extra)
      result.scoreBlocked = true
    } else if best >= scoring.reviewThreshold {
      result.scoreFlagged = true
    }
  }

  /// A score from 0 to 1 as JSON text with four decimals (`0.0731`), as results report it.
  package static func scoreText(_ score: Double) -> String {
    let clamped = score.isNaN ? 0 : min(max(score, 0), 1)
    let tenThousandths = Int((clamped * 10_000).rounded())
    let fraction = String(tenThousandths % 10_000)
    return "\(tenThousandths / 10_000)." + String(repeating: "0", count: 4 - fraction.count) + fraction
  }

  /// ``screenListsDeciding(_:found:)``, with what the scorer's clearing said put in the result.
  private func screenLists(_ item: __owned MessageItem, found: FoundText? = nil) throws(ItemError) -> (
    result: ModerationResult, fields: [TextField]
  ) {
    var clearing: (score: Double, cleared: Bool)? = nil
    var (result, fields) = try screenListsDeciding(item, found: found, clearing: &clearing)
    if let clearing {
      result.score = clearing.score
      // A review entry a category action makes block still blocks after a clearing.
      result.scoreCleared = clearing.cleared && result.verdict != .blocked
    }
    return (result, fields)
  }

  /// The word lists' part of ``screenFields(_:found:)`` (steps 0 to 2); `clearing` is the
  /// scorer's clearing score, and whether it cleared, when it was asked.
  private func screenListsDeciding(
    _ item: __owned MessageItem, found: FoundText?, clearing: inout (score: Double, cleared: Bool)?
  ) throws(ItemError) -> (result: ModerationResult, fields: [TextField]) {
    var fields = try configuration.extractor.fields(of: item)
    let app = app(for: item)
    let matcher = app.matcher
    var matches: [FieldMatch] = []
    var warnings: [MatchWarning] = []
    while true {
      // Every match of each field, overlapping ones included: the decision compares them all
      // (see ``DecidingMatches``), after categories are switched.
      for index in fields.indices {
        let report =
          found?.report(of: fields[index].text, by: matcher) ?? matcher.scan(fields[index].text, kind: nil)
        if !report.matches.isEmpty {
          let location = fields[index].location
          var found = report.matches.map { FieldMatch(field: location, match: $0) }
          if clearing?.cleared == true { Self.clearGlobalBlocks(&found) }
          if !app.categoryActions.isEmpty { Self.switchCategories(&found, to: app.categoryActions) }
          if found.count > 1 { found = DecidingMatches.choose(found, match: \.match, blocks: Self.blocks) }
          // Taken whole when the first (most items have one field): appended, each was copied.
          if matches.isEmpty { matches = found } else { matches += found }
        }
        warnings += report.warnings
      }
      // The scorer's clearing (``ScoringPolicy/clearThreshold``): asked once, about an item a
      // global block entry blocks; when it clears, the fields are read again with those
      // entries as review entries (read again, not kept: keeping each field's report would
      // cost every item an array, and a clearing is rare).
      guard clearing == nil, let scoring = configuration.scoring, scoring.clearThreshold > 0,
        let score = clearingScore(matches, fields: fields, by: scoring)
      else { break }
      clearing = (score, score < scoring.clearThreshold)
      guard score < scoring.clearThreshold else { break }
      matches.removeAll()
      warnings.removeAll()
    }
    // Blocked by a global entry if any blocks, else by a custom one; the record's `extra` names
    // the words of the entries that decided. A replace entry in an extension key blocks too:
    // keys are identifiers, which a rewrite would turn into other keys.
    var blocksGlobal = false
    var blocksCustom = false
    for index in matches.indices where Self.blocks(matches[index]) {
      if matches[index].match.origin == .global { blocksGlobal = true } else { blocksCustom = true }
    }
    // A regex check stopped at its limits left the answer unknown: never a silent pass.
    var incompleteAction = IncompleteAction.pass
    if !warnings.isEmpty {
      StoppedRegexLog.note(warnings, logger: configuration.logger)
      incompleteAction = configuration.onIncomplete
    }
    if incompleteAction == .block && !blocksGlobal && !blocksCustom {
      let blockType: BlockType = warnings.contains { $0.origin == .global } ? .globalWord : .customWord
      let extra = configuration.recordExtra.render(
        categories: ["incomplete check"], words: [], lists: [],
        detail: {
          JSONValue.object([JSONMember(key: "incomplete", value: .array(warnings.map { .string($0.description) }))])
            .jsonString
        })
      let record = record(of: item, blockType: blockType, extra: extra)
      let result = ModerationResult(
        verdict: .blocked, item: item, blockType: blockType, sensitiveType: .blockWord, record: record,
        matches: matches, warnings: warnings, review: nil)
      return (result, fields)
    }
    if blocksGlobal || blocksCustom {
      let blockType: BlockType = blocksGlobal ? .globalWord : .customWord
      let extra = recordExtra(for: matches, globalOnly: blocksGlobal)
      let record = record(of: item, blockType: blockType, extra: extra)
      let result = ModerationResult(
        verdict: .blocked, item: item, blockType: blockType, sensitiveType: .blockWord, record: record,
        matches: matches, warnings: warnings, review: nil)
      return (result, fields)
    }
    // Review matches alone: delivered as is, flagged.
    guard matches.contains(where: { $0.match.action.isReplace }) else {
      var result = ModerationResult(
        verdict: .pass, item: item, blockType: nil, sensitiveType: .none, record: nil, matches: matches,
        warnings: warnings, review: nil)
      result.flagsIncomplete = incompleteAction == .review
      return (result, fields)
    }
    var delivered = item
    for index in fields.indices {
      let inField = matches.filter { $0.field == fields[index].location && $0.match.action.isReplace }
        .map(\.match)
      guard !inField.isEmpty else { continue }
      fields[index].text = Match.mask(fields[index].text, matches: inField)
      switch fields[index].location.part {
      case .content: delivered.content.replaceText(at: fields[index].location, with: fields[index].text)
      case .pushContent: delivered.pushContent = fields[index].text
      case .pushData: delivered.pushData = fields[index].text
      case .pushTitle: delivered.setPushTitle(fields[index].text)
      }
    }
    var result = ModerationResult(
      verdict: .replaced, item: delivered, blockType: nil, sensitiveType: .replaceWord, record: nil,
      matches: matches, warnings: warnings, review: nil)
    result.flagsIncomplete = incompleteAction == .review
    return (result, fields)
  }

  /// Moderates an item: the word lists, then the reviewer (if configured) for items they did not
  /// block.
  /// - Throws: ``ItemError`` when the item's content is over the size limit or malformed.
  public func moderate(_ item: MessageItem) async throws(ItemError) -> ModerationResult {
    var (result, fields) = try screenFields(item)
    guard result.verdict != .blocked, let reviewer = configuration.reviewer else { return result }
    let policy = configuration.reviewPolicy
    let request = ReviewRequest(
      item: result.item, fields: fields, sensitiveType: result.sensitiveType,
      flagged: result.matches.filter { $0.match.action == .review })
    reviewerStatistics.record { $0.calls += 1 }
    let decision: ReviewDecision
    let asked = ContinuousClock.now
    let decided = DecisionTime()
    do {
      let statistics = reviewerStatistics
      // Waiting for a free call counts against the timeout: the cap limits how many calls run
      // at once, it refuses none.
      decision = try await withDeadline(policy.timeout, decided: decided) {
        try await statistics.startCall(limit: policy.maximumCallsInFlight)
        defer { statistics.endCall() }
        return try await reviewer.review(request)
      }
    } catch {
      let elapsed = (decided.value ?? ContinuousClock.now) - asked
      let isTimeout = error is ReviewTimeoutError
      reviewerStatistics.record {
        if isTimeout { $0.timeouts += 1 } else { $0.failures += 1 }
      }
      configuration.logger.warning(
        "reviewer failed",
        metadata: [
          "msgUID": "\(item.msgUID)", "error": "\(error)",
          "policy": "\(policy.onFailure == .failOpen ? "fail open" : "fail closed")",
        ])
      let blocked = policy.onFailure == .failClosed
      result.review = ReviewReport(decision: nil, failure: "\(error)", blocked: blocked, elapsed: elapsed)
      if blocked {
        let extra = configuration.recordExtra.render(categories: ["review unavailable"], words: [], lists: []) {
          Self.reviewerExtra(failure: "\(error)")
        }
        block(&result, received: item, extra: extra)
      }
      return result
    }
    reviewerStatistics.record {
      switch decision.outcome {
      case .pass: $0.passed += 1
      case .review: $0.reviewed += 1
      case .reject: $0.rejected += 1
      }
    }
    let blocked = decision.outcome == .reject || (decision.outcome == .review && policy.onReview == .block)
    result.review = ReviewReport(
      decision: decision, failure: nil, blocked: blocked, elapsed: (decided.value ?? ContinuousClock.now) - asked)
    if blocked {
      block(
        &result, received: item,
        extra: decision.extra
          ?? configuration.recordExtra.render(
            categories: decision.labels.isEmpty ? ["rejected by review"] : decision.labels, words: [], lists: []
          ) { Self.reviewerExtra(labels: decision.labels, outcome: decision.outcome) })
    } else if let replacement = decision.replacementContent {
      result.verdict = .replaced
      result.item.content = replacement
    }
    return result
  }

  /// Turns a result into a reviewer block (type 3). The record and the result's item are the
  /// item as received: a blocked item is not delivered, so nothing of it is rewritten.
  private func block(_ result: inout ModerationResult, received item: MessageItem, extra: String) {
    result.verdict = .blocked
    result.item = item
    result.blockType = .thirdParty
    result.record = record(of: item, blockType: .thirdParty, extra: extra)
  }

  /// The record of a blocked item: the platform's, with ``Configuration/ultraGroupDefaultChannel``
  /// for an ultra-group item without a channel.
  private func record(of item: MessageItem, blockType: BlockType, extra: String) -> BlockedMessageInfo {
    var record = BlockedMessageInfo(item: item, blockType: blockType, extra: extra)
    if item.conversationType == .ultraGroup, record.channelId.isEmpty,
      let channel = configuration.ultraGroupDefaultChannel
    {
      record.channelId = channel
    }
    return record
  }

  /// `{"matches":[{"word":…,"list":…,"category":…},…]}` with each entry once, as many as fit in
  /// 1024 characters.
  ///
  /// Written into one buffer by a ``JSONWriter``, not built as `JSONValue`s or as a string per
  /// word, and characters are counted only once the UTF-8 length (never less than the count of
  /// characters) passes the limit: building and counting each word's text was 6% of a `winnow
  /// scan` of a dump where one line in fifteen is blocked.
  ///
  /// Only matches of block entries are named, and with `globalOnly` only those of the global
  /// list. They are read in place: copying each match or its entry out of the array retained
  /// its strings.
  /// The record's `extra` for the deciding matches (block matches, of the global list alone
  /// when `globalOnly`), by the configured template.
  private func recordExtra(for matches: [FieldMatch], globalOnly: Bool) -> String {
    var categories: [String] = []
    var words: [String] = []
    var lists: [String] = []
    let template = configuration.recordExtra
    let wantsAll = template != .categories && template != .detail
    for found in matches where Self.blocks(found) && (!globalOnly || found.match.origin == .global) {
      let category = found.match.category ?? "blocked"
      if !categories.contains(category) { categories.append(category) }
      guard wantsAll else { continue }
      let word = found.match.entry.prefixedText
      if !words.contains(word) { words.append(word) }
      let list = Self.shortName(ofList: found.match.list)
      if !lists.contains(list) { lists.append(list) }
    }
    return template.render(categories: categories, words: words, lists: lists) {
      Self.extra(for: matches, globalOnly: globalOnly)
    }
  }

  static func extra(for matches: [FieldMatch], globalOnly: Bool) -> String {
    let limit = BlockedMessageInfo.maximumExtraLength
    let closing = 2  // the bytes, and characters, of `]}`
    var writer = JSONWriter()
    writer.beginObject()
    writer.key("matches")
    writer.beginArray()
    // Characters of what is written and the closing, counted once it passes the limit in bytes.
    var characters: Int? = nil
    // An item has a few matches: compared, not hashed (hashing an entry's text cost more).
    var firsts: [Int] = []
    matches.withUnsafeBufferPointer { matches in
      for index in matches.indices {
        // SAFETY: `index` is an index of `matches`.
        let found = UnsafePointer(matches.baseAddress! + index)
        guard Self.blocks(found.pointee), !globalOnly || found.pointee.match.origin == .global,
          !firsts.contains(where: { matches[$0].match.entry == found.pointee.match.entry })
        else { continue }
        firsts.append(index)
        let wordStart = writer.byteCount
        writer.beginObject()
        writer.key("word")
        writer.string(found.pointee.match.entry.prefixedText)
        writer.key("list")
        writer.string(Self.shortName(ofList: found.pointee.match.list))
        writer.key("category")
        writer.string(found.pointee.match.category)
        writer.endObject()
        if writer.byteCount + closing > limit {
          // The word starts with a comma or a brace and ends with a brace, so no character
          // spans it and what comes before.
          let text = writer.bytes
          let before = characters ?? String(decoding: text[..<wordStart], as: UTF8.self).count + closing
          let word = String(decoding: text[wordStart...], as: UTF8.self).count
          guard before + word <= limit else {
            writer.removeBytes(from: wordStart)
            break
          }
          characters = before + word
        }
      }
    }
    writer.endArray()
    writer.endObject()
    return String(decoding: writer.bytes, as: UTF8.self)
  }

  /// The last component of a list's name (`zh.txt` for `wordlists/global/zh.txt`), the whole
  /// name when it has none. Trailing slashes are not a component (`a/b/` is `b`).
  package static func shortName(ofList list: String) -> String {
    let utf8 = list.utf8
    let slash = UInt8(ascii: "/")
    var end = utf8.endIndex
    while end > utf8.startIndex && utf8[utf8.index(before: end)] == slash { end = utf8.index(before: end) }
    guard end > utf8.startIndex else { return list }
    var start = end
    while start > utf8.startIndex && utf8[utf8.index(before: start)] != slash { start = utf8.index(before: start) }
    return String(list[start..<end])
  }

  static func reviewerExtra(labels: [String] = [], outcome: ReviewDecision.Outcome? = nil, failure: String? = nil)
    -> String
  {
    var members: [JSONMember] = []
    if let outcome { members.append(JSONMember(key: "reviewer", value: .string(outcome.rawValue))) }
    if !labels.isEmpty { members.append(JSONMember(key: "labels", value: .array(labels.map(JSONValue.string)))) }
    if let failure { members.append(JSONMember(key: "reviewerFailure", value: .string(failure))) }
    return JSONValue.object(members).jsonString
  }
}

extension Match {
  /// This match with the action `actions` gives its category, when its entry blocks or
  /// reviews; otherwise itself.
  package func switchingCategory(_ actions: [String: ModerationEngine.CategoryAction]) -> Match {
    let action = self.action
    guard let category, let switched = Self.setting(of: category, in: actions)?.entryAction,
      action == .block || action == .review, action != switched
    else { return self }
    return withAction(switched)
  }

  /// The setting of `category` in `actions`: its own, or else its nearest parent's
  /// (`contact.phone`, then `contact`).
  private static func setting(
    of category: String, in actions: [String: ModerationEngine.CategoryAction]
  ) -> ModerationEngine.CategoryAction? {
    var name = Substring(category)
    while true {
      if let action = actions[String(name)] { return action }
      guard let dot = name.lastIndex(of: ".") else { return nil }
      name = name[..<dot]
    }
  }
}
