import AppStoreSimulator
import Foundation
import Logging
import SubRecon
import SubReconAppStore
import SubReconModel
import SubReconStore

/// Several workers sharing one App Store Server API rate budget through PostgreSQL: N generated
/// receipts imported into a fresh database, `subrecon simulator` (its own process) answering 429
/// above a threshold, then W `subrecon run` processes (nightly, server-api mode, each with the same
/// `SUBRECON_API_RATE`) started together on that database. They split the receipts by claims and
/// their requests by the shared schedule: together they should reach the rate and no more.
struct WorkersBenchmark {
    struct Configuration {
        var receipts: Int
        var workers: Int
        /// `SUBRECON_API_RATE` of every worker: the budget of all of them together.
        var workerRate: Int
        /// The simulator's `--api-rate-limit` (429 above it).
        var simulatorRateLimit: Double
        var latencyMs: Int
        var concurrency: Int
        var paddingBytes: Int
        var postgres: BenchPostgres
        var subreconPath: String
        var keepFolder: Bool
    }

    /// One `subrecon run` process and the run it recorded.
    struct Worker {
        var number: Int
        var pid: Int32
        var exit: ChildProcess.Exit
        var summary: WorkerSummaryLine
        /// Run items of its run: the receipts it verified.
        var receipts: Int
        var runStartedAtMs: Int64?
        var runFinishedAtMs: Int64?
        var stderrTail: String

        var requests: Int { summary.apiRequests ?? 0 }
        var rateLimited: Int { summary.apiRateLimited ?? 0 }
    }

    struct Result {
        var configuration: Configuration
        var registeredAccounts: Int
        var workers: [Worker]
        /// From the first worker's start to the last one's end, processes and all.
        var wallSeconds: Double
        /// Distinct receipts with a run item, and run items in all.
        var receiptsRecorded: Int
        var runItems: Int
        /// Receipts with more than one run item (verified by two workers).
        var verifiedTwice: Int

        var requests: Int { workers.map(\.requests).reduce(0, +) }
        var rateLimited: Int { workers.map(\.rateLimited).reduce(0, +) }
        /// From the first run's start to the last run's end, as the runs recorded them.
        var runsSeconds: Double? {
            let starts = workers.compactMap(\.runStartedAtMs)
            let ends = workers.compactMap(\.runFinishedAtMs)
            guard starts.count == workers.count, ends.count == workers.count, let first = starts.min(), let last = ends.max(),
                last > first
            else { return nil }
            return Double(last - first) / 1000
        }
        /// All workers' requests over the time their runs spanned together.
        var summedRate: Double? { runsSeconds.map { Double(requests) / $0 } }
    }

    let configuration: Configuration

    func run() async throws -> Result {
        let c = configuration
        let folder = try BenchFolder.make()
        defer { BenchFolder.remove(folder, keep: c.keepFolder) }
        print("workers: \(BenchFormat.grouped(c.receipts)) receipts, \(c.workers) × `subrecon run` on one PostgreSQL database, server-api, SUBRECON_API_RATE=\(c.workerRate) (for all of them), concurrency \(c.concurrency) each, simulator latency \(c.latencyMs) ms and 429 above \(BenchFormat.fixed(c.simulatorRateLimit, 0))/s, padding \(c.paddingBytes) B")
        if c.keepFolder { print(BenchFormat.line("folder", folder)) }

        // 1. A database of its own, and the receipts (through the store's import).
        let database = try await c.postgres.createDatabase()
        print(BenchFormat.line("database", BenchPostgres.url(database)))
        do {
            let result = try await measure(in: database, folder: folder)
            if !c.keepFolder { try await c.postgres.dropDatabase(database) }
            return result
        } catch {
            if !c.keepFolder { try? await c.postgres.dropDatabase(database) }
            throw error
        }
    }

    private func measure(in database: PostgresLocation, folder: String) async throws -> Result {
        let c = configuration
        let mix = ReceiptMix(nowMs: SimulatedClock.wallNowMs(), paddingBytes: c.paddingBytes)
        let watch = Stopwatch()
        var logger = Logger(label: "subrecon-bench")
        logger.logLevel = .warning
        let store = try await StoreOpener.open(.postgres(database), environment: [:], logger: logger)
        do {
            try await seed(store, mix: mix)
        } catch {
            await store.close()
            throw error
        }
        print(BenchFormat.line("imported", "\(BenchFormat.grouped(c.receipts)) receipts in \(BenchFormat.fixed(watch.seconds, 1)) s"))

        // 2. The simulator, which learns every account (not measured).
        let setup = try ServerAPISimulatorSetup.start(
            subrecon: c.subreconPath, folder: folder, latencyMs: c.latencyMs, historyPageSize: 20,
            rateLimit: c.simulatorRateLimit)
        defer { setup.simulator.stop() }
        let accounts = try await AccountRegistration.register(source: mix, count: c.receipts, serverAPIBaseURL: setup.apiURL)

        // 3. The workers, started together; the password goes in a file, as in production.
        var environment = setup.workerEnvironment(rate: c.workerRate)
        environment.merge(try BenchPostgres.processEnvironment(database, folder: folder)) { $1 }
        let wall = Stopwatch()
        var processes: [ChildProcess] = []
        for number in 1...c.workers {
            processes.append(try ChildProcess.spawn(
                executable: c.subreconPath, arguments: ["run", "--concurrency", "\(c.concurrency)"],
                environment: environment, stdoutPath: folder + "/worker-\(number).out",
                stderrPath: folder + "/worker-\(number).err"))
        }
        var exits: [ChildProcess.Exit] = []
        for process in processes { exits.append(await process.waitOffTheCooperativePool()) }
        let wallSeconds = wall.seconds

        // 4. What they recorded.
        let recorded = try await Recorded.read(store)
        await store.close()
        let workers = zip(processes, exits).enumerated().map { index, pair in
            let (process, exit) = pair
            let run = recorded.runs[Int64(process.pid)]
            let out = (try? String(contentsOfFile: folder + "/worker-\(index + 1).out", encoding: .utf8)) ?? ""
            let err = (try? String(contentsOfFile: folder + "/worker-\(index + 1).err", encoding: .utf8)) ?? ""
            return Worker(
                number: index + 1, pid: process.pid, exit: exit, summary: WorkerSummaryLine.last(in: out),
                receipts: run?.items ?? 0, runStartedAtMs: run?.startedAt, runFinishedAtMs: run?.finishedAt,
                stderrTail: err.split(separator: "\n").suffix(5).joined(separator: "\n    "))
        }
        return Result(
            configuration: c, registeredAccounts: accounts, workers: workers, wallSeconds: wallSeconds,
            receiptsRecorded: recorded.receipts, runItems: recorded.runItems, verifiedTwice: recorded.verifiedTwice)
    }

    /// Receipts `0 ..< receipts` of the mix, imported in batches of 1,000.
    private func seed(_ store: any SubscriptionStore, mix: ReceiptMix) async throws {
        let seeder = ReceiptSeeder(source: mix, nowMs: mix.nowMs)
        var start = 0
        while start < configuration.receipts {
            let rows = seeder.makeRows(Int64(start)..<Int64(min(configuration.receipts, start + 1_000)))
            let imports = rows.enumerated().map { offset, row in
                ImportRow(line: start + offset + 2, userID: row.userID, receiptData: row.receiptData, productID: row.productID)
            }
            _ = try await store.importReceipts(imports, nowMs: mix.nowMs)
            start += rows.count
        }
    }

    /// The runs, by the worker's pid, and the run items of all of them.
    private struct Recorded {
        struct Run {
            var startedAt: Int64
            var finishedAt: Int64?
            var items: Int
        }

        var runs: [Int64: Run] = [:]
        var receipts = 0
        var runItems = 0
        var verifiedTwice = 0

        static func read(_ store: any SubscriptionStore) async throws -> Recorded {
            try await store.withReadSnapshot { db in
                var recorded = Recorded()
                try await db.forEachRow(
                    BenchmarkSQL.workerRuns, []
                ) { row in
                    guard let pid = try row.integer("pid"), let started = try row.integer("started_at") else { return }
                    recorded.runs[pid] = Run(
                        startedAt: started, finishedAt: try row.integer("finished_at"),
                        items: Int(try row.integer("items") ?? 0))
                }
                try await db.forEachRow(
                    BenchmarkSQL.runItemsPerReceipt, []
                ) { row in
                    recorded.receipts = Int(try row.integer("receipts") ?? 0)
                    recorded.runItems = Int(try row.integer("items") ?? 0)
                    recorded.verifiedTwice = Int(try row.integer("twice") ?? 0)
                }
                return recorded
            }
        }
    }
}
