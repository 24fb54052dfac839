import Testing
import WinnowTestSupport

@_spi(Tools) @testable import Winnow

/// Offender policies: reading the file, the sliding windows, escalation and the tracker's
/// bounds, with a brute-force reference for the windows.
@Suite("Offender policy")
struct OffenderPolicyTests {
  static let minute: Int64 = 60_000

  static func incident(
    _ time: Int64, _ uid: String = "m", room: String = "r1", type: ConversationType = .chatroom,
    kinds: OffenderPolicy.Counting = .blocked, categories: [String] = ["profanity"]
  ) -> OffenderIncident {
    OffenderIncident(
      time: time, msgUID: uid, conversationType: type, targetId: room, kinds: kinds, categories: categories)
  }

  static let muteThree = OffenderPolicy(rules: [
    .init(name: "mute", threshold: 3, window: 10 * minute, scope: .chatroom, action: .chatroomMute, minutes: 10)
  ])

  @Test func theNthMessageFiresAndNotTheOneBefore() {
    var windows = OffenderWindows()
    #expect(windows.record(Self.incident(0, "a"), policy: Self.muteThree) == nil)
    #expect(windows.record(Self.incident(Self.minute, "b"), policy: Self.muteThree) == nil)
    let firing = windows.record(Self.incident(2 * Self.minute, "c"), policy: Self.muteThree)
    #expect(firing?.rule == "mute")
    #expect(firing?.action == .chatroomMute)
    #expect(firing?.minutes == 10)
    #expect(firing?.targetId == "r1")
    #expect(firing?.messages == ["a", "b", "c"])
    // Counting starts anew: the next two do not fire again inside the window.
    #expect(windows.record(Self.incident(3 * Self.minute, "d"), policy: Self.muteThree) == nil)
    #expect(windows.record(Self.incident(4 * Self.minute, "e"), policy: Self.muteThree) == nil)
    #expect(windows.record(Self.incident(5 * Self.minute, "f"), policy: Self.muteThree)?.messages == ["d", "e", "f"])
  }

  @Test func messagesOutsideTheWindowDoNotCount() {
    var windows = OffenderWindows()
    for (index, time) in [0, 6, 12, 18].enumerated() {
      // Never three within ten minutes.
      #expect(windows.record(Self.incident(Int64(time) * Self.minute, "m\(index)"), policy: Self.muteThree) == nil)
    }
  }

  @Test func chatroomRulesCountEachChatroomApartAndNothingElse() {
    var windows = OffenderWindows()
    #expect(windows.record(Self.incident(0, room: "r1"), policy: Self.muteThree) == nil)
    #expect(windows.record(Self.incident(1, room: "r2"), policy: Self.muteThree) == nil)
    #expect(windows.record(Self.incident(2, room: "g1", type: .group), policy: Self.muteThree) == nil)
    #expect(windows.record(Self.incident(3, room: "r2"), policy: Self.muteThree) == nil)
    #expect(windows.record(Self.incident(4, room: "r1"), policy: Self.muteThree) == nil)
    #expect(windows.record(Self.incident(5, room: "r2"), policy: Self.muteThree)?.targetId == "r2")
  }

  @Test func flaggedMessagesCountOnlyWhereThePolicySays() {
    var blockedOnly = OffenderWindows()
    for time in 0..<5 {
      #expect(blockedOnly.record(Self.incident(Int64(time), kinds: .flagged), policy: Self.muteThree) == nil)
    }
    var policy = Self.muteThree
    policy.rules[0].counting = [.blocked, .flagged]
    var withFlagged = OffenderWindows()
    #expect(withFlagged.record(Self.incident(0, kinds: .flagged), policy: policy) == nil)
    #expect(withFlagged.record(Self.incident(1, kinds: .blocked), policy: policy) == nil)
    #expect(withFlagged.record(Self.incident(2, kinds: [.replaced, .flagged]), policy: policy) != nil)
  }

  @Test func categoriesNarrowWhatCounts() {
    var policy = Self.muteThree
    policy.rules[0].categories = ["sexual", "contact"]
    var windows = OffenderWindows()
    #expect(windows.record(Self.incident(0, categories: ["profanity"]), policy: policy) == nil)
    #expect(windows.record(Self.incident(1, categories: ["sexual"]), policy: policy) == nil)
    #expect(windows.record(Self.incident(2, categories: ["profanity"]), policy: policy) == nil)
    #expect(windows.record(Self.incident(3, categories: ["contact", "profanity"]), policy: policy) == nil)
    #expect(windows.record(Self.incident(4, categories: ["sexual"]), policy: policy) != nil)
  }

  @Test func aRepeatWithinItsPeriodLastsLongerUpToThePlatformsLimit() {
    var policy = Self.muteThree
    policy.rules[0].minutes = 20_000
    policy.rules[0].escalation = .init(window: 1440 * Self.minute, factor: 2)
    var windows = OffenderWindows()
    var minutes: [Int] = []
    var time: Int64 = 0
    for _ in 0..<9 {
      time += Self.minute
      if let firing = windows.record(Self.incident(time), policy: policy) { minutes.append(firing.minutes) }
    }
    #expect(minutes == [20_000, 40_000, 43_200])
    // A firing after the repeat period is a first one again.
    time += 2 * 1440 * Self.minute
    for step in 0..<3 {
      let firing = windows.record(Self.incident(time + Int64(step)), policy: policy)
      if step == 2 { #expect(firing?.minutes == 20_000 && firing?.repeats == 0) } else { #expect(firing == nil) }
    }
  }

  @Test func theFirstRuleThatIsReachedWinsAndTheOthersStartAgain() {
    let policy = OffenderPolicy(rules: [
      .init(name: "block", threshold: 3, window: 60 * Self.minute, action: .block, minutes: 60),
      .init(name: "mute", threshold: 3, window: 10 * Self.minute, scope: .chatroom, action: .chatroomMute, minutes: 5),
    ])
    var windows = OffenderWindows()
    #expect(windows.record(Self.incident(0), policy: policy) == nil)
    #expect(windows.record(Self.incident(1), policy: policy) == nil)
    // The third reaches both: "block" comes first, and "mute" starts again with it.
    #expect(windows.record(Self.incident(2), policy: policy)?.rule == "block")
    #expect(windows.record(Self.incident(3), policy: policy) == nil)
    #expect(windows.record(Self.incident(4), policy: policy) == nil)
  }

  @Test func hostileTimesNeitherTrapNorFire() {
    var windows = OffenderWindows()
    #expect(windows.record(Self.incident(.max), policy: Self.muteThree) == nil)
    #expect(windows.record(Self.incident(.min), policy: Self.muteThree) == nil)
    // Far apart: never within one window.
    #expect(windows.record(Self.incident(0), policy: Self.muteThree) == nil)
  }

  /// The windows against a brute-force reading of the rules: at each message (in time order),
  /// a rule fires when the counted messages after its last reset and within the window reach
  /// the threshold; the first such rule fires, and all of them reset.
  @Test func windowsAgreeWithABruteForceReference() {
    var random = SeededGenerator(state: 51)
    for _ in 0..<300 {
      let policy = OffenderPolicy(rules: [
        .init(
          name: "a", threshold: Int.random(in: 1...4, using: &random),
          window: Int64.random(in: 1...20, using: &random) * Self.minute, action: .block, minutes: 60),
        .init(
          name: "b", threshold: Int.random(in: 1...4, using: &random), counting: [.blocked, .flagged],
          window: Int64.random(in: 1...20, using: &random) * Self.minute, scope: .conversation,
          action: .chatroomBan, minutes: 10),
      ])
      var time: Int64 = 0
      var incidents: [OffenderIncident] = []
      for index in 0..<Int.random(in: 1...30, using: &random) {
        time += Int64.random(in: 0...(5 * Self.minute), using: &random)
        incidents.append(
          Self.incident(
            time, "m\(index)", room: ["r1", "r2"].randomElement(using: &random) ?? "r1", type: .group,
            kinds: Bool.random(using: &random) ? .blocked : .flagged))
      }
      var windows = OffenderWindows()
      let fast = incidents.map { windows.record($0, policy: policy)?.rule }
      #expect(fast == Self.reference(incidents, policy))
    }
  }

  static func reference(_ incidents: [OffenderIncident], _ policy: OffenderPolicy) -> [String?] {
    var resetAt: [String: Int] = [:]  // rule + conversation → index after the last reset
    var answers: [String?] = []
    for (index, incident) in incidents.enumerated() {
      var fired: String?
      for (ruleIndex, rule) in policy.rules.enumerated() where !rule.counting.isDisjoint(with: incident.kinds) {
        let conversation = rule.scope == .user ? "" : incident.targetId
        let key = "\(ruleIndex)/\(conversation)"
        let start = resetAt[key] ?? 0
        let count = incidents[start...index].filter {
          !rule.counting.isDisjoint(with: $0.kinds) && (rule.scope == .user || $0.targetId == conversation)
            && incident.time - $0.time < rule.window
        }.count
        if count >= rule.threshold {
          resetAt[key] = index + 1
          if fired == nil { fired = rule.name }
        }
      }
      answers.append(fired)
    }
    return answers
  }

  @Test func theTrackerKeepsUsersAndAppsApartAndStaysWithinItsCapacity() {
    let tracker = OffenderTracker(policy: Self.muteThree, capacity: 100)
    #expect(tracker.record(Self.incident(0), app: "a1", user: "u1") == nil)
    #expect(tracker.record(Self.incident(1), app: "a1", user: "u2") == nil)
    #expect(tracker.record(Self.incident(2), app: "a2", user: "u1") == nil)
    #expect(tracker.record(Self.incident(3), app: "a1", user: "u1") == nil)
    #expect(tracker.record(Self.incident(4), app: "a1", user: "u1")?.rule == "mute")
    #expect(tracker.count == 3)
    for index in 0..<1000 { _ = tracker.record(Self.incident(10 + Int64(index)), app: "a1", user: "x\(index)") }
    #expect(tracker.count <= 100)
    #expect(tracker.evicted > 0)
    // Past the policy's memory, everyone is forgotten.
    tracker.expire(at: 10 * 24 * 60 * Self.minute)
    #expect(tracker.count == 0)
  }

  // MARK: - Policy files

  @Test func theSimplestRuleReads() throws {
    let policy = try OffenderPolicy(
      json:
        #"{"rules":[{"name":"chatroom-mute","blocked":3,"within":"10m","per":"chatroom","action":"chatroom-mute","minutes":10}]}"#,
      file: "p.json")
    #expect(policy == Self.muteThree.renamed("chatroom-mute"))
  }

  @Test func theBuiltInPolicyReadsBackFromItsOwnText() throws {
    #expect(try OffenderPolicy(json: OffenderPolicy.builtIn.json, file: "built-in") == OffenderPolicy.builtIn)
  }

  @Test func aBadPolicyNamesTheLineAndField() {
    let cases: [(String, String)] = [
      (
        "{\"rules\":[\n{\"name\":\"a\",\"blocked\":3,\n\"within\":\"10x\",\"action\":\"block\",\"minutes\":5}]}",
        "p.json:3: rules[0].within:"
      ),
      (
        "{\"rules\":[\n{\"name\":\"a\",\"blocked\":0,\"within\":\"1m\",\"action\":\"block\",\"minutes\":5}]}",
        "p.json:2: rules[0].blocked:"
      ),
      (
        "{\"rules\":[{\"name\":\"a\",\"blocked\":1,\"within\":\"1m\",\"action\":\"block\",\"minutes\":5},\n{\"name\":\"a\",\"blocked\":1,\"within\":\"1m\",\"action\":\"report\"}]}",
        "p.json:2: rules[1].name:"
      ),
      (
        "{\"rules\":[{\"name\":\"a\",\"blocked\":1,\"within\":\"1m\",\n\"action\":\"chatroom-mute\",\"minutes\":5}]}",
        "p.json:1: rules[0].per:"
      ),
      (
        "{\"rules\":[{\"name\":\"a\",\"blocked\":1,\"within\":\"1m\",\"action\":\"block\",\n\"minutes\":43201}]}",
        "p.json:2: rules[0].minutes:"
      ),
      (
        "{\"rules\":[{\"name\":\"a\",\"blocked\":1,\"within\":\"1m\",\"action\":\"block\",\"minutes\":5,\n\"colour\":1}]}",
        "p.json:2: rules[0].colour: unknown field"
      ),
      (
        "{\"rules\":[\n{\"name\":\"a\",\"blocked\":1,\"within\":\"1m\",\"action\":\"block\",\"minutes\":5,\"repeat\":{\"within\":\"1d\",\n\"factor\":0}}]}",
        "p.json:3: rules[0].repeat.factor:"
      ),
      ("{\"rules\":[]}", "p.json:1: rules: at least one rule"),
      ("{\"rules\":[\n{\"name\":\"a\",]}", "p.json:2: invalid JSON"),
    ]
    for (text, expected) in cases {
      #expect(throws: OffenderPolicyError.self) { try OffenderPolicy(json: text, file: "p.json") }
      do {
        _ = try OffenderPolicy(json: text, file: "p.json")
      } catch {
        #expect(error.description.hasPrefix(expected), "\(error.description) for \(text)")
      }
    }
  }
}

extension OffenderPolicy {
  fileprivate func renamed(_ name: String) -> OffenderPolicy {
    var copy = self
    copy.rules[0].name = name
    return copy
  }
}
