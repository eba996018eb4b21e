import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// Hummingbird's HTTP/1 channel with a deadline on each request's arrival. Hummingbird's own
/// `idleTimeout` closes a connection on which nothing arrives for that long, but any body byte
/// counts as activity, so a client that trickles a byte now and then holds its connection forever;
/// this bound is on the whole request instead, however its bytes arrive.
struct DeadlineHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let http1: HTTP1Channel
    let readTimeout: TimeAmount
    /// Called (on the connection's event loop) for each connection closed by the deadline.
    let timedOut: @Sendable () -> Void

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        http1.setup(channel: channel, logger: logger).flatMapThrowing { value in
            // Hummingbird's setup is synchronous on the connection's event loop: the pipeline is built.
            let pipeline = channel.pipeline.syncOperations
            let deadline = ReadDeadlineHandler(timeout: self.readTimeout, timedOut: self.timedOut)
            // First, on the raw bytes: it sees a request's first byte, before its head is parsed.
            try pipeline.addHandler(deadline, position: .first)
            // Right after the HTTP/1 decoder: it sees where each request ends.
            let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try pipeline.addHandler(RequestBoundaryObserver(deadline: deadline), position: .after(decoder))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await http1.handle(value: value, logger: logger)
    }
}

/// Closes the connection when a request has not arrived in full `timeout` after its first byte
/// (after the connection was accepted, for the first request: a client that connects and says
/// nothing is cut too). Armed by any inbound byte while no request is being read, and by a parsed
/// head (a pipelined request whose bytes came with the previous one); disarmed when the request's
/// end has been parsed. Time spent answering is not counted, nor the wait between requests
/// (Hummingbird's idle timeout bounds that).
final class ReadDeadlineHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    private let timeout: TimeAmount
    private let timedOut: @Sendable () -> Void
    private var context: ChannelHandlerContext?
    private var deadline: Scheduled<Void>?

    init(timeout: TimeAmount, timedOut: @escaping @Sendable () -> Void) {
        self.timeout = timeout
        self.timedOut = timedOut
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { arm() }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        disarm()
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        arm()
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        disarm()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        arm()
        context.fireChannelRead(data)
    }

    /// A request's head was parsed.
    func requestStarted() { arm() }

    /// A request's end was parsed: it has arrived in full.
    func requestArrived() { disarm() }

    private func arm() {
        guard deadline == nil, let context, context.channel.isActive else { return }
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) { [self] in
            deadline = nil
            timedOut()
            context.close(promise: nil)
        }
    }

    private func disarm() {
        deadline?.cancel()
        deadline = nil
    }
}

@available(*, unavailable)
extension ReadDeadlineHandler: Sendable {}

/// Tells the deadline where requests begin and end, as the HTTP/1 decoder parses them.
final class RequestBoundaryObserver: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    private let deadline: ReadDeadlineHandler

    init(deadline: ReadDeadlineHandler) {
        self.deadline = deadline
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: deadline.requestStarted()
        case .body: break
        case .end: deadline.requestArrived()
        }
        context.fireChannelRead(data)
    }
}

@available(*, unavailable)
extension RequestBoundaryObserver: Sendable {}
