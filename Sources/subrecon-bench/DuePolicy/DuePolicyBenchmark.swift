import AppStoreSimulator
import Foundation
import GRDB
import Logging
import SubRecon
import SubReconAppStore
import SubReconHTTP
import SubReconModel
import SubReconStore

/// The due policy against "verify everything every night", in-process on simulated time: one
/// `SimulatedClock` drives the simulator (zero latency) and two `LiveWiring`s over two
/// databases holding the same receipts. Every simulated night POLICY runs `.due` and NAIVE runs
/// `.all`; Apple calls are the simulator's request counts around each run, and after each night
/// the two `subscriptions` tables are compared (see `LagTracker`).
///
/// A third database, UNSPREAD, runs `.due` under the same policy without the spread of the 7-day
/// re-checks (`DuePolicy.spreadsMaxAgeChecks` off): with every receipt imported on the first
/// night, its nightly checks peak every 7th night where POLICY's stay level. For both, the longest
/// gap between two checks of an entitled receipt is measured against the documented 7 days.
///
/// A fourth database, NOTIFIED, receives the App Store Server Notifications V2 of the subscribers'
/// events before each night's `.due` run (`NotificationFeed`: all but a deterministic share, lost
/// and, unless `backfill` is off, recovered by the daily backfill before the run),
/// so its `LiveWiring` runs `DuePolicy.notified` (30-day re-checks); its calls and its
/// lag behind NAIVE are measured the same way as POLICY's.
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
        /// Share of the notifications NOTIFIED's receiver gets (the rest are lost).
        var notifiedShare: Double = 0.95
        /// Whether NOTIFIED's daily backfill recovers the lost ones before the night's run.
        var backfill = true
    }

    /// 2026-11-22T03:17:00Z, the crontab's nightly slot (`17 3 * * *`).
    static let defaultStartMs: Int64 = 1_795_317_420_000

    let configuration: Configuration

    struct NightFigures {
        var policyCalls: Int
        var naiveCalls: Int
        var disagreements: Int
        /// Receipts verified tonight by POLICY and by UNSPREAD.
        var policyChecks: Int
        var unspreadChecks: Int
        var unspreadCalls: Int
        var notifiedCalls: Int
        var notifiedChecks: Int
        var notifiedDisagreements: Int
    }

    /// One policy's checks night by night, and its longest wait between two checks of an entitled receipt.
    struct CheckLoad {
        /// Receipts verified each night after the first (the import night checks everything).
        var laterNights: [Int]
        /// The longest gap between a check that left a receipt active and its next check (or the
        /// last night, if none came): what the 7-day maximum age bounds.
        var longestGapMs: Int64
        /// Gaps longer than `boundMs`.
        var lateGaps: Int
        /// The policy's maximum age (7 days; 30 with notifications).
        var boundMs: Int64

        var peak: Int { laterNights.max() ?? 0 }
        /// The night of the peak, 1-based as in the verbose lines.
        var peakNight: Int { (laterNights.firstIndex(of: peak) ?? 0) + 2 }
        var mean: Double { laterNights.isEmpty ? 0 : Double(laterNights.reduce(0, +)) / Double(laterNights.count) }
        var peakOverMean: Double { mean > 0 ? Double(peak) / mean : 0 }

        init(laterNights: [Int], gaps: [Int64], boundMs: Int64 = DuePolicy.standard.maxAgeMs) {
            self.laterNights = laterNights
            longestGapMs = gaps.max() ?? 0
            lateGaps = gaps.filter { $0 > boundMs }.count
            self.boundMs = boundMs
        }
    }

    struct Result {
        var configuration: Configuration
        var nights: [NightFigures]
        var lags: [LagTracker.Kind: LagTracker.Stats]
        /// Per profile: subscribers, POLICY, NAIVE and NOTIFIED verifications.
        var byProfile: [SubscriberPopulation.Profile: ProfileCalls]
        var seconds: Double
        var failedReceipts: Int
        /// POLICY's (the standard policy, spread) and UNSPREAD's.
        var policyLoad: CheckLoad
        var unspreadLoad: CheckLoad
        /// NOTIFIED: its lag behind NAIVE, notifications, checks and failed receipts.
        var notifiedLags: [LagTracker.Kind: LagTracker.Stats]
        var notifications: NotificationFeed.Counts
        var notifiedLoad: CheckLoad
        var notifiedFailedReceipts: Int

        var policyCalls: Int { nights.reduce(0) { $0 + $1.policyCalls } }
        var naiveCalls: Int { nights.reduce(0) { $0 + $1.naiveCalls } }
        var unspreadCalls: Int { nights.reduce(0) { $0 + $1.unspreadCalls } }
        var ratio: Double { naiveCalls > 0 ? Double(policyCalls) / Double(naiveCalls) : 0 }
        var notifiedCalls: Int { nights.reduce(0) { $0 + $1.notifiedCalls } }
        var notifiedRatio: Double { naiveCalls > 0 ? Double(notifiedCalls) / Double(naiveCalls) : 0 }
        /// NOTIFIED ÷ NAIVE over the nights after the first (the import night verifies everything).
        var notifiedSteadyRatio: Double {
            let naive = nights.dropFirst().reduce(0) { $0 + $1.naiveCalls }
            return naive > 0 ? Double(nights.dropFirst().reduce(0) { $0 + $1.notifiedCalls }) / Double(naive) : 0
        }
    }

    struct ProfileCalls {
        var subscribers = 0
        var policy = 0
        var naive = 0
        var notified = 0
    }

    func run() async throws -> Result {
        let c = configuration
        let watch = Stopwatch()
        let folder = try BenchFolder.make()
        defer { BenchFolder.remove(folder, keep: c.keepFolder) }
        print("due-policy: \(BenchFormat.grouped(c.subscribers)) subscribers, \(c.days) simulated nights at 03:17 UTC, concurrency \(c.concurrency)")

        let clock = SimulatedClock(nowMs: c.startMs)
        let secret = "bench-" + UUID().uuidString.lowercased()
        let simulator = AppStoreSimulator(
            options: SimulatorOptions(sharedSecret: secret, latency: .zero, clock: clock.millisecondsClock))
        try await simulator.start()
        // Stopped, and awaited, whether the nights ran (they stop it before the result) or threw.
        do {
            return try await nights(simulator: simulator, clock: clock, secret: secret, folder: folder, watch: watch)
        } catch {
            await simulator.stop()
            throw error
        }
    }

    /// The simulated nights on the started `simulator`, and what they add up to.
    private func nights(
        simulator: AppStoreSimulator, clock: SimulatedClock, secret: String, folder: String, watch: Stopwatch
    ) async throws -> Result {
        let c = configuration
        let population = SubscriberPopulation(startMs: c.startMs, days: c.days, paddingBytes: c.paddingBytes)
        let seeder = ReceiptSeeder(source: population, nowMs: c.startMs)
        let policyPath = folder + "/policy.sqlite"
        let naivePath = folder + "/naive.sqlite"
        let unspreadPath = folder + "/unspread.sqlite"
        let notifiedPath = folder + "/notified.sqlite"
        for path in [policyPath, naivePath, unspreadPath, notifiedPath] {
            _ = try seeder.seedSubreconDatabase(path: path, count: c.subscribers)
        }
        let policyDatabase = try AppDatabase.open(path: policyPath)
        let naiveDatabase = try AppDatabase.open(path: naivePath)
        let unspreadDatabase = try AppDatabase.open(path: unspreadPath)
        let notifiedDatabase = try AppDatabase.open(path: notifiedPath)

        let logger = Logger(label: "subrecon-bench") { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .warning
            return handler
        }
        func job(_ database: AppDatabase, _ path: String) -> LiveWiring {
            LiveWiring(
                settings: Settings(
                    databasePath: path, sharedSecret: SharedSecret(secret),
                    endpoints: VerifyReceiptEndpoints(production: simulator.productionURL, sandbox: simulator.sandboxURL),
                    concurrency: c.concurrency, products: [], requestTimeout: .seconds(30), caFile: nil, warnings: []),
                store: database, clock: clock.millisecondsClock, logger: logger)
        }
        let policyJob = job(policyDatabase, policyPath)
        let naiveJob = job(naiveDatabase, naivePath)
        let notifiedJob = job(notifiedDatabase, notifiedPath)
        let subscribers = (0..<Int64(c.subscribers)).map(population.subscriber)
        simulator.register(subscribers)
        var feed = try NotificationFeed(
            simulator: simulator, clock: clock, subscribers: subscribers, store: notifiedDatabase,
            share: c.notifiedShare, backfill: c.backfill, logger: logger)
        // `LiveWiring` always uses the standard policy: UNSPREAD wires the same pipeline by hand.
        var unspreadPolicy = DuePolicy.standard
        unspreadPolicy.spreadsMaxAgeChecks = false
        let transport = CurlTransport(maxConnections: c.concurrency)
        defer { transport.shutdown() }
        let unspreadRun = ReconciliationRun(
            store: unspreadDatabase,
            verifier: VerifyReceiptClient(
                transport: transport,
                endpoints: VerifyReceiptEndpoints(production: simulator.productionURL, sandbox: simulator.sandboxURL),
                sharedSecret: SharedSecret(secret), logger: logger),
            reconciler: ReceiptReconciler(duePolicy: unspreadPolicy), clock: clock.millisecondsClock, logger: logger)

        var tracker = LagTracker()
        var notifiedTracker = LagTracker()
        var nights: [NightFigures] = []
        var failed = 0
        var notifiedFailed = 0
        for night in 0..<c.days {
            let nightMs = c.startMs + Int64(night) * SimulatedProducts.dayMs
            // NOTIFIED's receiver gets the day's notifications (the first night: the day before it).
            await feed.deliver(afterMs: nightMs - SimulatedProducts.dayMs, throughMs: nightMs)
            clock.set(nowMs: nightMs)
            let before = simulator.statistics().totalRequests
            let policySummary = try await policyJob.run(.init(kind: .nightly, selection: .due))
            let middle = simulator.statistics().totalRequests
            let naiveSummary = try await naiveJob.run(.init(kind: .nightly, selection: .all))
            let after = simulator.statistics().totalRequests
            let unspreadSummary = try await unspreadRun.run(.init(kind: .nightly, selection: .due, concurrency: c.concurrency))
            let last = simulator.statistics().totalRequests
            let notifiedSummary = try await notifiedJob.run(.init(kind: .nightly, selection: .due))
            let notifiedLast = simulator.statistics().totalRequests
            failed += policySummary.count(.failed) + naiveSummary.count(.failed) + unspreadSummary.count(.failed)
            notifiedFailed += notifiedSummary.count(.failed)
            let naiveState = try Self.subscriptions(naiveDatabase)
            tracker.observe(night: night, policy: try Self.subscriptions(policyDatabase), naive: naiveState)
            notifiedTracker.observe(night: night, policy: try Self.subscriptions(notifiedDatabase), naive: naiveState)
            let figures = NightFigures(
                policyCalls: middle - before, naiveCalls: after - middle, disagreements: tracker.disagreementsTonight,
                policyChecks: policySummary.receiptsTotal, unspreadChecks: unspreadSummary.receiptsTotal,
                unspreadCalls: last - after, notifiedCalls: notifiedLast - last,
                notifiedChecks: notifiedSummary.receiptsTotal, notifiedDisagreements: notifiedTracker.disagreementsTonight)
            nights.append(figures)
            if c.verbose {
                print("  night \(String(format: "%2d", night + 1)): POLICY \(String(format: "%5d", figures.policyCalls)) calls (\(String(format: "%5d", figures.policyChecks)) receipts), UNSPREAD \(String(format: "%5d", figures.unspreadChecks)) receipts, NAIVE \(String(format: "%5d", figures.naiveCalls)) calls, \(figures.disagreements) subscriptions disagree; NOTIFIED \(String(format: "%5d", figures.notifiedCalls)) calls, \(figures.notifiedDisagreements) disagree")
            }
        }
        tracker.finish(lastNight: c.days - 1)
        notifiedTracker.finish(lastNight: c.days - 1)

        var byProfile: [SubscriberPopulation.Profile: ProfileCalls] = [:]
        let policyItems = try Self.verificationsPerUser(policyDatabase)
        let naiveItems = try Self.verificationsPerUser(naiveDatabase)
        let notifiedItems = try Self.verificationsPerUser(notifiedDatabase)
        for index in 0..<Int64(c.subscribers) {
            let profile = population.profile(of: index)
            let user = "user-\(index + 1)"
            byProfile[profile, default: ProfileCalls()].subscribers += 1
            byProfile[profile, default: ProfileCalls()].policy += policyItems[user, default: 0]
            byProfile[profile, default: ProfileCalls()].naive += naiveItems[user, default: 0]
            byProfile[profile, default: ProfileCalls()].notified += notifiedItems[user, default: 0]
        }
        let lastNightMs = c.startMs + Int64(c.days - 1) * SimulatedProducts.dayMs
        let policyLoad = CheckLoad(
            laterNights: nights.dropFirst().map(\.policyChecks), gaps: try Self.entitledGaps(policyDatabase, lastNightMs))
        let unspreadLoad = CheckLoad(
            laterNights: nights.dropFirst().map(\.unspreadChecks), gaps: try Self.entitledGaps(unspreadDatabase, lastNightMs))
        let notifiedLoad = CheckLoad(
            laterNights: nights.dropFirst().map(\.notifiedChecks), gaps: try Self.entitledGaps(notifiedDatabase, lastNightMs),
            boundMs: DuePolicy.notified.maxAgeMs)
        await simulator.stop()
        return Result(
            configuration: c, nights: nights, lags: tracker.stats, byProfile: byProfile, seconds: watch.seconds,
            failedReceipts: failed, policyLoad: policyLoad, unspreadLoad: unspreadLoad,
            notifiedLags: notifiedTracker.stats, notifications: feed.counts, notifiedLoad: notifiedLoad,
            notifiedFailedReceipts: notifiedFailed)
    }

    /// For every check whose answer left the receipt active, the time until that receipt's next
    /// check, or until the last night when none came (failed checks don't count: they are retried
    /// at the next run).
    static func entitledGaps(_ database: AppDatabase, _ lastNightMs: Int64) throws -> [Int64] {
        try database.writer.read { db in
            var gaps: [Int64] = []
            var previous: (receipt: Int64, at: Int64, active: Bool)?
            let rows = try Row.fetchCursor(
                db, sql: BenchmarkSQL.checksInOrder)
            func close(_ last: (receipt: Int64, at: Int64, active: Bool)?, next: Int64) {
                if let last, last.active { gaps.append(next - last.at) }
            }
            while let row = try rows.next() {
                let receipt: Int64 = row[0]
                let at: Int64 = row[1]
                if let last = previous, last.receipt == receipt {
                    close(last, next: at)
                } else {
                    close(previous, next: lastNightMs)
                }
                previous = (receipt, at, (row[2] as Bool?) ?? false)
            }
            close(previous, next: lastNightMs)
            return gaps
        }
    }

    static func subscriptions(_ database: AppDatabase) throws -> [LagTracker.Key: LagTracker.State] {
        try database.writer.read { db in
            var result: [LagTracker.Key: LagTracker.State] = [:]
            let rows = try Row.fetchCursor(
                db, sql: BenchmarkSQL.subscriptionStates)
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
            let rows = try Row.fetchCursor(db, sql: BenchmarkSQL.verificationsPerUser)
            while let row = try rows.next() { result[row[0]] = row[1] }
            return result
        }
    }
}
