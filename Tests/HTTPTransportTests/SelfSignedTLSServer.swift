import Foundation
#if canImport(Glibc)
import Glibc
#endif

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
