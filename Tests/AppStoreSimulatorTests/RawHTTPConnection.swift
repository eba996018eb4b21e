import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A tiny blocking HTTP/1.1 client on one TCP connection, for what URLSession hides: connection
/// reuse, truncated bodies and dropped connections. Call it through `onDedicatedThread` so blocking
/// reads never occupy the Swift concurrency pool the simulator runs on.
final class RawHTTPConnection {
    struct Response {
        var status: Int
        var headers: [String: String]
        var body: [UInt8]
    }

    enum Failure: Error, Equatable {
        case connectFailed(Int32)
        /// The peer closed (EOF) or reset the connection; `received` is what arrived before.
        case closed(received: [UInt8], reset: Bool)
        case timedOut(received: [UInt8])
        case malformed
    }

    private let fd: Int32
    private var buffer: [UInt8] = []

    init(port: UInt16, timeout: TimeInterval = 10) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - floor(timeout)) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            close(fd)
            throw Failure.connectFailed(code)
        }
    }

    deinit {
        close(fd)
    }

    func send(method: String = "POST", path: String, body: [UInt8] = [], extraHeaders: String = "") {
        let head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.count)\r\n\(extraHeaders)\r\n"
        let bytes = Array(head.utf8) + body
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            sent += n
        }
    }

    /// Reads one response with a Content-Length body.
    func readResponse() throws -> Response {
        var headerEnd: Int?
        while headerEnd == nil {
            headerEnd = find([13, 10, 13, 10])
            if headerEnd == nil { try fill() }
        }
        let head = String(decoding: buffer[..<headerEnd!], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw Failure.malformed }
        var headers: [String: String] = [:]
        for line in lines {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2 {
                headers[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        let bodyStart = headerEnd! + 4
        while buffer.count < bodyStart + length {
            try fill()
        }
        let body = Array(buffer[bodyStart..<bodyStart + length])
        buffer.removeFirst(bodyStart + length)
        return Response(status: status, headers: headers, body: body)
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n > 0 {
            buffer.append(contentsOf: chunk[..<n])
            return
        }
        if n == 0 { throw Failure.closed(received: buffer, reset: false) }
        if errno == EAGAIN || errno == EWOULDBLOCK { throw Failure.timedOut(received: buffer) }
        throw Failure.closed(received: buffer, reset: errno == ECONNRESET)
    }

    private func find(_ pattern: [UInt8]) -> Int? {
        guard buffer.count >= pattern.count else { return nil }
        for start in 0...(buffer.count - pattern.count) where buffer[start..<start + pattern.count].elementsEqual(pattern) {
            return start
        }
        return nil
    }
}

/// Runs blocking work on its own thread and awaits the result.
func onDedicatedThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            continuation.resume(with: Result { try work() })
        }
        thread.start()
    }
}
