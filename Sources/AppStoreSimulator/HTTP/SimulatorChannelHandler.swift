#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import AppleSignedData
import NIOCore
import NIOHTTP1

/// One per connection, on its event loop: hands each whole request to `SimulatorRequestRouter`
/// and carries out the reply after its delay with a timer on the loop, so a delayed request holds
/// up neither the thread nor other connections. `HTTPServerPipelineHandler` ahead of it passes on
/// one request at a time (pipelined ones wait there), so at most one reply is pending here.
final class SimulatorChannelHandler: ChannelInboundHandler {
    typealias InboundIn = NIOHTTPServerRequestFull
    typealias OutboundOut = HTTPServerResponsePart

    private let router: SimulatorRequestRouter
    private var pending: Scheduled<Void>?

    init(router: SimulatorRequestRouter) {
        self.router = router
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let request = Self.unwrapInboundIn(data)
        let head = request.head
        let body = request.body.map { Array($0.readableBytesView) } ?? []
        let reply = router.reply(to: SimulatorRequest(
            method: head.method, uri: head.uri, authorization: head.headers.first(name: "Authorization"), body: body))
        guard reply.delay > .zero else {
            carryOut(reply.action, for: head, context: context)
            return
        }
        pending = context.eventLoop.assumeIsolated().scheduleTask(in: Self.timeAmount(reply.delay)) { [self] in
            pending = nil
            carryOut(reply.action, for: head, context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        // The client left: nobody is waiting for the pending answer.
        pending?.cancel()
        pending = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // An oversized body was already answered 413 by the aggregator (which closes when it must).
        if error is NIOHTTPObjectAggregatorError { return }
        context.close(promise: nil)
    }

    private func carryOut(_ action: SimulatorReply.Action, for request: HTTPRequestHead, context: ChannelHandlerContext) {
        let statistics = router.statistics
        switch action {
        case .answer(let response):
            statistics.recordAnswer(httpStatus: response.httpStatus, appleStatus: response.appleStatus)
            let keepAlive = request.isKeepAlive
            write(response, keeping: response.body.count, version: request.version, keepAlive: keepAlive, context: context)
            if keepAlive {
                context.writeAndFlush(Self.wrapOutboundOut(.end(nil)), promise: nil)
            } else {
                context.writeAndFlush(Self.wrapOutboundOut(.end(nil))).assumeIsolated()
                    .whenComplete { _ in context.close(promise: nil) }
            }
        case .truncate(let response):
            statistics.recordAnswer(httpStatus: response.httpStatus, appleStatus: nil)
            let written = context.eventLoop.makePromise(of: Void.self)
            write(
                response, keeping: response.body.count / 2, version: request.version, keepAlive: true,
                context: context, promise: written)
            context.flush()
            // Close once the partial body is on the wire (closing at once would drop unsent bytes).
            written.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        case .reset:
            statistics.recordAnswer(httpStatus: 0, appleStatus: nil)
            // SO_LINGER {on, 0}: close() then discards the socket with a RST instead of a FIN.
            if let socket = context.channel as? any SocketOptionProvider {
                _ = socket.setSoLinger(linger(l_onoff: 1, l_linger: 0))
            }
            context.close(promise: nil)
        }
    }

    /// Writes the head (Content-Length: the whole body) and the first `kept` bytes of the body,
    /// unflushed; `promise` completes when the last of them is written.
    private func write(
        _ response: SimulatedHTTPResponse, keeping kept: Int, version: HTTPVersion, keepAlive: Bool,
        context: ChannelHandlerContext, promise: EventLoopPromise<Void>? = nil
    ) {
        var headers = HTTPHeaders(response.headers.map { ($0.key, $0.value) })
        headers.add(name: "Content-Length", value: String(response.body.count))
        if version.major == 1 && version.minor == 0 && keepAlive {
            headers.add(name: "Connection", value: "keep-alive")  // HTTP/1.0 closes unless told otherwise
        } else if !keepAlive {
            headers.add(name: "Connection", value: "close")
        }
        let head = HTTPResponseHead(version: version, status: HTTPResponseStatus(statusCode: response.httpStatus), headers: headers)
        guard kept > 0 else {
            context.write(Self.wrapOutboundOut(.head(head)), promise: promise)
            return
        }
        context.write(Self.wrapOutboundOut(.head(head)), promise: nil)
        let body = context.channel.allocator.buffer(bytes: response.body.prefix(kept))
        context.write(Self.wrapOutboundOut(.body(.byteBuffer(body))), promise: promise)
    }

    private static func timeAmount(_ duration: Duration) -> TimeAmount {
        .nanoseconds(duration.nanoseconds)
    }
}
