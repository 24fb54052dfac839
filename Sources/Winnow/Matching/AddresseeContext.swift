/// Whether an insult is aimed at someone: the rule that turns a review match of an insult
/// entry (``Entry/isInsult``) into a block.
///
/// An insult is aimed when, in the same sentence (nothing of `.!?;。！？；…` or a line break
/// between them):
/// - an addressee word comes before it, with at most ``hanBetween`` Han characters or
///   ``wordsBetween`` Latin words between them: a second-person word (`你`, `妳`, `您`, and so
///   `你们`, `你个`, `你这个`, `你是`, `你真`; `you`, `u`, `ur`, `you're`, `youre`, `ya`), `滚`
///   (get lost), or `such` with no first- or third-person word in the ``wordsBetween`` words
///   before it (`you're such a moron`; `I'm such an idiot` is not aimed); and no other person's
///   word (`我`, `他`, `I`, `me`, `she`, `they` …) comes between them: the nearest person named
///   decides (`你说我是白痴` is not aimed at you). `this` and `that` are not addressee words:
///   they point at things as often as at people (`that sniper`, `this seaman`);
/// - or, in Chinese, `你`, `妳` or `您` follows it, at most one character between
///   (`去死吧你`, `白痴你`).
///
/// The tables are per script: Han characters for Chinese, ASCII words for English. Commas do
/// not end the sentence, since an insult is often said to someone as a vocative (`你，白痴`,
/// `you, idiot`). The rule reads the original text, so the words around an insult are read as
/// written; an insult written with evasions is found by the matcher as usual.
enum AddresseeContext {
  /// The most Han characters between an addressee word and the insult (`你这个大白痴` has 3).
  static let hanBetween = 6
  /// The most Latin words between an addressee word and the insult (`you are such a moron`
  /// has 3).
  static let wordsBetween = 3

  static func isAimed(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
    guard range.lowerBound >= 0, range.upperBound <= bytes.count, !range.isEmpty else { return false }
    return addresseeBefore(bytes, range.lowerBound) || addresseeAfter(bytes, range.upperBound)
  }

  /// What a word or character says about who an insult is aimed at.
  enum Person {
    case addressee, pointing, other
  }

  /// Han characters that name a person: the second person and `滚` (get lost, said to
  /// someone) address; the first and third person name someone else.
  static func hanPerson(_ value: UInt32) -> Person? {
    switch value {
    case 0x4F60, 0x59B3, 0x60A8, 0x6EDA: .addressee  // 你 妳 您 滚
    case 0x6211, 0x4FFA, 0x4ED6, 0x5979, 0x5B83: .other  // 我 俺 他 她 它
    default: nil
    }
  }

  /// English words that name a person, lower case.
  static func latinPerson(_ word: String) -> Person? {
    switch word {
    case "you", "u", "ur", "you're", "youre", "ya": .addressee
    case "such": .pointing
    case "i", "i'm", "im", "me", "my", "myself", "we", "we're", "us", "our", "i've", "ive", "i'd",
      "he", "she", "they", "he's", "she's", "they're", "him", "her", "them", "his":
      .other
    default: nil
    }
  }

  /// What stands before a position of the text, read backwards: the end of a sentence, a Han
  /// character, an ASCII word (lower case), or anything else (spaces, separators, digits).
  private enum Token {
    case sentenceEnd
    case han(UInt32)
    case word(String)
    case other
  }

  /// The token that ends at `position` (> 0), and where it starts.
  private static func token(_ bytes: UnsafeBufferPointer<UInt8>, before position: Int) -> (Token, start: Int) {
    let start = scalarStart(bytes, before: position)
    let (value, _) = UTF8Decoding.decode(bytes, at: start)
    if isSentenceEnd(value) { return (.sentenceEnd, start) }
    if isHan(value) { return (.han(value), start) }
    guard isWordByte(value) else { return (.other, start) }
    let wordStart = latinWordStart(bytes, before: position)
    let word = String(decoding: UnsafeBufferPointer(rebasing: bytes[wordStart..<position]), as: UTF8.self)
    return (.word(word.lowercased()), wordStart)
  }

  /// Whether an addressee word comes before `position` in its sentence, within the distance.
  private static func addresseeBefore(_ bytes: UnsafeBufferPointer<UInt8>, _ position: Int) -> Bool {
    var position = position
    var hanSeen = 0
    var wordsSeen = 0
    while position > 0 {
      let (token, start) = token(bytes, before: position)
      position = start
      switch token {
      case .sentenceEnd: return false
      case .other: continue
      case .han(let value):
        switch hanPerson(value) {
        case .addressee: return true
        case .other, .pointing: return false
        case nil:
          hanSeen += 1
          if hanSeen > hanBetween { return false }
        }
      case .word(let word):
        switch latinPerson(word) {
        case .addressee: return true
        case .other: return false
        case .pointing: return !otherPersonBefore(bytes, position)
        case nil:
          wordsSeen += 1
          if wordsSeen > wordsBetween { return false }
        }
      }
    }
    return false
  }

  /// Whether a first- or third-person word is among the ``wordsBetween`` Latin words before
  /// `position` in its sentence.
  private static func otherPersonBefore(_ bytes: UnsafeBufferPointer<UInt8>, _ position: Int) -> Bool {
    var position = position
    var wordsSeen = 0
    while position > 0, wordsSeen < wordsBetween {
      let (token, start) = token(bytes, before: position)
      position = start
      switch token {
      case .sentenceEnd, .han: return false
      case .other: continue
      case .word(let word):
        if latinPerson(word) == .other { return true }
        wordsSeen += 1
      }
    }
    return false
  }

  /// Whether `你`, `妳` or `您` follows `position` in its sentence with at most one character
  /// (spaces and separators not counted) between.
  private static func addresseeAfter(_ bytes: UnsafeBufferPointer<UInt8>, _ position: Int) -> Bool {
    var position = position
    var between = 0
    while position < bytes.count, between <= 1 {
      let (value, length) = UTF8Decoding.decode(bytes, at: position)
      if isSentenceEnd(value) { return false }
      if value == 0x4F60 || value == 0x59B3 || value == 0x60A8 { return true }
      if isHan(value) || isWordByte(value) { between += 1 }
      position += max(length, 1)
    }
    return false
  }

  /// The start of the scalar that ends at `position` (> 0).
  private static func scalarStart(_ bytes: UnsafeBufferPointer<UInt8>, before position: Int) -> Int {
    var start = position - 1
    while start > 0, position - start < 4, bytes[start] & 0xC0 == 0x80 { start -= 1 }
    return start
  }

  /// The start of the ASCII word (letters and apostrophes) that ends at `position`.
  private static func latinWordStart(_ bytes: UnsafeBufferPointer<UInt8>, before position: Int) -> Int {
    var start = position
    while start > 0, isWordByte(UInt32(bytes[start - 1])) { start -= 1 }
    return start
  }

  private static func isWordByte(_ value: UInt32) -> Bool {
    (value >= 0x61 && value <= 0x7A) || (value >= 0x41 && value <= 0x5A) || value == 0x27
  }

  private static func isHan(_ value: UInt32) -> Bool {
    (0x3400...0x4DBF).contains(value) || (0x4E00...0x9FFF).contains(value) || (0xF900...0xFAFF).contains(value)
  }

  /// `.!?;`, their full-width forms, `。`, `…` and line breaks.
  private static func isSentenceEnd(_ value: UInt32) -> Bool {
    switch value {
    case 0x2E, 0x21, 0x3F, 0x3B, 0x0A, 0x0D, 0x3002, 0xFF01, 0xFF1F, 0xFF1B, 0xFF0E, 0x2026: true
    default: false
    }
  }
}
