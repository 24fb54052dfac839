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

  /// The lists the flags name. A short command keeps the compiled global list until it exits
  /// (`keepsGlobal`); a server, which compiles it again on a change, must not.
  func listSet(keepsGlobal: Bool = true) throws -> ListSet {
    var lists = ListSet(
      globalDirectories: noGlobal ? [] : try resolvedGlobalDirectories(), customFiles: customFiles,
      apps: appsDirectory.map(AppDirectory.init(path:)))
    lists.excludedCategories = excludedCategories
    lists.categoryActions = categoryActions
    lists.customAllowsGlobal = customAllowsGlobal
    lists.cache = noCache ? nil : CompiledListCache.standard()
    lists.onCacheDistrust = { reason in
      FileHandle.standardError.write(
        Data("winnow: not using the compiled-list cache: \(reason); compiling the lists\n".utf8))
    }
    lists.keepsGlobalUntilExit = keepsGlobal
    return lists
  }

  /// Compiles the lists into one matcher: the custom lists over the global list.
  func matcher() throws -> Matcher {
    if appsDirectory != nil {
      throw CLIError("--apps applies to items (check --item, scan), whose appKey chooses a list")
    }
    do { return try listSet().matcher() } catch let error as WordListErrors { throw CLIError(error.description) }
  }

  /// Compiles the lists into a moderation engine.
  func engine(configuration: ModerationEngine.Configuration) throws -> ModerationEngine {
    do { return try listSet().engine(configuration: configuration) } catch let error as WordListErrors {
      throw CLIError(error.description)
    }
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
