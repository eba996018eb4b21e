import AppStoreSimulator
import Foundation
import Logging
import SubRecon
import SubReconAppStore
import SubReconModel
@_spi(RawSQL) import SubReconStore

/// Several workers on one PostgreSQL database: N generated receipts, spread over one or more apps,
/// imported into a fresh database, `subrecon simulator` (its own process, serving the same apps
/// file) answering 429 above a threshold per app, then W `subrecon run` processes (nightly) started
/// together on that database. They split the receipts by claims and each app's requests by that
/// app's shared schedule: together they should reach each app's rate and no more. With no rate
/// (0), what is measured is how close they come to the ideal time, requests × latency ÷ (W ×
/// concurrency).
struct WorkersBenchmark {
    struct Configuration {
        var receipts: Int
        var workers: Int
        /// How many apps the receipts are spread over (receipt i in app i mod apps).
        var apps: Int = 1
        var appleAPI: AppleAPI = .serverAPI
        /// Each app's `api_rate`: its budget, all workers together (0: no limit).
        var workerRate: Int
        /// The simulator's `--api-rate-limit` per app (429 above it); nil: none.
        var simulatorRateLimit: Double?
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
        /// What the simulator counted, per app and in all.
        var simulator: BenchAppsSetup.Figures
        /// The simulator's CPU time up to the workers' end (account registration included).
        var simulatorCPUSeconds: Double
        /// From the first worker's start to the last one's end, processes and all.
        var wallSeconds: Double
        /// Distinct receipts with a run item, and run items in all.
        var receiptsRecorded: Int
        var runItems: Int
        /// Receipts with more than one run item (verified by two workers).
        var verifiedTwice: Int

        /// Requests Apple's side received (verifyReceipt or Server API, every app).
        var requests: Int {
            configuration.appleAPI == .serverAPI ? simulator.serverAPIRequests : simulator.verifyReceiptRequests
        }
        /// 429s as the simulator counted them (every app, every worker).
        var rateLimited: Int { simulator.rateLimited }
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
        /// Every request's latency, spread over every worker's every slot: the shortest the run
        /// could take were nothing else to wait for.
        var idealSeconds: Double {
            Double(requests) * Double(configuration.latencyMs) / 1000 / Double(configuration.workers * configuration.concurrency)
        }
    }

    let configuration: Configuration

    func run() async throws -> Result {
        let c = configuration
        let folder = try BenchFolder.make()
        defer { BenchFolder.remove(folder, keep: c.keepFolder) }
        let rate = c.workerRate == 0 ? "no rate limit" : "api_rate \(c.workerRate) per app (for all workers)"
        let limit = c.simulatorRateLimit.map { "429 above \(BenchFormat.fixed($0, 0))/s per app" } ?? "no 429"
        print("workers: \(BenchFormat.grouped(c.receipts)) receipts in \(c.apps) app(s), \(c.workers) × `subrecon run` on one PostgreSQL database, \(c.appleAPI.rawValue), \(rate), concurrency \(c.concurrency) each, simulator latency \(c.latencyMs) ms and \(limit), padding \(c.paddingBytes) B")
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
        let bundleIDs = BenchAppsSetup.bundleIDs(count: c.apps)
        let mix = ReceiptMix(nowMs: SimulatedClock.wallNowMs(), paddingBytes: c.paddingBytes, apps: bundleIDs)
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

        // 2. The simulator, serving the same apps file, which learns every account (not measured;
        // verifyReceipt needs no telling: the receipt carries its account).
        let setup = try BenchAppsSetup.start(
            subrecon: c.subreconPath, folder: folder, apps: c.apps, appleAPI: c.appleAPI, latencyMs: c.latencyMs,
            workerRate: c.workerRate, simulatorRateLimit: c.simulatorRateLimit)
        defer { setup.simulator.stop() }
        let accounts = c.appleAPI == .serverAPI
            ? try await AccountRegistration.register(source: mix, count: c.receipts, serverAPIBaseURL: setup.simulator.serverAPIURL ?? "")
            : c.receipts

        // 3. The workers, started together; the password goes in a file, as in production.
        var environment = setup.workerEnvironment()
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
        let simulatorCPUSeconds = setup.simulator.cpuSeconds()

        // 4. What they recorded, and what Apple's side saw.
        let simulator = try await setup.figures()
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
            configuration: c, registeredAccounts: accounts, workers: workers, simulator: simulator,
            simulatorCPUSeconds: simulatorCPUSeconds, wallSeconds: wallSeconds,
            receiptsRecorded: recorded.receipts, runItems: recorded.runItems, verifiedTwice: recorded.verifiedTwice)
    }

    /// Receipts `0 ..< receipts` of the mix, imported in batches of 1,000.
    private func seed(_ store: any SubscriptionStore, mix: ReceiptMix) async throws {
        let seeder = ReceiptSeeder(source: mix, nowMs: mix.nowMs)
        var start = 0
        while start < configuration.receipts {
            let rows = seeder.makeRows(Int64(start)..<Int64(min(configuration.receipts, start + 1_000)))
            let imports = rows.enumerated().map { offset, row in
                ImportRow(
                    line: start + offset + 2, userID: row.userID, receiptData: row.receiptData, productID: row.productID,
                    bundleID: row.bundleID)
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
