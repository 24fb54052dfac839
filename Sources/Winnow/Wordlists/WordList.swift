import Foundation

/// A list of entries, ready to compile: the global list or an app's custom list, or one file
/// of either.
///
/// ```swift
/// let global = try WordList.load(directory: "wordlists/global", origin: .global)
/// let custom = try WordList(name: "app-42", origin: .custom, parsing: "秒杀 => **\nre:\\d{11}")
/// let matcher = try Matcher(lists: global + [custom])
/// ```
///
/// `WordList` is a `Sendable` value.
public struct WordList: Sendable, Hashable {
  /// Which list an entry belongs to: it decides the block type of a match.
  public enum Origin: String, Sendable, Hashable, CaseIterable {
    /// The built-in list (block type 1).
    case global
    /// An app's own list (block type 2).
    case custom
  }

  /// The list's name (its file path, for a file).
  public var name: String
  /// Global or custom.
  public var origin: Origin
  /// The entries, in order.
  public var entries: [Entry]
  /// The normalization rules for this list's entries and for the text matched against them.
  public var normalization: Normalization

  /// Creates a list from entries.
  public init(name: String, origin: Origin, entries: [Entry], normalization: Normalization = .default) {
    self.name = name
    self.origin = origin
    self.entries = entries
    self.normalization = normalization
  }

  /// Creates a list from a parsed file.
  /// - Throws: ``WordListErrors`` with every bad line when the file has any.
  @_spi(Tools) public init(file: WordListFile, origin: Origin, normalization: Normalization = .default)
    throws(WordListErrors)
  {
    guard file.errors.isEmpty else { throw WordListErrors(file.errors) }
    self.init(name: file.path, origin: origin, entries: file.entries, normalization: normalization)
  }

  /// Creates a list from list text (see ``WordListFile`` for the format).
  /// - Throws: ``WordListErrors`` with every bad line when the text has any.
  public init(name: String, origin: Origin, parsing text: String, normalization: Normalization = .default)
    throws(WordListErrors)
  {
    try self.init(file: WordListFile(parsing: text, path: name), origin: origin, normalization: normalization)
  }

  /// Reads one list file.
  /// - Throws: ``WordListErrors`` when the file cannot be read or has bad lines.
  public static func load(path: String, origin: Origin, normalization: Normalization = .default) throws(WordListErrors)
    -> WordList
  {
    let file: WordListFile
    do { file = try WordListFile(contentsOf: path) } catch { throw WordListErrors([error]) }
    return try WordList(file: file, origin: origin, normalization: normalization)
  }

  /// Reads every `*.txt` file of a directory, in name order. Errors of all files are collected.
  /// - Throws: ``WordListErrors`` when the directory or any file cannot be read, or has bad lines.
  public static func load(directory: String, origin: Origin, normalization: Normalization = .default)
    throws(WordListErrors) -> [WordList]
  {
    try ListDirectory(path: directory).load(origin: origin, normalization: normalization)
  }
}
