import NIOCore
import NIOHTTP1
import NIOPosix

/// An HTTP/1.1 server (SwiftNIO) on 127.0.0.1 with an ephemeral port, for the length of `body`.
func withLoopbackServer<T>(
    _ handler: @escaping LoopbackHandler,
    _ body: (_ baseURL: String) async throws -> T
) async throws -> T {
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    do {
        let channel = try await ServerBootstrap(group: group)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    try pipeline.configureHTTPServerPipeline()
                    // Larger than any request the tests send (the largest is 1.1 MB).
                    try pipeline.addHandler(NIOHTTPServerRequestAggregator(maxContentLength: 8 << 20))
                    try pipeline.addHandler(LoopbackChannelHandler(handler: handler))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let result: Result<T, any Error>
        do {
            result = .success(try await body("http://127.0.0.1:\(channel.localAddress?.port ?? 0)"))
        } catch {
            result = .failure(error)
        }
        try? await channel.close()
        try await group.shutdownGracefully()
        return try result.get()
    } catch {
        try? await group.shutdownGracefully()
        throw error
    }
}

/// Runs the handler for each request of one connection in a task and writes its answer.
private final class LoopbackChannelHandler: ChannelInboundHandler {
    typealias InboundIn = NIOHTTPServerRequestFull
    typealias OutboundOut = HTTPServerResponsePart

    private let handler: LoopbackHandler
    private var running: Task<Void, Never>?

    init(handler: @escaping LoopbackHandler) {
        self.handler = handler
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let full = Self.unwrapInboundIn(data)
        let request = LoopbackRequest(
            method: full.head.method.rawValue,
            path: full.head.uri,
            headers: full.head.headers.map { (name: $0.name, value: $0.value) },
            body: full.body.map { Array($0.readableBytesView) } ?? [],
            remotePort: context.channel.remoteAddress?.port)
        let channel = context.channel
        let version = full.head.version
        let handler = self.handler
        running = Task {
            do {
                write(try await handler(request), version: version, to: channel)
            } catch {
                channel.close(promise: nil)
            }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        running?.cancel()  // e.g. a stalling handler whose client gave up
        context.fireChannelInactive()
    }
}

/// From the handler's task: Channel's writes are thread-safe and keep their order.
private func write(_ response: LoopbackResponse, version: HTTPVersion, to channel: any Channel) {
    var headers = HTTPHeaders(response.headers.map { ($0.name, $0.value) })
    if !response.chunked {
        headers.add(name: "Content-Length", value: String(response.body.count))
    }  // else NIO's encoder adds Transfer-Encoding: chunked
    let head = HTTPResponseHead(version: version, status: HTTPResponseStatus(statusCode: response.status), headers: headers)
    channel.write(HTTPServerResponsePart.head(head), promise: nil)
    // Several chunks when chunked, as a streaming server would send them.
    let pieceSize = response.chunked ? 16 * 1024 : max(1, response.body.count)
    var offset = 0
    while offset < response.body.count {
        let end = min(response.body.count, offset + pieceSize)
        let piece = ByteBuffer(bytes: response.body[offset..<end])
        channel.write(HTTPServerResponsePart.body(.byteBuffer(piece)), promise: nil)
        offset = end
    }
    channel.writeAndFlush(HTTPServerResponsePart.end(nil), promise: nil)
}
