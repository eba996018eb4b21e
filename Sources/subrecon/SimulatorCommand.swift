import AppStoreSimulator
import ArgumentParser
import Crypto
import Foundation
import SubRecon
import SubReconAppStore
import SubReconDemo
import SubReconHTTP
import SubReconModel
import SubReconStore

/// `subrecon simulator`: the fake App Store (verifyReceipt and the Server API) on its own.
struct SimulatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulator",
        abstract: "Run the built-in App Store simulator alone (verifyReceipt and App Store Server API, loopback only).",
        discussion: """
            Serves POST /verifyReceipt (production) and /sandbox/verifyReceipt (sandbox), and the \
            App Store Server API under /inApps/... (production) and /sandbox/inApps/... (sandbox), \
            on 127.0.0.1. With a shared secret file, other passwords answer 21004. Server API \
            answers are signed with a certificate chain made at start (--write-root-ca writes its \
            root for SUBRECON_APPLE_ROOT_CA_FILE); with --api-key-file only JWTs signed by that key \
            are accepted. The Server API knows the accounts of receipts it was shown: sample \
            receipts it wrote, receipts verified through verifyReceipt, or receipt data POSTed to \
            /simulator/accounts (one per line). --write-notifications writes the signed \
            notifications (V2) of the sample receipts' accounts as JSON Lines for \
            'subrecon notifications import'; POST /inApps/v1/notifications/history serves them. \
            GET /v1/salesReports serves App Store Connect's daily Summary Sales Report (gzip) of \
            the accounts it knows, for --vendor-number; with --asc-key-file only JWTs signed by \
            that team key are accepted. Request a Test Notification POSTs a signed TEST \
            notification to --notification-url. docs/simulator.md lists every endpoint and how \
            to point Apple's App Store Server Library at the simulator.

            Example:
              subrecon simulator --port 8080 --latency-ms 100 --write-root-ca /tmp/sim-root.pem &
              SUBRECON_PRODUCTION_URL=http://127.0.0.1:8080/verifyReceipt \\
              SUBRECON_SANDBOX_URL=http://127.0.0.1:8080/sandbox/verifyReceipt subrecon run
              SUBRECON_APPLE_API=server-api SUBRECON_API_URL=http://127.0.0.1:8080 \\
              SUBRECON_API_SANDBOX_URL=http://127.0.0.1:8080/sandbox \\
              SUBRECON_APPLE_ROOT_CA_FILE=/tmp/sim-root.pem ... subrecon run
              SUBRECON_ASC_URL=http://127.0.0.1:8080 SUBRECON_VENDOR_NUMBER=80012345 ... \
              subrecon apple-reports fetch
            """)

    @Option(help: "Port on 127.0.0.1 (0: a free one, printed on start).")
    var port: UInt16 = 0

    @Option(help: "Milliseconds added to every answer.")
    var latencyMs: Int = 0

    @Option(help: "A file whose first line is the shared secret the simulator expects (default: accept any).")
    var sharedSecretFile: String?

    @Option(help: "Write sample receipts (CSV, one per scenario) to this file and keep serving.")
    var writeSampleReceipts: String?

    @Option(help: "Write the sample receipts' subscribers' App Store Server Notifications V2 (JSON Lines, one {\"signedPayload\":...} per line, oldest first) to this file, for 'notifications import'; Get Notification History serves them too.")
    var writeNotifications: String?

    @Option(help: "Write the root certificate (PEM) that Server API signatures chain to, for SUBRECON_APPLE_ROOT_CA_FILE.")
    var writeRootCA: String?

    @Option(help: "An In-App Purchase key (.p8): the Server API then accepts only JWTs signed by it (401 otherwise), with or without iat, as Apple's servers do.")
    var apiKeyFile: String?

    @Option(help: "With --api-key-file: the key's id, which a JWT's kid must then be (default: any non-empty kid).")
    var apiKeyID: String?

    @Option(help: "With --api-key-file: the issuer id, which a JWT's iss must then be (default: any non-empty iss).")
    var apiIssuerID: String?

    @Option(help: "A team App Store Connect API key (.p8): /v1/salesReports then accepts only JWTs signed by it (401 otherwise).")
    var ascKeyFile: String?

    @Option(help: "The vendor number /v1/salesReports serves; any other is refused as Apple does.")
    var vendorNumber: String = SalesReportOptions.defaultVendorNumber

    @Option(help: "Server API requests per second above which the simulator answers 429 (default: no limit).")
    var apiRateLimit: Double?

    @Option(
        name: [.customLong("notification-url"), .customLong("notify-url")],
        help: "The app's notification URL (e.g. a `subrecon notifications serve`): the sample accounts' notifications are POSTed there once started, and Request a Test Notification (POST /inApps/v1/notifications/test) sends its TEST notification there, as Apple would; each attempt is recorded in the notification history. Without it, Request a Test Notification answers 404 4040007.")
    var notifyURL: String?

    @Option(help: "Signed transactions per transaction-history page (Apple: 20).")
    var historyPageSize: Int = 20

    @Flag(inversion: .prefixedNo, help: "Let the Server API learn the account of every receipt verifyReceipt sees (off for huge verify-receipt benchmarks).")
    var registerVerifiedReceipts = true

    func validate() throws {
        if latencyMs < 0 { throw ValidationError("--latency-ms must be 0 or more") }
        if let apiRateLimit, !(apiRateLimit > 0) { throw ValidationError("--api-rate-limit must be more than 0") }
        if historyPageSize < 1 { throw ValidationError("--history-page-size must be at least 1") }
        if vendorNumber.isEmpty { throw ValidationError("--vendor-number must not be empty") }
        if apiKeyFile == nil, apiKeyID != nil || apiIssuerID != nil {
            throw ValidationError("--api-key-id and --api-issuer-id go with --api-key-file")
        }
    }

    func run() async throws {
        var secret: String?
        if let sharedSecretFile {
            guard let text = try? String(contentsOfFile: sharedSecretFile, encoding: .utf8),
                let line = text.split(separator: "\n").first, !line.isEmpty
            else {
                Console.error("cannot read a secret from \(sharedSecretFile)")
                throw ExitCode(.configuration)
            }
            secret = line.trimmingCharacters(in: .whitespaces)
        }
        var options = SimulatorOptions(
            sharedSecret: secret, latency: .milliseconds(latencyMs), historyPageSize: historyPageSize,
            apiRateLimit: apiRateLimit, registersVerifiedReceipts: registerVerifiedReceipts,
            salesReports: SalesReportOptions(vendorNumber: vendorNumber), notificationURL: notifyURL)
        if let apiKeyFile {
            options.apiPublicKey = try Self.publicKey(of: apiKeyFile, kind: "an In-App Purchase key")
            options.apiKeyID = apiKeyID
            options.apiIssuerID = apiIssuerID
        }
        if let ascKeyFile {
            options.salesReports.ascPublicKey = try Self.publicKey(of: ascKeyFile, kind: "a team App Store Connect API key")
        }
        let simulator = AppStoreSimulator(options: options)
        if let writeRootCA {
            do {
                try simulator.rootCertificatePEM.write(toFile: writeRootCA, atomically: true, encoding: .utf8)
            } catch {
                Console.error("cannot write the root certificate to \(writeRootCA): \(error)")
                throw ExitCode(.cannotCreateOutput)
            }
        }
        let actual = try await simulator.start(port: port)
        // One "now" for both files, so the notifications are about the very accounts in the receipts.
        let sampleNowMs = ReconciliationJob.wallClockMs()
        let samples = DemoRun.sampleSubscribers(nowMs: sampleNowMs).map(\.subscriber)
        let registersSamples = writeSampleReceipts != nil || writeNotifications != nil || notifyURL != nil
        if registersSamples {
            simulator.register(samples)
        }
        if let writeSampleReceipts {
            try DemoRun.sampleReceiptsCSV(nowMs: sampleNowMs).write(toFile: writeSampleReceipts, atomically: true, encoding: .utf8)
        }
        if writeNotifications != nil || notifyURL != nil {
            // Everything since each subscription began: older than the history's 180 days too.
            let notifications = simulator.notifications(
                for: samples, afterMs: 0, throughMs: sampleNowMs, sendAttempt: notifyURL == nil ? .success : nil)
            if let notifyURL { await Self.deliver(notifications, to: notifyURL, simulator: simulator) }
            guard let writeNotifications else { return try await serve(simulator, port: actual, samples: samples) }
            do {
                try notifications.map { $0.body + "\n" }.joined()
                    .write(toFile: writeNotifications, atomically: true, encoding: .utf8)
            } catch {
                Console.error("cannot write the notifications to \(writeNotifications): \(error)")
                throw ExitCode(.cannotCreateOutput)
            }
        }
        try await serve(simulator, port: actual, samples: registersSamples ? samples : [])
    }

    /// The public half of the `.p8` at `path`; a configuration error (exit 2) naming it otherwise.
    private static func publicKey(of path: String, kind: String) throws -> P256.Signing.PublicKey {
        guard let pem = try? String(contentsOfFile: path, encoding: .utf8),
            let key = try? P256.Signing.PrivateKey(pemRepresentation: pem)
        else {
            Console.error("cannot read \(kind) (PKCS#8 P-256 PEM) from \(path)")
            throw ExitCode(.configuration)
        }
        return key.publicKey
    }

    /// Prints where everything is served (and, with sample accounts, ids of the first to ask
    /// about), then serves until cancelled.
    private func serve(_ simulator: AppStoreSimulator, port actual: UInt16, samples: [SimulatedSubscriber]) async throws {
        var sample = ""
        if let first = samples.first {
            sample = "  Sample account \(first.id): transaction \(first.transactionID()), order \(first.orderID())\n"
        }
        Console.out(
            "App Store simulator on 127.0.0.1:\(actual)\n  production: \(simulator.productionURL)\n  sandbox:    \(simulator.sandboxURL)\n"
                + "  Server API: \(simulator.serverAPIProductionBaseURL) (sandbox \(simulator.serverAPISandboxBaseURL))\n"
                + "  Sales reports: \(simulator.salesReportsURL) (SUBRECON_ASC_URL \(simulator.appStoreConnectBaseURL), vendor \(vendorNumber))\n"
                + sample)
        while !Task.isCancelled { try await Task.sleep(for: .seconds(3600)) }
    }

    /// POSTs each notification to the simulator's notification URL as Apple does, and records
    /// each attempt's result in the simulator's notification history (what `notifications
    /// backfill` then sees). One attempt each: a receiver that refused one finds it in the history.
    static func deliver(_ notifications: [SimulatedNotification], to url: String, simulator: AppStoreSimulator) async {
        // The receiver may still be starting (it reads the root this simulator just wrote): wait
        // up to a minute for it to answer anything at all.
        let probe = CurlTransport(maxConnections: 1)
        for _ in 0..<120 {
            if (try? await probe.send(HTTPRequest(url: url, method: "GET", timeout: .seconds(2)))) != nil { break }
            try? await Task.sleep(for: .milliseconds(500))
        }
        probe.shutdown()
        var results: [String: Int] = [:]
        for notification in notifications {
            let result = await simulator.deliver(notification)
            results[result?.rawValue ?? "not sent", default: 0] += 1
        }
        let summary = results.sorted { $0.key < $1.key }.map { "\($0.value) × \($0.key)" }
        Console.out("delivered \(notifications.count) notification(s) to \(url): \(summary.joined(separator: ", "))\n")
    }
}
