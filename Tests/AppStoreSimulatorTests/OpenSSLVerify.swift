import Foundation
import Testing
import X509

/// `openssl verify -x509_strict` over a chain written to a temporary folder: the strict X.509
/// verification Apple's App Store Server Libraries run (pyOpenSSL with `X509_STRICT`), so a
/// chain it accepts is one a backend using Apple's library accepts. openssl comes with
/// scripts/setup.sh.
struct OpenSSLVerify {
    /// What openssl said and whether it said `OK`.
    struct Outcome: CustomStringConvertible {
        let accepted: Bool
        let output: String
        var description: String { output }
    }

    /// Verifies `leafDER` through `intermediateDER` to `rootDER` (the only trusted certificate) at
    /// `atSeconds` (Unix time), strictly unless `strict` is false.
    static func verify(
        leaf leafDER: [UInt8], intermediate intermediateDER: [UInt8], root rootDER: [UInt8], atSeconds: Int64,
        strict: Bool = true
    ) throws -> Outcome {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("subrecon-openssl-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for (name, der) in [("leaf", leafDER), ("intermediate", intermediateDER), ("root", rootDER)] {
            let pem = try Certificate(derEncoded: der).serializeAsPEM().pemString + "\n"
            try pem.write(to: folder.appendingPathComponent("\(name).pem"), atomically: true, encoding: .utf8)
        }
        var arguments = ["openssl", "verify"]
        if strict { arguments.append("-x509_strict") }
        arguments += ["-attime", String(atSeconds), "-CAfile", "root.pem", "-untrusted", "intermediate.pem", "leaf.pem"]

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.currentDirectoryURL = folder
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try #require(
            process.terminationStatus != 127, "openssl is not installed (scripts/setup.sh installs it): \(output)")
        let lines = output.split(separator: "\n")
        return Outcome(accepted: process.terminationStatus == 0 && lines == ["leaf.pem: OK"], output: output)
    }
}
