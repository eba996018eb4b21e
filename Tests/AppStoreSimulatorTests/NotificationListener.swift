import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A notification receiver for tests: an HTTP/1.1 server (SwiftNIO) on 127.0.0.1 with an
/// ephemeral port that keeps every request body it gets and answers each with `answerStatus`.
final class NotificationListener: Sendable {
    let port: Int
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    private let received: ReceivedBodies

    var url: String { "http://127.0.0.1:\(port)/notifications" }

    /// The bodies received so far, oldest first.
    var bodies: [[UInt8]] { received.all }

    init(answerStatus: HTTPResponseStatus = .ok) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let received = ReceivedBodies()
        do {
            channel = try await ServerBootstrap(group: group)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let pipeline = channel.pipeline.syncOperations
                        try pipeline.configureHTTPServerPipeline()
                        try pipeline.addHandler(NIOHTTPServerRequestAggregator(maxContentLength: 1 << 20))
                        try pipeline.addHandler(ListenerHandler(status: answerStatus, record: received.append))
                    }
                }
                .bind(host: "127.0.0.1", port: 0).get()
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
        self.group = group
        self.received = received
        port = channel.localAddress?.port ?? 0
    }

    /// Stops listening: the port then refuses connections.
    func stop() async {
        try? await channel.close()
        try? await group.shutdownGracefully()
    }
}

/// What a listener received, shared with its connections' handlers.
private final class ReceivedBodies: Sendable {
    private let bodies = Mutex<[[UInt8]]>([])

    var all: [[UInt8]] { bodies.withLock { $0 } }

    @Sendable func append(_ body: [UInt8]) {
        bodies.withLock { $0.append(body) }
    }
}

private final class ListenerHandler: ChannelInboundHandler {
    typealias InboundIn = NIOHTTPServerRequestFull
    typealias OutboundOut = HTTPServerResponsePart

    private let status: HTTPResponseStatus
    private let record: @Sendable ([UInt8]) -> Void

    init(status: HTTPResponseStatus, record: @escaping @Sendable ([UInt8]) -> Void) {
        self.status = status
        self.record = record
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let request = Self.unwrapInboundIn(data)
        record(request.body.map { Array($0.readableBytesView) } ?? [])
        var headers = HTTPHeaders()
        headers.add(name: "Content-Length", value: "0")
        context.write(Self.wrapOutboundOut(.head(HTTPResponseHead(version: request.head.version, status: status, headers: headers))), promise: nil)
        context.writeAndFlush(Self.wrapOutboundOut(.end(nil)), promise: nil)
    }
}

/// A listener for the length of `body`, stopped however `body` ends.
func withNotificationListener<T>(
    answerStatus: HTTPResponseStatus = .ok, _ body: (NotificationListener) async throws -> T
) async throws -> T {
    let listener = try await NotificationListener(answerStatus: answerStatus)
    let result = await Result { try await body(listener) } as Result<T, any Error>
    await listener.stop()
    return try result.get()
}

extension Result where Failure == any Error {
    /// The outcome of an async throwing closure.
    init(catching body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
