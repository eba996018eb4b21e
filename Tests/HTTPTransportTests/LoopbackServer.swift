import FlyingFox
import FlyingSocks
import Foundation

/// A FlyingFox server on 127.0.0.1 with an ephemeral port, for the length of `body`.
func withLoopbackServer<T>(
    _ handler: @escaping @Sendable (FlyingFox.HTTPRequest) async throws -> FlyingFox.HTTPResponse,
    _ body: (_ baseURL: String) async throws -> T
) async throws -> T {
    let server = HTTPServer(
        address: try sockaddr_in.inet(ip4: "127.0.0.1", port: 0),
        timeout: 60,  // handler time limit; some handlers deliberately stall
        logger: .disabled,
        handler: ClosureHTTPHandler(handler)
    )
    let task = Task { try await server.run() }
    do {
        try await server.waitUntilListening()
        guard case .ip4(_, let port) = await server.listeningAddress else {
            throw SocketError.unsupportedAddress
        }
        let result = try await body("http://127.0.0.1:\(port)")
        task.cancel()
        _ = await task.result
        return result
    } catch {
        task.cancel()
        _ = await task.result
        throw error
    }
}

/// A port on 127.0.0.1 that refuses connections: bound (so nobody else takes it) but not listening.
final class RefusingPort {
    private let socket: Socket
    let port: UInt16

    init() throws {
        socket = try Socket(domain: AF_INET)
        try socket.bind(to: try sockaddr_in.inet(ip4: "127.0.0.1", port: 0))
        guard case .ip4(_, let port) = try socket.sockname() else { throw SocketError.unsupportedAddress }
        self.port = port
    }

    deinit { try? socket.close() }
}

/// A response body of `count` bytes sent with chunked encoding, i.e. without a Content-Length,
/// so only the transport's byte counting can catch an oversized body.
struct ChunkedBytes: AsyncBufferedSequence {
    typealias Element = UInt8
    let count: Int

    func makeAsyncIterator() -> Iterator { Iterator(remaining: count) }

    struct Iterator: AsyncBufferedIteratorProtocol {
        var remaining: Int

        mutating func next() async throws -> UInt8? {
            guard remaining > 0 else { return nil }
            remaining -= 1
            return UInt8(ascii: "a")
        }

        mutating func nextBuffer(suggested count: Int) async throws -> [UInt8]? {
            guard remaining > 0 else { return nil }
            let n = Swift.min(count, remaining)
            remaining -= n
            return [UInt8](repeating: UInt8(ascii: "a"), count: n)
        }
    }
}

/// `openssl s_server -www` with a freshly made self-signed certificate for 127.0.0.1.
final class SelfSignedTLSServer {
    let directory: URL
    let certificatePath: String
    let port: UInt16
    private let process: Process

    init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("subrecon-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        certificatePath = directory.appendingPathComponent("cert.pem").path
        let keyPath = directory.appendingPathComponent("key.pem").path

        let request = try Self.openssl([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", keyPath, "-out", certificatePath, "-days", "2", "-subj", "/CN=localhost",
            "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
        ])
        request.waitUntilExit()
        guard request.terminationStatus == 0 else { throw TLSServerError.certificateNotCreated }

        process = try Self.openssl(
            ["s_server", "-accept", "127.0.0.1:0", "-cert", certificatePath, "-key", keyPath, "-www"],
            captureOutput: true
        )
        // s_server prints "ACCEPT 127.0.0.1:PORT" once it listens.
        let output = (process.standardOutput as! Pipe).fileHandleForReading
        var seen = ""
        var found: UInt16?
        while found == nil {
            let data = output.availableData
            if data.isEmpty { break }
            seen += String(decoding: data, as: UTF8.self)
            for line in seen.split(separator: "\n") where line.hasPrefix("ACCEPT ") {
                found = line.split(separator: ":").last.flatMap { UInt16($0.trimmingCharacters(in: .whitespaces)) }
            }
        }
        guard let found else {
            kill(process.processIdentifier, SIGKILL)
            throw TLSServerError.serverDidNotStart(seen)
        }
        port = found
    }

    func stop() {
        // SIGKILL: the child inherits the test runner's signal mask, which blocks SIGTERM.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }

    private static func openssl(_ arguments: [String], captureOutput: Bool = false) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = captureOutput ? Pipe() : FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    enum TLSServerError: Error {
        case certificateNotCreated
        case serverDidNotStart(String)
    }
}
