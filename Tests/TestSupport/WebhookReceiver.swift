import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A real HTTP/1.1 server on 127.0.0.1 (an ephemeral port) standing in for the app's backend that
/// subrecon's webhooks are POSTed to. It records every request exactly as it arrived (method,
/// path and query, header lines in order with their names as written, body bytes, arrival time) and
/// answers each the way the test's `behaviour` closure chooses for it: a status, a slow answer, no
/// answer, a truncated body, garbage, a redirect, a closed connection.
///
/// Raw POSIX sockets and one thread per connection rather than NIO: the misbehaving answers need
/// byte-level control (a Content-Length that lies, a close without a byte), blocking code makes each
/// of them a few obvious lines, and this target stays free of NIO. Connections are kept alive across
/// requests (libcurl reuses them) and any number are served at once. Every descriptor is
/// close-on-exec, so a subrecon binary the test spawns does not inherit the listening socket.
///
/// ```swift
/// try await WebhookReceiver.with(behaviour: { $0.index == 0 ? .status(500) : .status(204) }) { receiver in
///     ... deliver to receiver.url ...
///     let requests = try await receiver.waitForRequests(count: 2, timeout: .seconds(10))
/// }   // stopped on every path out; or start() and stop() yourself
/// ```
public final class WebhookReceiver: Sendable {
    /// One request as it arrived.
    public struct Request: Sendable, CustomStringConvertible {
        /// 0-based, in the order requests finished arriving (over all connections).
        public let index: Int
        /// 1-based number of the TCP connection it came on: equal numbers mean a reused connection.
        public let connection: Int
        public let method: String
        /// The request target as sent: path and query (`/hooks?x=1`).
        public let target: String
        /// `HTTP/1.1` or `HTTP/1.0`.
        public let version: String
        /// Header lines in order, names exactly as written, values without surrounding blanks.
        public let headers: [(name: String, value: String)]
        /// The body's bytes (de-chunked when sent chunked).
        public let body: [UInt8]
        /// When the request's last byte arrived (wall clock, and a monotonic instant for gaps).
        public let receivedAt: Date
        public let instant: ContinuousClock.Instant

        /// The first value of the header `name` (ASCII case-insensitive), or nil.
        public func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        /// Every value of the header `name`, in order: one element per header line.
        public func values(of name: String) -> [String] {
            headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
        }

        /// The target's path, without the query.
        public var path: String { String(target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]) }

        /// The body as UTF-8 text (invalid bytes replaced).
        public var bodyText: String { String(decoding: body, as: UTF8.self) }

        public var description: String {
            "#\(index) \(method) \(target) (connection \(connection), \(body.count) body bytes)"
        }
    }

    /// How to answer one request.
    public enum Behaviour: Sendable, Equatable {
        /// An answer with this status and a short text body (none for 1xx, 204, 304). The connection
        /// stays open for the next request unless the client asked to close it.
        case status(Int)
        /// Waits `seconds` (cut short by `stop()`), then answers as `.status(status)`.
        case slow(seconds: Double, status: Int)
        /// Never answers: holds the connection until the client closes it or `stop()`.
        case neverAnswer
        /// A 200 whose headers promise 1,000 body bytes, a few of them, then a close.
        case closeMidBody
        /// Bytes that are not HTTP, then a close.
        case garbage
        /// `302 Found` with `Location: location` (a client that follows it would POST there).
        case redirect(to: String)
        /// Closes the connection without sending a byte (FIN).
        case closeImmediately
        /// Resets the connection (RST: SO_LINGER 0) without sending a byte.
        case reset
    }

    public enum Failure: Error, CustomStringConvertible {
        case socket(call: String, code: Int32)
        case alreadyStarted
        case notStarted
        case timedOut(expected: Int, received: Int)

        public var description: String {
            switch self {
            case .socket(let call, let code): "the webhook receiver's \(call) failed: \(String(cString: strerror(code)))"
            case .alreadyStarted: "the webhook receiver was already started (start it once)"
            case .notStarted: "the webhook receiver is not listening (call start() first)"
            case .timedOut(let expected, let received):
                "the webhook receiver got \(received) request(s), not the \(expected) expected, before the deadline"
            }
        }
    }

    private struct State {
        var behaviour: @Sendable (Request) -> Behaviour
        var phase = Phase.idle
        var listener: Int32 = -1
        var wakeRead: Int32 = -1
        var wakeWrite: Int32 = -1
        var port: UInt16 = 0
        var requests: [Request] = []
        var received = 0
        var accepted = 0
        var open = 0
        var peakOpen = 0
        var inFlight = 0
        var peakInFlight = 0
    }

    private enum Phase { case idle, running, stopped }

    /// Path and query every `url` ends with.
    public let target: String
    /// false: requests are counted and shown to the behaviour, not kept (long benchmarks).
    public let keepsRequests: Bool
    private let state: Mutex<State>
    /// The accept thread and every connection thread: `stop()` waits for all of them.
    private let threads = DispatchGroup()

    /// - Parameters:
    ///   - target: the path and query `url` ends with (`/hooks?x=1` by default). The server answers
    ///     any path alike; requests record the path they used.
    ///   - behaviour: chooses each request's answer; called once per request, after the request was
    ///     recorded, on that connection's own thread, so it may block (e.g. hold every answer until
    ///     N requests are in flight; `stop()` waits for it). Default: `.status(200)` for all.
    ///   - keepsRequests: false keeps only the count (`requestCount`), for runs of many thousand
    ///     requests whose memory should not grow; `requests` stays empty.
    public init(
        target: String = "/hooks?x=1", keepsRequests: Bool = true,
        behaviour: @escaping @Sendable (Request) -> Behaviour = { _ in .status(200) }
    ) {
        self.target = target
        self.keepsRequests = keepsRequests
        state = Mutex(State(behaviour: behaviour))
    }

    /// Starts, runs `body`, and stops on every path out of it.
    public static func with<T>(
        target: String = "/hooks?x=1", keepsRequests: Bool = true,
        behaviour: @escaping @Sendable (Request) -> Behaviour = { _ in .status(200) },
        _ body: (WebhookReceiver) async throws -> T
    ) async throws -> T {
        let receiver = WebhookReceiver(target: target, keepsRequests: keepsRequests, behaviour: behaviour)
        try await receiver.start()
        do {
            let result = try await body(receiver)
            await receiver.stop()
            return result
        } catch {
            await receiver.stop()
            throw error
        }
    }

    /// The port it listens on (0 before `start()`).
    public var port: UInt16 { state.withLock { $0.port } }

    /// `http://127.0.0.1:PORT` + `target`.
    public var url: String { "http://127.0.0.1:\(port)\(target)" }

    /// `http://127.0.0.1:PORT` (no path), for URLs of other paths.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Every request received so far, in arrival order (empty unless `keepsRequests`).
    public var requests: [Request] { state.withLock { $0.requests } }

    /// How many requests arrived so far (kept or not).
    public var requestCount: Int { state.withLock { $0.received } }

    /// The requests whose `webhook-id` header is `id`, in arrival order (every attempt of one event).
    public func requests(webhookID id: String) -> [Request] {
        requests.filter { $0.header("webhook-id") == id }
    }

    /// TCP connections accepted so far.
    public var connectionsAccepted: Int { state.withLock { $0.accepted } }

    /// TCP connections open right now.
    public var openConnections: Int { state.withLock { $0.open } }

    /// The most TCP connections that were open at once.
    public var peakOpenConnections: Int { state.withLock { $0.peakOpen } }

    /// Requests received and not yet answered (or given up) right now.
    public var requestsInFlight: Int { state.withLock { $0.inFlight } }

    /// The most requests in flight at once: what bounds a client's concurrency, unlike open
    /// connections (an idle kept-alive connection counts there, not here).
    public var peakRequestsInFlight: Int { state.withLock { $0.peakInFlight } }

    /// Replaces the behaviour for the requests that arrive from now on.
    public func setBehaviour(_ behaviour: @escaping @Sendable (Request) -> Behaviour) {
        state.withLock { $0.behaviour = behaviour }
    }

    /// Binds 127.0.0.1 on an ephemeral port and starts accepting.
    public func start() async throws {
        try state.withLock { state in
            guard state.phase == .idle else { throw Failure.alreadyStarted }
            let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard listener >= 0 else { throw Failure.socket(call: "socket", code: errno) }
            var reuse: Int32 = 1
            setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let failedCall: String? = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                    if bind(listener, pointer, length) != 0 { return "bind" }
                    // A deep backlog: tests open a hundred connections at once.
                    if listen(listener, 1024) != 0 { return "listen" }
                    if getsockname(listener, pointer, &length) != 0 { return "getsockname" }
                    return nil
                }
            }
            if let failedCall {
                let code = errno
                close(listener)
                throw Failure.socket(call: failedCall, code: code)
            }
            var pipeFDs: [Int32] = [-1, -1]
            guard pipe(&pipeFDs) == 0 else {
                let code = errno
                close(listener)
                throw Failure.socket(call: "pipe", code: code)
            }
            for fd in pipeFDs { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            state.listener = listener
            state.wakeRead = pipeFDs[0]
            state.wakeWrite = pipeFDs[1]
            state.port = UInt16(bigEndian: address.sin_port)
            state.phase = .running
            threads.enter()
            let wake = pipeFDs[0]
            Thread.detachNewThread { [self] in
                acceptLoop(listener: listener, wake: wake)
                threads.leave()
            }
        }
    }

    /// Stops accepting, ends every connection (slow and never-answering ones included), waits
    /// for every thread it started and closes every descriptor. Idempotent.
    public func stop() async {
        let descriptors: (listener: Int32, wakeRead: Int32, wakeWrite: Int32)? = state.withLock { state in
            guard state.phase == .running else {
                state.phase = .stopped
                return nil
            }
            state.phase = .stopped
            return (state.listener, state.wakeRead, state.wakeWrite)
        }
        guard let descriptors else { return }
        // One byte never read: the pipe stays readable, so every poll (accept, reads, waits) wakes.
        var byte: UInt8 = 1
        _ = write(descriptors.wakeWrite, &byte, 1)
        await withCheckedContinuation { continuation in
            threads.notify(queue: .global()) { continuation.resume() }
        }
        close(descriptors.listener)
        close(descriptors.wakeRead)
        close(descriptors.wakeWrite)
    }

    /// Waits until at least `count` requests have arrived and returns those kept; throws
    /// `Failure.timedOut` at the deadline.
    @discardableResult
    public func waitForRequests(count: Int, timeout: Duration = .seconds(10)) async throws -> [Request] {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (received, kept) = state.withLock { ($0.received, $0.requests) }
            if received >= count { return kept }
            if ContinuousClock.now >= deadline { throw Failure.timedOut(expected: count, received: received) }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Waits until no connection is open (clients gave up or closed); false at the deadline.
    public func waitUntilNoOpenConnections(timeout: Duration = .seconds(10)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while openConnections > 0 {
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    // MARK: - Threads

    private func acceptLoop(listener: Int32, wake: Int32) {
        while true {
            var fds = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            if fds[1].revents != 0 { return }
            // accept4 is not in Swift's Glibc module: close-on-exec right after (spawns are rare).
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                switch errno {
                case EAGAIN, EWOULDBLOCK, EINTR, ECONNABORTED: continue
                case EMFILE, ENFILE:
                    usleep(10_000)  // out of descriptors for a moment: let connections finish
                    continue
                default: return
                }
            }
            _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
            var one: Int32 = 1
            setsockopt(connection, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            let number = state.withLock { state in
                state.accepted += 1
                state.open += 1
                state.peakOpen = max(state.peakOpen, state.open)
                return state.accepted
            }
            threads.enter()
            Thread.detachNewThread { [self] in
                serve(ConnectionIO(fd: connection, wake: wake), number: number)
                close(connection)
                state.withLock { $0.open -= 1 }
                threads.leave()
            }
        }
    }

    /// Answers requests on one connection until it closes, a behaviour closes it or `stop()`.
    private func serve(_ io: ConnectionIO, number: Int) {
        var io = io
        while let parsed = io.readRequest() {
            if parsed.expectsContinue, !io.readContinuedBody(parsed) { return }
            let (request, behaviour) = state.withLock { state in
                let request = Request(
                    index: state.received, connection: number, method: parsed.method, target: parsed.target,
                    version: parsed.version, headers: parsed.headers, body: io.body, receivedAt: Date(),
                    instant: ContinuousClock.now)
                state.received += 1
                if keepsRequests { state.requests.append(request) }
                state.inFlight += 1
                state.peakInFlight = max(state.peakInFlight, state.inFlight)
                return (request, state.behaviour)
            }
            let goOn = respond(behaviour(request), keepAlive: parsed.keepAlive, on: io)
            state.withLock { $0.inFlight -= 1 }
            if !goOn { return }
        }
    }

    /// Answers one request as `behaviour` says; false when the connection must end.
    private func respond(_ behaviour: Behaviour, keepAlive: Bool, on io: ConnectionIO) -> Bool {
        switch behaviour {
        case .status(let status):
            io.send(Self.answer(status: status, headers: [], keepAlive: keepAlive))
            return keepAlive
        case .slow(let seconds, let status):
            if io.waitForStop(seconds: seconds) { return false }
            io.send(Self.answer(status: status, headers: [], keepAlive: keepAlive))
            return keepAlive
        case .neverAnswer:
            io.holdUntilClosedOrStopped()
            return false
        case .closeMidBody:
            io.send(Array("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"accepted\":tr".utf8))
            return false
        case .garbage:
            io.send(Array("\u{1}\u{2}\u{3} this is not HTTP \u{7f}\r\n\r\n".utf8) + [0xFF, 0xFE, 0x00, 0x13])
            return false
        case .redirect(let location):
            io.send(Self.answer(status: 302, headers: [("Location", location)], keepAlive: keepAlive))
            return keepAlive
        case .closeImmediately:
            return false
        case .reset:
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            setsockopt(io.fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
            return false
        }
    }

    static func answer(status: Int, headers: [(String, String)], keepAlive: Bool) -> [UInt8] {
        let reason = reasons[status] ?? "Status \(status)"
        let hasBody = !(100..<200).contains(status) && status != 204 && status != 304
        let body = hasBody ? "\(status) \(reason)\n" : ""
        var head = "HTTP/1.1 \(status) \(reason)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if hasBody { head += "Content-Type: text/plain\r\nContent-Length: \(body.utf8.count)\r\n" }
        if !keepAlive { head += "Connection: close\r\n" }
        return Array((head + "\r\n" + body).utf8)
    }

    private static let reasons: [Int: String] = [
        200: "OK", 201: "Created", 202: "Accepted", 204: "No Content", 301: "Moved Permanently", 302: "Found",
        304: "Not Modified", 307: "Temporary Redirect", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden",
        404: "Not Found", 408: "Request Timeout", 409: "Conflict", 410: "Gone", 413: "Content Too Large",
        422: "Unprocessable Content", 429: "Too Many Requests", 500: "Internal Server Error", 502: "Bad Gateway",
        503: "Service Unavailable", 504: "Gateway Timeout",
    ]
}

/// One accepted connection's blocking reads and writes; every wait also watches the stop pipe.
private struct ConnectionIO {
    struct Head {
        var method: String
        var target: String
        var version: String
        var headers: [(name: String, value: String)]
        var keepAlive: Bool
        var expectsContinue: Bool
        var chunked: Bool
        var contentLength: Int
    }

    let fd: Int32
    let wake: Int32
    /// Bytes read but not yet consumed (the start of a pipelined next request).
    private var buffer: [UInt8] = []
    /// The body of the request `readRequest` returned last.
    private(set) var body: [UInt8] = []

    /// Larger than any webhook body; a request beyond it ends the connection.
    static let maxRequestBytes = 32 << 20

    init(fd: Int32, wake: Int32) {
        self.fd = fd
        self.wake = wake
    }

    /// The next request's head (and its body, unless it waits for `100 Continue`); nil when the
    /// client closed, the request is malformed (answered 400) or the receiver stops.
    mutating func readRequest() -> Head? {
        body = []
        guard let end = readUntil([13, 10, 13, 10], limit: 64 << 10) else { return nil }
        let text = String(decoding: buffer[..<end], as: UTF8.self)
        buffer.removeFirst(end + 4)
        var lines = text.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ", omittingEmptySubsequences: false)
        guard requestLine.count == 3, requestLine[2].hasPrefix("HTTP/1.") else {
            send(WebhookReceiver.answer(status: 400, headers: [], keepAlive: false))
            return nil
        }
        var headers: [(name: String, value: String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else {
                send(WebhookReceiver.answer(status: 400, headers: [], keepAlive: false))
                return nil
            }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: CharacterSet(charactersIn: " \t"))))
        }
        func values(_ name: String) -> [String] { headers.filter { $0.name.lowercased() == name }.map { $0.value.lowercased() } }
        let version = String(requestLine[2])
        let connection = values("connection").joined(separator: ",")
        let head = Head(
            method: String(requestLine[0]), target: String(requestLine[1]), version: version, headers: headers,
            keepAlive: version == "HTTP/1.1" ? !connection.contains("close") : connection.contains("keep-alive"),
            expectsContinue: values("expect").contains("100-continue"),
            chunked: values("transfer-encoding").joined(separator: ",").contains("chunked"),
            contentLength: values("content-length").first.flatMap { Int($0) } ?? 0)
        guard head.contentLength >= 0, head.contentLength <= Self.maxRequestBytes else {
            send(WebhookReceiver.answer(status: 413, headers: [], keepAlive: false))
            return nil
        }
        if head.expectsContinue { return head }
        return readBody(head) ? head : nil
    }

    /// Sends `100 Continue` and reads the body `readRequest` left waiting.
    mutating func readContinuedBody(_ head: Head) -> Bool {
        send(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
        return readBody(head)
    }

    private mutating func readBody(_ head: Head) -> Bool {
        if !head.chunked {
            guard fill(toAtLeast: head.contentLength) else { return false }
            body = Array(buffer[..<head.contentLength])
            buffer.removeFirst(head.contentLength)
            return true
        }
        while true {
            guard let lineEnd = readUntil([13, 10], limit: 1024) else { return false }
            let sizeText = String(decoding: buffer[..<lineEnd], as: UTF8.self).split(separator: ";")[0]
            buffer.removeFirst(lineEnd + 2)
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0,
                body.count + size <= Self.maxRequestBytes
            else { return false }
            if size == 0 {
                // Trailer lines, if any, up to the empty line.
                while true {
                    guard let end = readUntil([13, 10], limit: 64 << 10) else { return false }
                    buffer.removeFirst(end + 2)
                    if end == 0 { return true }
                }
            }
            guard fill(toAtLeast: size + 2) else { return false }
            body.append(contentsOf: buffer[..<size])
            buffer.removeFirst(size + 2)
        }
    }

    /// Reads until `pattern` is in the buffer; its offset, or nil (closed, stopped, over `limit`).
    private mutating func readUntil(_ pattern: [UInt8], limit: Int) -> Int? {
        var searched = 0
        while true {
            if buffer.count >= pattern.count {
                for start in max(0, searched - pattern.count + 1)...(buffer.count - pattern.count)
                where buffer[start] == pattern[0] && buffer[start..<start + pattern.count].elementsEqual(pattern) {
                    return start
                }
                searched = buffer.count
            }
            if buffer.count > limit || !receive() { return nil }
        }
    }

    private mutating func fill(toAtLeast count: Int) -> Bool {
        while buffer.count < count {
            if !receive() { return false }
        }
        return true
    }

    /// One recv after waiting for data or the stop pipe; false on close, error or stop.
    private mutating func receive() -> Bool {
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
        while poll(&fds, 2, -1) < 0 {
            if errno != EINTR { return false }
        }
        if fds[1].revents != 0 { return false }
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return false }
        buffer.append(contentsOf: chunk[..<n])
        return true
    }

    /// Writes everything (a client that went away just ends the write).
    func send(_ bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0, errno == EINTR { continue }
            if n <= 0 { return }
            sent += n
        }
    }

    /// Sleeps `seconds` unless the receiver stops first; true when it stopped.
    func waitForStop(seconds: Double) -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            if left <= .zero { return false }
            var fds = [pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
            let ms = Int32(min(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1, 60_000))
            let ready = poll(&fds, 1, ms)
            if ready > 0 { return true }
        }
    }

    /// Holds the connection: returns when the client closes it (EOF or reset) or the receiver stops.
    /// Bytes the client sends meanwhile are read and dropped.
    func holdUntilClosedOrStopped() {
        var scratch = [UInt8](repeating: 0, count: 4096)
        while true {
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
            if poll(&fds, 2, -1) < 0 {
                if errno == EINTR { continue }
                return
            }
            if fds[1].revents != 0 { return }
            let n = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return }
        }
    }
}
