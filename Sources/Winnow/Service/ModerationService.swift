import Foundation
import Synchronization

/// The engine of a long-running server: the current ``ModerationEngine`` with the global list
/// and every app's custom list (an ``AppDirectory``), swapped atomically when lists change.
///
/// - ``engine`` is the engine new requests use. A request keeps the engine it started with:
///   a reload or an edit builds a new engine beside it and swaps it in, so no request fails or
///   waits on a compile.
/// - ``reload(quietly:)`` reads the lists again: the global list only when one of its files changed,
///   and only the apps whose list files changed (added, edited, removed). A reload with any
///   error keeps every old list and reports each error with its file and line.
/// - ``addWords(_:toApp:)`` and ``removeWords(_:fromApp:)`` edit an app's list file the way the
///   platform's sensitive-word API does: the new file is written durably (a temporary file,
///   `fsync`, rename, `fsync` of the directory) before they return, and the very next
///   ``engine`` has it. Edits and reloads are serialized; requests never wait for them. An
///   edit reads, changes and writes the file under ``ListFileLock``, which `winnow words` and
///   other servers on the same directory take too, so no process's edit is lost; a change
///   made by another process is seen at the next ``reload(quietly:)`` (`winnow serve` checks
///   every half second).
///
/// `ModerationService` is `Sendable`: share one across every request handler.
public final class ModerationService: Sendable {
  /// A word of an app's list as the platform's sensitive-word API sees it: blocked, or
  /// replaced by `replacement`.
  public struct CustomWord: Sendable, Hashable {
    /// The word.
    public var word: String
    /// What it is replaced by, or nil when it blocks.
    public var replacement: String?

    /// Creates a word.
    public init(word: String, replacement: String? = nil) {
      self.word = word
      self.replacement = replacement
    }

    /// The most characters of a word or replacement, as on the platform.
    public static let maximumLength = 32

    /// Why the word cannot be added, or nil: the platform's rule is 1 to 32 letters and digits
    /// of any script, and a replacement of at most 32 characters with no line break.
    public var problem: String? {
      if word.isEmpty { return "word is empty" }
      if word.count > Self.maximumLength { return "word is longer than \(Self.maximumLength) characters" }
      if !word.allSatisfy({ $0.isLetter || $0.isNumber }) { return "word must be letters and digits only" }
      if let replacement {
        if replacement.count > Self.maximumLength {
          return "replaceWord is longer than \(Self.maximumLength) characters"
        }
        if replacement.contains(where: \.isNewline) { return "replaceWord has a line break" }
      }
      return nil
    }
  }

  /// What a reload did.
  public struct ReloadReport: Sendable, Hashable {
    /// Whether the global list was read and compiled again (one of its files changed).
    public var globalReloaded = false
    /// The apps whose lists were compiled again, added or removed.
    public var changedApps: [String] = []
    /// Every error, with its file and line; when there is any, the old lists stay in use.
    public var errors: [String] = []
    /// When the reload finished.
    public var finishedAt = Date()
    /// Whether anything changed: new lists (or secrets) are in use.
    public var changed = false
    /// Whether the new lists are in use.
    public var succeeded: Bool { errors.isEmpty }

    /// A report of nothing done yet.
    public init() {}
  }

  /// What the service holds now, for a status page.
  public struct Status: Sendable {
    /// How many engines have been swapped in (1 after start).
    public var version: Int
    /// When the engine in use was swapped in.
    public var loadedAt: Date
    /// The entries of the global list.
    public var globalEntryCount: Int
    /// The entries of each app's list.
    public var appEntryCounts: [String: Int]
    /// The apps with a secret.
    public var appsWithSecrets: Int
    /// The last reload, if any.
    public var lastReload: ReloadReport?
    /// How many reloads failed since start.
    public var failedReloads: Int
  }

  fileprivate struct AppLists: Sendable {
    var fingerprint: FileFingerprint?
    /// The entries of the list (its text is not kept: ten thousand apps' lists would double
    /// the memory of their compiled forms; listing words reads the file).
    var entryCount: Int
    var matcher: Matcher
  }

  private struct Lists {
    var global: Matcher
    var globalFingerprint: [FileFingerprint]
    var apps: [String: AppLists]
    var secrets: [String: String]
    var secretsFingerprint: FileFingerprint?
    /// Counts the changes made under the lock: engines are built outside it, so an older one
    /// could otherwise be swapped in after a newer one (a reload racing an edit left an
    /// acknowledged word unenforced, and the next reload saw nothing to do).
    var generation = 0
  }

  private struct Current {
    var engine: ModerationEngine
    /// The generation of the lists `engine` was built from: only a newer one replaces it.
    var generation = 0
    var secrets: [String: String]
    var version: Int
    var loadedAt: Date
    var lastReload: ReloadReport?
    var failedReloads: Int
  }

  /// The lists: the global list's directories and how it is compiled, and the apps'
  /// directory.
  public let listSet: ListSet
  /// Where the apps' lists and secrets are, if anywhere.
  public var apps: AppDirectory? { listSet.apps }
  /// The apps' secrets file, if any.
  @_spi(Tools) public let secretsFile: String?
  /// The engines' configuration (with the list set's category actions and `allow:` rule).
  public let configuration: ModerationEngine.Configuration
  private let current: Mutex<Current>
  /// The reviewer's counters, kept across engines.
  private let statistics = ReviewerStatistics()
  /// Held while lists are read, edited or compiled: edits and reloads take turns.
  private let lists: Mutex<Lists>

  /// Reads and compiles the global list and every app's list of `lists`. The apps' lists are
  /// compiled compactly (``ListSet/AppLayout/compact``), whatever `lists.appLayout` says; a
  /// service takes no custom files (``ListSet/customFiles``): its lists are the apps'.
  /// - Throws: ``ModerationServiceError`` with every error of every list, when any has one.
  public convenience init(lists listSet: ListSet, configuration: ModerationEngine.Configuration = .init())
    throws(ModerationServiceError)
  {
    try self.init(
      lists: listSet, secretsFile: listSet.apps.map { $0.path + "/secrets.json" }, configuration: configuration)
  }

  /// A service whose apps' secrets are in `secretsFile` (checked as ``AppDirectory/secrets()``
  /// checks `secrets.json`); without ``ListSet/apps``, its app lists are set from elsewhere
  /// (a store) with ``setAppLists(_:)``.
  @_spi(Tools) public init(
    lists listSet: ListSet, secretsFile: String?, configuration: ModerationEngine.Configuration = .init()
  ) throws(ModerationServiceError) {
    guard listSet.customFiles.isEmpty else {
      throw ModerationServiceError(errors: ["a service's custom lists are its apps' lists (apps), not custom files"])
    }
    self.secretsFile = secretsFile
    self.listSet = listSet
    self.configuration = listSet.adjusted(configuration)
    let configuration = self.configuration
    let apps = listSet.apps
    var errors: [String] = []
    let matcher: Matcher
    do { matcher = try listSet.globalMatcher() } catch {
      throw ModerationServiceError(errors: Self.messages(of: error))
    }
    var loaded = Lists(
      global: matcher, globalFingerprint: Self.fingerprints(of: listSet.globalDirectories), apps: [:], secrets: [:],
      secretsFingerprint: nil)
    if let secretsFile = self.secretsFile {
      do {
        loaded.secrets = try AppDirectory.secrets(file: secretsFile)
        loaded.secretsFingerprint = FileFingerprint(path: secretsFile)
      } catch { errors.append(error.description) }
    }
    if let apps {
      do {
        for (appKey, outcome) in Self.loadApps(
          try apps.appKeys(), from: apps, over: matcher, configuration: configuration)
        {
          switch outcome {
          case .success(let lists): loaded.apps[appKey] = lists
          case .failure(let error): errors += error.errors
          }
        }
      } catch { errors.append(error.description) }
    }
    guard errors.isEmpty else { throw ModerationServiceError(errors: errors) }
    let engine = ModerationEngine(
      global: loaded.global, appMatchers: loaded.apps.mapValues(\.matcher), configuration: configuration,
      statistics: statistics)
    self.lists = Mutex(loaded)
    self.current = Mutex(
      Current(
        engine: engine, secrets: loaded.secrets, version: 1, loadedAt: Date(), lastReload: nil, failedReloads: 0))
  }

  /// The engine new requests use.
  public var engine: ModerationEngine { current.withLock { $0.engine } }

  /// An app's secret from `secrets.json`, if it has one.
  public func secret(ofApp appKey: String) -> String? { current.withLock { $0.secrets[appKey] } }

  /// What the service holds now.
  public var status: Status {
    let apps = lists.withLock { lists in
      (lists.apps.mapValues(\.entryCount), lists.global.entryCount)
    }
    return current.withLock { current in
      Status(
        version: current.version, loadedAt: current.loadedAt, globalEntryCount: apps.1, appEntryCounts: apps.0,
        appsWithSecrets: current.secrets.count, lastReload: current.lastReload,
        failedReloads: current.failedReloads)
    }
  }

  /// Reads changed lists again and swaps in an engine with them (see the type's notes). Runs
  /// on the calling thread: call it off the request path.
  ///
  /// - Parameter quietly: for a periodic check: when nothing changed and nothing is wrong, the
  ///   status (``Status/lastReload``) is left as it was.
  @discardableResult
  public func reload(quietly: Bool = false) -> ReloadReport {
    var report = ReloadReport()
    let swapped = lists.withLock { lists -> Lists? in
      var next = lists
      let globalFingerprint = Self.fingerprints(of: listSet.globalDirectories)
      if globalFingerprint != lists.globalFingerprint {
        do {
          next.global = try listSet.globalMatcher()
          next.globalFingerprint = globalFingerprint
          report.globalReloaded = true
        } catch {
          report.errors += Self.messages(of: error)
          return nil
        }
      }
      if let secretsFile {
        let secretsFingerprint = FileFingerprint(path: secretsFile)
        if secretsFingerprint != lists.secretsFingerprint {
          do {
            next.secrets = try AppDirectory.secrets(file: secretsFile)
            next.secretsFingerprint = secretsFingerprint
          } catch { report.errors.append("\(error)") }
        }
      }
      if let apps {
        let keys: [String]
        do { keys = try apps.appKeys() } catch {
          report.errors += Self.messages(of: error)
          return nil
        }
        for appKey in Set(next.apps.keys).subtracting(keys) {
          next.apps[appKey] = nil
          report.changedApps.append(appKey)
        }
        let changed = keys.filter { appKey in
          report.globalReloaded || FileFingerprint(path: apps.listPath(of: appKey)) != lists.apps[appKey]?.fingerprint
        }
        for (appKey, outcome) in Self.loadApps(changed, from: apps, over: next.global, configuration: configuration) {
          switch outcome {
          case .success(let lists):
            next.apps[appKey] = lists
            report.changedApps.append(appKey)
          case .failure(let error): report.errors += error.errors
          }
        }
      }
      guard report.errors.isEmpty else { return nil }
      let changed = report.globalReloaded || !report.changedApps.isEmpty || next.secrets != lists.secrets
      if changed { next.generation = lists.generation + 1 }
      lists = next
      return changed ? next : nil
    }
    report.changedApps.sort()
    report.finishedAt = Date()
    report.changed = swapped != nil
    // A check that found nothing changed, and nothing wrong that was not wrong already, leaves
    // the status alone.
    if quietly && swapped == nil
      && (report.errors.isEmpty || report.errors == current.withLock({ $0.lastReload?.errors }))
    {
      return report
    }
    let newEngine = swapped.map { self.engine(of: $0) }
    current.withLock { current in
      if let newEngine, let swapped, swapped.generation > current.generation {
        current.engine = newEngine
        current.generation = swapped.generation
        current.secrets = swapped.secrets
        current.version += 1
        current.loadedAt = report.finishedAt
      }
      if !report.succeeded { current.failedReloads += 1 }
      current.lastReload = report
    }
    return report
  }

  /// The literal block and replace words of an app's list file, in file order; empty for an
  /// app without a list (or whose file cannot be read).
  public func words(ofApp appKey: String) -> [CustomWord] {
    guard let apps, AppDirectory.isValidAppKey(appKey[...]) else { return [] }
    // Read under the edit lock, so that a concurrent edit is seen whole or not at all.
    let file = lists.withLock { _ in try? WordListFile(contentsOf: apps.listPath(of: appKey)) }
    return file.map(Self.words(of:)) ?? []
  }

  /// Adds words to an app's list (creating the list file), durably, and swaps in an engine
  /// that has them. A word already in the list gets the new replacement (or none).
  /// - Returns: how many words were new.
  /// - Throws: ``ModerationServiceError`` when a word is invalid, the app key is invalid, there
  ///   is no app directory, the file has errors or cannot be written; nothing changes then.
  @discardableResult
  public func addWords(_ words: [CustomWord], toApp appKey: String) throws(ModerationServiceError) -> Int {
    try addWords(words, toApp: appKey, origin: ChangeOrigin())
  }

  /// ``addWords(_:toApp:)``, logging each change with `origin` in the directory's audit log
  /// (``ChangeLog``).
  @_spi(Tools) @discardableResult
  public func addWords(_ words: [CustomWord], toApp appKey: String, origin: ChangeOrigin) throws(ModerationServiceError)
    -> Int
  {
    for word in words {
      if let problem = word.problem { throw ModerationServiceError(errors: ["\(word.word): \(problem)"]) }
    }
    var added = 0
    try edit(appKey, origin: origin) { file in
      let (count, changes) = Self.add(words, toApp: appKey, in: &file)
      added = count
      return changes
    }
    return added
  }

  /// Removes words (every literal entry with that text) from an app's list, durably, and swaps
  /// in an engine without them.
  /// - Returns: how many entries were removed.
  /// - Throws: ``ModerationServiceError`` as ``addWords(_:toApp:)`` does.
  @discardableResult
  public func removeWords(_ words: [String], fromApp appKey: String) throws(ModerationServiceError) -> Int {
    try removeWords(words, fromApp: appKey, origin: ChangeOrigin())
  }

  /// ``removeWords(_:fromApp:)``, logging each change with `origin` in the directory's audit
  /// log (``ChangeLog``).
  @_spi(Tools) @discardableResult
  public func removeWords(_ words: [String], fromApp appKey: String, origin: ChangeOrigin)
    throws(ModerationServiceError) -> Int
  {
    var removed = 0
    try edit(appKey, origin: origin) { file in
      let (count, changes) = Self.remove(words, fromApp: appKey, in: &file)
      removed = count
      return changes
    }
    return removed
  }

  /// Adds `words` to the list `file` of `appKey` as ``addWords(_:toApp:)`` does (a word already
  /// in it gets the new replacement); returns how many were new and the changes to log. The
  /// store's edits share it with the file store's.
  @_spi(Tools) public static func add(_ words: [CustomWord], toApp appKey: String, in file: inout WordListFile)
    -> (added: Int, changes: [ChangeLog.Pending])
  {
    var added = 0
    var changes: [ChangeLog.Pending] = []
    for word in words {
      let action: Entry.Action = word.replacement.map { .replace($0) } ?? .block
      let existing = file.entries.filter { $0.kind == .literal && $0.text == word.word }
      let replaced = file.removeEntries { $0.kind == .literal && $0.text == word.word }
      if replaced == 0 { added += 1 }
      file.append(Entry(text: word.word, action: action))
      if existing.isEmpty {
        changes.append(.init(app: appKey, op: "add", word: word.word, replaceWord: word.replacement))
      } else if !existing.allSatisfy({ $0.action == action }) {
        changes.append(.init(app: appKey, op: "update", word: word.word, replaceWord: word.replacement))
      }
    }
    return (added, changes)
  }

  /// Removes every literal entry of `words` from `file` as ``removeWords(_:fromApp:)`` does;
  /// returns how many entries went and the changes to log.
  @_spi(Tools) public static func remove(_ words: [String], fromApp appKey: String, in file: inout WordListFile)
    -> (removed: Int, changes: [ChangeLog.Pending])
  {
    var removed = 0
    var changes: [ChangeLog.Pending] = []
    for word in words {
      let count = file.removeEntries { $0.kind == .literal && $0.text == word }
      removed += count
      if count > 0 { changes.append(.init(app: appKey, op: "delete", word: word)) }
    }
    return (removed, changes)
  }

  /// The literal block and replace words of `file`, in file order.
  @_spi(Tools) public static func words(of file: WordListFile) -> [CustomWord] {
    file.entries.compactMap { entry in
      guard entry.kind == .literal else { return nil }
      switch entry.action {
      case .block: return CustomWord(word: entry.text)
      case .replace(let replacement): return CustomWord(word: entry.text, replacement: replacement)
      default: return nil
      }
    }
  }

  /// Reads the app's file afresh, changes it, compiles it, writes it durably, logs the changes
  /// `change` names (``ChangeLog``), and swaps in the new engine; nothing changes when any step
  /// fails (a log that cannot be written puts the old list back).
  private func edit(_ appKey: String, origin: ChangeOrigin, _ change: (inout WordListFile) -> [ChangeLog.Pending])
    throws(ModerationServiceError)
  {
    guard let apps else { throw ModerationServiceError(errors: ["no app directory (--apps) to keep app lists in"]) }
    guard AppDirectory.isValidAppKey(appKey[...]) else {
      throw ModerationServiceError(errors: ["\(appKey): not an app key (letters, digits, - and _)"])
    }
    let path = apps.listPath(of: appKey)
    let next = try lists.withLock { lists throws(ModerationServiceError) -> Lists? in
      // Another process (a second server, `winnow words add`) edits under the same lock.
      let lock: Int32
      do { lock = try ListFileLock.lock(path) } catch {
        throw ModerationServiceError(errors: ["\(error)"], isWriteFailure: true)
      }
      defer { close(lock) }
      var file: WordListFile
      if FileManager.default.fileExists(atPath: path) {
        do { file = try WordListFile(contentsOf: path) } catch { throw ModerationServiceError(errors: ["\(error)"]) }
        guard file.errors.isEmpty else { throw ModerationServiceError(errors: file.errors.map(\.description)) }
      } else {
        file = WordListFile(parsing: "", path: path)
      }
      let before = file.text
      let changes = change(&file)
      guard file.text != before else { return nil }
      let matcher: Matcher
      do {
        matcher = try Matcher(
          compactLists: [WordList(file: file, origin: .custom)], over: lists.global,
          customAllowsGlobal: configuration.customAllowsGlobal)
      } catch { throw ModerationServiceError(errors: Self.messages(of: error)) }
      let existed = FileManager.default.fileExists(atPath: path)
      do { try AtomicFile.write(Array(file.text.utf8), to: path) } catch {
        throw ModerationServiceError(errors: ["\(path): \(error)"], isWriteFailure: true)
      }
      do { try ChangeLog.append(changes, origin: origin, to: apps.path) } catch {
        // The change is not acknowledged: the list goes back to what it was.
        if existed { try? AtomicFile.write(Array(before.utf8), to: path) } else { unlink(path) }
        throw ModerationServiceError(errors: ["\(error)"], isWriteFailure: true)
      }
      lists.apps[appKey] = AppLists(
        fingerprint: FileFingerprint(path: path), entryCount: file.entries.count, matcher: matcher)
      lists.generation += 1
      return lists
    }
    guard let next else { return }
    swapIn(next)
  }

  /// Builds the engine of `next` (outside the lists' lock) and puts it in use, unless a newer
  /// generation is in use already.
  private func swapIn(_ next: Lists) {
    let newEngine = self.engine(of: next)
    current.withLock { current in
      guard next.generation > current.generation else { return }
      current.engine = newEngine
      current.generation = next.generation
      current.version += 1
      current.loadedAt = Date()
    }
  }

  /// An app's list compiled for ``setAppLists(_:)``.
  @_spi(Tools) public struct CompiledAppList: Sendable {
    fileprivate let lists: AppLists
    /// The list's entries.
    public var entryCount: Int { lists.entryCount }
  }

  /// Compiles `file` as the list of an app over the global list in use, or throws its errors
  /// (each with the file's name and line).
  @_spi(Tools) public func compileAppList(_ file: WordListFile) throws(ModerationServiceError) -> CompiledAppList {
    guard file.errors.isEmpty else { throw ModerationServiceError(errors: file.errors.map(\.description)) }
    let global = lists.withLock { $0.global }
    do {
      let matcher = try Matcher(
        compactLists: [WordList(file: file, origin: .custom)], over: global,
        customAllowsGlobal: configuration.customAllowsGlobal)
      return CompiledAppList(lists: AppLists(fingerprint: nil, entryCount: file.entries.count, matcher: matcher))
    } catch { throw ModerationServiceError(errors: Self.messages(of: error)) }
  }

  /// Compiles the lists of many apps (`texts`: app key and list text) on every core, as
  /// ``compileAppList(_:)`` does; each list's errors name it `APPKEY.txt`.
  @_spi(Tools) public func compileAppLists(_ texts: [(app: String, text: String)])
    -> [(app: String, outcome: Result<CompiledAppList, ModerationServiceError>)]
  {
    let outcomes = concurrentMap(count: texts.count, minimumChunk: 32) { index in
      do throws(ModerationServiceError) {
        let file = WordListFile(parsing: texts[index].text, path: texts[index].app + ".txt")
        return Result<CompiledAppList, ModerationServiceError>.success(try self.compileAppList(file))
      } catch { return .failure(error) }
    }
    return zip(texts, outcomes).map { ($0.app, $1) }
  }

  /// Puts in the given apps' lists (nil: the app has none now) and swaps in an engine with them,
  /// for lists kept elsewhere than in ``apps`` (a store). A list compiled over a global list
  /// that has since been reloaded is compiled again over the new one by the caller: this keeps
  /// what it is given.
  @_spi(Tools) public func setAppLists(_ updates: [String: CompiledAppList?]) {
    guard !updates.isEmpty else { return }
    let next = lists.withLock { lists -> Lists in
      for (appKey, compiled) in updates { lists.apps[appKey] = compiled?.lists }
      lists.generation += 1
      return lists
    }
    swapIn(next)
  }

  /// Reads and compiles the lists of `appKeys`, on every core.
  private static func loadApps(
    _ appKeys: [String], from apps: AppDirectory, over global: Matcher, configuration: ModerationEngine.Configuration
  ) -> [(String, Result<AppLists, ModerationServiceError>)] {
    let outcomes = concurrentMap(count: appKeys.count, minimumChunk: 32) { index in
      do throws(ModerationServiceError) {
        return Result<AppLists, ModerationServiceError>.success(
          try loadApp(appKeys[index], from: apps, over: global, configuration: configuration))
      } catch { return .failure(error) }
    }
    return Array(zip(appKeys, outcomes))
  }

  private static func loadApp(
    _ appKey: String, from apps: AppDirectory, over global: Matcher, configuration: ModerationEngine.Configuration
  ) throws(ModerationServiceError) -> AppLists {
    let path = apps.listPath(of: appKey)
    let fingerprint = FileFingerprint(path: path)
    let file: WordListFile
    do { file = try WordListFile(contentsOf: path) } catch { throw ModerationServiceError(errors: [error.description]) }
    do {
      let matcher = try Matcher(
        compactLists: [WordList(file: file, origin: .custom)], over: global,
        customAllowsGlobal: configuration.customAllowsGlobal)
      return AppLists(fingerprint: fingerprint, entryCount: file.entries.count, matcher: matcher)
    } catch { throw ModerationServiceError(errors: error.errors.map(\.description)) }
  }

  private func engine(of lists: Lists) -> ModerationEngine {
    ModerationEngine(
      global: lists.global, appMatchers: lists.apps.mapValues(\.matcher), configuration: configuration,
      statistics: statistics)
  }

  private static func messages(of error: any Error) -> [String] {
    if let errors = error as? WordListErrors { return errors.errors.map(\.description) }
    return ["\(error)"]
  }

  /// The fingerprints of the list files of `directories`, in order.
  private static func fingerprints(of directories: [String]) -> [FileFingerprint] {
    directories.flatMap { ListDirectory(path: $0).fingerprints() }
  }
}

/// Errors of a service's lists or of an edit, each naming its file and line where there is one.
public struct ModerationServiceError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The errors, one a line.
  public let errors: [String]
  /// Whether a file could not be written (the disk, not the request, is at fault).
  public let isWriteFailure: Bool

  /// Creates an error.
  public init(errors: [String], isWriteFailure: Bool = false) {
    self.errors = errors
    self.isWriteFailure = isWriteFailure
  }

  /// The errors, one a line.
  public var description: String { errors.joined(separator: "\n") }
}
