import Foundation
import Testing
import WinnowTestSupport

@_spi(Tools) @testable import Winnow

/// `raw:` regexes, which read the original text, and the contact list built on them: every kind
/// of contact and link it must find, and the near misses it must let through.
@Suite("Raw regexes and contact details")
struct ContactTests {
  static let repository = repositoryRoot

  static let contactList: WordList = {
    let path = repository.appendingPathComponent("wordlists/contact/contact.txt").path
    // The file is part of the repository; a failure here fails every test below.
    return (try? WordList.load(path: path, origin: .global)) ?? WordList(name: "missing", origin: .global, entries: [])
  }()

  static let contacts: Matcher? = try? Matcher(lists: [contactList])

  /// A `raw:` regex sees what normalization removes (the `@` and dots of an address); the same
  /// pattern as `re:` does not. Its match is reported on the original bytes, and the compiled
  /// form reads it back as `raw:`.
  @Test func rawRegexesReadTheOriginalText() throws {
    let raw = try Matcher(lists: [WordList(name: "app", origin: .custom, parsing: #"raw:\S+@\S+\.com"#)])
    let text = "mail Ａ.b@example.com now"
    let matches = raw.matches(in: text)
    #expect(matches.map(\.text) == ["Ａ.b@example.com"])
    #expect(matches.first?.entry.kind == .rawRegex)
    #expect(matches.first?.entry.line == #"raw:\S+@\S+\.com"#)
    let normalized = try Matcher(lists: [WordList(name: "app", origin: .custom, parsing: #"re:\S+@\S+\.com"#)])
    #expect(normalized.matches(in: text).isEmpty)
    let bytes = raw.compiledBytes(identity: [1, 2, 3])
    let readBack = try bytes.withUnsafeBytes { try Matcher(compiledBytes: $0, identity: [1, 2, 3]) }
    #expect(readBack.matches(in: text) == matches)
    #expect(!raw.isClean(text) && raw.isClean("no address here"))
  }

  /// A `raw:` regex that PCRE2 refuses is an error with its file and line, as `re:` is.
  @Test func badRawRegexIsAnError() {
    #expect(throws: WordListErrors.self) {
      try Matcher(lists: [WordList(name: "app.txt", origin: .custom, parsing: "ok\nraw:(unclosed\n")])
    }
  }

  /// Each kind of contact and link, in its plain, spaced, full-width, circled and
  /// Chinese-numeral forms, is found and named by its category.
  @Test(arguments: [
    ("加微信 abc123", "contact.wechat"),
    ("我的微信是：wxid_abc123", "contact.wechat"),
    ("V信 abc_12345", "contact.wechat"),
    ("wx: hello123", "contact.wechat"),
    ("扣扣 12345678", "contact.qq"),
    ("QQ:123456789", "contact.qq"),
    ("企鹅号 ①②③④⑤⑥⑦", "contact.qq"),
    ("电话 138 1234 5678", "contact.phone"),
    ("138-1234-5678", "contact.phone"),
    ("13812345678", "contact.phone"),
    ("一三八一二三四五六七八", "contact.phone"),
    ("幺三八 幺二三四 五六七八", "contact.phone"),
    ("①③⑧①②③④⑤⑥⑦⑧", "contact.phone"),
    ("１３８１２３４５６７８", "contact.phone"),
    ("+86 13812345678", "contact.phone"),
    ("010-12345678", "contact.phone"),
    ("+44 20 7946 0958", "contact.phone"),
    ("call (555) 123-4567", "contact.phone"),
    ("mail a.b@example.com", "contact.email"),
    ("a.b＠example点com", "contact.email"),
    ("name(at)example(dot)com", "contact.email"),
    ("https://evil.example/x?y=1", "contact.url"),
    ("www.example.com", "contact.url"),
    ("example点com", "contact.url"),
    ("go to example dot com", "contact.url"),
    ("see google.com now", "contact.url"),
  ])
  func contactsAreFound(_ text: String, _ category: String) throws {
    let matcher = try #require(Self.contacts)
    let categories = matcher.matches(in: text).compactMap(\.entry.category)
    #expect(categories.contains(category), "\(text): \(categories)")
    #expect(matcher.matches(in: text).allSatisfy { $0.entry.action == .review })
  }

  /// What looks like a contact but is not one passes: prices, dates, times, version numbers,
  /// order numbers and timestamps (longer runs of digits), amounts, file names, words that
  /// begin like an id's keyword, ordinary Chinese with numerals.
  @Test(arguments: [
    "价格 1380 元", "2024-01-02 13:45", "v1.3.8 released", "订单号 2024010212345678", "1700000000000",
    "共计 138,000,000 元", "node.js and setup.py", "wxPython rocks", "QQ音乐很好听", "第一二三章",
    "一二三四五六七八九十", "Call me maybe", "the score was 3-1", "e.g. this one", "Room 1203, floor 12",
    "我们 8 点见", "price: $1,380.00", "ISBN 978-3-16-148410-0",
  ])
  func nearMissesPass(_ text: String) throws {
    // A list that failed to load would be empty, and every near miss would pass.
    try #require(
      Self.contactList.name.hasSuffix("contact.txt") && !Self.contactList.entries.isEmpty,
      "the contact list did not load")
    let matcher = try #require(Self.contacts)
    #expect(matcher.matches(in: text).isEmpty, "\(text): \(matcher.matches(in: text).map(\.text))")
  }

  /// A category setting covers its subcategories: `contact` switches `contact.phone`, and the
  /// subcategory's own setting wins over its parent's.
  @Test func categorySettingsCoverSubcategories() async throws {
    #expect(Entry.category("contact.phone", isWithin: "contact"))
    #expect(Entry.category("contact", isWithin: "contact"))
    #expect(!Entry.category("contacts", isWithin: "contact"))
    #expect(!Entry.category("contact", isWithin: "contact.phone"))
    let item = try MessageItem(json: #"{"msgUID":"1","targetId":"t","content":{"content":"13812345678"}}"#)
    let flagged = try ModerationEngine(global: [Self.contactList]).screen(item)
    #expect(flagged.verdict == .pass && flagged.flagged)
    let blocking = ModerationEngine.Configuration(categoryActions: ["contact": .block])
    let blocked = try ModerationEngine(global: [Self.contactList], configuration: blocking).screen(item)
    #expect(blocked.verdict == .blocked)
    let own = ModerationEngine.Configuration(categoryActions: ["contact": .block, "contact.phone": .review])
    #expect(try ModerationEngine(global: [Self.contactList], configuration: own).screen(item).verdict == .pass)
  }
}
