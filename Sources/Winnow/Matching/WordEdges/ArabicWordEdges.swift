/// Word edges for entries in the Arabic script (Arabic, Persian, Urdu, Pashto, …).
///
/// Arabic-script words carry clitics written joined to them: `ال` (the), `و` (and), `ب` (with),
/// `ل` (for) before a word, pronouns after it (`ها` her, `ك` your, Persian `م` my, plural `ها`).
/// A whole-word rule alone would miss `الطيز` and `طيزها`; no rule at all lets two letters of an
/// entry match inside any word that contains them (`لعق`, to lick, inside `العقل`, the mind;
/// `كس` inside `عكس`, reverse). So an Arabic-script edge of a whole-word entry meets the word
/// only across a clitic: the letters between the start of the text's word and the match must be
/// one of ``prefixes``, and those between the match and the end of the word one of
/// ``suffixes`` (either may be empty). Both are closed sets of the grammar, written here in
/// folded form, not chosen by corpus. A letter repeated in the text reads as one there too, as
/// everywhere (`طيزهه` as `طيزه`). Entries written `sub:` still match anywhere.
///
/// Left out on purpose: the imperfect verb prefixes (`ي`, `ت`, `ن`, `ا`), which would let
/// every short entry match after the first letter of thousands of words (`ينيك` is missed),
/// and the feminine `ة` and plural `ات` endings, which make other words (`جماعة`, group,
/// from `جماع`).
enum ArabicWordEdges {
  /// The bits this rule owns.
  static let owned = PatternCheck.arabicStart | PatternCheck.arabicEnd | PatternCheck.persianEnd

  /// The checks a pattern of `entry` (normalized as `normalized`) asks of this rule: a
  /// whole-word entry whose first (last) letter is of the Arabic script.
  static func checks(of entry: Entry, _ normalized: NormalizedEntry) -> UInt8 {
    guard entry.boundary != .substring else { return 0 }
    var checks: UInt8 = 0
    if normalized.firstClass == .arabicLetter { checks |= PatternCheck.arabicStart }
    if normalized.lastClass == .arabicLetter {
      checks |= PatternCheck.arabicEnd
      if isPersianSpelling(entry.text) { checks |= PatternCheck.persianEnd }
    }
    return checks
  }

  /// Why a candidate fails this rule's checks of `checks` (``MatcherLayer/Rejection/none``: it
  /// does not); `runs` are its pattern's minimum repeat counts (empty when all are 1). Copies
  /// of an edge letter beyond the entry's own may belong to the clitic (`اللعق`).
  @inline(__always)
  static func rejection(of candidate: EdgeCandidate, checks: UInt8, runs: [UInt16]) -> MatcherLayer.Rejection {
    let (start, end) = (candidate.start, candidate.end)
    func extra(_ offset: Int) -> Int {
      max(0, Int(candidate.text[candidate.unit(start + offset)].run) - Int(runs.isEmpty ? 1 : runs[offset]))
    }
    if checks & PatternCheck.arabicStart != 0, !beginsWord(at: start, in: candidate.scalars, extra: extra(0)) {
      return .startInsideWord
    }
    if checks & PatternCheck.arabicEnd != 0,
      !endsWord(
        at: end, in: candidate.scalars, extra: extra(end - start - 1), persian: checks & PatternCheck.persianEnd != 0)
    {
      return .endInsideWord
    }
    return .none
  }

  /// Proclitics and their combinations: conjunctions `و` `ف`, prepositions `ب` `ل` `ك`, the
  /// article `ال` (`لل` after `ل`).
  static let prefixes: [String] = [
    "و", "ف", "ب", "ل", "ك", "ال", "لل", "وال", "فال", "بال", "كال", "ولل", "فلل", "وب", "فب", "ول", "فل",
    "وك", "فك", "وبال", "فبال", "وكال", "فكال",
  ]

  /// Pronoun enclitics (Arabic and Persian), the Arabic accusative `ا`, the colloquial Persian
  /// endings `ه` (is, the) and `و` (the object), each optionally after the Persian plural `ها` /
  /// `هاي`. Folded: Persian `ی` is written `ي`, as normalization folds it.
  static let suffixes: [String] = withPlural(pronouns)

  /// The suffixes of an entry spelled as Persian (``isPersianSpelling(_:)``): ``suffixes``
  /// without the pronouns only Arabic joins to a word, ``arabicOnlyPronouns``. Persian writes
  /// `تخمینی` (estimated), not `تخمی` (crappy) with the Arabic `ني` (me).
  static let persianSuffixes: [String] = withPlural(pronouns.filter { !arabicOnlyPronouns.contains($0) })

  private static let pronouns = [
    "", "ه", "ها", "هم", "هما", "هن", "ك", "كم", "كن", "كما", "ي", "ني", "نا", "ا",
    "م", "ت", "ش", "مان", "تان", "شان", "مون", "تون", "شون", "ام", "ات", "اش", "اي", "يي", "و",
  ]
  /// Arabic's pronouns of the first person (`ني` me, `نا` us), the second (`ك`, `كم`, `كن`,
  /// `كما`; Persian says `ت`, `تان`) and the dual and feminine plural of the third (`هما`, `هن`).
  static let arabicOnlyPronouns: Set<String> = ["ني", "نا", "ك", "كم", "كن", "كما", "هما", "هن"]

  private static func withPlural(_ pronouns: [String]) -> [String] {
    ["", "ها", "هاي"].flatMap { plural in pronouns.map { plural + $0 } }.filter { !$0.isEmpty }
  }

  /// Whether an entry, as written, has a letter that Persian writes and Arabic does not: `پ`
  /// `چ` `ژ` `گ`, and the Persian `ک` and `ی`, which normalization folds to the Arabic ones.
  static func isPersianSpelling(_ text: String) -> Bool {
    text.unicodeScalars.contains { [0x067E, 0x0686, 0x0698, 0x06AF, 0x06A9, 0x06CC].contains($0.value) }
  }

  private static let prefixKeys = Set(prefixes.map(key))
  private static let suffixKeys = Set(suffixes.map(key))
  private static let persianSuffixKeys = Set(persianSuffixes.map(key))
  private static let longestPrefix = prefixes.map(\.unicodeScalars.count).max() ?? 0
  private static let longestSuffix = suffixes.map(\.unicodeScalars.count).max() ?? 0

  /// Whether a scalar is a letter of the Arabic script (its marks are folded away before
  /// matching; digits and punctuation are not letters).
  @inline(__always)
  static func isLetter(_ scalar: UInt32) -> Bool {
    switch scalar {
    case 0x0620...0x064A, 0x066E...0x06D3, 0x06D5, 0x06EE...0x06EF, 0x06FA...0x06FC, 0x06FF, 0x0750...0x077F,
      0x08A0...0x08C9:
      true
    default: false
    }
  }

  /// Whether the Arabic letters right before `start` (back to the start of their word) are
  /// nothing or a proclitic. `extra` is how many more times the text repeats the candidate's
  /// first letter than the entry writes it (repeats merge into one unit): any number of those
  /// copies may end the proclitic (`ال` + `لعق` is written `اللعق`), the rest stretch the
  /// entry's letter (`ططيز`).
  static func beginsWord(at start: Int, in scalars: UnsafeBufferPointer<UInt32>, extra: Int) -> Bool {
    var first = start
    while first > 0, isLetter(scalars[first - 1]) {
      first -= 1
      if start - first > longestPrefix { return false }
    }
    if first == start { return true }
    let before = key(scalars[first..<start])
    return (0...min(extra, longestPrefix - (start - first))).contains { copies in
      prefixKeys.contains(appending(scalars[start], times: copies, to: before))
    }
  }

  /// Whether the Arabic letters right after `end` (up to the end of their word) are nothing
  /// or a suffix (one of ``persianSuffixes`` when `persian`); any number of the `extra` copies
  /// of the candidate's last letter may begin it, as in ``beginsWord(at:in:extra:)``.
  static func endsWord(at end: Int, in scalars: UnsafeBufferPointer<UInt32>, extra: Int, persian: Bool = false) -> Bool
  {
    var last = end
    while last < scalars.count, isLetter(scalars[last]) {
      last += 1
      if last - end > longestSuffix { return false }
    }
    if last == end { return true }
    let after = key(scalars[end..<last])
    return (0...min(extra, longestSuffix - (last - end))).contains { copies in
      let suffix = appending(scalars[end - 1], times: copies, to: 0) << (10 * UInt64(last - end)) | after
      return persian ? persianSuffixKeys.contains(suffix) : suffixKeys.contains(suffix)
    }
  }

  private static func appending(_ letter: UInt32, times: Int, to key: UInt64) -> UInt64 {
    (0..<times).reduce(key) { key, _ in key << 10 | UInt64(letter &- 0x05FF) & 0x3FF }
  }

  /// Up to six letters as one number, 10 bits each (offsets from U+05FF, below 1024): no
  /// prefix or suffix is longer, and the callers never build a longer key.
  private static func key<Letters: Sequence<UInt32>>(_ letters: Letters) -> UInt64 {
    letters.reduce(0) { $0 << 10 | UInt64($1 &- 0x05FF) & 0x3FF }
  }

  private static func key(_ text: String) -> UInt64 { key(text.unicodeScalars.map(\.value)) }
}
