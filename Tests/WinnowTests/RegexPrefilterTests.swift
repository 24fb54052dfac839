import PropertyBased
import Testing

@_spi(Tools) @testable import Winnow

/// The regex prefilter: which literal a regex requires, and that running a regex only where
/// its literal was found changes no result.
@Suite("Regex prefilter")
struct RegexPrefilterTests {
  @Test(
    arguments: [
      ("傻.{0,2}逼", "傻"),
      ("fu+ck", "fu"),
      ("b[a4]d\\s*word", "word"),
      ("sh[i1!]t", "sh"),
      ("colou?r", "colo"),
      ("(foo|bar)baz", "baz"),
      ("\\bsex\\b", "sex"),
      ("a\\.b", "a.b"),
      ("x*y?z{2}", nil),
      ("abc|def", nil),
      ("(?i)abc", nil),
      ("\\x{50}ay", nil),
      ("[)]abc", "abc"),
      ("(a[)]b)cd", "cd"),
    ] as [(String, String?)])
  func requiredLiteral(pattern: String, expected: String?) {
    #expect(RegexProgram.requiredLiteral(of: pattern) == expected)
  }

  @Test func literalThatNormalizationChangesIsNoPrefilter() {
    let normalizer = Normalizer()
    #expect(!MatcherLayer.prefilterLiterals(for: "word.*", normalizer: normalizer).isEmpty)
    // `腦` folds to `脑`: the walk would not see it.
    #expect(MatcherLayer.prefilterLiterals(for: "腦.*殘", normalizer: normalizer).isEmpty)
    // `ss` merges into one counted unit: the longest piece without a doubled letter stands in.
    #expect(
      MatcherLayer.prefilterLiterals(for: "ass.*", normalizer: normalizer) == [Array("as".unicodeScalars.map(\.value))])
    #expect(
      MatcherLayer.prefilterLiterals(for: "x.{0,2}售qq", normalizer: normalizer) == [
        Array("售q".unicodeScalars.map(\.value))
      ])
  }

  // `7`: a digit, which repeats do not merge (`77` stays two units).
  static let atoms = ["a", "b", "s", "i", "7", "傻", "逼", ".", "\\s", "[ab]", "(a|傻)", "\\."]
  static let quantifiers = ["", "", "", "?", "*", "+", "{0,2}"]
  static let regexGen = zip(Gen.int(in: 0...(atoms.count - 1)), Gen.int(in: 0...(quantifiers.count - 1)))
    .map { atoms[$0.0] + quantifiers[$0.1] }.array(of: 1...5).map { $0.joined() }
  static let textAlphabet = ["a", "b", "s", "S", "1", "i", "7", " ", ".", "傻", "逼", "_", "ｓ"]
  static let textGen = Gen.int(in: 0...(textAlphabet.count - 1)).map { textAlphabet[$0] }.array(of: 0...30)
    .map { $0.joined() }

  /// Reference: the same regex wrapped in `(?:…)`, which the prefilter does not read, so it
  /// runs on every text.
  @Test func prefilteredRegexFindsWhatAnUnfilteredOneFinds() async {
    var compared = 0
    await propertyCheck(count: 500, input: Self.regexGen, Self.textGen) { pattern, text in
      let filtered = try? Matcher(lists: [WordList(name: "f", origin: .custom, parsing: "re:" + pattern)])
      let reference = try? Matcher(lists: [WordList(name: "r", origin: .custom, parsing: "re:(?:" + pattern + ")")])
      #expect((filtered == nil) == (reference == nil), "\(pattern)")
      guard let filtered, let reference else { return }  // matches the empty string: refused alike
      compared += 1
      #expect(filtered.overlappingMatches(in: text).map(\.range) == reference.overlappingMatches(in: text).map(\.range))
    }
    #expect(compared >= 200, "\(compared) of 500 regexes compiled")
  }

  @Test(arguments: [
    (#"(\w+)\s\1"#, ["a backreference"]), (#"(?P<w>a)(?P=w)"#, ["a backreference"]), (#"\k<w>"#, ["a backreference"]),
    ("(a+)+b", ["a repeated group that holds a repeat"]), (#"(\w*x)*"#, ["a repeated group that holds a repeat"]),
    ("((ab)+c)*", ["a repeated group that holds a repeat"]), (#"(a|b)+\1"#, ["a backreference"]),
    (#"(\d+)\s\1(x*)+"#, ["a backreference", "a repeated group that holds a repeat"]),
    (#"b[a4]d\s*w[o0]rd"#, []), (#"\d{11}"#, []), ("(ab)+", []), ("(a+)b", []), ("[(+]+x", []), (#"\(a+\)+"#, []),
    ("傻.{0,2}逼", []),
  ])
  func backtrackingRisksAreTold(pattern: String, risks: [String]) {
    #expect(RegexProgram.backtrackingRisks(of: pattern) == risks)
  }

  /// Adjacent repeats have no risk the pattern's text shows, and still stop on a short
  /// message: the probes find them; ordinary patterns finish on every probe.
  @Test(arguments: [
    (#"\w*\w*\w*\w*\w*z"#, "letters"), (#"\d*\d*\d*\d*\d*x"#, "digits"), (#"b[a4]d\s*w[o0]rd"#, nil),
    (#"\d{11}"#, nil), ("傻.{0,2}逼", nil), (#"(?:\w+\s?)+!"#, "words between spaces"),
  ])
  func probesFindRegexesThatStop(pattern: String, probe: String?) {
    #expect(RegexProgram.stoppingProbe(of: pattern) == probe)
  }
}
