import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// Checks webhook deliveries with an implementation independent of subrecon's signer: the
/// standard-webhooks project's own Python library (PyPI `standardwebhooks` 1.1.0, which
/// `scripts/standardwebhooks-venv.sh` installs under .build; scripts/test.sh runs it), through
/// `scripts/standardwebhooks-verify.py`. The secrets go to it on standard input, never in arguments.
/// Its `verify` refuses a timestamp more than 5 minutes from now, as a receiver does.
public enum StandardWebhooksVerifier {
    /// One delivery as a receiver saw it.
    public struct Delivery: Sendable {
        /// The `whsec_` secret the receiver verifies with.
        public var secret: String
        /// The request's headers (the library reads `webhook-id`, `webhook-timestamp`, `webhook-signature`).
        public var headers: [String: String]
        public var body: [UInt8]

        public init(secret: String, headers: [String: String], body: [UInt8]) {
            self.secret = secret
            self.headers = headers
            self.body = body
        }

        /// Headers given as a list of (name, value), as a signer or an HTTP server has them; a name
        /// given twice keeps its last value.
        public init(secret: String, headers: [(name: String, value: String)], body: [UInt8]) {
            self.init(secret: secret, headers: Dictionary(headers.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 }), body: body)
        }
    }

    /// What the library said of one delivery.
    public struct Verdict: Sendable, Equatable {
        /// `Webhook(secret).verify(body, headers)` passed.
        public var verified: Bool
        /// The library's error when it did not.
        public var error: String?
        /// The library's own `v1,…` signature of the delivery's id, timestamp and body with its
        /// secret (nil when the headers lack an id or a numeric timestamp).
        public var signature: String?
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The repository's root (this file is Tests/TestSupport/StandardWebhooksVerifier.swift).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// SUBRECON_TEST_STANDARDWEBHOOKS_PYTHON, else the virtual environment scripts/standardwebhooks-venv.sh makes.
    static var python: String {
        ProcessInfo.processInfo.environment["SUBRECON_TEST_STANDARDWEBHOOKS_PYTHON"]
            ?? root.appendingPathComponent(".build/standardwebhooks-venv/bin/python").path
    }

    /// Each delivery's verdict, in order (one Python process for the whole list).
    public static func check(_ deliveries: [Delivery]) throws -> [Verdict] {
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw Failure(
                description: "the Standard Webhooks verifier is not installed at \(python): run `bash scripts/standardwebhooks-venv.sh`")
        }
        let input = try JSONSerialization.data(
            withJSONObject: deliveries.map { delivery in
                ["secret": delivery.secret, "headers": delivery.headers, "body_base64": Data(delivery.body).base64EncodedString()]
            })
        // Input and output go through private temporary files, and Python is started with
        // posix_spawn and reaped with waitpid (retried on EINTR): Foundation's Process reads a pipe
        // in run() that traps when a signal (another test's child exiting) interrupts it.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("standardwebhooks-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (inputPath, outputPath, errorPath) = (folder + "/in.json", folder + "/out.json", folder + "/err.txt")
        guard FileManager.default.createFile(atPath: inputPath, contents: input, attributes: [.posixPermissions: 0o600]) else {
            throw Failure(description: "cannot write the verifier's input to \(inputPath)")
        }
        let status = try run([python, root.appendingPathComponent("scripts/standardwebhooks-verify.py").path],
            stdin: inputPath, stdout: outputPath, stderr: errorPath)
        let output = FileManager.default.contents(atPath: outputPath) ?? Data()
        let errors = FileManager.default.contents(atPath: errorPath) ?? Data()
        guard status == 0,
            let list = try JSONSerialization.jsonObject(with: output) as? [[String: Any]], list.count == deliveries.count
        else {
            throw Failure(
                description: "the Standard Webhooks verifier failed (status \(status)): "
                    + (String(data: errors, encoding: .utf8) ?? ""))
        }
        return list.map { item in
            Verdict(verified: item["verified"] as? Bool ?? false, error: item["error"] as? String, signature: item["signature"] as? String)
        }
    }

    /// Runs `arguments` with its standard streams on files; its exit status.
    public static func run(_ arguments: [String], stdin: String, stdout: String, stderr: String) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdin, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, arguments[0], &actions, nil, argv, environ)
        guard spawned == 0 else { throw Failure(description: "cannot start \(arguments[0]): errno \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw Failure(description: "waiting for \(arguments[0]) failed: errno \(errno)") }
        }
        // WIFEXITED / WEXITSTATUS, which Swift does not import.
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    /// Which deliveries the library verified, in order.
    public static func verified(_ deliveries: [Delivery]) throws -> [Bool] {
        try check(deliveries).map(\.verified)
    }

    /// `check` for async tests: waits for Python on a plain thread, never on the cooperative pool,
    /// where an in-process receiver or simulator needs the threads.
    public static func check(_ deliveries: [Delivery]) async throws -> [Verdict] {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try check(deliveries) as [Verdict] }) }
        }
    }

    /// `verified` for async tests (see the async `check`).
    public static func verified(_ deliveries: [Delivery]) async throws -> [Bool] {
        try await check(deliveries).map(\.verified)
    }
}
