import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The small receiver the demo delivers its events to: HTTP/1.1 on 127.0.0.1, an ephemeral port,
/// every POST answered 204 and kept (headers and body) for the demo to show. A thread per
/// connection; the demo sends a few dozen events.
final class DemoWebhookReceiver: Sendable {
    struct Delivery: Sendable {
        var headers: [String: String]
        var body: [UInt8]
    }

    private let listener: Int32
    let port: UInt16
    private let received = Mutex<[Delivery]>([])
    private let stopped = Mutex(false)

    var url: String { "http://127.0.0.1:\(port)/subrecon-events" }
    var deliveries: [Delivery] { received.withLock { $0 } }

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw DemoError("could not open a socket for the demo's webhook receiver") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            close(fd)
            throw DemoError("could not listen on 127.0.0.1 for the demo's webhook receiver")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// Stops accepting; connections end when their client closes them.
    func stop() {
        stopped.withLock { $0 = true }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptLoop() {
        while !stopped.withLock({ $0 }) {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            Thread.detachNewThread { [self] in serve(connection) }
        }
    }

    /// Requests one after another on a kept-alive connection, each with a Content-Length body.
    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        func fill() -> Bool {
            let count = read(connection, &chunk, chunk.count)
            guard count > 0 else { return false }
            buffer += chunk[0..<count]
            return true
        }
        while true {
            var headerEnd: Int?
            while headerEnd == nil {
                headerEnd = Self.find([13, 10, 13, 10], in: buffer)
                if headerEnd == nil, !fill() { return }
            }
            guard let end = headerEnd else { return }
            let head = String(decoding: buffer[0..<end], as: UTF8.self)
            var headers: [String: String] = [:]
            for line in head.split(separator: "\r\n").dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            let length = Int(headers["content-length"] ?? "0") ?? 0
            while buffer.count < end + 4 + length { if !fill() { return } }
            let body = Array(buffer[(end + 4)..<(end + 4 + length)])
            buffer.removeFirst(end + 4 + length)
            received.withLock { $0.append(Delivery(headers: headers, body: body)) }
            let answer = Array("HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n".utf8)
            guard write(connection, answer, answer.count) == answer.count else { return }
        }
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start..<(start + needle.count)].elementsEqual(needle) {
            return start
        }
        return nil
    }
}
