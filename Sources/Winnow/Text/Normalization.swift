/// The normalization rules Winnow applies to text and to word-list entries before matching.
///
/// ```swift
/// var rules = Normalization.default
/// rules.remove(.lookalikes)        // a list of product codes: keep digits as they are
/// let list = WordList(name: "codes", entries: entries, normalization: rules)
/// ```
///
/// Each rule is switchable per word list. Entries are normalized by the same rules as the
/// text, so a list author writes words plainly (`fuck`, `傻逼`) and every variant the rules
/// fold matches. Whatever the rules do, a match is reported on the original characters.
///
/// `Normalization` is `Sendable`.
public struct Normalization: OptionSet, Sendable, Hashable {
  /// The rules as bits.
  public let rawValue: UInt16
  /// Rules from their bits.
  public init(rawValue: UInt16) { self.rawValue = rawValue }

  /// Compatibility folding (NFKC): full-width `ｆ` → `f`, circled `①` → `1`, `ⓕ` → `f`,
  /// math-styled `𝐟` → `f`; accents are stripped from Latin, Greek and Cyrillic letters
  /// (`fück` → `fuck`) and stacked decorative marks are dropped; Arabic-script vowel marks and
  /// the tatweel are dropped, alef with hamza or madda reads as alef, and Persian kaf and yeh
  /// as the Arabic letters (`كَـس` → `كس`, `کیر` → `كير`).
  public static let compatibility = Normalization(rawValue: 1 << 0)
  /// Unicode case folding (`FUCK` → `fuck`, `ß` → `ss`).
  public static let caseFolding = Normalization(rawValue: 1 << 1)
  /// Traditional → Simplified Chinese, character by character (`腦殘` → `脑残`, `傻逼` stays), and
  /// the Japanese shinjitai forms no Chinese text writes (`黒鬼` → `黑鬼`).
  public static let traditionalToSimplified = Normalization(rawValue: 1 << 2)
  /// Removal of zero-width and other invisible characters (U+200B, U+FEFF, soft hyphen, …).
  public static let invisibleCharacters = Normalization(rawValue: 1 << 3)
  /// Separators inserted inside a word are skipped: letters spelled one by one (`f.u.c.k`,
  /// `f u c k`, `ك س`, `1 2 3`), any separators between CJK characters (`傻 逼`, `傻*逼`), and
  /// apostrophes inside a word (`don't` → `dont`). Other separator runs become one space.
  public static let separators = Normalization(rawValue: 1 << 4)
  /// A single Latin letter or digit between two CJK characters is optional, as on the reference
  /// platform: `反v动` and `反3动` match `反动`, while `售k粉` still matches `k粉`.
  public static let interleavedLetters = Normalization(rawValue: 1 << 5)
  /// Repeated letters (Latin, Greek, Cyrillic, Arabic script …) and CJK characters match a single
  /// one (`fuuuck` matches `fuck`, `考试试试机构` matches `考试机构`, `طيززز` matches `طيز`),
  /// while a doubled one in an entry still needs at least two in the text (`ass` does not match
  /// `as`, `妈妈的` does not match `妈的`).
  public static let repeatedLetters = Normalization(rawValue: 1 << 6)
  /// Look-alikes: Cyrillic and Greek letters that imitate Latin ones (`а` → `a`), and digits or
  /// symbols inside a word that holds letters (`sh1t`, `$hit`, `@ss`, `h3ll0`).
  public static let lookalikes = Normalization(rawValue: 1 << 7)

  /// Every rule: what a moderation list wants.
  public static let `default`: Normalization = [
    .compatibility, .caseFolding, .traditionalToSimplified, .invisibleCharacters, .separators,
    .interleavedLetters, .repeatedLetters, .lookalikes,
  ]
  /// No rule: the text is matched as it is.
  public static let none: Normalization = []

  /// The rules by the names the command line and documentation use, in a fixed order.
  public static let named: [(name: String, rule: Normalization)] = [
    ("compatibility", .compatibility), ("case", .caseFolding), ("traditional", .traditionalToSimplified),
    ("invisible", .invisibleCharacters), ("separators", .separators), ("interleaved", .interleavedLetters),
    ("repeats", .repeatedLetters), ("lookalikes", .lookalikes),
  ]
}
