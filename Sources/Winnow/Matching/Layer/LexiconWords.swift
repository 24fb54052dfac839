/// The lexicon words of every list a matcher holds (``MatcherLayer/lexiconWords``), as strings,
/// or as a compiled list read them back: spans of its string table's bytes, made into strings
/// only when asked for (``strings``). A scan with the default lists never asks: the words are
/// read to layer custom lists over the global ones or to write the compiled form again, and
/// making the global list's 80,000 words into strings on every start was about a twentieth of
/// a command's start-up (`Benchmarks/HISTORY.md`).
struct LexiconWords: Sendable {
  private enum Storage: Sendable {
    case strings([String])
    /// Each word's bytes in `characters`: its start in the high half of its span, its end in
    /// the low one (checked to lie inside when read back).
    case packed(characters: [UInt8], spans: [UInt64])
  }

  private var storage: Storage

  /// These words.
  init(_ strings: [String] = []) { storage = .strings(strings) }

  /// The words at `spans` of `characters` (start `<< 32 | end`, each inside `characters`).
  init(characters: [UInt8], spans: [UInt64]) { storage = .packed(characters: characters, spans: spans) }

  var count: Int {
    switch storage {
    case .strings(let strings): strings.count
    case .packed(_, let spans): spans.count
    }
  }

  /// The words, in order.
  var strings: [String] {
    switch storage {
    case .strings(let strings): return strings
    case .packed(let characters, let spans):
      return characters.withUnsafeBufferPointer { characters in spans.map { Self.string(at: $0, of: characters) } }
    }
  }

  /// The string at `span` (start `<< 32 | end`, inside `characters`).
  static func string(at span: UInt64, of characters: UnsafeBufferPointer<UInt8>) -> String {
    String(
      decoding: UnsafeBufferPointer(rebasing: characters[Int(span >> 32)..<Int(span & 0xFFFF_FFFF)]), as: UTF8.self)
  }

  /// Appends `words` (the words become strings).
  mutating func append(contentsOf words: some Sequence<String>) {
    var all = strings
    all.append(contentsOf: words)
    storage = .strings(all)
  }
}
