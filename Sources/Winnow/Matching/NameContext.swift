/// Whether a match is written as part of a name: `Moby Dick`, `Philip K. Dick`, `Dick Cheney`,
/// `Dick and Jane`, `Tom, Dick and Harry`.
///
/// The match must be in title case (a capital, then small letters), with a title-case word
/// beside it (one space or more apart) that is not one of the most frequent words of any
/// language the language evidence knows (`You Dick` is not a name: `you` is such a word), or an
/// initial (`K.`) before it. Names joined by `and`, `or` or `&` count too: then the name is the
/// word beyond the conjunction (`Dick and Jane`; `Tom, Dick and Harry` by `Harry`). Only
/// entries whose words are also names are asked (``Entry/isAlsoName``), so a title-case insult
/// of another word is not read as a name.
enum NameContext {
  static func isPartOfName(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
    guard range.lowerBound >= 0, range.upperBound <= bytes.count, isTitleCase(bytes, range) else { return false }
    return nameBefore(bytes, range.lowerBound, joined: false) || nameAfter(bytes, range.upperBound, joined: false)
  }

  /// Whether the word that ends before `position` (past one space or more) is a name or an
  /// initial, or (unless `joined`) a conjunction after one.
  private static func nameBefore(_ bytes: UnsafeBufferPointer<UInt8>, _ position: Int, joined: Bool) -> Bool {
    var end = position
    while end > 0, bytes[end - 1] == UInt8(ascii: " ") { end -= 1 }
    guard end < position, end > 0 else { return false }
    if !joined, bytes[end - 1] == UInt8(ascii: "&") { return nameBefore(bytes, end - 1, joined: true) }
    var wordEnd = end
    let hasPeriod = bytes[wordEnd - 1] == UInt8(ascii: ".")
    if hasPeriod { wordEnd -= 1 }
    var start = wordEnd
    while start > 0, isLetterByte(bytes[start - 1]) { start -= 1 }
    guard start < wordEnd, start == 0 || !isLetterByte(bytes[start - 1]) else { return false }
    if hasPeriod { return wordEnd - start == 1 && isUppercase(bytes[start]) }  // an initial
    if !joined, isConjunction(bytes, start..<wordEnd) { return nameBefore(bytes, start, joined: true) }
    return isName(bytes, start..<wordEnd)
  }

  /// Whether the word that starts after `position` (past one space or more) is a name, or
  /// (unless `joined`) a conjunction before one.
  private static func nameAfter(_ bytes: UnsafeBufferPointer<UInt8>, _ position: Int, joined: Bool) -> Bool {
    var start = position
    while start < bytes.count, bytes[start] == UInt8(ascii: " ") { start += 1 }
    guard start > position, start < bytes.count else { return false }
    if !joined, bytes[start] == UInt8(ascii: "&") { return nameAfter(bytes, start + 1, joined: true) }
    var wordEnd = start
    while wordEnd < bytes.count, isLetterByte(bytes[wordEnd]) { wordEnd += 1 }
    guard wordEnd > start else { return false }
    if !joined, isConjunction(bytes, start..<wordEnd) { return nameAfter(bytes, wordEnd, joined: true) }
    return isName(bytes, start..<wordEnd)
  }

  /// `and` or `or`, in small letters.
  private static func isConjunction(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
    let word = UnsafeBufferPointer(rebasing: bytes[range])
    return word.elementsEqual("and".utf8) || word.elementsEqual("or".utf8)
  }

  /// A title-case word of two letters or more that is not a frequent word.
  private static func isName(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
    guard range.count >= 2, isTitleCase(bytes, range) else { return false }
    let word = String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self).lowercased()
    return !LanguageEvidence.isFrequentWord(word)
  }

  /// A capital letter, then small letters only (ASCII: names of the lists' languages in Latin
  /// script; anything else is not read as a name).
  private static func isTitleCase(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
    guard range.count >= 2, isUppercase(bytes[range.lowerBound]) else { return false }
    return bytes[(range.lowerBound + 1)..<range.upperBound].allSatisfy {
      $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")
    }
  }

  private static func isUppercase(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") }

  private static func isLetterByte(_ byte: UInt8) -> Bool {
    (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || isUppercase(byte)
  }
}
