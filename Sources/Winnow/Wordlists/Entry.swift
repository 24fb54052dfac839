/// One entry of a word list: what to look for, and what a match means.
///
/// ```swift
/// let entry = Entry(text: "badword", action: .replace("***"))
/// entry.line   // "badword => ***", as it is written in a list file
/// ```
///
/// `Entry` is a `Sendable` value.
public struct Entry: Sendable, Hashable {
  /// How an entry's text is matched.
  public enum Kind: String, Sendable, Hashable {
    /// Literal text, normalized like the text it is matched against.
    case literal
    /// A PCRE2 pattern, matched against the normalized text.
    case regex
    /// A PCRE2 pattern matched against the original text, as written (`raw:`): for what
    /// normalization would change or hide, like the `@` and dots of an e-mail address, the
    /// separators of a phone number, or a URL. Caseless when the lists fold case, as `re:`.
    case rawRegex = "raw"
  }

  /// What a match of the entry does.
  public enum Action: Sendable, Hashable {
    /// The item is blocked.
    case block
    /// The match is flagged for review rather than blocking: the item is sent to the
    /// third-party reviewer when one is configured, and otherwise delivered with the match
    /// reported (``ModerationResult/flagged``). For words with an ordinary sense (黄色 yellow,
    /// `lust`) and policy terms (political names), where a block would stop ordinary talk.
    /// Written `review:` before an entry, or the default of a `[category: review]` section.
    case review
    /// The matched characters are replaced by this text and the item goes on.
    case replace(String)
    /// Matches of other entries that lie inside a match of this one are not reported
    /// (`allow:scunthorpe` keeps `cunt` from firing inside it).
    case allow
    /// A word of the lexicon (`lexicon:入住`, or `lexicon:入住 3.9` with its Zipf frequency):
    /// it matches nothing itself, and tells where CJK words end, for entries written with
    /// `word:` (see ``Boundary/dictionaryWord``) and for whole-word Han entries, which do not
    /// match where a likelier reading of the characters around them cuts them (叫做|爱 is not
    /// 做爱). Only lexicon words of one to three characters are read, and readings of pinyin
    /// syllables (`lexicon:bi jiao 5.1`: ASCII letters, one space between syllables), which
    /// tell the same for spaced Latin entries in text written a syllable at a time (see
    /// `SyllableWordEdges`).
    case lexicon
  }

  /// Where a literal entry may match.
  public enum Boundary: String, Sendable, Hashable {
    /// An edge of the entry that is a Latin, Greek or Cyrillic letter or a digit must meet a word
    /// boundary in the text (`av` does not match inside `Java`, `123` not inside `123467`). An
    /// edge that is an Arabic-script letter meets its word or a clitic joined to it: only an
    /// article, conjunction or preposition (`ال`, `و`, `ب`, `لل`, …) may come before it in
    /// the word, only a pronoun or plural ending (`ها`, `ك`, `ی`, `م`, …) after it (`طيز`
    /// matches in `الطيز` and `طيزها`, `لعق` not inside `العقل`). Edges in other scripts match
    /// anywhere. The default for block and replace entries.
    case word
    /// Anywhere, even inside a longer word. The default for allow entries.
    case substring
    /// A whole word in every script: the Latin edges as in ``word``, and a CJK edge must not
    /// make a word of the lexicon with the characters beside it. Written `word:` before a block
    /// or replace entry. `word:日入` does not match in `18日入住` when `入住` (check in) is a
    /// lexicon word, nor in `今日入账` when `今日` (today) is, but does match in `日入过万`.
    /// Chinese has no spaces, so this is how a short entry that is not itself a word tells its
    /// own occurrences from two neighbouring words that happen to meet. For allow entries it is
    /// the same as ``word``.
    case dictionaryWord
  }

  /// The text of the entry as written, without its prefixes (`re:`, `allow:`, `sub:`).
  public var text: String
  /// Block, review, replace, allow or lexicon.
  public var action: Action
  /// The category (`profanity`, `drugs`, …) from the list's `[section]`, if any.
  public var category: String?
  /// Where the entry was read from, if it came from a file.
  @_spi(Tools) public var source: SourceLocation?
  /// The language of the text the entry applies to (`nl`, from a `[category: lang=nl]`
  /// section), or nil for text in any language. A word that is also a common word of another
  /// language (Dutch `nicht` is German *not*) is given its language, and then does not match in
  /// text written in another language: text where the most frequent words of some other
  /// language outnumber its own (see ``Matcher``).
  public var language: String?
  /// With a ``language``, the other languages whose common word the entry also is (`de` and
  /// `nl` from `[category: lang=en, also=de+nl]`): it then does not match where the text is
  /// written in one of these languages (one counts the most words, more than its own), and
  /// matches where it is written in any other (English `dick` is German *thick*, not a Spanish
  /// word: `eres un dick` is read as Spanish and still matches). Empty: any other language
  /// outnumbering its own keeps it from matching.
  public var alsoWordOf: [String] = []
  // The one-byte fields together, after the eight-byte ones: declared among them they padded
  // each entry to 16 bytes more (ten thousand apps' lists hold 2.7 million entries).
  /// Literal or regex.
  public var kind: Kind
  /// Whole-word or substring matching (literal entries only).
  public var boundary: Boundary
  /// Whether the entry's word is also a proper name (`Dick`, `Fanny`, `Johnson`: a
  /// `[category: name]` section). A block match written in title case as part of a name
  /// (`Moby Dick`, `Philip K. Dick`, `Dick Cheney`: next to another title-case word that is not
  /// one of the most frequent words of a language, or to an initial) is reported as a review
  /// match rather than blocking (see ``Matcher``).
  public var isAlsoName: Bool = false
  /// Whether the entry is an insult too ordinary to block alone (`白痴`, `去死`, `moron`: an
  /// `[category: review, insult]` section). A review match of it blocks where it is aimed at
  /// someone: an addressee word before it in the same sentence (`你这个白痴`, `you're such a
  /// moron`) or, in Chinese, `你` just after it (`去死吧你`); see ``Matcher``. `我真是个白痴` and
  /// `the idiot box` stay flagged.
  public var isInsult: Bool = false
  /// For a lexicon entry written `lexicon:WORD ZIPF`, its Zipf frequency in tenths (see
  /// ``Segmentation``); nil otherwise.
  var lexiconWeight: UInt8? = nil

  /// Creates an entry. The boundary defaults to whole-word, or substring for allow entries.
  public init(
    text: String, kind: Kind = .literal, action: Action = .block, boundary: Boundary? = nil,
    category: String? = nil, language: String? = nil
  ) {
    self.init(
      text: text, kind: kind, action: action, boundary: boundary, category: category, source: nil, language: language)
  }

  /// Creates an entry read from `source`.
  @_spi(Tools) public init(
    text: String, kind: Kind = .literal, action: Action = .block, boundary: Boundary? = nil,
    category: String? = nil, source: SourceLocation?, language: String? = nil
  ) {
    self.text = text
    self.kind = kind
    self.action = action
    self.boundary = boundary ?? (action == .allow || action == .lexicon ? .substring : .word)
    self.category = category
    self.source = source
    self.language = language
  }

  /// Creates an entry with its flags, as a compiled list holds it: built whole, it is not
  /// copied to be changed.
  init(
    text: String, kind: Kind, action: Action, boundary: Boundary, category: String?, source: SourceLocation?,
    language: String?, alsoWordOf: [String], isAlsoName: Bool, isInsult: Bool
  ) {
    self.text = text
    self.kind = kind
    self.action = action
    self.boundary = boundary
    self.category = category
    self.source = source
    self.language = language
    self.alsoWordOf = alsoWordOf
    self.isAlsoName = isAlsoName
    self.isInsult = isInsult
  }

  /// Whether `category` is `name` or one of its subcategories (`contact.phone` is within
  /// `contact`): what a category setting (`--exclude-category`, `--category-action`) names.
  public static func category(_ category: String, isWithin name: String) -> Bool {
    category == name
      || (category.utf8.count > name.utf8.count && category.hasPrefix(name)
        && category.utf8[category.utf8.index(category.utf8.startIndex, offsetBy: name.utf8.count)] == UInt8(ascii: "."))
  }

  /// The entry's text with the prefix of its kind (`re:`, `raw:`), as reports name it.
  package var prefixedText: String {
    switch kind {
    case .literal: text
    case .regex: "re:" + text
    case .rawRegex: "raw:" + text
    }
  }

  /// The entry as one line of a list file (without its category and language, which are the
  /// section's).
  public var line: String {
    var line = ""
    if action == .allow { line += "allow:" }
    if action == .lexicon { line += "lexicon:" }
    if action == .review { line += "review:" }
    if kind == .regex { line += "re:" }
    if kind == .rawRegex { line += "raw:" }
    if kind == .literal && boundary == .substring && action != .allow && action != .lexicon { line += "sub:" }
    if kind == .literal && boundary != .substring && action == .allow { line += "word:" }
    if kind == .literal && boundary == .dictionaryWord && action != .allow && action != .lexicon { line += "word:" }
    if line.isEmpty && WordListFile.needsEscape(text) { line += "\\" }
    line += text
    if case .replace(let replacement) = action { line += " => " + replacement }
    if action == .lexicon, let lexiconWeight { line += " " + String(Double(lexiconWeight) / 10) }
    return line
  }
}

/// A place in a word-list file: its path (or name) and 1-based line number.
@_spi(Tools) public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
  /// The file's path, or a name for a list that did not come from a file.
  public var file: String
  /// The 1-based line number.
  public var line: Int

  /// Creates a location.
  public init(file: String, line: Int) {
    self.file = file
    self.line = line
  }

  /// `file:line`.
  public var description: String { "\(file):\(line)" }
}

extension Entry.Action {
  /// Whether the action replaces the matched characters.
  package var isReplace: Bool { if case .replace = self { true } else { false } }
}

extension Entry {
  /// A lexicon entry as the matcher gathers it: the word, and its Zipf frequency after a space
  /// when the line gave one (`入住 3.9`).
  var lexiconWord: String {
    guard let lexiconWeight else { return text }
    return text + " " + String(Double(lexiconWeight) / 10)
  }

  /// The word and weight (Zipf frequency in tenths, 30 when none is given) of what
  /// ``lexiconWord`` wrote.
  static func lexiconWordAndWeight(_ written: String) -> (word: String, weight: UInt8) {
    guard let space = written.lastIndex(of: " "), let weight = lexiconWeight(written[written.index(after: space)...])
    else { return (written, 30) }
    return (String(written[..<space]), weight)
  }

  /// A Zipf frequency (0 to 9, at most one decimal read) in tenths; nil for anything else.
  static func lexiconWeight(_ text: Substring) -> UInt8? {
    guard let zipf = Double(text), zipf.isFinite, zipf >= 0, zipf <= 9 else { return nil }
    return UInt8((zipf * 10).rounded())
  }

  /// The longest entry text (and replacement) accepted, in bytes of UTF-8. Lists are read and
  /// compiled in time and memory that grow with the square of an entry's length, so a list
  /// line longer than this is an error (``WordListError/Kind/tooLong(_:)``) rather than minutes
  /// of work; real entries are words and short phrases (the longest of the built-in lists is
  /// about 140 bytes).
  public static let maximumLength = 1024

  /// The longest of its text and its replacement, in bytes of UTF-8.
  var longestPart: Int {
    if case .replace(let replacement) = action { return max(text.utf8.count, replacement.utf8.count) }
    return text.utf8.count
  }
}
