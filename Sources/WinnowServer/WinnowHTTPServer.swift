import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization
import UnixSignals
import Winnow
@_spi(Tools) import WinnowStore

/// `winnow serve`: Winnow over HTTP for servers in any language.
///
/// Endpoints (see the manual, `Docs/serving.md`):
/// - `POST /v1/moderate`: one item JSON, or NDJSON items (`Content-Type: application/x-ndjson`),
///   answered as `winnow check --item --json` answers;
/// - `POST /callback/message`: the platform's message callback, signed;
/// - `POST /sensitiveword/{add,batch/add,list,delete,batch/delete}.json`: the platform's
///   sensitive-word API for each app's custom list, signed;
/// - `GET /v1/offenders?app=K`: the recent offender events (admin token);
/// - `GET /healthz`, `GET /readyz`, `GET /v1/status`, `GET /metrics`, `POST /admin/reload`.
///
/// The lists load in the background: the server listens at once and answers 503 until they
/// are in. `SIGHUP` reloads them, as `POST /admin/reload` does; `SIGTERM` and `SIGINT` stop
/// the server gracefully (requests in flight finish).
public struct WinnowHTTPServer: Sendable {
  /// How it listens and what it accepts.
  public let configuration: ServerConfiguration
  private let makeService: @Sendable () throws(ModerationServiceError) -> ModerationService

  /// A server whose lists `makeService` loads (in the background, once the server listens).
  public init(
    configuration: ServerConfiguration,
    service makeService: @escaping @Sendable () throws(ModerationServiceError) -> ModerationService
  ) {
    self.configuration = configuration
    self.makeService = makeService
  }

  /// Runs until `SIGTERM` or `SIGINT` (or until the lists fail to load: then it throws their
  /// ``ModerationServiceError``). `onListening` gets the bound host and port.
  public func run(onListening: @escaping @Sendable (String, Int) async -> Void = { _, _ in }) async throws {
    let holder = ServiceHolder()
    let metrics = ServerMetrics()
    let offenders = try OffenderService(
      configuration: configuration.offenders, metrics: metrics, logger: configuration.logger,
      secret: { app in holder.service?.secret(ofApp: app) })
    let handlers = Handlers(holder: holder, metrics: metrics, configuration: configuration, offenders: offenders)
    let router = Router(context: WinnowRequestContext.self)
    handlers.register(on: router)
    let group = Self.eventLoops(threads: max(1, configuration.threads))
    let app = Application(
      router: router,
      server: .http1(configuration: .init(idleTimeout: TimeAmount(configuration.idleTimeout))),
      configuration: ApplicationConfiguration(
        address: .hostname(configuration.host, port: configuration.port), serverName: "winnow",
        availableConnectionsDelegate: MaximumAvailableConnections(
          configuration.maximumConnections ?? Self.defaultMaximumConnections)),
      onServerRunning: { channel in
        await onListening(configuration.host, channel.localAddress?.port ?? configuration.port)
      },
      eventLoopGroupProvider: .shared(group),
      logger: configuration.logger)
    let lists = ListService(holder: holder, handlers: handlers, makeService: makeService)
    var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
      .init(service: app),
      .init(service: lists, successTerminationBehavior: .ignore),
      .init(service: OffenderCalls(offenders: offenders), successTerminationBehavior: .ignore),
    ]
    if let store = configuration.store { services.append(.init(service: StorePool(store: store))) }
    let serviceGroup = ServiceGroup(
      configuration: ServiceGroupConfiguration(
        services: services,
        gracefulShutdownSignals: [.sigterm, .sigint],
        logger: configuration.logger))
    try await serviceGroup.run()
  }

  /// The event loops of servers with `threads` threads, made on first use and kept for the
  /// process, as NIO's own singleton loops are. Shut down when a server stopped, they were
  /// still given work by connections closing after it (NIO printed that this "will be
  /// upgraded to a forced crash" on about one shutdown in eight); a later server shares them.
  private static func eventLoops(threads: Int) -> MultiThreadedEventLoopGroup {
    groups.withLock { groups in
      if let group = groups[threads] { return group }
      let group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
      groups[threads] = group
      return group
    }
  }

  private static let groups = Mutex<[Int: MultiThreadedEventLoopGroup]>([:])

  /// 3/4 of the open-file limit (the rest for list files, logs and the reviewer's
  /// connections), at least 64.
  static var defaultMaximumConnections: Int {
    var limit = rlimit()
    guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 768 }
    // An unlimited limit reads as the largest value; it is capped at 2^20 either way.
    let soft = min(UInt64(limit.rlim_cur), 1 << 20)
    return max(64, Int(soft) / 4 * 3)
  }
}

/// The request context: Hummingbird's basics and the caller's address (for the audit log).
struct WinnowRequestContext: RequestContext {
  var coreContext: CoreRequestContextStorage
  /// The connection's peer.
  let remoteAddress: SocketAddress?

  init(source: ApplicationRequestContextSource) {
    coreContext = .init(source: source)
    remoteAddress = source.channel.remoteAddress
  }
}

/// Makes the platform calls of fired offender rules until shutdown.
private struct OffenderCalls: Service {
  let offenders: OffenderService

  func run() async throws {
    await withGracefulShutdownHandler {
      await offenders.run()
    } onGracefulShutdown: {
      offenders.finish()
    }
  }
}

/// Loads the lists, then reloads them on each `SIGHUP` until shutdown.
private struct ListService: Service {
  let holder: ServiceHolder
  let handlers: Handlers
  let makeService: @Sendable () throws(ModerationServiceError) -> ModerationService

  func run() async throws {
    // Trapped before loading, so that a SIGHUP sent meanwhile is not the default (exit).
    let signals = await UnixSignalsSequence(trapping: .sighup)
    let store = handlers.configuration.store
    let logger = handlers.configuration.logger
    // A shutdown during the load ends it (the store may be what holds it).
    await cancelWhenGracefulShutdown { [holder, makeService] in
      await holder.load(makeService) { service throws(ModerationServiceError) in
        if let store { try await Self.loadFromStore(store, into: service, logger: logger) }
      }
    }
    if case .failed(let error) = holder.current { throw error }
    logger.info("lists loaded")
    let interval = handlers.configuration.listWatchInterval
    await withTaskGroup(of: Void.self) { group in
      if let store, let service = holder.service {
        group.addTask { await store.follow(service: service) }
      }
      if interval > .zero {
        group.addTask {
          // Changes made by other processes, found without a signal.
          while !Task.isCancelled && !Task.isShuttingDownGracefully {
            try? await Task.sleep(for: interval)
            await handlers.watch()
          }
        }
      }
      for await _ in signals.cancelOnGracefulShutdown() {
        await handlers.reload(trigger: "SIGHUP")
      }
      group.cancelAll()
    }
  }

  /// Loads the store's lists, trying again with backoff (0.5 s doubling to 10 s) while the
  /// store cannot be reached; a store without the schema, or a list that does not compile,
  /// fails the start, and so does a shutdown that comes first (a read the database does not
  /// answer does not hold it).
  static func loadFromStore(_ store: StoreReplica, into service: ModerationService, logger: Logger)
    async throws(ModerationServiceError)
  {
    var backoff: Duration = .milliseconds(500)
    while true {
      do {
        try await store.load(into: service)
        return
      } catch let error as ModerationServiceError {
        throw error
      } catch _ where Task.isCancelled {
        throw ModerationServiceError(errors: ["stopped before the store's lists were read"])
      } catch let error as StoreError where error.isUnavailable {
        logger.warning("the store cannot be reached; trying again in \(backoff): \(error)")
        try? await Task.sleep(for: backoff)
        backoff = min(backoff * 2, .seconds(10))
      } catch {
        throw ModerationServiceError(errors: ["\(error)"])
      }
    }
  }
}

/// The store's pool of connections for edits, until shutdown.
private struct StorePool: Service {
  let store: StoreReplica

  func run() async throws {
    await store.run()
  }
}
