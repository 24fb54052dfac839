import Foundation

/// A word-list file as text: every line kept, so that writing it back reproduces the file
/// byte for byte, comments and order included. The shell tools edit lists through it.
///
/// ```text
/// # comment
/// [profanity]              a section: the entries below get this category ([] clears it)
/// [politics: review]       … and review, not block, is the default action of its entries
/// [profanity: lang=nl]     … and its entries match only in Dutch text (Entry.language)
/// [p: lang=en, also=de]    … only where German does not outnumber English (Entry.alsoWordOf)
/// [sexual: name]           … and its words are also names (Entry.isAlsoName)
/// badword                  block (or the section's default); Latin words match whole words
/// review:badword           flag for review instead of blocking (see Entry.Action.review)
/// block:badword            block, in a review section
/// badword => ***           replace the match with ***
/// sub:badword              match inside longer words too
/// re:b[a4]d\s*w[o0]rd      a PCRE2 pattern, matched on normalized text
/// allow:scunthorpe         matches inside this span are not reported (substring by default)
/// allow:word:class         … the same, but only as a whole word
/// \#notacomment            a backslash takes the rest of the line literally (no prefixes)
/// ```
///
/// Surrounding white space is ignored. A replace entry splits at the first ` => `. A line that
/// cannot be read is kept as ``Line/Content/invalid(_:)`` with its error; the lines after it
/// are read as usual, so one typo never hides the rest of a list.
///
/// `WordListFile` is a `Sendable` value.
@_spi(Tools) public struct WordListFile: Sendable, Hashable {
  /// One line of the file.
  public struct Line: Sendable, Hashable {
    /// The line exactly as written (without its `\n`; a `\r` of a CRLF file stays).
    public var text: String
    /// What the line means.
    public var content: Content
  }

  /// What a line means.
  public enum Content: Sendable, Hashable {
    case blank
    case comment
    /// A `[section]` header; nil for `[]`, which clears the category.
    case section(String?)
    case entry(Entry)
    case invalid(WordListError)
  }

  /// The file's path, or the name of a list that did not come from a file.
  public var path: String
  /// The lines, in order.
  public private(set) var lines: [Line]
  /// Whether the text ends with a line break.
  public var endsWithNewline: Bool
  /// Whether the text starts with a byte-order mark (U+FEFF, as some Windows editors save
  /// UTF-8): it is not part of the first line, and is written back.
  public var startsWithByteOrderMark: Bool

  /// Parses list text. Never fails: bad lines are kept with their error (see ``errors``).
  ///
  /// A leading byte-order mark is set apart (``startsWithByteOrderMark``): read as part of the
  /// first line, it made a `# comment` or `[section]` there an entry that blocks its text.
  public init(parsing text: String, path: String) {
    self.path = path
    startsWithByteOrderMark = text.unicodeScalars.first == "\u{FEFF}"
    let text = startsWithByteOrderMark ? String(text.unicodeScalars.dropFirst()) : text
    // Split on the byte, not the Character: in Swift "\r\n" is one Character, not "\n". (Going
    // scalar by scalar, and building each line a scalar at a time, was a fifth of a load.)
    var utf8 = text
    var pieces: [String] = []
    utf8.withUTF8 { bytes in
      var lineStart = 0
      while true {
        let rest = UnsafeBufferPointer(rebasing: bytes[lineStart...])
        guard let base = rest.baseAddress, let newline = memchr(base, 0x0A, rest.count) else {
          pieces.append(String(decoding: rest, as: UTF8.self))
          break
        }
        let lineEnd = lineStart + (UnsafePointer(newline.assumingMemoryBound(to: UInt8.self)) - base)
        pieces.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[lineStart..<lineEnd]), as: UTF8.self))
        lineStart = lineEnd + 1
      }
    }
    self.endsWithNewline = pieces.count > 1 && pieces.last == ""
    if endsWithNewline || pieces == [""] { pieces.removeLast() }
    self.lines = []
    var section = Section()
    for (index, piece) in pieces.enumerated() {
      let content = Self.parse(piece, section: &section, at: SourceLocation(file: path, line: index + 1))
      lines.append(Line(text: piece, content: content))
    }
  }

  /// Reads and parses a list file (a pipe too, such as the shell's `<(…)`). Lines that are not
  /// UTF-8 become ``WordListError/Kind/invalidUTF8``.
  /// - Throws: ``WordListError`` when the file cannot be read at all, with the system's cause
  ///   (`no such file or directory`, `permission denied`, `is a directory`).
  public init(contentsOf path: String) throws(WordListError) {
    let data: [UInt8]
    switch Self.contents(of: path) {
    case .success(let bytes): data = bytes
    case .failure(let failure):
      // The system's message, lower case as every cause is.
      let message = failure.reason
      throw WordListError(
        .unreadable(message.prefix(1).lowercased() + message.dropFirst()), at: SourceLocation(file: path, line: 0))
    }
    if let text = String(validating: data, as: UTF8.self) {
      self.init(parsing: text, path: path)
      return
    }
    self.init(parsing: String(decoding: data, as: UTF8.self), path: path)
    for (index, bytes) in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated()
    where index < lines.count && String(validating: bytes, as: UTF8.self) == nil {
      lines[index].content = .invalid(WordListError(.invalidUTF8, at: SourceLocation(file: path, line: index + 1)))
    }
  }

  /// The bytes of `path`, read to its end, or why they cannot be.
  private static func contents(of path: String) -> Result<[UInt8], FileReadError> {
    let descriptor: Int32
    switch openFileForReading(path) {
    case .success(let opened): descriptor = opened
    case .failure(let failure): return .failure(failure)
    }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let got = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if got < 0 && errno == EINTR { continue }
      if got < 0 { return .failure(FileReadError(code: errno)) }
      if got == 0 { return .success(bytes) }
      bytes += chunk[..<got]
    }
  }

  /// The file's text: exactly the text it was parsed from, plus any edits.
  public var text: String {
    (startsWithByteOrderMark ? "\u{FEFF}" : "") + lines.map(\.text).joined(separator: "\n")
      + (endsWithNewline && !lines.isEmpty ? "\n" : "")
  }

  /// The entries, in order, each with its category and source line.
  public var entries: [Entry] {
    lines.compactMap { if case .entry(let entry) = $0.content { entry } else { nil } }
  }

  /// The errors of the lines that could not be read, in line order.
  public var errors: [WordListError] {
    lines.compactMap { if case .invalid(let error) = $0.content { error } else { nil } }
  }

  /// Whether a literal text must be written with a leading `\` to be read back as itself.
  static func needsEscape(_ text: String) -> Bool {
    text.hasPrefix("#") || text.hasPrefix("[") || text.hasPrefix("\\")
      || prefixes.contains { text.hasPrefix($0) }
  }

  private static let prefixes = ["allow:", "block:", "lexicon:", "re:", "review:", "sub:", "word:"]

  /// What a `[section]` header sets for the entries below it.
  struct Section {
    var category: String? = nil
    /// The action of an entry written without `block:`, `review:`, `allow:` or a replacement.
    var defaultAction: Entry.Action = .block
    /// The language of the text its entries apply to (``Entry/language``).
    var language: String? = nil
    /// The other languages whose word its entries also are (``Entry/alsoWordOf``).
    var alsoWordOf: [String] = []
    /// Whether its entries' words are also names (``Entry/isAlsoName``).
    var isAlsoName = false
    /// Whether its entries are insults that block when aimed at someone (``Entry/isInsult``).
    var isInsult = false

    /// The section a header line sets: `[name]`, `[]`, or `[name: options]` with options
    /// separated by commas, each `review`, `block`, `name`, `insult`, `lang=CODE` or, with a `lang=`,
    /// `also=CODE+CODE…`. Nil when the line is not a valid header. A name of letters, digits,
    /// `-` and `_`, with `.` between parts for a subcategory (`contact.phone`).
    init?(header line: Substring) {
      guard line.utf8.first == UInt8(ascii: "["), line.utf8.last == UInt8(ascii: "]") else { return nil }
      var name = line.dropFirst().dropLast()
      func isNameCharacter(_ character: Character) -> Bool {
        character.isLetter || character.isNumber || character == "-" || character == "_"
      }
      if let colon = name.firstIndex(of: ":") {
        for option in name[name.index(after: colon)...].split(separator: ",", omittingEmptySubsequences: false) {
          let option = trimmed(option)
          if option == "review" {
            defaultAction = .review
          } else if option == "block" {
            defaultAction = .block
          } else if option == "name" {
            isAlsoName = true
          } else if option == "insult" {
            isInsult = true
          } else if option.hasPrefix("lang="), case let code = option.dropFirst(5), !code.isEmpty,
            code.allSatisfy(isNameCharacter)
          {
            language = String(code)
          } else if option.hasPrefix("also="),
            case let codes = option.dropFirst(5).split(
              separator: "+", omittingEmptySubsequences: false),
            codes.allSatisfy({ !$0.isEmpty && $0.allSatisfy(isNameCharacter) })
          {
            alsoWordOf = codes.map(String.init)
          } else {
            return nil
          }
        }
        name = trimmed(name[..<colon])
        guard !name.isEmpty, alsoWordOf.isEmpty || language != nil else { return nil }
      }
      guard
        name.split(separator: ".", omittingEmptySubsequences: false).allSatisfy({
          !$0.isEmpty && $0.allSatisfy(isNameCharacter)
        }) || name.isEmpty
      else { return nil }
      category = name.isEmpty ? nil : String(name)
    }

    init() {}
  }

  /// `text` without surrounding spaces, tabs and carriage returns (a CRLF file's `\r`).
  /// (Foundation's `trimmingCharacters` took a quarter of the time to load the global list.)
  private static func trimmed(_ text: Substring) -> Substring {
    // Tab, carriage return and the space separators (general category Zs, a fixed set), by value:
    // asking each entry's first and last scalar for its category was a twentieth of a load.
    func isSpace(_ scalar: Unicode.Scalar) -> Bool {
      switch scalar.value {
      case 0x09, 0x0D, 0x20, 0xA0, 0x1680, 0x2000...0x200A, 0x202F, 0x205F, 0x3000: true
      default: false
      }
    }
    let scalars = text.unicodeScalars
    guard let first = scalars.firstIndex(where: { !isSpace($0) }) else { return text[text.endIndex...] }
    let last = scalars.lastIndex(where: { !isSpace($0) })!
    return Substring(scalars[first...last])
  }

  // Byte-wise prefix and substring tests: the markers are ASCII, and the generic `hasPrefix` and
  // `firstRange(of:)` on `Substring` (grapheme by grapheme) took half the time to load the
  // global list.

  /// Whether `line` starts with the bytes of `prefix`.
  private static func starts(_ line: Substring, with prefix: StaticString) -> Bool {
    let prefix = UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
    return line.utf8.starts(with: prefix)
  }

  /// The range of the first occurrence of the ASCII `needle` in `line`.
  private static func firstRange(of needle: StaticString, in line: Substring) -> Range<String.Index>? {
    let needle = UnsafeBufferPointer(start: needle.utf8Start, count: needle.utf8CodeUnitCount)
    let bytes = line.utf8
    var index = bytes.startIndex
    while let found = bytes[index...].firstIndex(of: needle[0]) {
      if bytes[found...].starts(with: needle) { return found..<bytes.index(found, offsetBy: needle.count) }
      index = bytes.index(after: found)
    }
    return nil
  }

  private static func parse(_ raw: String, section: inout Section, at location: SourceLocation) -> Content {
    var line = trimmed(raw[...])
    if line.isEmpty { return .blank }
    if starts(line, with: "#") { return .comment }
    if starts(line, with: "[") {
      guard let header = Section(header: line) else {
        return .invalid(WordListError(.invalidSection(String(line)), at: location))
      }
      section = header
      return .section(header.category)
    }
    let category = section.category
    let language = section.language
    var action = section.defaultAction
    var kind: Entry.Kind = .literal
    var boundary: Entry.Boundary? = nil
    // `review:` written on the entry (a review section's default may still be replaced).
    var writtenReview = false
    if starts(line, with: "\\") {
      line = Substring(line.utf8.dropFirst())
    } else {
      if starts(line, with: "allow:") {
        action = .allow
        line = Substring(line.utf8.dropFirst(6))
      } else if starts(line, with: "review:") {
        action = .review
        writtenReview = true
        line = Substring(line.utf8.dropFirst(7))
      } else if starts(line, with: "block:") {
        action = .block
        line = Substring(line.utf8.dropFirst(6))
      } else if starts(line, with: "lexicon:") {
        // A lexicon word is plain text, optionally with its Zipf frequency after a space: no
        // further prefixes, no replacement.
        var text = trimmed(Substring(line.utf8.dropFirst(8)))
        var weight: UInt8? = nil
        if let space = text.lastIndex(of: " "), let zipf = Entry.lexiconWeight(text[text.index(after: space)...]) {
          weight = zipf
          text = trimmed(text[..<space])
        }
        guard !text.isEmpty else { return .invalid(WordListError(.emptyEntry, at: location)) }
        var entry = Entry(
          text: String(text), action: .lexicon, category: category, source: location, language: language)
        entry.lexiconWeight = weight
        return checked(entry, at: location)
      }
      if starts(line, with: "\\") {
        // `block:\#tag`: the rest is literal.
        line = Substring(line.utf8.dropFirst())
      } else if starts(line, with: "re:") {
        kind = .regex
        line = Substring(line.utf8.dropFirst(3))
      } else if starts(line, with: "raw:") {
        kind = .rawRegex
        line = Substring(line.utf8.dropFirst(4))
      } else if starts(line, with: "sub:") {
        boundary = .substring
        line = Substring(line.utf8.dropFirst(4))
      } else if starts(line, with: "word:") {
        boundary = action == .allow ? .word : .dictionaryWord
        line = Substring(line.utf8.dropFirst(5))
      }
    }
    if starts(line, with: "=> ") || line == "=>" { return .invalid(WordListError(.emptyEntry, at: location)) }
    if let arrow = firstRange(of: " => ", in: line)
      ?? (line.utf8.reversed().starts(with: ">= ".utf8) ? line.index(line.endIndex, offsetBy: -3)..<line.endIndex : nil)
    {
      guard action != .allow, !writtenReview else {
        return .invalid(
          WordListError(
            .invalidPrefix("\(action == .allow ? "allow" : "review") entries cannot have a replacement"), at: location))
      }
      action = .replace(String(trimmed(line[arrow.upperBound...])))
      line = line[..<arrow.lowerBound]
    }
    let text = String(trimmed(line))
    guard !text.isEmpty else { return .invalid(WordListError(.emptyEntry, at: location)) }
    var entry = Entry(
      text: text, kind: kind, action: action, boundary: boundary, category: category, source: location,
      language: language)
    entry.alsoWordOf = section.alsoWordOf
    entry.isAlsoName = section.isAlsoName
    entry.isInsult = section.isInsult
    return checked(entry, at: location)
  }

  /// The entry, or the error of one longer than ``Entry/maximumLength``.
  private static func checked(_ entry: Entry, at location: SourceLocation) -> Content {
    guard entry.longestPart <= Entry.maximumLength else {
      return .invalid(WordListError(.tooLong(entry.longestPart), at: location))
    }
    return .entry(entry)
  }
}

extension WordListFile {
  /// Appends an entry as a new line (under the last section), ending it with CRLF when the
  /// file's lines do.
  /// A block entry appended under a `[name: review]` section is written `block:`.
  public mutating func append(_ entry: Entry) {
    let lineEnd = lines.last?.text.hasSuffix("\r") == true ? "\r" : ""
    var text = entry.line
    if entry.action == .block, lastSectionReviews { text = "block:" + text }
    lines.append(Line(text: text + lineEnd, content: .entry(entry)))
    if lines.count == 1 { endsWithNewline = true }
  }

  /// Whether the last section header makes review the default action.
  private var lastSectionReviews: Bool {
    for line in lines.reversed() {
      guard case .section = line.content else { continue }
      return Section(header: Self.trimmed(line.text[...]))?.defaultAction == .review
    }
    return false
  }

  /// Removes every entry line whose entry satisfies `predicate`; returns how many were removed.
  @discardableResult
  public mutating func removeEntries(where predicate: (Entry) -> Bool) -> Int {
    let before = lines.count
    lines.removeAll { if case .entry(let entry) = $0.content { predicate(entry) } else { false } }
    return before - lines.count
  }
}

/// Why a file cannot be opened or read: its `errno` (`EISDIR` for a directory).
package struct FileReadError: Error {
  package let code: Int32

  package init(code: Int32) { self.code = code }

  /// The system's message (`No such file or directory`).
  package var reason: String { String(cString: strerror(code)) }
}

/// `path` opened read-only (close-on-exec), or why it cannot be. A directory is refused here:
/// opening one succeeds, and only its reads would fail. Shared by word lists and the command
/// line's inputs.
package func openFileForReading(_ path: String) -> Result<Int32, FileReadError> {
  let descriptor = open(path, O_RDONLY | O_CLOEXEC)
  guard descriptor >= 0 else { return .failure(FileReadError(code: errno)) }
  var status = stat()
  if fstat(descriptor, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR {
    close(descriptor)
    return .failure(FileReadError(code: EISDIR))
  }
  return .success(descriptor)
}
