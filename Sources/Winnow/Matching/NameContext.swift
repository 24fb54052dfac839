/// Whether a match is written as part of a name: `Moby Dick`, `Philip K. Dick`, `Dick Cheney`.
///
/// The match must be in title case (a capital, then small letters), with a title-case word
/// beside it (one space or more apart) that is not one of the most frequent words of any
/// language the language evidence knows (`You Dick` is not a name: `you` is such a word), or an
/// initial (`K.`) before it. Only entries whose words are also names are asked
/// (``Entry/isAlsoName``), so a title-case insult of another word is not read as a name.
enum NameContext {
  static func isPartOfName(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
    guard range.lowerBound >= 0, range.upperBound <= bytes.count, isTitleCase(bytes, range) else { return false }
    // The word before: back over spaces, then over letters and one trailing period.
    var end = range.lowerBound
    while end > 0, bytes[end - 1] == UInt8(ascii: " ") { end -= 1 }
    if end < range.lowerBound, end > 0 {
      var wordEnd = end
      let hasPeriod = bytes[end - 1] == UInt8(ascii: ".")
      if hasPeriod { wordEnd -= 1 }
      var start = wordEnd
      while start > 0, isLetterByte(bytes[start - 1]) { start -= 1 }
      if start < wordEnd, start == 0 || !isLetterByte(bytes[start - 1]) {
        if hasPeriod, wordEnd - start == 1, isUppercase(bytes[start]) { return true }  // an initial
        if !hasPeriod, isName(bytes, start..<wordEnd) { return true }
      }
    }
    // The word after.
    var start = range.upperBound
    while start < bytes.count, bytes[start] == UInt8(ascii: " ") { start += 1 }
    guard start > range.upperBound else { return false }
    var wordEnd = start
    while wordEnd < bytes.count, isLetterByte(bytes[wordEnd]) { wordEnd += 1 }
    return wordEnd > start && isName(bytes, start..<wordEnd)
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
