import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `openssl s_server` on 127.0.0.1 (a free port) with a fresh `SelfSignedCertificate`: a TLS
/// server no client trusts unless told to (`certificatePath` as its CA file), for the tests that
/// TLS is never disabled.
public final class SelfSignedTLSServer: @unchecked Sendable {
    /// How the server answers.
    public enum Answers: Sendable {
        /// `-www`: every GET gets s_server's status page (200).
        case statusPage
        /// Nothing until the test calls `respond(_:)`: s_server forwards its stdin over TLS.
        /// POSTs need this (`-www` never answers one).
        case byTheTest
    }

    public let certificatePath: String
    public let port: UInt16
    private let folder: String
    private let ownsFolder: Bool
    private let process: Process
    private let input: FileHandle
    private let lock = NSLock()
    private var seen = ""

    /// - Parameter folder: where the certificate and its key go; nil: a temporary folder of its
    ///   own, removed by `stop()`.
    public init(answers: Answers, folder: String? = nil) throws {
        if let folder {
            self.folder = folder
            ownsFolder = false
        } else {
            self.folder = FileManager.default.temporaryDirectory
                .appendingPathComponent("subrecon-tls-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: self.folder, withIntermediateDirectories: true)
            ownsFolder = true
        }
        certificatePath = self.folder + "/cert.pem"
        let keyPath = self.folder + "/key.pem"
        try SelfSignedCertificate().write(certificateTo: certificatePath, keyTo: keyPath)

        var arguments = ["s_server", "-accept", "127.0.0.1:0", "-cert", certificatePath, "-key", keyPath]
        if case .statusPage = answers { arguments.append("-www") }
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        // stdin stays an open, empty pipe: at EOF s_server would drop every connection at once.
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        input = stdin.fileHandleForWriting

        // s_server prints "ACCEPT 127.0.0.1:PORT" once it listens, then everything the client sends.
        let output = stdout.fileHandleForReading
        var text = ""
        var found: UInt16?
        while found == nil {
            let data = output.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
            for line in text.split(separator: "\n") where line.hasPrefix("ACCEPT ") {
                found = line.split(separator: ":").last.flatMap { UInt16($0.trimmingCharacters(in: .whitespaces)) }
            }
        }
        guard let found else {
            kill(process.processIdentifier, SIGKILL)
            throw ServerError.serverDidNotStart(text)
        }
        port = found
        seen = text
        Thread.detachNewThread { [self] in
            while true {
                let data = output.availableData
                if data.isEmpty { return }
                lock.withLock { seen += String(decoding: data, as: UTF8.self) }
            }
        }
    }

    /// Everything s_server printed so far.
    public var output: String { lock.withLock { seen } }

    /// Waits (polling, with a deadline) until `text` appears in the output after the first `mark` characters.
    public func waitForOutput(_ text: String, after mark: Int, seconds: Int) async -> Bool {
        for _ in 0..<(seconds * 50) {
            if String(output.dropFirst(mark)).contains(text) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    /// Sends an HTTP/1.1 200 answer with `body` over the open TLS connection (`.byTheTest`).
    public func respond(_ body: String) {
        let bytes = Array(body.utf8)
        let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(bytes.count)\r\nConnection: close\r\n\r\n"
        input.write(Data(head.utf8) + Data(bytes))
    }

    public func stop() {
        // SIGKILL: children of the test process inherit a signal mask that blocks SIGTERM.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? input.close()
        if ownsFolder { try? FileManager.default.removeItem(atPath: folder) }
    }

    public enum ServerError: Error {
        case serverDidNotStart(String)
    }
}
