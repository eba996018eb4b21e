import FlyingSocks
#if canImport(Glibc)
import Glibc
#endif

/// Wraps FlyingFox's socket pool to turn off Nagle's algorithm on the server's sockets.
///
/// FlyingFox writes a response's headers and body with two `send` calls. On a reused keep-alive
/// connection Nagle then holds the body until the client ACKs the headers, and the client delays
/// that ACK by ~40 ms: every request after the first would take 40 ms. FlyingFox has no option
/// for TCP_NODELAY, but every socket it waits on passes through the pool: the listening socket
/// (whose setting Linux copies to accepted connections) and each connection waiting for its next request.
struct NoDelaySocketPool: AsyncSocketPool {
    let base: any AsyncSocketPool

    func prepare() async throws {
        try await base.prepare()
    }

    func run() async throws {
        try await base.run()
    }

    func suspendSocket(_ socket: Socket, untilReadyFor events: Socket.Events) async throws {
        Self.disableNagle(on: socket)
        try await base.suspendSocket(socket, untilReadyFor: events)
    }

    static func disableNagle(on socket: Socket) {
        #if os(Linux)
        var on: Int32 = 1
        // Fails harmlessly on non-TCP sockets; nothing to do about it then.
        _ = setsockopt(socket.file.rawValue, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }
}
