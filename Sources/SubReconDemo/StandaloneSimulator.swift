import AppStoreSimulator
import AppleSignedData
import Crypto
import Foundation
import SubRecon
import SubReconHTTP
import SubReconModel

/// `subrecon simulator` could not start as asked: a file it was given cannot be read (exit 2) or
/// one it was asked to write cannot be written (exit 73).
public struct SimulatorSetupFailure: OperatorFacingError {
    public var message: String
    public var exitStatus: ExitStatus

    public var description: String { message }
}

/// `subrecon simulator`: the fake App Store on its own, with the demo's sample accounts when
/// asked for their receipts or notifications.
public enum StandaloneSimulator {
    /// What the command asks for, as given.
    public struct Request: Sendable {
        /// On 127.0.0.1; 0 for a free one.
        public var port: UInt16 = 0
        public var latencyMs = 0
        /// A file whose first line is the shared secret expected (default: any is accepted).
        public var sharedSecretFile: String?
        public var writeSampleReceipts: String?
        public var writeNotifications: String?
        public var writeRootCA: String?
        /// An In-App Purchase key (.p8) whose JWTs alone are accepted, with the key id and issuer
        /// they must then carry (when given).
        public var apiKeyFile: String?
        public var apiKeyID: String?
        public var apiIssuerID: String?
        /// A team App Store Connect API key (.p8) whose JWTs alone may read sales reports.
        public var ascKeyFile: String?
        public var vendorNumber = SalesReportOptions.defaultVendorNumber
        public var apiRateLimit: Double?
        /// The app's notification URL: the sample accounts' notifications are POSTed there.
        public var notificationURL: String?
        public var historyPageSize = 20
        public var registersVerifiedReceipts = true
        /// subrecon's apps file (`SUBRECON_APPS_FILE`): the simulator then serves every app it
        /// lists, each with its bundle ID, Apple ID, shared secret and In-App Purchase key, and
        /// each with its own `apiRateLimit`. Not with the single-app secret and key options.
        public var appsFile: String?

        public init() {}
    }

    /// Starts the simulator, writes what was asked for, prints where everything is served,
    /// delivers the sample notifications (a line on stderr for each attempt, then one on stdout
    /// saying how they were answered), and serves until cancelled.
    public static func serve(_ request: Request, output: CommandOutput) async throws {
        let secret = try request.sharedSecretFile.map(readSecret)
        var options = SimulatorOptions(
            sharedSecret: secret, latency: .milliseconds(request.latencyMs), historyPageSize: request.historyPageSize,
            apiRateLimit: request.apiRateLimit, registersVerifiedReceipts: request.registersVerifiedReceipts,
            salesReports: SalesReportOptions(vendorNumber: request.vendorNumber), notificationURL: request.notificationURL)
        // Every POST to the notification URL gets its line on stderr as it ends: a receiver that
        // is down shows at once, not after minutes of silence.
        options.notificationAttemptObserver = { notification, result, detail in
            output.message(attemptLine(notification, result: result, detail: detail, url: request.notificationURL ?? ""))
        }
        if let apiKeyFile = request.apiKeyFile {
            options.apiPublicKey = try publicKey(of: apiKeyFile, kind: "an In-App Purchase key")
            options.apiKeyID = request.apiKeyID
            options.apiIssuerID = request.apiIssuerID
        }
        var bundleIDs = [SimulatedProducts.bundleID]
        if let path = request.appsFile {
            options.apps = try apps(inFile: path, rateLimit: request.apiRateLimit)
            bundleIDs = options.apps.map(\.bundleID)
            options.bundleID = bundleIDs[0]
            options.appAppleID = options.apps[0].appAppleID
        }
        if let ascKeyFile = request.ascKeyFile {
            options.salesReports.ascPublicKey = try publicKey(of: ascKeyFile, kind: "a team App Store Connect API key")
        }
        let simulator = AppStoreSimulator(options: options)
        if let path = request.writeRootCA {
            do {
                try simulator.rootCertificatePEM.write(toFile: path, atomically: true, encoding: .utf8)
            } catch {
                throw SimulatorSetupFailure(
                    message: "cannot write the root certificate to \(path): \(AtomicFile.reason(writing: path, error))", exitStatus: .cannotCreateOutput)
            }
        }
        let port: UInt16
        do {
            port = try await simulator.start(port: request.port)
        } catch AppStoreSimulator.StartError.cannotListen(let errno, let detail) {
            throw SimulatorSetupFailure(
                message: ListenFailure(host: "127.0.0.1", port: Int(request.port), errno: errno, detail: detail).description,
                exitStatus: .incomplete)
        }
        // One "now" for both files, so the notifications are about the very accounts in the receipts.
        let sampleNowMs = WallClock.unixMilliseconds()
        let samples = DemoRun.sampleAccounts(nowMs: sampleNowMs, apps: bundleIDs).map(\.subscriber)
        let registersSamples =
            request.writeSampleReceipts != nil || request.writeNotifications != nil || request.notificationURL != nil
        if registersSamples {
            simulator.register(samples)
        }
        if let path = request.writeSampleReceipts {
            do {
                try DemoRun.sampleReceiptsCSV(nowMs: sampleNowMs, apps: bundleIDs)
                    .write(toFile: path, atomically: true, encoding: .utf8)
            } catch {
                throw SimulatorSetupFailure(
                    message: "cannot write the sample receipts to \(path): \(AtomicFile.reason(writing: path, error))", exitStatus: .cannotCreateOutput)
            }
        }
        var notifications: [SimulatedNotification] = []
        if request.writeNotifications != nil || request.notificationURL != nil {
            // Everything since each subscription began: older than the history's 180 days too.
            notifications = simulator.notifications(
                for: samples, afterMs: 0, throughMs: sampleNowMs, sendAttempt: request.notificationURL == nil ? .success : nil)
            if let path = request.writeNotifications {
                do {
                    try notifications.map { $0.body + "\n" }.joined().write(toFile: path, atomically: true, encoding: .utf8)
                } catch {
                    throw SimulatorSetupFailure(
                        message: "cannot write the notifications to \(path): \(AtomicFile.reason(writing: path, error))", exitStatus: .cannotCreateOutput)
                }
            }
        }
        var sample = ""
        if registersSamples, let first = samples.first {
            sample = "  Sample account \(first.id): transaction \(first.transactionID()), order \(first.orderID())\n"
        }
        let appLines =
            request.appsFile == nil
            ? ""
            : options.apps.map { app in
                "  App \(app.bundleID) (Apple ID \(app.appAppleID)): shared secret \(app.sharedSecret == nil ? "any" : "checked"), "
                    + "Server API key \(app.apiPublicKeyX963 == nil ? "any" : "checked")"
                    + (app.apiRateLimit.map { ", 429 above \($0)/s" } ?? "") + "\n"
            }.joined()
        output.out(
            "App Store simulator on 127.0.0.1:\(port)\n  production: \(simulator.productionURL)\n  sandbox:    \(simulator.sandboxURL)\n"
                + "  Server API: \(simulator.serverAPIProductionBaseURL) (sandbox \(simulator.serverAPISandboxBaseURL))\n"
                + "  Sales reports: \(simulator.salesReportsURL) (SUBRECON_ASC_URL \(simulator.appStoreConnectBaseURL), vendor \(request.vendorNumber))\n"
                + appLines + sample)
        if let url = request.notificationURL {
            output.out(await deliver(notifications, to: url, simulator: simulator, output: output) + "\n")
        }
        while !Task.isCancelled { try await Task.sleep(for: .seconds(3600)) }
    }

    /// The apps of subrecon's apps file at `path`, as the simulator serves them: what the file does
    /// not say is accepted from anyone (no secret: any password; no key: any JWT), and an app with
    /// no `app_apple_id` gets the default one plus its position, so each differs.
    static func apps(inFile path: String, rateLimit: Double?) throws -> [SimulatedApp] {
        guard let file = try AppsFile.resolve(environment: [:], flag: path) else { return [] }
        return try file.apps.enumerated().map { index, app in
            SimulatedApp(
                bundleID: app.bundleID, appAppleID: app.appAppleID ?? SimulatorOptions.defaultAppAppleID + Int64(index),
                sharedSecret: try app.sharedSecretFile.map(readSecret),
                apiPublicKey: try app.apiKeyFile.map { try publicKey(of: $0, kind: "\(app.bundleID)'s In-App Purchase key") },
                apiKeyID: app.apiKeyID, apiIssuerID: app.apiIssuerID, apiRateLimit: rateLimit)
        }
    }

    /// The first line of the file at `path`; a configuration error (exit 2) naming it otherwise.
    static func readSecret(_ path: String) throws(SimulatorSetupFailure) -> String {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
            let line = text.split(separator: "\n").first, !line.trimmingCharacters(in: .whitespaces).isEmpty
        else {
            throw SimulatorSetupFailure(message: "cannot read a secret from \(path)", exitStatus: .configuration)
        }
        return line.trimmingCharacters(in: .whitespaces)
    }

    /// The public half of the `.p8` at `path`; a configuration error (exit 2) naming it otherwise.
    static func publicKey(of path: String, kind: String) throws(SimulatorSetupFailure) -> P256.Signing.PublicKey {
        guard let pem = try? String(contentsOfFile: path, encoding: .utf8),
            let key = try? P256.Signing.PrivateKey(pemRepresentation: pem)
        else {
            throw SimulatorSetupFailure(
                message: "cannot read \(kind) (PKCS#8 P-256 PEM) from \(path)", exitStatus: .configuration)
        }
        return key.publicKey
    }

    /// POSTs each notification to the app's notification URL as Apple does, and records each
    /// attempt's result in the simulator's notification history (what `notifications backfill`
    /// then sees). One attempt each: a receiver that refused one finds it in the history.
    /// Returns the line that says how they were answered.
    public static func deliver(
        _ notifications: [SimulatedNotification], to url: String, simulator: AppStoreSimulator, output: CommandOutput
    ) async -> String {
        // The receiver may still be starting (it reads the root this simulator just wrote): wait
        // up to a minute for it to answer anything at all, saying so.
        let probe = CurlTransport(maxConnections: 1)
        var answered = false
        for attempt in 0..<120 {
            do {
                _ = try await probe.send(HTTPRequest(url: url, method: "GET", timeout: .seconds(2)))
                answered = true
                break
            } catch {
                if attempt == 0 {
                    output.message(
                        "nothing answers at \(url) yet (\(error)); waiting up to a minute for the receiver before "
                            + "sending \(notifications.count) notification(s)")
                }
            }
            try? await Task.sleep(for: .milliseconds(500))
        }
        probe.shutdown()
        if !answered {
            output.message(
                "still nothing answers at \(url) after a minute: sending anyway, one attempt each (each is in the notification history)")
        }
        var results: [String: Int] = [:]
        for notification in notifications {
            let result = await simulator.deliver(notification)
            results[result?.rawValue ?? "not sent", default: 0] += 1
        }
        let summary = results.sorted { $0.key < $1.key }.map { "\($0.value) × \($0.key)" }
        return "delivered \(notifications.count) notification(s) to \(url): \(summary.joined(separator: ", "))"
    }

    /// One delivery attempt, for stderr: `notification DID_RENEW 5f…e1 → http://…: SUCCESS (HTTP 200)`,
    /// or why it failed.
    static func attemptLine(_ notification: SimulatedNotification, result: NotificationSendAttemptResult, detail: String, url: String)
        -> String
    {
        let kind = notification.type.rawValue + (notification.subtype.map { "/" + $0.rawValue } ?? "")
        let what = "notification \(kind) \(notification.notificationUUID) to \(url)"
        return result == .success ? "\(what): \(result.rawValue) (\(detail))" : "\(what) failed: \(result.rawValue) (\(detail))"
    }
}
