import AppStoreSimulator
import Foundation
import GRDB
import SubReconStore

/// One App Store Server API measurement (`SUBRECON_APPLE_API=server-api`): N generated receipts,
/// `subrecon simulator` (its own process, with an In-App Purchase key, its root CA written out, the
/// given latency and optionally a 429 threshold), the accounts registered with it, then
/// `subrecon run --all` (its own process) twice on the same database: the first check (statuses and
/// every history page) and, right after, the steady state (nothing changed: statuses only).
struct ServerAPIBenchmark {
    struct Configuration {
        var title: String
        var receipts: Int
        var latencyMs: Int
        var concurrency: Int
        /// `SUBRECON_API_RATE` (0 = no limit).
        var workerRate: Int
        /// `--api-rate-limit` of the simulator (nil: none).
        var simulatorRateLimit: Double?
        var historyPageSize: Int = 20
        /// Whether to run `run --all` a second time (the steady state).
        var steadyState: Bool
        var paddingBytes: Int
        var subreconPath: String
        var keepFolder: Bool
    }

    let configuration: Configuration

    /// Apple calls a run needed at least, from what it recorded: one status call per receipt that
    /// had a transaction id, one more for a Sandbox receipt whose environment was not known yet
    /// (production answers 4040010 first) and for one known in neither environment, and
    /// ⌈periods ÷ page size⌉ history pages per customer whose new periods the run recorded.
    struct ExpectedCalls {
        var statuses = 0
        var sandboxReasks = 0
        var notFoundReasks = 0
        var historyPages = 0
        var total: Int { statuses + sandboxReasks + notFoundReasks + historyPages }
    }

    struct Outcomes {
        var items = 0
        var updated = 0
        var unchanged = 0
        var invalid = 0
        var accountGone = 0
        var failed = 0
        var subscriptions = 0
    }

    /// One `subrecon run --all`.
    struct WorkerRun {
        var label: String
        var seconds: Double
        var exit: ChildProcess.Exit
        var simulatorCPUSeconds: Double
        var summary: WorkerSummaryLine
        var outcomes: Outcomes
        var expected: ExpectedCalls
        var stderrTail: String

        var requests: Int { summary.apiRequests ?? 0 }
        var receiptsPerSecond: Double { seconds > 0 ? Double(outcomes.items) / seconds : 0 }
        /// Requests ÷ wall seconds of the whole process (start-up and the last write included).
        var requestsPerSecond: Double { seconds > 0 ? Double(requests) / seconds : 0 }
        func workerMicrosPerReceipt() -> Double { exit.cpuSeconds / Double(max(1, outcomes.items)) * 1e6 }
        func simulatorMicrosPerReceipt() -> Double { simulatorCPUSeconds / Double(max(1, outcomes.items)) * 1e6 }
        func simulatorMicrosPerRequest() -> Double { simulatorCPUSeconds / Double(max(1, requests)) * 1e6 }
    }

    struct Result {
        var configuration: Configuration
        var registeredAccounts: Int
        var runs: [WorkerRun]
        var simulatorPeakRSSKilobytes: Int

        /// requests × latency ÷ concurrency: every request waits out the latency, `concurrency` at a time.
        func idealSeconds(_ run: WorkerRun) -> Double? {
            idealSeconds(calls: run.requests)
        }

        func idealSeconds(calls: Int) -> Double? {
            configuration.latencyMs > 0
                ? Double(calls) * Double(configuration.latencyMs) / 1000 / Double(configuration.concurrency) : nil
        }
    }

    func run() async throws -> Result {
        let c = configuration
        let folder = try BenchFolder.make()
        defer { BenchFolder.remove(folder, keep: c.keepFolder) }
        let limits = [
            "SUBRECON_API_RATE=\(c.workerRate == 0 ? "0 (no limit)" : "\(c.workerRate)")",
            c.simulatorRateLimit.map { "simulator 429 above \(BenchFormat.fixed($0, 0))/s" },
        ].compactMap { $0 }.joined(separator: ", ")
        print("\(c.title): \(BenchFormat.grouped(c.receipts)) receipts, server-api, latency \(c.latencyMs) ms, concurrency \(c.concurrency), \(limits), history page \(c.historyPageSize), padding \(c.paddingBytes) B")
        if c.keepFolder { print(BenchFormat.line("folder", folder)) }

        // 1. The data.
        let mix = ReceiptMix(nowMs: SimulatedClock.wallNowMs(), paddingBytes: c.paddingBytes)
        let databasePath = folder + "/subrecon.sqlite"
        let seeded = try ReceiptSeeder(source: mix, nowMs: mix.nowMs).seedSubreconDatabase(path: databasePath, count: c.receipts)
        print(BenchFormat.line(
            "generated", "\(BenchFormat.grouped(seeded.receipts)) receipts in \(BenchFormat.fixed(seeded.seconds, 1)) s, database \(BenchFormat.megabytes(bytes: seeded.databaseBytes))"))

        // 2. The In-App Purchase key both sides use, and the simulator.
        let setup = try ServerAPISimulatorSetup.start(
            subrecon: c.subreconPath, folder: folder, latencyMs: c.latencyMs, historyPageSize: c.historyPageSize,
            rateLimit: c.simulatorRateLimit)
        let simulator = setup.simulator
        defer { simulator.stop() }

        // 3. The simulator learns every account (not measured).
        let watch = Stopwatch()
        let accounts = try await AccountRegistration.register(source: mix, count: c.receipts, serverAPIBaseURL: setup.apiURL)
        print(BenchFormat.line(
            "registered", "\(BenchFormat.grouped(accounts)) accounts with the simulator in \(BenchFormat.fixed(watch.seconds, 1)) s"))

        // 4. The worker, its own process, once or twice.
        var environment = setup.workerEnvironment(rate: c.workerRate)
        environment["SUBRECON_DB"] = databasePath

        var runs: [WorkerRun] = []
        let labels = c.steadyState ? ["first check", "steady state"] : ["first check"]
        for (index, label) in labels.enumerated() {
            let run = try await runWorker(
                label: label, index: index, environment: environment, simulator: simulator, folder: folder,
                databasePath: databasePath)
            runs.append(run)
        }
        return Result(
            configuration: c, registeredAccounts: accounts, runs: runs,
            simulatorPeakRSSKilobytes: simulator.peakRSSKilobytes())
    }

    private func runWorker(
        label: String, index: Int, environment: [String: String], simulator: SimulatorProcess, folder: String,
        databasePath: String
    ) async throws -> WorkerRun {
        let out = folder + "/worker-\(index + 1).out"
        let err = folder + "/worker-\(index + 1).err"
        let simulatorCPUBefore = simulator.cpuSeconds()
        let watch = Stopwatch()
        let worker = try ChildProcess.spawn(
            executable: configuration.subreconPath,
            arguments: ["run", "--all", "--concurrency", "\(configuration.concurrency)"],
            environment: environment, stdoutPath: out, stderrPath: err)
        let exit = await worker.waitOffTheCooperativePool()
        let seconds = watch.seconds
        let simulatorCPU = simulator.cpuSeconds() - simulatorCPUBefore
        let summary = WorkerSummaryLine.last(in: (try? String(contentsOfFile: out, encoding: .utf8)) ?? "")
        let stderrTail = ((try? String(contentsOfFile: err, encoding: .utf8)) ?? "")
            .split(separator: "\n").suffix(5).joined(separator: "\n    ")
        let (outcomes, expected) = try Self.recorded(
            databasePath: databasePath, firstRun: index == 0, pageSize: configuration.historyPageSize)
        return WorkerRun(
            label: label, seconds: seconds, exit: exit, simulatorCPUSeconds: simulatorCPU, summary: summary,
            outcomes: outcomes, expected: expected, stderrTail: stderrTail)
    }

    /// The latest run's outcomes and the calls it needed at least (see `ExpectedCalls`).
    private static func recorded(databasePath: String, firstRun: Bool, pageSize: Int) throws -> (Outcomes, ExpectedCalls) {
        let queue = try DatabaseQueue(path: databasePath)
        return try queue.read { db in
            guard let runID = try Int64.fetchOne(db, sql: BenchmarkSQL.latestRun) else {
                return (Outcomes(), ExpectedCalls())
            }
            let row = try Row.fetchOne(
                db,
                sql: BenchmarkSQL.runOutcomes,
                arguments: [runID])
            var outcomes = Outcomes()
            outcomes.items = row?["items"] ?? 0
            outcomes.updated = row?["updated"] ?? 0
            outcomes.unchanged = row?["unchanged"] ?? 0
            outcomes.invalid = row?["invalid"] ?? 0
            outcomes.accountGone = row?["account_gone"] ?? 0
            outcomes.failed = row?["failed"] ?? 0
            outcomes.subscriptions = try Int.fetchOne(db, sql: BenchmarkSQL.subscriptionCount) ?? 0
            var expected = ExpectedCalls()
            expected.statuses = outcomes.items - (row?["unasked"] ?? 0)
            expected.sandboxReasks = firstRun ? (row?["sandbox"] ?? 0) : 0
            expected.notFoundReasks = row?["not_found"] ?? 0
            let periods = try Int.fetchAll(
                db, sql: BenchmarkSQL.periodsPerUserOfRun, arguments: [runID])
            expected.historyPages = periods.reduce(0) { $0 + ($1 + pageSize - 1) / pageSize }
            return (outcomes, expected)
        }
    }

}
