/// An error in a word list: a line that cannot be read, or an entry that cannot be compiled.
///
/// The message is lower case and names the file, the line and the cause:
/// `wordlists/custom.txt:12: invalid regex at offset 3: missing closing parenthesis`.
///
/// `WordListError` is `Sendable`.
@_spi(Tools) public struct WordListError: Error, Sendable, Hashable, CustomStringConvertible {
  /// What is wrong.
  public enum Kind: Sendable, Hashable {
    /// An entry with no text (`re:`, `allow:`, ` => ***`).
    case emptyEntry
    /// A literal entry that normalizes to nothing (only separators or invisible characters).
    case normalizesToNothing(String)
    /// A regex that PCRE2 does not accept: its message and the offset of the problem.
    case invalidRegex(message: String, offset: Int)
    /// A regex that can match the empty string, which would match everywhere.
    case regexMatchesEmpty(String)
    /// A `[section]` header that is malformed.
    case invalidSection(String)
    /// A prefix combination that has no meaning (`allow:` with `=>`, `sub:re:`).
    case invalidPrefix(String)
    /// An entry (or its replacement) longer than ``Entry/maximumLength`` bytes of UTF-8; the
    /// associated value is its length.
    case tooLong(Int)
    /// A line that is not valid UTF-8.
    case invalidUTF8
    /// A file that cannot be read.
    case unreadable(String)
  }

  /// What is wrong.
  public let kind: Kind
  /// Where: the file and line (line 0 when the whole file is concerned).
  public let location: SourceLocation

  /// Creates an error.
  public init(_ kind: Kind, at location: SourceLocation) {
    self.kind = kind
    self.location = location
  }

  /// `file:line: cause`.
  public var description: String {
    let place = location.line > 0 ? "\(location.file):\(location.line)" : location.file
    return "\(place): \(cause)"
  }

  /// The cause alone, without the place.
  public var cause: String {
    switch kind {
    case .emptyEntry: "empty entry"
    case .normalizesToNothing(let text):
      "entry \"\(text)\" normalizes to nothing (only separators or invisible characters)"
    case .invalidRegex(let message, let offset): "invalid regex at offset \(offset): \(message)"
    case .regexMatchesEmpty(let pattern): "regex \"\(pattern)\" matches the empty string"
    case .invalidSection(let line):
      "invalid section header \"\(line)\" (expected [name] or [name: options], the name of letters, digits, - or _, the options review, block, name or lang=CODE)"
    case .invalidPrefix(let detail): detail
    case .tooLong(let length):
      "entry is \(length) bytes long; the most is \(Entry.maximumLength) (a longer one costs time and memory growing with the square of its length)"
    case .invalidUTF8: "line is not valid UTF-8"
    case .unreadable(let reason): "cannot read word list: \(reason)"
    }
  }
}

/// The errors of a list that could not be compiled, all of them: one bad line never hides
/// the others. `WordListErrors` is `Sendable`.
public struct WordListErrors: Error, Sendable, CustomStringConvertible {
  /// Every error found, in file and line order.
  @_spi(Tools) public let errors: [WordListError]

  /// Creates the error from a non-empty list.
  @_spi(Tools) public init(_ errors: [WordListError]) { self.errors = errors }

  /// Every error, one a line.
  public var description: String { errors.map(\.description).joined(separator: "\n") }
}
