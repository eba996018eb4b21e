import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One TCP connection to a loopback port, for what an HTTP client hides: a request sent slowly
/// or never finished, and the moment the server closes the connection. Every read is non-blocking;
/// the waits poll on a thread of their own (never one of the cooperative pool, whose wake-ups a
/// loaded host delays). Used from one task or thread at a time.
final class RawTCPConnection: @unchecked Sendable {
    struct ConnectFailed: Error { let errno: Int32 }

    private let fd: Int32
    private var buffer: [UInt8] = []
    private(set) var closedByPeer = false

    /// Connects (loopback: the kernel completes the handshake even while the server is not
    /// accepting, as long as its listen backlog has room).
    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            let code = errno
            close(fd)
            throw ConnectFailed(errno: code)
        }
    }

    /// The port of a receiver URL (`http://127.0.0.1:PORT/...`).
    static func port(of url: String) -> Int {
        Int(url.split(separator: ":")[2].prefix { $0.isNumber })!
    }

    deinit { close(fd) }

    /// False once the connection is gone (reset, or closed and the kernel said so).
    @discardableResult
    func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { sendWithoutSIGPIPE(fd, $0.baseAddress, $0.count) }
            if n <= 0 { return false }
            sent += n
        }
        return true
    }

    /// Takes in whatever has arrived, without waiting; notes an end of stream or a reset.
    func drain() {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while !closedByPeer {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n > 0 {
                buffer.append(contentsOf: chunk[..<n])
            } else if n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                closedByPeer = true
            } else {
                return
            }
        }
    }

    /// How long until the server closed the connection, polling every 20 ms; nil if it was still
    /// open after `timeout`. Polls on a thread of its own: on a loaded host the tests' shared task
    /// pool can wake a sleeping task seconds late, which would skew every time measured here.
    func waitUntilClosed(timeout: Duration, since start: ContinuousClock.Instant = .now) async throws -> Duration? {
        await Self.onOwnThread { self.waitUntilClosedBlocking(timeout: timeout, since: start) }
    }

    func waitUntilClosedBlocking(timeout: Duration, since start: ContinuousClock.Instant = .now) -> Duration? {
        while ContinuousClock.now - start < timeout {
            drain()
            if closedByPeer { return ContinuousClock.now - start }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return nil
    }

    /// `body` on a thread of its own (blocking socket work and sleeps, timed where they happen).
    static func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: body()) }
        }
    }

    struct Response: Equatable {
        var status: Int
        var body: String
    }

    /// The next complete response (head, and a body of its Content-Length), taken off the buffer;
    /// nil if none has arrived within `timeout` or the connection closed first.
    func response(timeout: Duration) async throws -> Response? {
        await Self.onOwnThread { self.responseBlocking(timeout: timeout) }
    }

    func responseBlocking(timeout: Duration) -> Response? {
        let start = ContinuousClock.now
        while true {
            drain()
            if let (status, bodyStart, end) = Self.completeResponse(in: buffer) {
                let body = String(decoding: buffer[bodyStart..<end], as: UTF8.self)
                buffer.removeFirst(end)
                return Response(status: status, body: body)
            }
            if closedByPeer || ContinuousClock.now - start >= timeout { return nil }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// The status, where the body starts and where the first complete response in `bytes` ends.
    private static func completeResponse(in bytes: [UInt8]) -> (Int, Int, Int)? {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard bytes.count >= 4,
            let end = (0...(bytes.count - 4)).first(where: { bytes[$0..<$0 + 4].elementsEqual(separator) })
        else { return nil }
        let head = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = head[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { return nil }
        let length =
            head.dropFirst().compactMap { line -> Int? in
                let parts = line.split(separator: ":", maxSplits: 1)
                guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
                return Int(parts[1].trimmingCharacters(in: .whitespaces))
            }.first ?? 0
        let total = end + 4 + length
        return bytes.count >= total ? (status, end + 4, total) : nil
    }
}

/// `send(2)` outside the class, whose own `send` would shadow it; no SIGPIPE on a closed socket.
private func sendWithoutSIGPIPE(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    send(fd, bytes, count, Int32(MSG_NOSIGNAL))
}
