import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#endif

/// The app's backend as the webhook benchmark sees it: an HTTP/1.1 server on 127.0.0.1 that reads
/// each POST whole and answers `200` with an empty body, at once or after `delay`. It counts the
/// requests and, when asked, keeps each `webhook-id`'s first arrival (the latency measurement).
///
/// Its own, not the tests' `WebhookReceiver`: the benchmark may not depend on a test target. Raw
/// blocking sockets and one thread per connection (the deliverer keeps at most its concurrency of
/// connections alive), so a delayed answer holds only its own connection, as a slow backend does.
final class LoopbackWebhookReceiver: Sendable {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private struct State {
        var requests = 0
        var arrivals: [String: UInt64] = [:]
        var connections: Set<Int32> = []
        var stopped = false
    }

    /// How long each answer waits.
    let delayMs: Int
    /// Keeps the first arrival (monotonic ns) of every `webhook-id`.
    let recordsArrivals: Bool
    let port: UInt16
    private let listener: Int32
    private let state = Mutex(State())
    private let threads = DispatchGroup()

    var url: String { "http://127.0.0.1:\(port)/hooks" }

    /// Listens on an ephemeral port and starts accepting.
    init(delayMs: Int = 0, recordsArrivals: Bool = false) throws {
        self.delayMs = delayMs
        self.recordsArrivals = recordsArrivals
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(fd, raw, length) == 0 && listen(fd, 256) == 0 && getsockname(fd, raw, &length) == 0
            }
        }
        guard bound else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw Failure(description: "listening on 127.0.0.1: \(reason)")
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        threads.enter()
        Thread.detachNewThread { [self] in
            acceptLoop()
            threads.leave()
        }
    }

    /// Requests answered so far.
    var requestCount: Int { state.withLock { $0.requests } }

    /// Each `webhook-id`'s first arrival (monotonic ns), when `recordsArrivals`.
    var arrivals: [String: UInt64] { state.withLock { $0.arrivals } }

    /// Waits until `count` requests were answered or `timeout` passed; returns the count.
    func waitForRequests(_ count: Int, timeout: Duration) async -> Int {
        let deadline = ContinuousClock.now + timeout
        while requestCount < count, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        return requestCount
    }

    /// Stops accepting, drops every connection and waits for the threads.
    func stop() {
        let open = state.withLock { state -> Set<Int32> in
            state.stopped = true
            return state.connections
        }
        for fd in open { shutdown(fd, Int32(SHUT_RDWR)) }
        shutdown(listener, Int32(SHUT_RDWR))
        threads.wait()
        close(listener)
    }

    private func acceptLoop() {
        while true {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            let accepted = state.withLock { state -> Bool in
                guard !state.stopped else { return false }
                state.connections.insert(fd)
                return true
            }
            guard accepted else {
                close(fd)
                return
            }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            threads.enter()
            Thread.detachNewThread { [self] in
                serve(fd)
                state.withLock { _ = $0.connections.remove(fd) }
                close(fd)
                threads.leave()
            }
        }
    }

    private static let answer = Array("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".utf8)
    private static let headEnd: [UInt8] = [13, 10, 13, 10]

    /// Serves one kept-alive connection until the client closes it.
    private func serve(_ fd: Int32) {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(16 * 1024)
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            // The head, then the body its Content-Length announces.
            var head: Range<Int>? = nil
            while head == nil {
                if let end = Self.find(Self.headEnd, in: buffer) {
                    head = 0..<end
                } else if !read(fd, into: &buffer, chunk: &chunk) {
                    return
                }
            }
            guard let head else { return }
            let (length, eventID) = Self.parse(buffer[head])
            let total = head.upperBound + 4 + length
            while buffer.count < total {
                if !read(fd, into: &buffer, chunk: &chunk) { return }
            }
            let arrived = DispatchTime.now().uptimeNanoseconds
            buffer.removeFirst(total)
            state.withLock { state in
                state.requests += 1
                if recordsArrivals, let eventID, state.arrivals[eventID] == nil { state.arrivals[eventID] = arrived }
            }
            if delayMs > 0 { usleep(UInt32(delayMs * 1000)) }
            let sent = Self.answer.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent != Self.answer.count { return }
        }
    }

    /// Appends what one `recv` returns; false when the connection ended.
    private func read(_ fd: Int32, into buffer: inout [UInt8], chunk: inout [UInt8]) -> Bool {
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count < 0, errno == EINTR { return true }
        guard count > 0 else { return false }
        buffer.append(contentsOf: chunk[0..<count])
        return true
    }

    /// Content-Length and `webhook-id` of a request head (names ASCII case-insensitive).
    private static func parse(_ head: ArraySlice<UInt8>) -> (length: Int, eventID: String?) {
        var length = 0
        var eventID: String? = nil
        for line in head.split(separator: 10) {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
            let name = String(decoding: line[line.startIndex..<colon], as: UTF8.self).lowercased()
            guard name == "content-length" || name == "webhook-id" else { continue }
            let value = String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if name == "content-length" { length = Int(value) ?? 0 } else { eventID = value }
        }
        return (length, eventID)
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        outer: for start in 0...(haystack.count - needle.count) {
            for offset in 0..<needle.count where haystack[start + offset] != needle[offset] { continue outer }
            return start
        }
        return nil
    }
}
