import ArgumentParser
import Foundation
import Logging
@_spi(Tools) import Winnow
@_spi(Tools) import WinnowServer
@_spi(Tools) import WinnowStore

/// `winnow serve`: the HTTP service (see ``WinnowHTTPServer``).
struct ServeCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "serve",
    abstract: "Serve moderation over HTTP: the platform's message callback and word API, and JSON.",
    discussion: """
      Listens at once; /readyz answers 200 when the lists are loaded (a list that does not \
      compile stops the server, exit status 2). SIGHUP (or POST /admin/reload) reloads the \
      lists that changed; a reload that fails keeps the old ones. --apps DIR holds each app's \
      list as DIR/APPKEY.txt and, for the signed endpoints, the apps' secrets in \
      DIR/secrets.json (mode 0600). See \
      Docs/serving.md.
      """
  )

  @Option(help: "The address to listen on.")
  var host = "127.0.0.1"

  @Option(help: "The port to listen on (0: any free port; the one taken is printed).")
  var port = 8080

  @Option(help: "Event-loop threads (default: one per core).")
  var threads = ProcessInfo.processInfo.activeProcessorCount

  @Option(
    name: .customLong("admin-token-file"),
    help: "A file holding the bearer token of /admin/reload and /v1/status (mode 0600).")
  var adminTokenFile: String?

  @Flag(name: .customLong("moderate-needs-token"), help: "Require the admin bearer token on /v1/moderate too.")
  var moderateNeedsToken = false

  @Option(
    name: .customLong("signature-window"),
    help:
      "Seconds a signed request's timestamp may be from now; within them a signature is accepted once (0: any time, repeats too; default 300)."
  )
  var signatureWindow: Int64 = 300

  @Option(
    name: .customLong("idle-timeout"),
    help: "Seconds a connection may sit idle, or take to send a request head, before it is closed (default 30).")
  var idleTimeout: Double = 30

  @Option(name: .customLong("body-timeout"), help: "Seconds a request body may take to arrive (default 30).")
  var bodyTimeout: Double = 30

  @Option(
    name: .customLong("store-timeout"),
    help: "Seconds a word edit, or a read of the lists, may wait for the --store database before it fails (default 30)."
  )
  var storeTimeout: Double = 30

  @Option(
    name: .customLong("max-connections"),
    help: "The most connections open at once (default: 3/4 of the open-file limit).")
  var maximumConnections: Int?

  @Option(name: .customLong("max-lines"), help: "The most lines of one NDJSON request (default 10000).")
  var maximumLines = 10_000

  @Option(
    name: .customLong("recent"),
    help: ArgumentHelp(
      "How many of the last blocked, replaced and flagged items the console shows (default 200; 0: none).",
      discussion: "Kept in memory only, never written to disk.", valueName: "N"))
  var recentDecisions = 200

  @Option(name: .customLong("max-answer"), help: "The most bytes of one NDJSON answer (default 33554432).")
  var maximumAnswer = 32 << 20

  @Option(
    name: .customLong("watch-interval"),
    help:
      "Seconds between looks for list files changed by another process (another server, winnow words); 0: only on SIGHUP (default 0.5)."
  )
  var watchInterval: Double = 0.5

  @Option(
    name: .customLong("callback-on-error"),
    help: "The answer to a signed callback whose message cannot be read: block or pass (default block).")
  var callbackOnError: CallbackErrorPolicy = .block

  @Option(name: .customLong("max-body"), help: "The largest request body, in bytes (default 4194304).")
  var maximumBody = 4 << 20

  @Option(
    help: ArgumentHelp(
      "The offender policy (JSON); default: the built-in one (winnow offenders --print-policy).", valueName: "FILE"))
  var policy: String?

  @Option(help: ArgumentHelp("Append each offender event to FILE (JSON Lines).", valueName: "FILE"))
  var events: String?

  @Flag(help: "Call the platform's mute and ban API when an offender rule fires (needs --platform-url).")
  var enforce = false

  @Option(
    name: .customLong("platform-url"),
    help: ArgumentHelp("The platform's server API, for --enforce (https://api.example.com).", valueName: "URL"))
  var platformURL: String?

  @Option(
    help: ArgumentHelp("This server's name in the audit log of list changes (default: HOST:PID).", valueName: "NAME"))
  var replica: String?

  @Option(name: .customLong("max-offenders"), help: "The most senders tracked at once (default 1000000).")
  var maximumOffenders = 1_000_000

  @Option(
    name: .customLong("enforce-attempts"),
    help: "Calls to the platform per event at most, retries included (default 8).")
  var enforceAttempts = 8

  @Option(
    name: .customLong("enforce-backoff"),
    help: "Seconds before the first retry of a platform call, doubled for each next one up to 30 (default 0.5).")
  var enforceBackoff: Double = 0.5

  @OptionGroup var store: StoreOptions

  @Option(
    help: ArgumentHelp(
      "The apps' secrets (JSON, mode 0600) when they are not DIR/secrets.json of --apps, as with --store.",
      valueName: "FILE"))
  var secrets: String?

  @OptionGroup var lists: ListOptions
  @OptionGroup var moderation: ModerationOptions

  func validate() throws {
    if !lists.customFiles.isEmpty || lists.noGlobal {
      throw ValidationError("serve takes custom lists per app from --apps DIR, not --custom or --no-global")
    }
    if !(0...65535).contains(port) { throw ValidationError("--port must be 0 to 65535") }
    if threads < 1 || threads > 256 { throw ValidationError("--threads must be 1 to 256") }
    if maximumBody < 1024 { throw ValidationError("--max-body must be at least 1024") }
    if signatureWindow < 0 { throw ValidationError("--signature-window must be 0 or more") }
    // `!(… >= 0)` also refuses nan; the upper bound keeps the milliseconds an exact Int64.
    if !(watchInterval >= 0 && watchInterval <= 3600) {
      throw ValidationError("--watch-interval must be 0 to 3600 seconds")
    }
    for (name, value) in [
      ("--idle-timeout", idleTimeout), ("--body-timeout", bodyTimeout), ("--store-timeout", storeTimeout),
    ]
    where !(value > 0 && value <= 86_400) {
      throw ValidationError("\(name) must be more than 0 and at most 86400 seconds")
    }
    if let maximumConnections, maximumConnections < 1 { throw ValidationError("--max-connections must be 1 or more") }
    if maximumLines < 1 { throw ValidationError("--max-lines must be 1 or more") }
    if !(0...100_000).contains(recentDecisions) { throw ValidationError("--recent must be 0 to 100000") }
    if maximumAnswer < 1024 { throw ValidationError("--max-answer must be at least 1024") }
    if enforce != (platformURL != nil) { throw ValidationError("--enforce and --platform-url go together") }
    if let platformURL, !(platformURL.hasPrefix("http://") || platformURL.hasPrefix("https://")) {
      throw ValidationError("--platform-url must be an http:// or https:// URL")
    }
    if store.isPostgres && lists.appsDirectory != nil {
      throw ValidationError("--store keeps the app lists in PostgreSQL; --apps DIR is the file store: give one")
    }
    if !store.isPostgres && store.passwordFile != nil { throw ValidationError("--password-file goes with --store URL") }
    if maximumOffenders < 1 { throw ValidationError("--max-offenders must be 1 or more") }
    if !(1...100).contains(enforceAttempts) { throw ValidationError("--enforce-attempts must be 1 to 100") }
    if !(enforceBackoff >= 0.001 && enforceBackoff <= 30) {
      throw ValidationError("--enforce-backoff must be 0.001 to 30 seconds")
    }
  }

  func run() async throws {
    LoggingSystem.bootstrap { label in
      var handler = StreamLogHandler.standardError(label: label)
      handler.logLevel = .info
      return handler
    }
    var server = ServerConfiguration()
    server.host = host
    server.port = port
    server.threads = threads
    server.maximumBodyBytes = maximumBody
    server.signatureWindowSeconds = signatureWindow
    server.callbackOnError = callbackOnError
    server.listWatchInterval = .milliseconds(Int64(watchInterval * 1000))
    server.idleTimeout = .milliseconds(Int64(idleTimeout * 1000))
    server.bodyTimeout = .milliseconds(Int64(bodyTimeout * 1000))
    server.maximumConnections = maximumConnections
    server.maximumBatchLines = maximumLines
    server.recentDecisions = recentDecisions
    server.maximumAnswerBytes = maximumAnswer
    server.moderateNeedsToken = moderateNeedsToken
    if let adminTokenFile {
      do { server.adminToken = try readSecretFile(adminTokenFile) } catch let error as CLIError {
        FileHandle.standardError.write(Data("winnow: \(error)\n".utf8))
        throw CLIError.exitCode
      }
    }
    if let replica { server.replica = replica }
    server.offenders.eventsPath = events
    server.offenders.platformURL = enforce ? platformURL : nil
    server.offenders.capacity = maximumOffenders
    server.offenders.attempts = enforceAttempts
    server.offenders.backoff = .milliseconds(Int64(enforceBackoff * 1000))
    if let policy {
      do { server.offenders.policy = try loadPolicy(policy) } catch {
        FileHandle.standardError.write(Data("winnow: \(error)\n".utf8))
        throw CLIError.exitCode
      }
    }
    if moderateNeedsToken && server.adminToken == nil {
      throw ValidationError("--moderate-needs-token needs --admin-token-file")
    }
    let listSet: ListSet
    do { listSet = try lists.listSet(keepsGlobal: false) } catch let error as CLIError {
      FileHandle.standardError.write(Data("winnow: \(error)\n".utf8))
      throw CLIError.exitCode
    }
    if store.isPostgres {
      do {
        server.store = try store.replica(timeout: .milliseconds(Int64(storeTimeout * 1000)), logger: server.logger)
      } catch {
        FileHandle.standardError.write(Data("winnow: \(error)\n".utf8))
        throw CLIError.exitCode
      }
    }
    let secretsFile = secrets ?? listSet.apps.map { $0.path + "/secrets.json" }
    let (configuration, client) = try moderation.configuration()
    let http = WinnowHTTPServer(configuration: server) { () throws(ModerationServiceError) -> ModerationService in
      try ModerationService(lists: listSet, secretsFile: secretsFile, configuration: configuration)
    }
    do {
      try await http.run { host, port in
        FileHandle.standardError.write(Data("winnow: listening on http://\(host):\(port)\n".utf8))
      }
    } catch let error as ModerationServiceError {
      try? await client?.shutdown()
      FileHandle.standardError.write(Data("winnow: the lists did not load:\n\(error)\n".utf8))
      throw CLIError.exitCode
    } catch {
      try? await client?.shutdown()
      FileHandle.standardError.write(Data("winnow: serve: \(error)\n".utf8))
      throw CLIError.exitCode
    }
    try? await client?.shutdown()
  }
}

/// The secret or token in `path` (surrounding white space dropped), refused when the file is open to
/// group or others or empty.
func readSecretFile(_ path: String) throws -> String {
  var status = stat()
  guard stat(path, &status) == 0 else { throw CLIError("\(path): \(String(cString: strerror(errno)))") }
  if status.st_mode & 0o077 != 0 { throw CLIError("\(path): is open to group or others; chmod 600 it") }
  guard let data = FileManager.default.contents(atPath: path) else { throw CLIError("\(path): cannot be read") }
  let token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
  guard !token.isEmpty else { throw CLIError("\(path): is empty") }
  return token
}

extension CallbackErrorPolicy: ExpressibleByArgument {}
