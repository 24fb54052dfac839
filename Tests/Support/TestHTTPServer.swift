import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A real HTTP/1.1 server on 127.0.0.1 with an ephemeral port, for the reviewer tests: each
/// request gets the answer `respond` chooses, after the answer's delay (or half of it, if it
/// stalls). Requests are recorded.
public final class TestHTTPServer: Sendable {
  public struct Request: Sendable {
    public var method: String
    public var uri: String
    public var contentType: String?
    public var body: String
    /// Every header, by lowercase name (the first value of a repeated one).
    public var headers: [String: String] = [:]
  }

  public struct Response: Sendable {
    public var status: Int = 200
    public var body: String
    public var delay: TimeAmount = .zero
    /// Sends the head and the first half of the body, then nothing more (the connection stays
    /// open): a server that stalls mid-answer.
    public var stallsBody = false
    /// Extra response headers (`Location` of a redirect).
    public var headers: [(String, String)] = []

    public init(
      status: Int = 200, body: String, delay: TimeAmount = .zero, stallsBody: Bool = false,
      headers: [(String, String)] = []
    ) {
      self.status = status
      self.body = body
      self.delay = delay
      self.stallsBody = stallsBody
      self.headers = headers
    }
  }

  private let group: MultiThreadedEventLoopGroup
  private let channel: any Channel
  private let recorder = Recorder()
  public let port: Int

  public init(respond: @escaping @Sendable (Request) -> Response) async throws {
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let recorder = self.recorder
    let bootstrap = ServerBootstrap(group: group)
      .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
      // A deep accept queue (the kernel caps it at somaxconn): with NIO's default of 128, a
      // client opening connections faster than this one thread accepts them on a loaded machine
      // has its SYNs dropped, and its connection attempts time out.
      .serverChannelOption(.backlog, value: 4096)
      .childChannelInitializer { channel in
        channel.pipeline.configureHTTPServerPipeline().flatMap {
          channel.pipeline.addHandler(Handler(respond: respond, recorder: recorder))
        }
      }
    self.channel = try await bootstrap.bind(host: "127.0.0.1", port: 0).get()
    self.group = group
    self.port = channel.localAddress?.port ?? 0
  }

  /// The requests received so far.
  public var requests: [Request] { recorder.requests }
  /// Connections accepted so far.
  public var connections: Int { recorder.counts.withLock { $0.connections } }
  /// The most requests answered at once.
  public var maximumInFlight: Int { recorder.counts.withLock { $0.mostInFlight } }

  public var url: String { "http://127.0.0.1:\(port)/review" }

  public func shutdown() async throws {
    try await channel.close()
    try await group.shutdownGracefully()
  }

  final class Recorder: Sendable {
    private let store = Mutex<[Request]>([])
    let counts = Mutex((connections: 0, inFlight: 0, mostInFlight: 0))
    func record(_ request: Request) {
      store.withLock { $0.append(request) }
      counts.withLock {
        $0.inFlight += 1
        $0.mostInFlight = max($0.mostInFlight, $0.inFlight)
      }
    }
    func answered() { counts.withLock { $0.inFlight -= 1 } }
    func connected() { counts.withLock { $0.connections += 1 } }
    public var requests: [Request] { store.withLock { $0 } }
  }

  private final class Handler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let respond: @Sendable (Request) -> Response
    let recorder: Recorder
    var head: HTTPRequestHead?
    var body = ""

    public init(respond: @escaping @Sendable (Request) -> Response, recorder: Recorder) {
      self.respond = respond
      self.recorder = recorder
    }

    func channelActive(context: ChannelHandlerContext) {
      recorder.connected()
      context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
      switch unwrapInboundIn(data) {
      case .head(let head):
        self.head = head
        body = ""
      case .body(let buffer):
        body += String(buffer: buffer)
      case .end:
        guard let head else { return }
        let request = Request(
          method: head.method.rawValue, uri: head.uri, contentType: head.headers.first(name: "Content-Type"),
          body: body,
          headers: Dictionary(
            head.headers.map { ($0.name.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first }))
        recorder.record(request)
        let response = respond(request)
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        let keepAlive = head.isKeepAlive
        context.eventLoop.scheduleTask(in: response.delay) {
          let context = loopBound.value
          var headers = HTTPHeaders()
          headers.add(name: "Content-Type", value: "application/json")
          headers.add(name: "Content-Length", value: String(response.body.utf8.count))
          for (name, value) in response.headers { headers.add(name: name, value: value) }
          let responseHead = HTTPResponseHead(
            version: .http1_1, status: HTTPResponseStatus(statusCode: response.status), headers: headers)
          self.recorder.answered()
          context.write(self.wrapOutboundOut(.head(responseHead)), promise: nil)
          if response.stallsBody {
            let half = String(decoding: response.body.utf8.prefix(response.body.utf8.count / 2), as: UTF8.self)
            context.writeAndFlush(
              self.wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: half)))),
              promise: nil)
            return
          }
          context.write(
            self.wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: response.body)))),
            promise: nil)
          context.writeAndFlush(self.wrapOutboundOut(.end(nil))).whenComplete { _ in
            if !keepAlive { loopBound.value.close(promise: nil) }
          }
        }
      }
    }
  }
}
