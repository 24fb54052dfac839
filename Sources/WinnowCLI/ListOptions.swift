import ArgumentParser
import Foundation
@_spi(Tools) import Winnow

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

  @Option(
    name: .customLong("category-action"),
    help: ArgumentHelp(
      "Give every block and review entry of a category this action (repeatable), e.g. politics=block.",
      valueName: "CATEGORY=block|review"))
  var categoryActionSettings: [String] = []

  /// `--category-action` settings, by category; the last of a category wins.
  var categoryActions: [String: ModerationEngine.CategoryAction] {
    var actions: [String: ModerationEngine.CategoryAction] = [:]
    for setting in categoryActionSettings {
      if let (category, action) = Self.categoryAction(setting) { actions[category] = action }
    }
    return actions
  }

  /// `CATEGORY=block` or `CATEGORY=review`, read; nil for anything else.
  private static func categoryAction(_ setting: String) -> (String, ModerationEngine.CategoryAction)? {
    let parts = setting.split(separator: "=", maxSplits: 1)
    guard parts.count == 2, !parts[0].isEmpty, let action = ModerationEngine.CategoryAction(rawValue: String(parts[1]))
    else { return nil }
    return (String(parts[0]), action)
  }

  @Flag(
    inversion: .prefixedNo,
    help: ArgumentHelp(
      "Find contact details and links with the global list (category contact, flagged for review).",
      discussion: "On by default, beside the global list; --no-contact leaves it out."))
  var contact = true

  @Flag(name: .customLong("no-global"), help: "Use no global list, only custom lists.")
  var noGlobal = false

  @Option(name: .customLong("custom"), help: "Add a custom word list file (repeatable).")
  var customFiles: [String] = []

  @Option(
    name: .customLong("apps"),
    help: ArgumentHelp(
      "Each app's custom list: DIR/APPKEY.txt applies to the items of app APPKEY (appKey, or appId of history logs).",
      valueName: "DIR"))
  var appsDirectory: String?

  @Flag(
    name: .customLong("custom-allow-global"),
    help: "Let allow: entries of --custom lists hide matches of the global list (by default they cannot).")
  var customAllowsGlobal = false

  func validate() throws {
    if noGlobal && !globalDirectories.isEmpty {
      throw ValidationError("--global cannot be used with --no-global")
    }
    if noGlobal && customFiles.isEmpty && appsDirectory == nil {
      throw ValidationError("--no-global needs at least one --custom list")
    }
    if appsDirectory != nil && (!customFiles.isEmpty || noGlobal) {
      throw ValidationError("--apps takes each app's list from DIR: not with --custom or --no-global")
    }
    for setting in categoryActionSettings where Self.categoryAction(setting) == nil {
      throw ValidationError("--category-action \(setting): expected CATEGORY=block or CATEGORY=review")
    }
  }

  @Flag(
    name: .customLong("no-cache"),
    help: "Compile the global list afresh instead of reading its compiled copy from the cache.")
  var noCache = false

  /// Compiles the lists into one matcher: the custom lists over the global list.
  func matcher() throws -> Matcher {
    if appsDirectory != nil {
      throw CLIError("--apps applies to items (check --item, scan), whose appKey chooses a list")
    }
    let (global, custom) = try compiledGlobalAndCustom()
    guard !custom.isEmpty else { return global }
    do { return try Matcher(lists: custom, over: global, customAllowsGlobal: customAllowsGlobal) } catch {
      throw CLIError(error.description)
    }
  }

  /// Compiles the lists into a moderation engine.
  func engine(configuration: ModerationEngine.Configuration) throws -> ModerationEngine {
    let (global, custom) = try compiledGlobalAndCustom()
    var configuration = configuration
    configuration.customAllowsGlobal = customAllowsGlobal
    configuration.categoryActions = categoryActions
    do {
      var engine = try ModerationEngine(global: global, custom: custom, configuration: configuration)
      if let appsDirectory { engine = try Self.addingApps(in: AppDirectory(path: appsDirectory), to: engine) }
      return engine
    } catch let error as WordListErrors {
      throw CLIError(error.description)
    }
  }

  /// `engine` with the list of every app of `apps` (`DIR/APPKEY.txt`); every error of every
  /// list is reported together.
  private static func addingApps(in apps: AppDirectory, to engine: ModerationEngine) throws -> ModerationEngine {
    let keys: [String]
    do { keys = try apps.appKeys() } catch { throw CLIError(error.description) }
    var engine = engine
    var errors: [WordListError] = []
    for appKey in keys {
      do {
        engine = try engine.addingApp(
          appKey, custom: [try WordList.load(path: apps.listPath(of: appKey), origin: .custom)])
      } catch { errors += error.errors }
    }
    guard errors.isEmpty else { throw CLIError(errors.map(\.description).joined(separator: "\n")) }
    return engine
  }

  /// The compiled global list (read from ``CompiledListCache`` when it is unchanged) and the
  /// custom lists, read; every bad line of every file is reported together: when anything
  /// fails, also what compiling finds in the custom files, and in the global files when the
  /// global list did not parse (see ``withCompileErrors(_:inFiles:adjusting:)``).
  private func compiledGlobalAndCustom() throws -> (global: Matcher, custom: [WordList]) {
    var errors: [WordListError] = []
    var custom: [WordList] = []
    for path in customFiles {
      do { custom.append(try WordList.load(path: path, origin: .custom)) } catch { errors += error.errors }
    }
    var global: Matcher? = nil
    var globalParsed = true
    do { global = try globalMatcher() } catch let error as GlobalListErrors {
      errors = error.errors + errors
      globalParsed = error.compiled
    }
    guard errors.isEmpty, let global else {
      let unparsed = globalParsed ? [] : globalFiles()
      errors = withCompileErrors(errors, inFiles: unparsed + customFiles, adjusting: withoutExcludedCategories)
      throw CLIError(errors.map(\.description).joined(separator: "\n"))
    }
    return (global, custom.map(withoutExcludedCategories))
  }

  /// The errors of the global list, and whether it got as far as compiling (its files parse).
  private struct GlobalListErrors: Error {
    let errors: [WordListError]
    let compiled: Bool
  }

  /// The `*.txt` files of the global directories, as `WordList.load(directory:)` names them.
  private func globalFiles() -> [String] {
    guard !noGlobal else { return [] }
    let directories = (try? resolvedGlobalDirectories()) ?? globalDirectories
    return directories.flatMap(listFiles(inDirectory:))
  }

  /// The compiled global list: none with `--no-global`.
  private func globalMatcher() throws -> Matcher {
    guard !noGlobal else { return try Matcher(lists: []) }
    return keptUntilExit(
      try Self.compileGlobal(
        directories: try resolvedGlobalDirectories(), excludedCategories: excludedCategories, useCache: !noCache))
  }

  /// The `--global` directories, or the built-in one; and the contact list unless
  /// `--no-contact` (once, when a `--global` directory is not already it).
  func resolvedGlobalDirectories() throws -> [String] {
    var directories = globalDirectories
    if directories.isEmpty {
      guard let builtIn = GlobalListLocator.builtInDirectory() else {
        throw CLIError(
          "cannot find the built-in global list (wordlists/global); pass --global DIR or set WINNOW_GLOBAL")
      }
      directories = [builtIn]
    }
    // The contact list beside the built-in one; with `--global` directories named, only when
    // it is there (they may be all the lists a deployment has).
    if contact {
      guard let contactList = GlobalListLocator.contactDirectory() else {
        guard globalDirectories.isEmpty else { return directories }
        throw CLIError(
          "cannot find the contact list (wordlists/contact beside the built-in global list); pass --no-contact to go without it"
        )
      }
      let standardized = { (path: String) in
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
      }
      if !directories.map(standardized).contains(standardized(contactList)) { directories.append(contactList) }
    }
    return directories
  }

  /// The global list of a server, which reloads it: compiled (or read from the cache) anew
  /// each time one of its files changes, without the excluded categories.
  func globalSource() throws -> ModerationService.GlobalSource {
    let excluded = excludedCategories
    let useCache = !noCache
    return ModerationService.GlobalSource(directories: try resolvedGlobalDirectories()) { directories in
      do {
        return try Self.compileGlobal(directories: directories, excludedCategories: excluded, useCache: useCache)
      } catch let error as GlobalListErrors {
        throw WordListErrors(error.errors)
      }
    }
  }

  /// The global list of `directories` without `excludedCategories`, through the compiled-list
  /// cache when `useCache`.
  private static func compileGlobal(directories: [String], excludedCategories: [String], useCache: Bool) throws
    -> Matcher
  {
    func compile() throws -> Matcher {
      var lists: [WordList] = []
      var errors: [WordListError] = []
      for directory in directories {
        do { lists += try WordList.load(directory: directory, origin: .global) } catch { errors += error.errors }
      }
      guard errors.isEmpty else { throw GlobalListErrors(errors: errors, compiled: false) }
      do { return try Matcher(lists: lists.map { without(excludedCategories, $0) }) } catch {
        throw GlobalListErrors(errors: error.errors, compiled: true)
      }
    }
    guard useCache, let cache = CompiledListCache.standard() else { return try compile() }
    return try cache.matcher(
      directories: directories, excludedCategories: excludedCategories,
      onDistrust: { reason in
        FileHandle.standardError.write(
          Data("winnow: not using the compiled-list cache: \(reason); compiling the lists\n".utf8))
      }, compile: compile)
  }

  /// `matcher`, retained once more and never released: the kernel frees it with the rest of
  /// the process. Released when a command returns, the global list's entries and tables were
  /// freed one object at a time, a noticeable part of a short command.
  private func keptUntilExit(_ matcher: Matcher) -> Matcher {
    _ = Unmanaged.passRetained(matcher)
    return matcher
  }

  private func withoutExcludedCategories(_ list: WordList) -> WordList { Self.without(excludedCategories, list) }

  private static func without(_ excludedCategories: [String], _ list: WordList) -> WordList {
    guard !excludedCategories.isEmpty else { return list }
    var list = list
    list.entries.removeAll { entry in
      guard let category = entry.category else { return false }
      return excludedCategories.contains { Entry.category(category, isWithin: $0) }
    }
    return list
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

/// The `*.txt` files of a directory, as `WordList.load(directory:)` reads and names them.
func listFiles(inDirectory directory: String) -> [String] {
  let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
  return names.filter { $0.hasSuffix(".txt") }.sorted().map { directory + "/" + $0 }
}

/// `errors`, with what compiling finds in the lines of `files` that do parse, in file and line
/// order (files in the order of `files`, then as they first appear).
///
/// A list with a line that does not parse is not compiled, so the errors only compiling finds
/// (a regex PCRE2 rejects, an entry that normalizes to nothing) would show only once that line
/// is fixed. Each file's parsed entries (through `adjusting`, as the command would compile
/// them) are compiled alone: these errors belong to one entry each.
func withCompileErrors(
  _ errors: [WordListError], inFiles files: [String], adjusting adjust: (WordList) -> WordList = { $0 }
) -> [WordListError] {
  let known = Set(errors)
  let found = files.flatMap { path -> [WordListError] in
    guard let file = try? WordListFile(contentsOf: path) else { return [] }
    do throws(WordListErrors) {
      _ = try Matcher(lists: [adjust(WordList(name: path, origin: .custom, entries: file.entries))])
      return []
    } catch {
      return error.errors.filter { !known.contains($0) }
    }
  }
  var order: [String: Int] = [:]
  for file in files + (errors + found).map(\.location.file) where order[file] == nil { order[file] = order.count }
  return (errors + found).enumerated().sorted {
    (order[$0.element.location.file]!, $0.element.location.line, $0.offset)
      < (order[$1.element.location.file]!, $1.element.location.line, $1.offset)
  }.map(\.element)
}
