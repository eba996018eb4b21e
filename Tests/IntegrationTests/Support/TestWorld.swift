import AppStoreSimulator
import AppleSignedData
import Crypto
import Foundation
import GRDB
import Logging
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@_spi(RawSQL) @testable import SubReconStore

/// Which store a test runs against.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgres
    var testDescription: String { rawValue }
}

/// A fresh temporary folder with a real store (a SQLite file, or a database of its own in the test
/// PostgreSQL cluster), the App Store simulator listening on a free loopback port, and a clock
/// shared by both. One per test; `close()` at the end.
final class TestWorld: Sendable {
    static let secret = "sim-secret-0f3c9d2e7b5a4c1e"
    let folder: String
    let store: any SubscriptionStore
    /// The PostgreSQL database, when the world runs on one.
    let postgres: TestPostgres?
    let simulator: AppStoreSimulator
    let clock: SimulatedClock
    let startMs: Int64
    /// The In-App Purchase key the simulator's Server API accepts (it checks every bearer JWT).
    let apiKey: AppStoreAPIKey
    /// The same key as a `.p8` file's text, for the binary.
    let apiKeyPEM: String
    /// The team App Store Connect key (sales reports) and its `.p8` text.
    let ascKey: AppStoreConnectKey
    let ascKeyPEM: String

    /// The SQLite store, for tests that read it directly.
    var database: AppDatabase {
        guard let database = store as? AppDatabase else { fatalError("this test reads the SQLite file directly") }
        return database
    }

    private init(
        folder: String, store: any SubscriptionStore, postgres: TestPostgres?, simulator: AppStoreSimulator,
        clock: SimulatedClock, apiKey: AppStoreAPIKey, apiKeyPEM: String, ascKey: AppStoreConnectKey, ascKeyPEM: String
    ) {
        self.apiKeyPEM = apiKeyPEM
        self.ascKey = ascKey
        self.ascKeyPEM = ascKeyPEM
        self.folder = folder
        self.store = store
        self.postgres = postgres
        self.simulator = simulator
        self.clock = clock
        self.startMs = clock.nowMs
        self.apiKey = apiKey
    }

    static func make(
        latency: Duration = .zero, historyPageSize: Int = 20, apiRateLimit: Double? = nil, store kind: StoreKind = .sqlite,
        notificationHistoryPageSize: Int = 20, salesReports: SalesReportOptions = SalesReportOptions(),
        otherApps: [SimulatedApp] = []
    ) async throws -> TestWorld {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("subrecon-test-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let clock = SimulatedClock(nowMs: 1_795_329_964_000)  // 2026-11-22T06:46:04Z
        let privateKey = P256.Signing.PrivateKey()
        // The team key of App Store Connect (sales reports): only its tokens are accepted there.
        let teamKey = P256.Signing.PrivateKey()
        var options = SimulatorOptions(
            sharedSecret: secret, latency: latency, clock: clock.millisecondsClock, apiPublicKey: privateKey.publicKey,
            historyPageSize: historyPageSize, apiRateLimit: apiRateLimit,
            notificationHistoryPageSize: notificationHistoryPageSize)
        options.salesReports = salesReports
        options.salesReports.ascPublicKey = teamKey.publicKey
        if !otherApps.isEmpty {
            // The world's own app first (accounts that name no app are its), then the others.
            options.apps = [
                SimulatedApp(
                    bundleID: SimulatedProducts.bundleID, sharedSecret: secret, apiPublicKey: privateKey.publicKey,
                    apiRateLimit: apiRateLimit)
            ] + otherApps
        }
        let simulator = AppStoreSimulator(options: options)
        _ = try await simulator.start()
        let postgres = kind == .postgres ? try await TestPostgres.createDatabase() : nil
        let store: any SubscriptionStore =
            if let postgres { try await postgres.open() } else { try AppDatabase.open(path: folder + "/subrecon.sqlite") }
        let apiKey = AppStoreAPIKey(
            privateKey: privateKey, keyID: "TESTKEY001", issuerID: "57246542-96fe-1a63-e053-0824d011072a",
            bundleID: SimulatedProducts.bundleID)
        return TestWorld(
            folder: folder, store: store, postgres: postgres, simulator: simulator, clock: clock, apiKey: apiKey,
            apiKeyPEM: privateKey.pemRepresentation,
            ascKey: AppStoreConnectKey(privateKey: teamKey, keyID: "TEAMKEY001", issuerID: "69a6de7e-0000-47e3-e053-5b8c7c11a4d1"),
            ascKeyPEM: teamKey.pemRepresentation)
    }

    /// Settings for server-api mode against the simulator (its root as the trusted one).
    func serverAPISettings(
        concurrency: Int = 8, products: Set<String> = [], rate: Double = 0, retryPolicy: RetryPolicy = TestWorld.fastRetries,
        key: AppStoreAPIKey? = nil
    ) throws -> Settings {
        var settings = settings(concurrency: concurrency, products: products, retryPolicy: retryPolicy)
        settings.appleAPI = .serverAPI
        settings.serverAPI = ServerAPISettings(
            key: key ?? apiKey,
            endpoints: ServerAPIEndpoints(
                production: simulator.serverAPIProductionBaseURL, sandbox: simulator.serverAPISandboxBaseURL),
            verifier: try SignedDataVerifier(rootPEM: simulator.rootCertificatePEM, clock: clock.millisecondsClock),
            requestsPerSecond: rate)
        return settings
    }

    /// A nightly run (or another selection) in server-api mode.
    func runServerAPI(
        _ selection: ReceiptSelection = .due, kind: RunKind = .nightly, dryRun: Bool = false,
        settings: Settings? = nil
    ) async throws -> RunSummary {
        let job = LiveWiring(
            settings: try settings ?? serverAPISettings(), store: store, clock: clock.millisecondsClock,
            logger: Logger(label: "test"))
        return try await job.run(.init(kind: kind, selection: selection, dryRun: dryRun))
    }

    /// The notifications processor for this world's app, trusting the simulator's root, on
    /// `clockMs` (default the world's clock; a signedDate more than 5 minutes ahead is refused).
    func notificationProcessor(
        products: Set<String> = [], clockMs: (@Sendable () -> Int64)? = nil
    ) throws -> NotificationProcessor {
        let clock = clockMs ?? self.clock.millisecondsClock
        return NotificationProcessor(
            store: store,
            settings: NotificationSettings(
                bundleID: SimulatedProducts.bundleID,
                verifier: try SignedDataVerifier(rootPEM: simulator.rootCertificatePEM, clock: clock), products: products),
            reconciler: ReceiptReconciler(products: products, duePolicy: .notified), clock: clock,
            logger: Logger(label: "test"))
    }

    func close() async {
        await store.close()
        await simulator.stop()
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// What SUBRECON_DB names for the binary: the SQLite file, or the PostgreSQL URL.
    var databasePath: String { postgres?.url ?? folder + "/subrecon.sqlite" }

    /// The binary's environment for this world's store (the password file on PostgreSQL).
    var storeEnvironment: [String: String] { (postgres?.environment ?? [:]).merging(["SUBRECON_DB": databasePath]) { $1 } }

    /// Retries as in production, but with millisecond backoffs so fault tests stay fast.
    static let fastRetries = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(5), maxDelay: .milliseconds(50))

    func settings(
        secret: String = TestWorld.secret, concurrency: Int = 8, products: Set<String> = [],
        retryPolicy: RetryPolicy = TestWorld.fastRetries, requestTimeout: Duration = .seconds(10)
    ) -> Settings {
        Settings(
            databasePath: databasePath, sharedSecret: SharedSecret(secret),
            endpoints: VerifyReceiptEndpoints(production: simulator.productionURL, sandbox: simulator.sandboxURL),
            concurrency: concurrency, products: products, requestTimeout: requestTimeout, caFile: nil, warnings: [],
            retryPolicy: retryPolicy)
    }

    /// Receipt data for a scenario, as of the world's clock now.
    func receipt(_ scenario: SimulatedScenario, id: Int64) -> String {
        let subscriber = scenario.subscriber(id: id, nowMs: clock.nowMs, paddingBytes: 200)
        // The Server API is asked by transaction id: the simulated App Store knows every account.
        simulator.register(subscriber)
        return SimulatedReceipt.encode(subscriber)
    }

    /// Imports one user per scenario (`user-<scenario>`), without environment hints.
    @discardableResult
    func importScenarios(_ scenarios: [SimulatedScenario]) async throws -> ImportSummary {
        let rows = scenarios.enumerated().map { index, scenario in
            ImportRow(line: index + 2, userID: "user-\(scenario.rawValue)", receiptData: receipt(scenario, id: Int64(index + 1)))
        }
        return try await store.importReceipts(rows, nowMs: clock.nowMs)
    }

    func run(
        _ selection: ReceiptSelection = .due, kind: RunKind = .nightly, dryRun: Bool = false,
        secret: String = TestWorld.secret, concurrency: Int = 8, retryPolicy: RetryPolicy = TestWorld.fastRetries,
        requestTimeout: Duration = .seconds(10), circuitBreaker: CircuitBreaker = .standard,
        stopSignal: StopSignal = StopSignal()
    ) async throws -> RunSummary {
        let job = LiveWiring(
            settings: settings(
                secret: secret, concurrency: concurrency, retryPolicy: retryPolicy, requestTimeout: requestTimeout),
            store: store, clock: clock.millisecondsClock, stopSignal: stopSignal, logger: Logger(label: "test"))
        return try await job.run(
            .init(kind: kind, selection: selection, dryRun: dryRun, circuitBreaker: circuitBreaker))
    }

    /// `perApp` active accounts bought in each of `apps`, known to the simulator, imported with
    /// their app (users `BUNDLE-N`).
    func importActiveSubscribers(of apps: [String], perApp: Int) async throws {
        var rows: [ImportRow] = []
        for (appIndex, app) in apps.enumerated() {
            for index in 0..<perApp {
                var subscriber = SimulatedScenario.active.subscriber(
                    id: Int64(1_000 * (appIndex + 1) + index), nowMs: clock.nowMs, paddingBytes: 200)
                subscriber.bundleID = app
                simulator.register(subscriber)
                rows.append(
                    ImportRow(
                        line: rows.count + 2, userID: "\(app)-\(index)", receiptData: SimulatedReceipt.encode(subscriber),
                        bundleID: app))
            }
        }
        _ = try await store.importReceipts(rows, nowMs: clock.nowMs)
    }

    /// Every stored subscription, by user and original transaction id (either store).
    func subscriptions() async throws -> [StoredSubscription] {
        let users = try await store.withReadSnapshot { db in
            try await db.all("SELECT DISTINCT user_id FROM subscriptions ORDER BY user_id") { try $0.requiredText("user_id") }
        }
        var all: [StoredSubscription] = []
        for user in users { all += try await store.subscriptions(ofUser: user) }
        return all
    }

    /// Runs one statement on this world's database behind the store's back (a test's own change,
    /// e.g. a database as an older version left it).
    func execute(_ sql: String) async throws {
        if let postgres { return try await postgres.execute(sql) }
        let queue = try DatabaseQueue(path: folder + "/subrecon.sqlite")
        try await queue.write { db in try db.execute(sql: sql) }
        try queue.close()
    }

    func count(_ sql: String) async throws -> Int {
        Int(try await store.withReadSnapshot { db in try await db.integer("SELECT (\(sql)) AS value") } ?? 0)
    }

    func report(_ kind: ReportKind, runID: Int64? = nil) async throws -> [[String: String]] {
        let box = DataBox()
        try await ReportExporter(store: store).export(kind, runID: runID) { box.append($0) }
        return CSVTable.parse(box.text)
    }
}

/// Collects report bytes in a test.
final class DataBox: @unchecked Sendable {
    private(set) var data = Data()
    func append(_ more: Data) { data.append(more) }
    var text: String { String(decoding: data, as: UTF8.self) }
}

/// Reads the reports back: a small RFC 4180 reader, independent of the writer under test.
enum CSVTable {
    static func rows(_ text: String) -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var cell = ""
        var quoted = false
        var iterator = Array(text).makeIterator()
        var pending: Character? = nil
        while let c = pending ?? iterator.next() {
            pending = nil
            if quoted {
                if c == "\"" {
                    if let next = iterator.next() {
                        if next == "\"" { cell.append("\"") } else { quoted = false; pending = next }
                    } else { quoted = false }
                } else { cell.append(c) }
            } else if c == "\"" { quoted = true }
            else if c == "," { row.append(cell); cell = "" }
            else if c == "\n" { row.append(cell); rows.append(row); row = []; cell = "" }
            else { cell.append(c) }
        }
        if !cell.isEmpty || !row.isEmpty { row.append(cell); rows.append(row) }
        return rows
    }

    static func parse(_ text: String) -> [[String: String]] {
        let all = rows(text)
        guard let header = all.first else { return [] }
        return all.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
    }

    static func header(_ text: String) -> [String] { rows(text).first ?? [] }
}
