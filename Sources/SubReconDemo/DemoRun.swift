import AppStoreSimulator
import AppleSignedData
import Crypto
import Foundation
import Logging
import SubRecon
import SubReconAppStore
import SubReconHTTP
import SubReconModel
import SubReconStore

/// `subrecon demo`: the whole nightly path against the built-in App Store simulator, in a fresh
/// temporary database, with no secret and no network. A newcomer's first command.
public struct DemoRun: Sendable {
    let logger: Logger
    let appleAPI: AppleAPI
    /// Hands a notification body to a receiver for `processor` and returns the HTTP status it
    /// answered (the executable starts the real receiver on a loopback port); nil: no notification.
    public typealias Delivery = @Sendable (_ body: [UInt8], _ processor: NotificationProcessor) async throws -> Int
    let deliver: Delivery?

    public init(logger: Logger, appleAPI: AppleAPI = .verifyReceipt, deliver: Delivery? = nil) {
        self.logger = logger
        self.appleAPI = appleAPI
        self.deliver = deliver
    }

    /// What the demo left behind, so the newcomer can keep exploring it.
    public struct Result: Sendable {
        public var databasePath: String
        public var summary: RunSummary
        public var subscriptionsCSV: String
        /// The subscriptions report's main columns, aligned for a terminal (user, app, product,
        /// status, entitled, expires): the CSV's 17 columns wrap across any screen.
        public var subscriptionsTable: String {
            let rows = subscriptionsCSV.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
            guard let header = rows.first else { return "" }
            let wanted = ["user_id", "bundle_id", "product_id", "status", "entitled", "expires_at"]
            // The demo's values hold no comma or quote, so a plain split reads them.
            let indexes = wanted.compactMap { name in header.firstIndex { $0 == name } }
            guard indexes.count == wanted.count else { return subscriptionsCSV }
            let body = rows.dropFirst().map { row in
                indexes.map { index in
                    let cell = String(row[index])
                    return index == indexes[4] ? (cell == "true" ? "yes" : "no") : cell
                }
            }
            return TextTable.render([["user", "app", "product", "status", "entitled", "expires"]] + body)
        }
        /// What the notification did, one line (nil without a delivery).
        public var notification: String?
        /// The ledger in a few lines: billed, refunded and net per currency, and today's MRR
        /// (server-api); where the money would come from (verify-receipt).
        public var revenueSummary: String
        /// The dashboard page the demo wrote (opens offline).
        public var dashboardPath: String
        /// Apple's sales reports fetched from the simulator and matched with the ledger, a few
        /// lines ending with the lost order only Apple's report shows (server-api); nil otherwise.
        public var appleParity: String?
        /// The two apps of the run, a line each: their receipts and subscriptions by status.
        public var apps: [String] = []
        /// The events delivered as signed webhooks to the demo's own receiver, a few lines.
        public var webhooks: [String] = []
    }

    /// The second app of the demo's deployment, with its own shared secret, key and accounts.
    static let secondApp = "com.example.subrecon.cooking"

    /// The second app's accounts: a few scenarios, bought in that app.
    static func secondAppSubscribers(nowMs: Int64) -> [(user: String, scenario: SimulatedScenario, subscriber: SimulatedSubscriber)] {
        [SimulatedScenario.active, .trialActive, .expired, .billingRetry].enumerated().map { index, scenario in
            var subscriber = scenario.subscriber(id: Int64(3_000 + index), nowMs: nowMs)
            subscriber.bundleID = secondApp
            return ("cooking-\(String(format: "%02d", index + 1))-\(scenario.rawValue)", scenario, subscriber)
        }
    }

    /// The account Apple refunds a minute after the nightly run: the run sees it active, and the
    /// refund arrives as a notification through the receiver.
    public static let refundUser = "demo-18-refund-notification"

    static func refundSubscriber(nowMs: Int64) -> SimulatedSubscriber {
        // `refunded` is refunded 5 days before its "now": put that a minute after ours.
        SimulatedScenario.refunded.subscriber(id: 1_800, nowMs: nowMs + 5 * 86_400_000 + 60_000)
    }

    public func run() async throws -> Result {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("subrecon-demo-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // A throwaway secret shared by the simulator and the client: the password check is real.
        let secret = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        // Likewise a throwaway In-App Purchase key: the simulator accepts only JWTs it signed.
        let apiKey = P256.Signing.PrivateKey()
        // The second app has its own secret and key: each app is asked with its own.
        let secondSecret = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let secondKey = P256.Signing.PrivateKey()
        // And a throwaway team key for App Store Connect's sales reports.
        let teamKey = P256.Signing.PrivateKey()
        var options = SimulatorOptions(sharedSecret: secret, apiPublicKey: apiKey.publicKey)
        options.apps = [
            SimulatedApp(bundleID: SimulatedProducts.bundleID, sharedSecret: secret, apiPublicKey: apiKey.publicKey),
            SimulatedApp(
                bundleID: Self.secondApp, appAppleID: SimulatorOptions.defaultAppAppleID + 1, sharedSecret: secondSecret,
                apiPublicKey: secondKey.publicKey),
        ]
        options.salesReports.ascPublicKey = teamKey.publicKey
        let simulator = AppStoreSimulator(options: options)
        _ = try await simulator.start()
        // Stopped, and awaited, whether the demo finished (it stops it before the reports) or threw.
        do {
            return try await run(
                on: simulator, folder: folder, secret: secret, apiKey: apiKey, secondSecret: secondSecret,
                secondKey: secondKey, teamKey: teamKey)
        } catch {
            await simulator.stop()
            throw error
        }
    }

    /// The demo on the started `simulator`, with the apps' throwaway credentials and the team key.
    private func run(
        on simulator: AppStoreSimulator, folder: String, secret: String, apiKey: P256.Signing.PrivateKey,
        secondSecret: String, secondKey: P256.Signing.PrivateKey, teamKey: P256.Signing.PrivateKey
    ) async throws -> Result {
        let nowMs = WallClock.unixMilliseconds()
        // The Server API is asked by transaction id: tell it about the sample accounts (a real
        // App Store knows them already).
        simulator.register(Self.sampleSubscribers(nowMs: nowMs).map(\.subscriber))
        let importPath = folder + "/receipts.csv"
        var csv = Self.sampleReceiptsCSV(nowMs: nowMs)
        for (user, scenario, subscriber) in Self.secondAppSubscribers(nowMs: nowMs) {
            simulator.register(subscriber)
            csv += "\(user),\(SimulatedReceipt.encode(subscriber)),\(scenario.expectedProductID ?? ""),,\(Self.secondApp)\n"
        }
        if appleAPI == .serverAPI {
            // Accounts with a year of billed periods in several currencies: only signed data carries
            // prices, so they show the ledger in server-api mode.
            let ledger = SimulatedLedgerScenario.subscribers(firstID: 2_000, nowMs: nowMs)
            simulator.register(ledger.map(\.subscriber))
            for (scenario, subscriber) in ledger {
                let environment = scenario.environment == .sandbox ? "Sandbox" : ""
                csv += "ledger-\(scenario.rawValue),\(SimulatedReceipt.encode(subscriber)),\(scenario.expectedProductID),\(environment),\(SimulatedProducts.bundleID)\n"
            }
            // Apple knows every one of these; the app uploaded all but one: the purchase bought three
            // days ago whose receipt never reached the server, and whose notification was lost too.
            for (scenario, subscriber) in SimulatedSalesScenario.subscribers(firstID: 2_100, nowMs: nowMs) {
                simulator.register(subscriber)
                guard scenario != .unreportedPurchase else { continue }
                csv += "sales-\(scenario.rawValue),\(SimulatedReceipt.encode(subscriber)),\(scenario.expectedProductID),,\(SimulatedProducts.bundleID)\n"
            }
        }
        if deliver != nil {
            let refunded = Self.refundSubscriber(nowMs: nowMs)
            simulator.register(refunded)
            csv += "\(Self.refundUser),\(SimulatedReceipt.encode(refunded)),\(SimulatedProducts.proMonthly),,\(SimulatedProducts.bundleID)\n"
        }
        try csv.write(toFile: importPath, atomically: true, encoding: .utf8)

        let databasePath = folder + "/subrecon.sqlite"
        let database = try AppDatabase.open(path: databasePath)
        let apps = [SimulatedProducts.bundleID, Self.secondApp]
        _ = try await ReceiptImporter(apps: apps).importFile(path: importPath, format: .csv, into: database, nowMs: nowMs)

        func serverAPI(_ key: P256.Signing.PrivateKey, bundleID: String) throws -> ServerAPISettings? {
            guard appleAPI == .serverAPI else { return nil }
            return ServerAPISettings(
                key: AppStoreAPIKey(privateKey: key, keyID: "DEMOKEY001", issuerID: UUID().uuidString.lowercased(), bundleID: bundleID),
                endpoints: ServerAPIEndpoints(
                    production: simulator.serverAPIProductionBaseURL, sandbox: simulator.serverAPISandboxBaseURL),
                verifier: try SignedDataVerifier(rootPEM: simulator.rootCertificatePEM))
        }
        // Two apps in one deployment, as an apps file describes them: each its own credentials.
        let settings = Settings(
            databasePath: databasePath, sharedSecret: nil,
            endpoints: VerifyReceiptEndpoints(production: simulator.productionURL, sandbox: simulator.sandboxURL),
            concurrency: 8, products: [], requestTimeout: .seconds(10), caFile: nil, warnings: [],
            apps: [
                AppSettings(
                    bundleID: SimulatedProducts.bundleID, appleAPI: appleAPI, sharedSecret: SharedSecret(secret),
                    serverAPI: try serverAPI(apiKey, bundleID: SimulatedProducts.bundleID),
                    products: Set(SimulatedProducts.subscriptionProductIDs)),
                AppSettings(
                    bundleID: Self.secondApp, appleAPI: appleAPI, sharedSecret: SharedSecret(secondSecret),
                    serverAPI: try serverAPI(secondKey, bundleID: Self.secondApp), products: []),
            ])
        let job = LiveWiring(
            settings: settings, store: database, clock: { WallClock.unixMilliseconds() }, logger: logger)
        let summary = try await job.run(ReconciliationRun.Options(kind: .nightly, selection: .due))

        var notification: String?
        if let deliver {
            // A minute later Apple refunds the account and tells us at once.
            let refund = simulator.makeNotification(.refund, for: Self.refundSubscriber(nowMs: nowMs), atMs: nowMs + 61_000)
            let processor = NotificationProcessor(
                store: database,
                settings: NotificationSettings(
                    bundleID: SimulatedProducts.bundleID, verifier: try SignedDataVerifier(rootPEM: simulator.rootCertificatePEM),
                    products: Set(SimulatedProducts.subscriptionProductIDs)),
                reconciler: ReceiptReconciler(products: Set(SimulatedProducts.subscriptionProductIDs), duePolicy: .notified),
                clock: { WallClock.unixMilliseconds() }, logger: logger)
            let before = try await database.subscriptions(ofUser: Self.refundUser).first?.status
            let status = try await deliver(refund.bodyBytes, processor)
            let after = try await database.subscriptions(ofUser: Self.refundUser).first?.status
            notification = "notification \(refund.type.rawValue) \(refund.notificationUUID) for \(Self.refundUser): "
                + "\(before?.rawValue ?? "none") -> \(after?.rawValue ?? "none") (the receiver answered \(status))"
        }
        var appleParity: String?
        if appleAPI == .serverAPI {
            appleParity = try await Self.matchAppleReports(
                database: database, baseURL: simulator.appStoreConnectBaseURL,
                key: AppStoreConnectKey(privateKey: teamKey, keyID: "DEMOTEAM01", issuerID: UUID().uuidString.lowercased()),
                nowMs: nowMs, logger: logger)
        }
        await simulator.stop()
        let webhooks = try await Self.deliverEvents(database, logger: logger)

        var report = Data()
        let exporter = ReportExporter(store: database)
        try await exporter.export(.subscriptions) { report.append($0) }
        let appLines = try await Self.appLines(database, apps: apps)
        let reportNow = WallClock.unixMilliseconds()
        let dashboardPath = folder + "/dashboard.html"
        try await AtomicFile.write(to: dashboardPath) { handle in
            try await exporter.exportDashboard(options: ReportOptions(nowMs: reportNow)) { handle.write($0) }
        }
        let revenue =
            appleAPI == .serverAPI
            ? try await exporter.revenueSummary(nowMs: reportNow)
            : """
            money: verifyReceipt gives no prices, so the ledger's periods are unpriced here. Apple's signed
            transactions carry them: `subrecon demo --apple-api server-api` shows revenue (docs/finance.md).
            """
        return Result(
            databasePath: databasePath, summary: summary, subscriptionsCSV: String(decoding: report, as: UTF8.self),
            notification: notification, revenueSummary: revenue, dashboardPath: dashboardPath, appleParity: appleParity,
            apps: appLines, webhooks: webhooks)
    }

    /// Per app: its receipts and its subscriptions by status, from the subscriptions report.
    static func appLines(_ database: AppDatabase, apps: [String]) async throws -> [String] {
        var report = Data()
        var options = ReportOptions()
        var lines: [String] = []
        for app in apps {
            report.removeAll()
            options.apps = [app]
            try await ReportExporter(store: database).export(.subscriptions, options: options) { report.append($0) }
            let rows = String(decoding: report, as: UTF8.self).split(separator: "\n").dropFirst()
            var statuses: [String: Int] = [:]
            for row in rows { statuses[String(row.split(separator: ",", omittingEmptySubsequences: false)[3]), default: 0] += 1 }
            let receipts = try await database.countReceipts(.all, app: .app(app), nowMs: 0)
            lines.append(
                "\(app): \(receipts) receipts, \(rows.count) subscriptions ("
                    + statuses.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ") + ")")
        }
        return lines
    }

    /// `apple-reports fetch` of the last seven Pacific days from the simulator, then `report
    /// apple-parity` over them: what a finance lead sees the morning after.
    static func matchAppleReports(
        database: AppDatabase, baseURL: String, key: AppStoreConnectKey, nowMs: Int64, logger: Logger
    ) async throws -> String {
        let transport = CurlTransport(maxConnections: 1)
        defer { transport.shutdown() }
        let vendor = SalesReportOptions.defaultVendorNumber
        let client = SalesReportClient(
            baseURL: baseURL, vendorNumber: vendor, tokens: BearerTokenProvider(teamKey: key), transport: transport, logger: logger)
        let window = try AppleReportWindow.parse(since: nil, until: nil, nowMs: nowMs)
        let fetched = try await AppleReportFetcher(
            store: database, client: client, vendorNumber: vendor, clock: { WallClock.unixMilliseconds() }, logger: logger
        ).fetch(window)
        var options = ReportOptions(nowMs: nowMs)
        options.paritySince = window.since
        options.parityUntil = window.until
        let outcome = try await ReportExporter(store: database).appleParity(options: options)
        var lines = ["Apple's sales reports (fetched from the simulator as from App Store Connect):"]
        lines.append("  " + AppleReportLines.summary(fetched, window: window))
        lines += outcome.summaryLines.map { "  " + $0 }
        lines += outcome.lostOrderLines.map {
            "  lost order: \($0): Apple billed it; no receipt, no notification ever reached this server"
        }
        return lines.joined(separator: "\n")
    }

    /// One user per simulator scenario (so every status appears), as an app server would export them.
    public static func sampleReceiptsCSV(nowMs: Int64, apps: [String] = [SimulatedProducts.bundleID]) -> String {
        var lines = ["user_id,receipt_data,product_id,environment,bundle_id"]
        for (index, sample) in sampleAccounts(nowMs: nowMs, apps: apps).enumerated() {
            let scenario = sample.scenario
            let environment = scenario.environment == .sandbox ? "Sandbox" : ""
            // Half the receipts arrive without an environment hint, to show 21007 routing too.
            lines.append(
                "\(sample.user),\(SimulatedReceipt.encode(sample.subscriber)),\(scenario.expectedProductID ?? ""),"
                    + "\(index % 2 == 0 ? "" : environment),\(sample.subscriber.bundleID ?? SimulatedProducts.bundleID)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The sample accounts of `apps` (bundle IDs, the first being the simulator's first app): one
    /// per scenario in the first, as `sampleSubscribers`, and a few in each other, as the demo's
    /// second app has; each with the user ID its row in `sampleReceiptsCSV` names.
    static func sampleAccounts(nowMs: Int64, apps: [String]) -> [(user: String, scenario: SimulatedScenario, subscriber: SimulatedSubscriber)] {
        var accounts = sampleSubscribers(nowMs: nowMs).enumerated().map { index, sample in
            var subscriber = sample.subscriber
            if let first = apps.first, first != SimulatedProducts.bundleID { subscriber.bundleID = first }
            return ("demo-\(String(format: "%02d", index + 1))-\(sample.scenario.rawValue)", sample.scenario, subscriber)
        }
        for (appIndex, app) in apps.enumerated().dropFirst() {
            for (index, scenario) in [SimulatedScenario.active, .trialActive, .expired, .billingRetry].enumerated() {
                var subscriber = scenario.subscriber(id: Int64(4_000 + 100 * appIndex + index), nowMs: nowMs)
                subscriber.bundleID = app
                accounts.append(("\(app)-\(String(format: "%02d", index + 1))-\(scenario.rawValue)", scenario, subscriber))
            }
        }
        return accounts
    }

    /// One account per simulator scenario, in scenario order.
    public static func sampleSubscribers(nowMs: Int64) -> [(scenario: SimulatedScenario, subscriber: SimulatedSubscriber)] {
        SimulatedScenario.allCases.enumerated().map { index, scenario in
            (scenario, scenario.subscriber(id: Int64(1000 + index), nowMs: nowMs))
        }
    }
}
