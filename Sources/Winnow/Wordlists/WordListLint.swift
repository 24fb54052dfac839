/// A problem `winnow words lint` reports about one line of a list.
@_spi(Tools) public struct LintFinding: Sendable, Hashable, CustomStringConvertible {
  /// The file and line.
  public var location: SourceLocation
  /// What is wrong, in lower case.
  public var message: String

  /// `file:line: message`.
  public var description: String { "\(location): \(message)" }
}

/// Checks word lists for what makes them wrong, slow or noisy, beyond syntax.
///
/// Findings, each as `file:line: message`:
/// - lines that do not parse, and regexes that PCRE2 rejects (their message);
/// - regexes that can never match normalized text (they require `腦` or a doubled letter, see
///   ``regexNeverMatches(_:normalizer:)``);
/// - duplicates: an entry that is written the same as an earlier one, or normalizes to the
///   same text (`ｆｕｃｋ` and `fuck`, `腦殘` and `脑残`);
/// - redundant entries: a block entry that always contains another block entry where that one
///   matches (`傻逼玩意` with `傻逼` listed, `fuck you` with whole-word `fuck`), so it never
///   changes a verdict;
/// - regexes that may backtrack without bound (a backreference, a repeated group that holds a
///   repeat): on a long text their check stops at its limits, and the result says so;
/// - entries too short to be safe: one Latin letter or one digit;
/// - in a custom list, entries longer than the platform's 32-character limit for custom words;
/// - in a global list, replace entries (the platform's global list only blocks).
@_spi(Tools) public enum WordListLint {
  /// The platform's limit on a custom sensitive word, in characters.
  public static let customWordLimit = 32

  /// Lints files as lists of `origin`; findings in file order, then line order.
  public static func lint(_ files: [WordListFile], origin: WordList.Origin, normalization: Normalization = .default)
    -> [LintFinding]
  {
    let normalizer = Normalizer(rules: normalization)
    var findings: [LintFinding] = []
    struct Key: Hashable {
      var scalars: [UInt32]
      var kind: Entry.Kind
      var boundary: Entry.Boundary
      var action: String
    }
    var first: [Key: (SourceLocation, String)] = [:]
    var blocks: [(entry: Entry, normalized: NormalizedEntry)] = []
    for file in files {
      for (index, line) in file.lines.enumerated() {
        let location = SourceLocation(file: file.path, line: index + 1)
        switch line.content {
        case .invalid(let error):
          findings.append(LintFinding(location: location, message: error.cause))
        case .entry(let entry):
          let place = entry.source ?? location
          let normalized = entry.kind == .literal ? normalizer.normalizeEntry(entry.text) : nil
          let scalars = normalized?.scalars ?? entry.text.unicodeScalars.map(\.value)
          let action: String
          switch entry.action {
          case .block: action = "block"
          case .review: action = "review"
          case .allow: action = "allow"
          case .lexicon: action = "lexicon"
          case .replace(let replacement):
            action = "replace"
            if origin == .global {
              findings.append(
                LintFinding(
                  location: place,
                  message:
                    "replace entry in a global list: the global list only blocks (\"=> \(replacement)\" is ignored by the platform)"
                ))
            }
          }
          let key = Key(scalars: scalars, kind: entry.kind, boundary: entry.boundary, action: action)
          if let (earlier, text) = first[key] {
            let how = text == entry.text ? "duplicate of" : "normalizes to the same entry as \"\(text)\" at"
            findings.append(LintFinding(location: place, message: "\(how) \(earlier)"))
            continue
          }
          first[key] = (place, entry.text)
          // What compiling rejects (lexicon words are not compiled: the check below covers them).
          if entry.kind == .literal, entry.action != .lexicon, normalized == nil {
            findings.append(
              LintFinding(location: place, message: WordListError(.normalizesToNothing(entry.text), at: place).cause))
          }
          if let problem = regexProblem(entry, normalization: normalization)
            ?? regexNeverMatches(entry, normalizer: normalizer)
          {
            findings.append(LintFinding(location: place, message: problem))
          }
          if entry.kind != .literal, case let risks = RegexProgram.backtrackingRisks(of: entry.text), !risks.isEmpty {
            findings.append(
              LintFinding(
                location: place,
                message:
                  "regex may backtrack without bound: it has \(risks.joined(separator: " and ")); on a long text its check stops at its limits"
              ))
          } else if entry.kind != .literal,
            let probe = RegexProgram.stoppingProbe(of: entry.text, caseless: normalization.contains(.caseFolding))
          {
            findings.append(
              LintFinding(
                location: place,
                message:
                  "regex backtracks catastrophically: its check stopped at its limits on 1,000 \(probe), and a stopped check leaves an item's answer unknown (--on-incomplete)"
              ))
          }
          if let normalized, normalized.scalars.count == 1,
            normalized.firstClass == .digit || (normalized.firstClass == .letter && normalized.scalars[0] < 0x250)
          {
            findings.append(
              LintFinding(
                location: place,
                message: "too short to be safe: a single \(normalized.firstClass == .digit ? "digit" : "Latin letter")")
            )
          }
          if entry.action == .lexicon, entry.kind == .literal, !(1...3).contains(normalized?.scalars.count ?? 0),
            !SyllableWordEdges.isReading(normalized?.scalars ?? [])
          {
            let count = normalized?.scalars.count ?? 0
            let length = count == 0 ? "nothing" : count == 1 ? "one character" : "\(count) characters"
            findings.append(
              LintFinding(
                location: place,
                message:
                  "lexicon word is not read: it normalizes to \(length), and only words of one to three (or syllables of ASCII letters) are read"
              ))
          }
          if origin == .custom, entry.action != .lexicon, entry.text.count > customWordLimit {
            findings.append(
              LintFinding(
                location: place,
                message:
                  "longer than the platform's \(customWordLimit)-character limit for custom words (\(entry.text.count))"
              ))
          }
          if entry.kind == .literal, entry.action == .block, let normalized { blocks.append((entry, normalized)) }
        default:
          break
        }
      }
    }
    findings += redundant(blocks)
    return findings.sorted {
      ($0.location.file, $0.location.line, $0.message) < ($1.location.file, $1.location.line, $1.message)
    }
  }

  /// Why PCRE2 rejects a regex entry (`invalid regex at offset 1: missing closing
  /// parenthesis`); nil for a good regex or a literal entry.
  public static func regexProblem(_ entry: Entry, normalization: Normalization = .default) -> String? {
    guard entry.kind != .literal else { return nil }
    do { _ = try RegexProgram(pattern: entry.text, caseless: normalization.contains(.caseFolding)) } catch {
      return WordListError(error.kind, at: SourceLocation(file: "", line: 0)).cause
    }
    return nil
  }

  /// Why a regex entry can never match, or nil. Regexes run on normalized text, and every
  /// match contains the regex's required literal (``RegexProgram/requiredLiteral(of:)``); but
  /// normalized text never holds a word character that normalization changes (`腦` is always
  /// `脑` there, `ｓ` is `s`), nor, under ``Normalization/repeatedLetters``, the same letter
  /// twice in a row (`ss` is one unit). A regex requiring either is dead.
  static func regexNeverMatches(_ entry: Entry, normalizer: Normalizer) -> String? {
    guard entry.kind == .regex, let literal = RegexProgram.requiredLiteral(of: entry.text) else { return nil }
    let written = normalizer.rules.contains(.caseFolding) ? literal.lowercased() : literal
    let scalars = Array(written.unicodeScalars)
    for (index, scalar) in scalars.enumerated() {
      let scalarClass = ScalarClass.of(scalar.value)
      guard scalarClass == .letter || scalarClass == .unspaced || scalarClass == .other || scalarClass == .arabicLetter
      else { continue }
      let folded = normalizer.normalize(String(scalar)).string
      if folded != String(scalar) {
        return "regex never matches: it requires \"\(scalar)\", which normalized text always writes \"\(folded)\""
      }
      if normalizer.rules.contains(.repeatedLetters), scalarClass == .letter, index > 0, scalars[index - 1] == scalar {
        return
          "regex never matches: it requires \"\(scalar)\(scalar)\", and repeated letters are one letter in normalized text (write \"\(scalar)+\")"
      }
    }
    return nil
  }

  /// Block entries that contain another block entry at a place where that one matches
  /// whatever the text around it.
  private static func redundant(_ blocks: [(entry: Entry, normalized: NormalizedEntry)]) -> [LintFinding] {
    guard blocks.count > 1,
      let automaton = try? AhoCorasick(scalarPatterns: blocks.map(\.normalized.scalars))
    else { return [] }
    var findings: [LintFinding] = []
    for (index, block) in blocks.enumerated() {
      let scalars = block.normalized.scalars
      var container: Int?
      scalars.withUnsafeBufferPointer { buffer in
        automaton.forEachMatch(in: buffer) { pattern, end in
          guard container == nil, pattern != index else { return }
          let inner = blocks[pattern]
          let length = inner.normalized.scalars.count
          guard length < scalars.count else { return }
          // An inner entry that the text around it can keep from matching (its language, a
          // name, the lexicon of a `word:` entry) does not cover the outer. (A Han entry's
          // segmentation is not counted: a word that cuts it inside the outer entry is made of
          // the outer entry's characters, or crosses the outer entry's edge too.)
          if inner.entry.language != nil
            && (inner.entry.language != block.entry.language || inner.entry.alsoWordOf != block.entry.alsoWordOf)
          {
            return
          }
          if inner.entry.isAlsoName && !block.entry.isAlsoName { return }
          if inner.entry.boundary == .dictionaryWord { return }
          let start = end - length
          if inner.entry.boundary == .word {
            if inner.normalized.firstClass.isWordCharacter, start > 0,
              ScalarClass.of(scalars[start - 1]).isWordCharacter
            {
              return
            }
            if inner.normalized.lastClass.isWordCharacter, end < scalars.count,
              ScalarClass.of(scalars[end]).isWordCharacter
            {
              return
            }
          }
          // A repeat count the inner entry needs (`ass` needs two s) must be met inside.
          if !inner.normalized.runs.isEmpty {
            let outerRuns =
              block.normalized.runs.isEmpty ? Array(repeating: 1, count: scalars.count) : block.normalized.runs
            for offset in 0..<length where inner.normalized.runs[offset] > outerRuns[start + offset] { return }
          }
          container = pattern
        }
      }
      if let container {
        let inner = blocks[container].entry
        let place = inner.source.map { " at \($0)" } ?? ""
        findings.append(
          LintFinding(
            location: block.entry.source ?? SourceLocation(file: "", line: 0),
            message: "redundant: \"\(inner.text)\"\(place) already blocks every text this entry matches"))
      }
    }
    return findings
  }
}
