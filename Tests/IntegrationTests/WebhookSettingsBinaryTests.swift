import Foundation
import Testing

@testable import SubReconModel

/// Webhook configuration through the built binary: `webhooks secret` makes valid secrets, and
/// every bad webhook setting is exit 2 before anything else (the database is not even opened),
/// naming the setting and never showing a secret.
@Suite(.serialized) struct WebhookSettingsBinaryTests {
    /// A distinctive piece of every secret text below: it must never be printed.
    static let marker = "MfKQ9r8G"
    static let goodSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

    /// A bad setting: the variables (and files) it adds, and what the error must say.
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var environment: [String: String] = [:]
        /// A secret file with these contents is written and named by SUBRECON_WEBHOOK_SECRET_FILE
        /// (with SUBRECON_WEBHOOK_URL set to a good URL unless `environment` sets it).
        var secretFile: String?
        /// An apps file with these app objects, named by SUBRECON_APPS_FILE.
        var apps: String?
        var expected: [String]
        var testDescription: String { name }
    }

    static let url = "https://hooks.example.com/x"
    static let cases: [Case] = [
        Case(name: "URL without secret file", environment: ["SUBRECON_WEBHOOK_URL": url],
            expected: ["SUBRECON_WEBHOOK_URL / --webhook-url is set but SUBRECON_WEBHOOK_SECRET_FILE"]),
        Case(name: "secret file without URL", environment: ["SUBRECON_WEBHOOK_URL": ""], secretFile: goodSecret + "\n",
            expected: ["SUBRECON_WEBHOOK_SECRET_FILE / --webhook-secret-file is set but SUBRECON_WEBHOOK_URL"]),
        Case(name: "secret file missing", environment: ["SUBRECON_WEBHOOK_URL": url, "SUBRECON_WEBHOOK_SECRET_FILE": "/nonexistent/webhook.secret"],
            expected: ["cannot read the webhook secret file /nonexistent/webhook.secret", "SUBRECON_WEBHOOK_SECRET_FILE", "no such file"]),
        Case(name: "secret file empty", secretFile: "\n", expected: ["SUBRECON_WEBHOOK_SECRET_FILE", "is empty"]),
        Case(name: "line without whsec_", secretFile: goodSecret + "\nMfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n",
            expected: ["SUBRECON_WEBHOOK_SECRET_FILE", "line 2: does not start with whsec_"]),
        Case(name: "not base64", secretFile: "whsec_MfKQ9r8G%KYqrTwjUPD8ILPZIo2LaLaSw\n",
            expected: ["SUBRECON_WEBHOOK_SECRET_FILE", "line 1: is not whsec_ followed by standard base64"]),
        Case(name: "fewer than 24 bytes", secretFile: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZI\n",
            expected: ["SUBRECON_WEBHOOK_SECRET_FILE", "line 1: decodes to 18 bytes", "at least 24"]),
        Case(name: "http to another host", environment: ["SUBRECON_WEBHOOK_URL": "http://example.com/x"], secretFile: goodSecret,
            expected: ["SUBRECON_WEBHOOK_URL / --webhook-url must be an https:// URL", "not loopback"]),
        Case(name: "http to 0.0.0.0", environment: ["SUBRECON_WEBHOOK_URL": "http://0.0.0.0:8080/x"], secretFile: goodSecret,
            expected: ["SUBRECON_WEBHOOK_URL / --webhook-url must be an https:// URL", "not loopback"]),
        Case(name: "ftp", environment: ["SUBRECON_WEBHOOK_URL": "ftp://127.0.0.1/x"], secretFile: goodSecret,
            expected: ["SUBRECON_WEBHOOK_URL / --webhook-url must be an https:// URL", "another scheme"]),
        Case(name: "concurrency 0", environment: ["SUBRECON_WEBHOOK_CONCURRENCY": "0"], expected: ["SUBRECON_WEBHOOK_CONCURRENCY", "1 to 256"]),
        Case(name: "concurrency 257", environment: ["SUBRECON_WEBHOOK_CONCURRENCY": "257"], expected: ["SUBRECON_WEBHOOK_CONCURRENCY", "1 to 256"]),
        Case(name: "timeout 0", environment: ["SUBRECON_WEBHOOK_TIMEOUT": "0"], expected: ["SUBRECON_WEBHOOK_TIMEOUT", "positive number"]),
        Case(name: "timeout x", environment: ["SUBRECON_WEBHOOK_TIMEOUT": "x"], expected: ["SUBRECON_WEBHOOK_TIMEOUT", "positive number"]),
        Case(name: "schedule 1,-2", environment: ["SUBRECON_WEBHOOK_RETRY_SCHEDULE": "1,-2"],
            expected: ["SUBRECON_WEBHOOK_RETRY_SCHEDULE", "whole seconds"]),
        Case(name: "schedule a", environment: ["SUBRECON_WEBHOOK_RETRY_SCHEDULE": "a"], expected: ["SUBRECON_WEBHOOK_RETRY_SCHEDULE", "whole seconds"]),
        Case(name: "apps file: URL without secret file",
            apps: #"{"bundle_id": "com.example.news", "shared_secret_file": "s", "webhook_url": "https://news.example.com/x"}"#,
            expected: ["com.example.news", #""webhook_url" needs "webhook_secret_file""#]),
        Case(name: "apps file and SUBRECON_WEBHOOK_URL", environment: ["SUBRECON_WEBHOOK_URL": url],
            apps: #"{"bundle_id": "com.example.news", "shared_secret_file": "s"}"#,
            expected: ["SUBRECON_APPS_FILE", "SUBRECON_WEBHOOK_URL is set too"]),
    ]

    /// A private folder for one test's files.
    static func folder() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("subrecon-webhook-bin-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    static func write(_ contents: String, to path: String) {
        _ = FileManager.default.createFile(atPath: path, contents: Data(contents.utf8), attributes: [.posixPermissions: 0o600])
    }

    /// `testCase`'s variables, its files written under `folder`.
    static func environment(_ testCase: Case, folder: String) -> [String: String] {
        var environment: [String: String] = [:]
        if let contents = testCase.secretFile {
            write(contents, to: folder + "/webhook.secret")
            environment["SUBRECON_WEBHOOK_URL"] = url
            environment["SUBRECON_WEBHOOK_SECRET_FILE"] = folder + "/webhook.secret"
        }
        if let apps = testCase.apps {
            write(#"{"apps": [\#(apps)]}"#, to: folder + "/apps.json")
            environment["SUBRECON_APPS_FILE"] = folder + "/apps.json"
        }
        return environment.merging(testCase.environment) { $1 }
    }

    @Test(arguments: cases) func aBadSettingIsExit2BeforeTheDatabaseIsOpened(testCase: Case) async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let environment = Self.environment(testCase, folder: folder)
        // A database that does not exist: a good configuration would get as far as refusing it (66).
        let status = try await SubreconBinary.run(["status", "--db", folder + "/none.sqlite"], environment: environment)
        #expect(status.exitCode == 2, "\(status.stderr)")
        for text in testCase.expected { #expect(status.stderr.contains(text), "\(status.stderr)") }
        #expect(!(status.stdout + status.stderr).contains(Self.marker))
        #expect(!FileManager.default.fileExists(atPath: folder + "/none.sqlite"))

        // The nightly run, which resolves every setting, refuses it the same way before asking Apple
        // (the verifyReceipt URL is a closed port: reaching it would be another failure).
        var run = environment
        run["SUBRECON_SHARED_SECRET"] = "shared-3f9a"
        run["SUBRECON_PRODUCTION_URL"] = "http://127.0.0.1:9/verifyReceipt"
        if testCase.apps != nil { run["SUBRECON_SHARED_SECRET"] = nil }
        let nightly = try await SubreconBinary.run(["run", "--db", folder + "/run.sqlite"], environment: run)
        #expect(nightly.exitCode == 2, "\(nightly.stderr)")
        for text in testCase.expected { #expect(nightly.stderr.contains(text), "\(nightly.stderr)") }
        #expect(!(nightly.stdout + nightly.stderr).contains(Self.marker))
    }

    @Test(arguments: ["http://127.0.0.1:9/x", "http://localhost/x", "http://[::1]:8/x", "https://example.com/x?app=news"])
    func goodURLsAreAccepted(url: String) async throws {
        try await TestWorld.make().closing { world in
            let secret = world.folder + "/webhook.secret"
            Self.write(Self.goodSecret + "\n" + WebhookSecret.generate() + "\n", to: secret)
            var environment = world.storeEnvironment
            environment["SUBRECON_WEBHOOK_URL"] = url
            environment["SUBRECON_WEBHOOK_SECRET_FILE"] = secret
            environment["SUBRECON_WEBHOOK_CONCURRENCY"] = "256"
            environment["SUBRECON_WEBHOOK_TIMEOUT"] = "0.5"
            environment["SUBRECON_WEBHOOK_RETRY_SCHEDULE"] = "0"
            let status = try await SubreconBinary.run(["status"], environment: environment)
            #expect(status.exitCode == 0, "\(status.stderr)")
            #expect(!(status.stdout + status.stderr).contains(Self.marker))
        }
    }

    @Test func webhooksSecretPrintsANewValidSecretEachTime() async throws {
        // No configuration at all, not even a database: it needs none and writes nothing.
        let first = try await SubreconBinary.run(["webhooks", "secret"], environment: ["SUBRECON_DB": "/nonexistent/x.sqlite"])
        let second = try await SubreconBinary.run(["webhooks", "secret"])
        for result in [first, second] {
            #expect(result.exitCode == 0, "\(result.stderr)")
            #expect(result.stderr.isEmpty)
            #expect(result.stdout.hasSuffix("\n"))
            #expect(result.stdout.filter { $0 == "\n" }.count == 1)
            let secrets = try WebhookSecret.parseFile(contents: result.stdout, path: "stdout", setting: "webhooks secret")
            #expect(secrets.count == 1)
            #expect(secrets.first?.keyBytes.count == 32)
        }
        #expect(first.stdout != second.stdout)
    }
}
