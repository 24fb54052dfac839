import Foundation
import WinnowTestSupport

@testable import Winnow

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
