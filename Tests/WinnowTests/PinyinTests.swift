import Foundation
import Testing
import WinnowTestSupport

@_spi(Tools) @testable import Winnow

/// The built-in list's pinyin entries (`wordlists/global/zh-pinyin.txt`, categories
/// `pinyin.profanity` and `pinyin.sexual`): the ways chat writes a Chinese insult in Latin
/// letters, and the ordinary English and pinyin text they must let through.
@Suite("Pinyin entries")
struct PinyinTests {
  static let pinyin = builtInMatcher(["zh-pinyin.txt"])

  /// The blocking matches of a text.
  static func blocks(_ text: String) throws -> [Match] {
    try #require(pinyin).matches(in: text).filter { $0.entry.action == .block }
  }

  /// Full pinyin joined, spaced, hyphenated, capitalized, with tone marks, spelled out letter by
  /// letter; and the initials chat uses, in Chinese or mixed text or alone. Each blocks, in its
  /// `pinyin.` category.
  @Test(arguments: [
    ("你个shabi", "shabi"),
    ("ni shi sha bi ma", "sha bi"),
    ("Sha Bi!", "Sha Bi"),
    ("shǎ bī", "shǎ bī"),
    ("SHABI", "SHABI"),
    ("caonima", "caonima"),
    ("cao ni ma", "cao ni ma"),
    ("cao-ni-ma", "cao-ni-ma"),
    ("c a o n i m a", "c a o n i m a"),
    ("tamade zhen fan", "tamade"),
    ("ni zhen niubi", "niubi"),
    ("cnm", "cnm"),
    ("你真tmd烦", "tmd"),  // initials are scoped to Chinese: mixed text keeps them
    ("tmd", "tmd"),
    ("mlgb", "mlgb"),
    ("cao bi", "cao bi"),
  ])
  func pinyinFormsBlock(_ text: String, _ found: String) throws {
    let matches = try Self.blocks(text)
    #expect(matches.map(\.text) == [found], "\(text): \(matches.map(\.text))")
    #expect(matches.allSatisfy { Entry.category($0.entry.category ?? "", isWithin: "pinyin") })
  }

  /// English words that hold a pinyin form, names, a common English word that is a pinyin
  /// (`made`, 妈的), pinyin of ordinary Chinese, and numbers: none block. The pinyin of a common
  /// ordinary word (人气 popularity reads as 人妻, 游记 travelogue as 幼妓) is not an entry at all.
  @Test(arguments: [
    "a shabby sabbatical", "Shabbat shalom", "the caon ima", "Nima Arkani-Hamed", "Jinan", "women jintian qu chifan",
    "zhe ge dianying renqi hen gao", "wo xie le yi pian youji", "ta zhu zai Jinan", "yinse hen hao", "renqi", "youji",
    "Zhang Wei and Li Na", "made in China", "the cmd tool", "tm d", "price 138 yuan",
    "the CNM program",  // initials are Chinese chat's: not in English text
  ])
  func ordinaryTextPasses(_ text: String) throws {
    let matches = try Self.blocks(text)
    #expect(matches.isEmpty, "\(text): \(matches.map(\.text))")
  }

  /// A pinyin that ordinary Chinese reads as (音色 timbre as yin se, 吃 + 时 "when eating" as
  /// 吃屎), or that is a rare word of another language (`si bi`: Polish has `sibi`; Vietnamese
  /// `báo cáo`, report, is `bao cao`), is flagged for review rather than blocked.
  @Test(arguments: ["chi shi", "yin se", "jiba", "si bi", "Lỗi mới được báo cáo bằng e-mail"])
  func ambiguousFormsAreReviewed(_ text: String) throws {
    let matches = try #require(Self.pinyin).matches(in: text)
    #expect(!matches.isEmpty && matches.allSatisfy { $0.entry.action == .review }, "\(text): \(matches)")
  }

  // MARK: Written a syllable at a time (rule 34)

  static let withSyllables = builtInMatcher(["zh-pinyin.txt", "zh-pinyin-lexicon.txt"])

  /// Ordinary Chinese written a syllable at a time, where two neighbouring syllables spell a
  /// form (不错 比较 holds `cuo bi`, 三 小时 holds `san xiao`), passes; the insults still block,
  /// among syllables, English words or alone.
  @Test(arguments: [
    ("zhe ge hen bu cuo bi jiao hao", false), ("wo men mei bi yao qu", false), ("zuo le san xiao shi", false),
    ("ni shi sha bi", true), ("ni zhen shi ge sha bi a", true), ("you sha bi", true), ("sha bi", true),
    ("wo cao ni ma", true), ("bu cuobi jiao", true),
  ])
  func syllablesAroundAFormDecide(_ text: String, _ blocks: Bool) throws {
    let matches = try #require(Self.withSyllables).matches(in: text).filter { $0.entry.action == .block }
    #expect(matches.isEmpty != blocks, "\(text): \(matches.map(\.text))")
  }

  /// The list build keeps a spaced form that holds a shorter blocking form only where rule 34
  /// cuts the shorter one from the longer one's own syllables (`mao niu bi`: `mao niu` 牦牛 yak
  /// + `bi`), by a port of the engine's segmentation: the engine must agree on every such form.
  @Test func keptLongerFormsAreOnesTheEngineCuts() throws {
    let matcher = try #require(Self.withSyllables)
    let file = try String(
      contentsOf: repositoryRoot.appendingPathComponent("wordlists/global/zh-pinyin.txt"), encoding: .utf8)
    var blocking: Set<String> = []
    for line in file.split(separator: "\n")
    where !line.hasPrefix("#") && !line.hasPrefix("[") && !line.hasPrefix("review:") {
      blocking.insert(String(line))
    }
    var checked = 0
    for form in blocking.sorted() {
      let words = form.split(separator: " ")
      guard words.count >= 3 else { continue }
      var held: [String] = []
      for start in words.indices {
        for end in (start + 1)...words.count where end - start < words.count {
          let part = words[start..<end].joined(separator: " ")
          if blocking.contains(part) { held.append(part) }
        }
      }
      guard !held.isEmpty else { continue }
      checked += 1
      // Every match, overlapping ones included.
      let found = matcher.explain(form, kind: nil).report.matches.map(\.entry.text)
      #expect(found.contains(form) && held.allSatisfy { !found.contains($0) }, "\(form): \(found)")
    }
    #expect(checked >= 50)
  }
}
