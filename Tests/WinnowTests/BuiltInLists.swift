import Foundation
import Testing
import WinnowTestSupport

@_spi(Tools) @testable import Winnow

/// A matcher of the named files of the built-in global list (`wordlists/global`), or nil when
/// one of them cannot be read, for the suites that test what the shipped lists decide.
func builtInMatcher(_ files: [String]) -> Matcher? {
  let directory = repositoryRoot.appendingPathComponent("wordlists/global")
  let lists = files.compactMap {
    try? WordList.load(path: directory.appendingPathComponent($0).path, origin: .global)
  }
  guard lists.count == files.count else { return nil }
  return try? Matcher(lists: lists)
}

/// What the built-in lists do with `text`: "block" when a match blocks, "review" when it only
/// flags, nil when nothing matches.
func builtInAction(_ matcher: Matcher?, _ text: String) throws -> String? {
  let matches = try #require(matcher).matches(in: text)
  if matches.isEmpty { return nil }
  return matches.contains { $0.entry.action == .block } ? "block" : "review"
}
