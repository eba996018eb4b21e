import AppStoreSimulator
import Foundation
import GRDB
import Logging
import SubRecon

/// The due policy against "verify everything every night", in-process on simulated time: one
/// `SimulatedClock` drives the simulator (zero latency) and two `ReconciliationJob`s over two
/// databases holding the same receipts. Every simulated night POLICY runs `.due` and NAIVE runs
/// `.all`; Apple calls are the simulator's request counts around each run, and after each night
/// the two `subscriptions` tables are compared (see `LagTracker`).
struct DuePolicyBenchmark {
    struct Configuration {
        var subscribers: Int
        var days: Int
        var concurrency: Int
        var paddingBytes: Int
        /// The first night; every later night is exactly 24 h after the previous one.
        var startMs: Int64
        var verbose: Bool
        var keepFolder: Bool
    }

    /// 2026-11-22T03:17:00Z, the crontab's nightly slot (`17 3 * * *`).
    static let defaultStartMs: Int64 = 1_795_317_420_000

    let configuration: Configuration

    struct NightFigures {
        var policyCalls: Int
        var naiveCalls: Int
        var disagreements: Int
    }

    struct Result {
        var configuration: Configuration
        var nights: [NightFigures]
        var lags: [LagTracker.Kind: LagTracker.Stats]
        /// Per profile: subscribers, POLICY verifications, NAIVE verifications.
        var byProfile: [SubscriberPopulation.Profile: (subscribers: Int, policy: Int, naive: Int)]
        var seconds: Double
        var failedReceipts: Int

        var policyCalls: Int { nights.reduce(0) { $0 + $1.policyCalls } }
        var naiveCalls: Int { nights.reduce(0) { $0 + $1.naiveCalls } }
        var ratio: Double { naiveCalls > 0 ? Double(policyCalls) / Double(naiveCalls) : 0 }
    }

    func run() async throws -> Result {
        let c = configuration
        let watch = Stopwatch()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("subrecon-bench-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { if !c.keepFolder { try? FileManager.default.removeItem(atPath: folder) } }
        print("due-policy: \(BenchFormat.grouped(c.subscribers)) subscribers, \(c.days) simulated nights at 03:17 UTC, concurrency \(c.concurrency)")

        let clock = SimulatedClock(nowMs: c.startMs)
        let secret = "bench-" + UUID().uuidString.lowercased()
        let simulator = AppStoreSimulator(
            options: SimulatorOptions(sharedSecret: secret, latency: .zero, clock: clock.millisecondsClock))
        try await simulator.start()
        defer { Task { [simulator] in await simulator.stop() } }

        let population = SubscriberPopulation(startMs: c.startMs, days: c.days, paddingBytes: c.paddingBytes)
        let seeder = ReceiptSeeder(source: population, nowMs: c.startMs)
        let policyPath = folder + "/policy.sqlite"
        let naivePath = folder + "/naive.sqlite"
        _ = try seeder.seedSubreconDatabase(path: policyPath, count: c.subscribers)
        _ = try seeder.seedSubreconDatabase(path: naivePath, count: c.subscribers)
        let policyDatabase = try AppDatabase.open(path: policyPath)
        let naiveDatabase = try AppDatabase.open(path: naivePath)

        let logger = Logger(label: "subrecon-bench") { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .warning
            return handler
        }
        func job(_ database: AppDatabase, _ path: String) -> ReconciliationJob {
            ReconciliationJob(
                settings: Settings(
                    databasePath: path, sharedSecret: SharedSecret(secret),
                    endpoints: VerifyReceiptEndpoints(production: simulator.productionURL, sandbox: simulator.sandboxURL),
                    concurrency: c.concurrency, products: [], requestTimeout: .seconds(30), caFile: nil, warnings: []),
                store: database, clock: clock.millisecondsClock, logger: logger)
        }
        let policyJob = job(policyDatabase, policyPath)
        let naiveJob = job(naiveDatabase, naivePath)

        var tracker = LagTracker()
        var nights: [NightFigures] = []
        var failed = 0
        for night in 0..<c.days {
            clock.set(nowMs: c.startMs + Int64(night) * SimulatedProducts.dayMs)
            let before = simulator.statistics().totalRequests
            let policySummary = try await policyJob.run(.init(kind: .nightly, selection: .due))
            let middle = simulator.statistics().totalRequests
            let naiveSummary = try await naiveJob.run(.init(kind: .nightly, selection: .all))
            let after = simulator.statistics().totalRequests
            failed += policySummary.count(.failed) + naiveSummary.count(.failed)
            tracker.observe(
                night: night, policy: try Self.subscriptions(policyDatabase), naive: try Self.subscriptions(naiveDatabase))
            let figures = NightFigures(
                policyCalls: middle - before, naiveCalls: after - middle, disagreements: tracker.disagreementsTonight)
            nights.append(figures)
            if c.verbose {
                print("  night \(String(format: "%2d", night + 1)): POLICY \(String(format: "%5d", figures.policyCalls)) calls, NAIVE \(String(format: "%5d", figures.naiveCalls)) calls, \(figures.disagreements) subscriptions disagree")
            }
        }
        tracker.finish(lastNight: c.days - 1)

        var byProfile: [SubscriberPopulation.Profile: (subscribers: Int, policy: Int, naive: Int)] = [:]
        let policyItems = try Self.verificationsPerUser(policyDatabase)
        let naiveItems = try Self.verificationsPerUser(naiveDatabase)
        for index in 0..<Int64(c.subscribers) {
            let profile = population.profile(of: index)
            let user = "user-\(index + 1)"
            var entry = byProfile[profile] ?? (0, 0, 0)
            entry.subscribers += 1
            entry.policy += policyItems[user, default: 0]
            entry.naive += naiveItems[user, default: 0]
            byProfile[profile] = entry
        }
        await simulator.stop()
        return Result(
            configuration: c, nights: nights, lags: tracker.stats, byProfile: byProfile, seconds: watch.seconds,
            failedReceipts: failed)
    }

    static func subscriptions(_ database: AppDatabase) throws -> [LagTracker.Key: LagTracker.State] {
        try database.writer.read { db in
            var result: [LagTracker.Key: LagTracker.State] = [:]
            let rows = try Row.fetchCursor(
                db, sql: "SELECT user_id, original_transaction_id, status, expires_date_ms, product_id FROM subscriptions")
            while let row = try rows.next() {
                result[LagTracker.Key(userID: row[0], originalTransactionID: row[1])] = LagTracker.State(
                    status: row[2], expiresDateMs: row[3], productID: row[4])
            }
            return result
        }
    }

    static func verificationsPerUser(_ database: AppDatabase) throws -> [String: Int] {
        try database.writer.read { db in
            var result: [String: Int] = [:]
            let rows = try Row.fetchCursor(db, sql: "SELECT user_id, COUNT(*) FROM run_items GROUP BY user_id")
            while let row = try rows.next() { result[row[0]] = row[1] }
            return result
        }
    }
}
