import Foundation

/// Which lists moderate, and how: the one road from list files to a ``Matcher``, a
/// ``ModerationEngine`` or a ``ModerationService``. The `winnow` command turns its list flags
/// into a `ListSet`; a server that embeds Winnow makes one the same way.
///
/// ```swift
/// var lists = ListSet(globalDirectories: ["wordlists/global", "wordlists/contact"])
/// lists.apps = AppDirectory(path: "apps")          // DIR/APPKEY.txt: each app's own list
/// lists.cache = CompiledListCache.standard()       // read the compiled global list back
/// let engine = try lists.engine()
/// ```
///
/// - The **global list** is every `*.txt` file of ``globalDirectories``, in order and name
///   order within each (block type 1), less the entries of ``excludedCategories``.
/// - **Custom lists** (``customFiles``, block type 2) apply to every item; an **app's list**
///   (``apps``) to the items of that app only. Custom and app lists are compiled over the
///   compiled global list, never into it, and their `allow:` entries hide only their own
///   matches unless ``customAllowsGlobal``.
/// - ``categoryActions`` give every block and review entry of a category one action. With
///   ``customAllowsGlobal`` they replace the engine configuration's fields of those names.
/// - Errors are reported all together, each with its file and line: every bad line of every
///   file, and when a file has one, also what compiling finds in its other lines (a regex
///   PCRE2 rejects), so that one fix is not followed by another round.
///
/// `ListSet` is a `Sendable` value; nothing is read until asked.
public struct ListSet: Sendable {
  /// How the apps' lists are compiled.
  public enum AppLayout: Sendable, Hashable {
    /// Each app's list compiled with its own tables: the fastest to scan, for batch work.
    case full
    /// Each app's list compiled compactly over the global list: a fraction of the memory, for
    /// a server holding thousands of apps (``ModerationService`` always uses it).
    case compact
  }

  /// The directories of the global list, in order; none for no global list.
  public var globalDirectories: [String]
  /// Categories left out of the global and custom lists (a category names its subcategories
  /// too); an app's list is the app's own, and keeps them.
  public var excludedCategories: [String] = []
  /// One action for every block and review entry of a category, by category.
  public var categoryActions: [String: ModerationEngine.CategoryAction] = [:]
  /// Custom list files that apply to every item.
  public var customFiles: [String] = []
  /// The directory of the apps' lists, if any.
  public var apps: AppDirectory?
  /// How the apps' lists are compiled.
  public var appLayout: AppLayout = .full
  /// Whether `allow:` entries of custom and app lists hide matches of the global list.
  public var customAllowsGlobal = false
  /// Where the compiled global list is kept between runs; nil compiles it every time.
  @_spi(Tools) public var cache: CompiledListCache?
  /// Told why the cache's directory or file is not trusted (see ``CompiledListCache``).
  @_spi(Tools) public var onCacheDistrust: @Sendable (String) -> Void = { _ in }
  /// Whether the compiled global list is kept until the process exits (a short command skips
  /// freeing it object by object).
  package var keepsGlobalUntilExit = false

  /// Lists of `globalDirectories`, `customFiles` and `apps`, with the defaults for the rest.
  public init(globalDirectories: [String], customFiles: [String] = [], apps: AppDirectory? = nil) {
    self.globalDirectories = globalDirectories
    self.customFiles = customFiles
    self.apps = apps
  }

  /// The compiled global list (read back from ``cache`` while its files are unchanged).
  /// - Throws: ``WordListErrors`` with every error of every file.
  public func globalMatcher() throws(WordListErrors) -> Matcher {
    do { return try compiledGlobal() } catch { throw WordListErrors(withCompileErrors(of: error)) }
  }

  /// The custom lists over the global list, in one matcher (``apps`` are not in it: they
  /// apply to items, whose app key chooses one).
  /// - Throws: ``WordListErrors`` with every error of every file.
  public func matcher() throws(WordListErrors) -> Matcher {
    let (global, custom) = try globalAndCustom()
    guard !custom.isEmpty else { return global }
    return try Matcher(lists: custom, over: global, customAllowsGlobal: customAllowsGlobal)
  }

  /// An engine with these lists and every app's list; ``categoryActions`` and
  /// ``customAllowsGlobal`` replace those of `configuration`.
  /// - Throws: ``WordListErrors`` with every error of every file: the global and custom lists'
  ///   first, then, when they compile, the apps'.
  public func engine(configuration: ModerationEngine.Configuration = .init()) throws(WordListErrors)
    -> ModerationEngine
  {
    let (global, custom) = try globalAndCustom()
    let engine = try ModerationEngine(global: global, custom: custom, configuration: adjusted(configuration))
    guard let apps else { return engine }
    let keys: [String]
    do { keys = try apps.appKeys() } catch {
      throw WordListErrors([WordListError(.unreadable(error.cause), at: SourceLocation(file: error.file, line: 0))])
    }
    switch appLayout {
    case .full:
      var withApps = engine
      var errors: [WordListError] = []
      for appKey in keys {
        do { withApps = try withApps.addingApp(appKey, custom: [try appList(appKey, in: apps)]) } catch {
          errors += error.errors
        }
      }
      guard errors.isEmpty else { throw WordListErrors(errors) }
      return withApps
    case .compact:
      let matchers = concurrentMap(count: keys.count, minimumChunk: 32) { index in
        Result { () throws(WordListErrors) in
          try Matcher(
            compactLists: [try appList(keys[index], in: apps)], over: global, customAllowsGlobal: customAllowsGlobal)
        }
      }
      var byApp: [String: Matcher] = [:]
      var errors: [WordListError] = []
      for (appKey, result) in zip(keys, matchers) {
        switch result {
        case .success(let matcher): byApp[appKey] = matcher
        case .failure(let error): errors += error.errors
        }
      }
      guard errors.isEmpty else { throw WordListErrors(errors) }
      return ModerationEngine(
        global: global, default: engine.defaultMatcher, appMatchers: byApp, configuration: engine.configuration,
        statistics: engine.reviewerStatistics)
    }
  }

  /// `configuration` with this set's category actions and `allow:` rule.
  func adjusted(_ configuration: ModerationEngine.Configuration) -> ModerationEngine.Configuration {
    var configuration = configuration
    configuration.categoryActions = categoryActions
    configuration.customAllowsGlobal = customAllowsGlobal
    return configuration
  }

  /// The list of `appKey` in `apps`.
  private func appList(_ appKey: String, in apps: AppDirectory) throws(WordListErrors) -> WordList {
    try WordList.load(path: apps.listPath(of: appKey), origin: .custom)
  }

  /// The list files of the global directories, in the order they are read.
  package var globalFiles: [String] { globalDirectories.flatMap { ListDirectory(path: $0).files() } }

  /// The compiled global list and the custom lists, read; every error of every file together.
  private func globalAndCustom() throws(WordListErrors) -> (global: Matcher, custom: [WordList]) {
    var errors: [WordListError] = []
    var custom: [WordList] = []
    for path in customFiles {
      do { custom.append(withoutExcludedCategories(try WordList.load(path: path, origin: .custom))) } catch {
        errors += error.errors
      }
    }
    var global: Matcher? = nil
    var globalFailure: GlobalListErrors? = nil
    do { global = try compiledGlobal() } catch { globalFailure = error }
    guard let global, errors.isEmpty else {
      let globalErrors = globalFailure?.errors ?? []
      let unparsed = globalFailure?.compiled == false ? globalFiles : []
      throw WordListErrors(
        Winnow.withCompileErrors(
          globalErrors + errors, inFiles: unparsed + customFiles, adjusting: withoutExcludedCategories))
    }
    return (global, custom)
  }

  /// The errors of the global list, and whether it got as far as compiling (its files parse).
  private struct GlobalListErrors: Error {
    let errors: [WordListError]
    let compiled: Bool
  }

  /// `failure`'s errors, with what compiling finds in the global files when they did not parse.
  private func withCompileErrors(of failure: GlobalListErrors) -> [WordListError] {
    guard !failure.compiled else { return failure.errors }
    return Winnow.withCompileErrors(failure.errors, inFiles: globalFiles, adjusting: withoutExcludedCategories)
  }

  /// The global list without the excluded categories, through the cache when there is one.
  private func compiledGlobal() throws(GlobalListErrors) -> Matcher {
    let directories = globalDirectories
    let excluded = excludedCategories
    func compile() throws(GlobalListErrors) -> Matcher {
      var lists: [WordList] = []
      var errors: [WordListError] = []
      for directory in directories {
        do { lists += try ListDirectory(path: directory).load(origin: .global) } catch { errors += error.errors }
      }
      guard errors.isEmpty else { throw GlobalListErrors(errors: errors, compiled: false) }
      do { return try Matcher(lists: lists.map { Self.without(excluded, $0) }) } catch {
        throw GlobalListErrors(errors: error.errors, compiled: true)
      }
    }
    let matcher: Matcher
    if let cache, !directories.isEmpty {
      do {
        matcher = try cache.matcher(
          directories: directories, excludedCategories: excluded, onDistrust: onCacheDistrust, compile: compile)
      } catch let error as GlobalListErrors {
        throw error
      } catch {
        // `compile` throws nothing else; named in full should that ever change.
        let place = SourceLocation(file: directories.joined(separator: ", "), line: 0)
        throw GlobalListErrors(errors: [WordListError(.unreadable("\(error)"), at: place)], compiled: true)
      }
    } else {
      matcher = try compile()
    }
    if keepsGlobalUntilExit { _ = Unmanaged.passRetained(matcher) }
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

/// `errors`, with what compiling finds in the lines of `files` that do parse, in file and line
/// order (files in the order of `files`, then as they first appear).
///
/// A list with a line that does not parse is not compiled, so the errors only compiling finds
/// (a regex PCRE2 rejects, an entry that normalizes to nothing) would show only once that line
/// is fixed. Each file's parsed entries (through `adjusting`, as the lists would be compiled)
/// are compiled alone: these errors belong to one entry each.
package func withCompileErrors(
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
    (order[$0.element.location.file] ?? 0, $0.element.location.line, $0.offset)
      < (order[$1.element.location.file] ?? 0, $1.element.location.line, $1.offset)
  }.map(\.element)
}
