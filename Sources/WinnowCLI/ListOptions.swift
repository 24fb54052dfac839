import ArgumentParser
import Foundation
import Winnow

/// Options that choose the word lists: the built-in global list and any custom lists.
struct ListOptions: ParsableArguments {
  @Option(
    name: .customLong("global"),
    help: "Read the global list from this directory (repeatable; default: the built-in one).")
  var globalDirectories: [String] = []

  @Option(
    name: .customLong("exclude-category"),
    help: "Leave out the entries of this category (repeatable), e.g. to switch a category of the global list off.")
  var excludedCategories: [String] = []

  @Flag(name: .customLong("no-global"), help: "Use no global list, only custom lists.")
  var noGlobal = false

  @Option(name: .customLong("custom"), help: "Add a custom word list file (repeatable).")
  var customFiles: [String] = []

  func validate() throws {
    if noGlobal && !globalDirectories.isEmpty {
      throw ValidationError("--global and --no-global cannot be used together")
    }
    if noGlobal && customFiles.isEmpty { throw ValidationError("--no-global needs at least one --custom list") }
  }

  /// Loads and compiles the lists; word-list errors are printed with file and line.
  func matcher() throws -> Matcher {
    let (global, custom) = try load()
    do { return try Matcher(lists: global + custom) } catch { throw CLIError(error.description) }
  }

  /// Loads the lists and compiles them into a moderation engine.
  func engine(configuration: ModerationEngine.Configuration) throws -> ModerationEngine {
    let (global, custom) = try load()
    do { return try ModerationEngine(global: global, custom: custom, configuration: configuration) } catch {
      throw CLIError(error.description)
    }
  }

  /// Reads the global and custom lists; every bad line of every file is reported together.
  func load() throws -> (global: [WordList], custom: [WordList]) {
    var lists: [WordList] = []
    var custom: [WordList] = []
    var errors: [WordListError] = []
    if !noGlobal {
      var directories = globalDirectories
      if directories.isEmpty {
        guard let builtIn = GlobalListLocator.builtInDirectory() else {
          throw CLIError(
            "cannot find the built-in global list (wordlists/global); pass --global DIR or set WINNOW_GLOBAL")
        }
        directories = [builtIn]
      }
      for directory in directories {
        do { lists += try WordList.load(directory: directory, origin: .global) } catch { errors += error.errors }
      }
    }
    for path in customFiles {
      do { custom.append(try WordList.load(path: path, origin: .custom)) } catch { errors += error.errors }
    }
    guard errors.isEmpty else { throw CLIError(errors.map(\.description).joined(separator: "\n")) }
    guard !excludedCategories.isEmpty else { return (lists, custom) }
    let excluded = Set(excludedCategories)
    func keep(_ list: WordList) -> WordList {
      var list = list
      list.entries.removeAll { $0.category.map(excluded.contains) ?? false }
      return list
    }
    return (lists.map(keep), custom.map(keep))
  }
}

/// A failure that is not a usage mistake: printed as `winnow: message`, exit status 2.
struct CLIError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

extension CLIError {
  /// Exit status for errors that are not usage mistakes (1 means "matched").
  static let exitCode = ExitCode(2)
}
