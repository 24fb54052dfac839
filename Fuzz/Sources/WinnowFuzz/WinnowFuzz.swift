// libFuzzer entry point over the inputs Winnow takes from strangers: dump lines, chat text,
// JSON content and word-list files. The first byte picks the target, the rest is its input.
// Besides crashes (and the sanitizer's reports), each target checks a promise users rely on;
// a broken promise traps, so libFuzzer saves the input as a crash.
import Foundation
@_spi(Tools) import Winnow

/// The built-in global list (`WINNOW_GLOBAL`, else `wordlists/global` under the working
/// directory), loaded once: what a server screens with.
private let globalEngine: ModerationEngine = {
  let directory = ProcessInfo.processInfo.environment["WINNOW_GLOBAL"] ?? "wordlists/global"
  do {
    let lists = try WordList.load(directory: directory, origin: .global)
    return try ModerationEngine(global: lists)
  } catch {
    fatalError("WinnowFuzz: cannot load the global list from \(directory): \(error)")
  }
}()

private enum Target: UInt8, CaseIterable {
  case dumpLine, chatText, json, wordList, customListAndText
}

/// `WINNOW_FUZZ_TARGET=N` (0–4) fuzzes one target alone: every input goes to it, whatever its
/// first byte (which is still not part of the target's input).
private let pinnedTarget: Target? = ProcessInfo.processInfo.environment["WINNOW_FUZZ_TARGET"]
  .flatMap { UInt8($0) }.flatMap(Target.init(rawValue:))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  guard size > 0 else { return 0 }
  let bytes = UnsafeBufferPointer(start: data + 1, count: size - 1)
  switch pinnedTarget ?? Target(rawValue: data[0] % UInt8(Target.allCases.count))! {
  case .dumpLine: fuzzDumpLine(bytes)
  case .chatText: fuzzChatText(String(decoding: bytes, as: UTF8.self))
  case .json: fuzzJSON(bytes)
  case .wordList: fuzzWordList(String(decoding: bytes, as: UTF8.self))
  case .customListAndText: fuzzCustomList(bytes)
  }
  return 0
}

/// `winnow scan`'s path: a line is read as an item or rejected with an error; an item is screened
/// and its result is JSON that reads back. A line the one door passes in place is one that the
/// door's full reading and screening pass, in that format and kind, with nothing found; a line
/// it screens gives the result the full road gives.
private func fuzzDumpLine(_ bytes: UnsafeBufferPointer<UInt8>) {
  let inPlace = try? globalEngine.screen(dumpLine: bytes)
  guard case .screened(let result, let format, _)? = try? globalEngine.screen(dumpLine: bytes, inPlace: false) else {
    check(inPlace == nil, "a line that cannot be read or screened was screened in place")
    return
  }
  switch inPlace {
  case .clean(let clean)?:
    check(
      format == clean.format && result.item.sourceType == clean.sourceType && result.verdict == .pass
        && result.matches.isEmpty && result.warnings.isEmpty,
      "a line counted as passing (\(clean)) reads as \(format), \(result.verdict), \(result.matches.count) matches"
    )
  case .screened(let first, _, _)?:
    check(first == result, "a line screened after its in-place check gives another result than its full screen")
  case .cleanItem?:
    check(false, "a line checked without asking for clean lines' items gave one")
  case nil:
    check(false, "a line the full road screens fails after its in-place check")
  }
  // Asked for clean lines' items (`scan --offenders`): a line passed in place comes with the
  // item reading makes of it, or (not item JSON) gets the full road's result.
  switch try? globalEngine.screen(dumpLine: bytes, itemsOfClean: true) {
  case .cleanItem(let clean, let item)?:
    check(
      clean.format == .item && clean.format == format && (try? DumpLine(utf8: bytes))?.item == item,
      "a clean line's item made in place is not the item reading makes")
  case .screened(let first, let f, _)?:
    if case .clean? = inPlace { check(f != .item, "a clean line of item JSON got no item") }
    check(first == result, "a line screened when asked for items gives another result than its full screen")
  case .clean?:
    check(false, "a line checked asking for clean lines' items gave none")
  case nil:
    check(false, "a line the full road screens fails when asked for items")
  }
  let json = result.json.jsonString
  check((try? JSONValue(parsing: json)) == result.json, "a result's JSON does not read back: \(json)")
}

/// A server's path: chat text screened by the global list. Every match lies on whole
/// characters of the text and says which bytes it covers.
private func fuzzChatText(_ text: String) {
  checkMatches(globalEngine.globalMatcher.scan(text, kind: nil).matches, in: text)
  checkMatches(globalEngine.globalMatcher.scan(text).matches, in: text)
  let normalized = Normalizer().normalize(text)
  let length = text.utf8.count
  for unit in 0..<normalized.count {
    let range = normalized.originalRange(ofUnits: unit..<unit + 1)
    check(range.lowerBound >= 0 && range.upperBound <= length, "unit \(unit) maps outside the text: \(range)")
    check(isScalarBoundary(range.lowerBound, in: text), "unit \(unit) starts inside a character")
    check(isScalarBoundary(range.upperBound, in: text), "unit \(unit) ends inside a character")
  }
}

/// Message content: JSON that parses writes back to JSON that parses to the same value.
private func fuzzJSON(_ bytes: UnsafeBufferPointer<UInt8>) {
  guard let value = try? JSONValue(parsingUTF8: bytes) else { return }
  let written = value.jsonString
  check((try? JSONValue(parsing: written)) == value, "JSON does not round-trip: \(written)")
}

/// The shell tools' path: a list file is parsed without loss (its text writes back exactly),
/// and a list without parse errors compiles, or fails only with the errors compiling reports
/// (an invalid or empty-matching regex, an entry that normalizes to nothing or is too long),
/// each on a line of the file.
private func fuzzWordList(_ text: String) {
  let file = WordListFile(parsing: text, path: "fuzz.txt")
  check(file.text == text, "a word-list file does not write back byte for byte")
  for (index, line) in file.lines.enumerated() {
    if case .invalid(let error) = line.content {
      check(error.location.line == index + 1, "an error names line \(error.location.line), not \(index + 1)")
    }
  }
  guard file.errors.isEmpty else { return }
  let list: WordList
  do { list = try WordList(file: file, origin: .custom) } catch {
    check(false, "a list without parse errors does not load: \(error)")
    return
  }
  do throws(WordListErrors) { _ = try Matcher(lists: [list]) } catch {
    for error in error.errors {
      switch error.kind {
      case .invalidRegex, .regexMatchesEmpty, .normalizesToNothing, .tooLong: break
      default: check(false, "compiling reported a parse error: \(error)")
      }
      check(
        (1...max(1, file.lines.count)).contains(error.location.line),
        "a compile error names line \(error.location.line) of \(file.lines.count)")
    }
  }
}

/// An app's custom list (up to the first NUL byte) compiled over the global list, then the
/// rest screened with it.
private func fuzzCustomList(_ bytes: UnsafeBufferPointer<UInt8>) {
  let split = bytes.firstIndex(of: 0) ?? bytes.count
  let listText = String(decoding: UnsafeBufferPointer(rebasing: bytes[..<split]), as: UTF8.self)
  let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[min(split + 1, bytes.count)...]), as: UTF8.self)
  guard let list = try? WordList(name: "fuzz", origin: .custom, parsing: listText),
    let matcher = try? Matcher(lists: [list], over: globalEngine.globalMatcher)
  else { return }
  checkMatches(matcher.scan(text, kind: nil).matches, in: text)
  checkMatches(matcher.scan(text).matches, in: text)
}

private func checkMatches(_ matches: [Match], in text: String) {
  let utf8 = Array(text.utf8)
  for match in matches {
    let range = match.range
    check(
      range.lowerBound >= 0 && range.lowerBound < range.upperBound && range.upperBound <= utf8.count,
      "match \(match.entry.text) covers \(range) of \(utf8.count) bytes")
    check(
      isScalarBoundary(range.lowerBound, in: text) && isScalarBoundary(range.upperBound, in: text),
      "match \(match.entry.text) cuts a character at \(range)")
    check(match.text == String(decoding: utf8[range], as: UTF8.self), "match text differs from its bytes")
  }
}

private func isScalarBoundary(_ offset: Int, in text: String) -> Bool {
  let index = text.utf8.index(text.utf8.startIndex, offsetBy: offset)
  return index.samePosition(in: text.unicodeScalars) != nil
}

private func check(_ condition: Bool, _ message: @autoclosure () -> String) {
  if !condition { fatalError("WinnowFuzz: \(message())") }
}
