import AppStoreSimulator
import Foundation
import GRDB
import SubReconStore

/// One throughput measurement: N generated receipts, `subrecon simulator` (its own process, with
/// the given latency) and `subrecon run --all` (its own process) against it; then, against the same
/// simulator, the naive baseline over a sample. The benchmark itself only waits while they run.
struct ThroughputBenchmark {
    struct Configuration {
        var receipts: Int
        var latencyMs: Int
        var concurrency: Int
        var naiveSample: Int
        var paddingBytes: Int
        var subreconPath: String
        var keepFolder: Bool
        /// Printed in front of the figures.
        var title: String
    }

    let configuration: Configuration

    struct Result {
        var configuration: Configuration
        var seconds: Double
        var verified: Int
        var worker: ChildProcess.Exit
        var simulatorCPUSeconds: Double
        var simulatorPeakRSSKilobytes: Int
        var appleCalls: Int
        var sandboxReroutes: Int
        var failed: Int
        var naive: NaiveBaseline.Result?

        var receiptsPerSecond: Double { seconds > 0 ? Double(verified) / seconds : 0 }
        /// N × latency ÷ concurrency: every request waits out the latency, `concurrency` at a time.
        var idealSeconds: Double? {
            configuration.latencyMs > 0
                ? Double(configuration.receipts) * Double(configuration.latencyMs) / 1000 / Double(configuration.concurrency)
                : nil
        }
        var idealSecondsByCalls: Double? {
            configuration.latencyMs > 0
                ? Double(appleCalls) * Double(configuration.latencyMs) / 1000 / Double(configuration.concurrency) : nil
        }
        var ratioToIdeal: Double? { idealSeconds.map { seconds / $0 } }
        var ratioToNaive: Double? {
            guard let naive, naive.receiptsPerSecond > 0 else { return nil }
            return receiptsPerSecond / naive.receiptsPerSecond
        }
    }

    func run() async throws -> Result {
        let c = configuration
        let folder = try BenchFolder.make()
        defer { BenchFolder.remove(folder, keep: c.keepFolder) }
        print("\(c.title): \(BenchFormat.grouped(c.receipts)) receipts, latency \(c.latencyMs) ms, concurrency \(c.concurrency), padding \(c.paddingBytes) B")

        // 1. The data.
        let mix = ReceiptMix(nowMs: SimulatedClock.wallNowMs(), paddingBytes: c.paddingBytes)
        let databasePath = folder + "/subrecon.sqlite"
        let seeded = try ReceiptSeeder(source: mix, nowMs: mix.nowMs).seedSubreconDatabase(path: databasePath, count: c.receipts)
        print(BenchFormat.line(
            "generated", "\(BenchFormat.grouped(seeded.receipts)) receipts in \(BenchFormat.fixed(seeded.seconds, 1)) s, database \(BenchFormat.megabytes(bytes: seeded.databaseBytes))"))
        let naivePath = folder + "/naive.sqlite"
        let naiveCount = min(c.naiveSample, c.receipts)
        if naiveCount > 0 {
            try NaiveBaseline.makeDatabase(
                path: naivePath, rows: ReceiptSeeder(source: mix, nowMs: mix.nowMs).makeRows(0..<Int64(naiveCount)))
        }

        // 2. The simulator, its own process.
        let secret = "bench-" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let secretFile = folder + "/shared-secret"
        _ = FileManager.default.createFile(
            atPath: secretFile, contents: Data((secret + "\n").utf8), attributes: [.posixPermissions: 0o600])
        let simulator = try SimulatorProcess.start(
            subrecon: c.subreconPath, latencyMs: c.latencyMs, secretFile: secretFile, folder: folder,
            // verifyReceipt only: the Server API's account registry would only cost time and memory.
            extraArguments: ["--no-register-verified-receipts"])
        defer { simulator.stop() }

        // 3. The worker, its own process: `subrecon run --all`.
        var environment = ChildProcess.baseEnvironment()
        environment["SUBRECON_DB"] = databasePath
        environment["SUBRECON_SHARED_SECRET"] = secret
        environment["SUBRECON_PRODUCTION_URL"] = simulator.productionURL
        environment["SUBRECON_SANDBOX_URL"] = simulator.sandboxURL
        environment["SUBRECON_LOG_LEVEL"] = "notice"
        let simulatorCPUBefore = simulator.cpuSeconds()
        let watch = Stopwatch()
        let worker = try ChildProcess.spawn(
            executable: c.subreconPath, arguments: ["run", "--all", "--concurrency", "\(c.concurrency)"],
            environment: environment, stdoutPath: folder + "/worker.out", stderrPath: folder + "/worker.err")
        let exit = await worker.waitOffTheCooperativePool()
        let seconds = watch.seconds
        let simulatorCPU = simulator.cpuSeconds() - simulatorCPUBefore
        let summaryLine = ((try? String(contentsOfFile: folder + "/worker.out", encoding: .utf8)) ?? "")
            .split(separator: "\n").last.map(String.init) ?? "(no summary line)"
        print(BenchFormat.line("subrecon run", summaryLine))
        if exit.code != 0 {
            let errors = ((try? String(contentsOfFile: folder + "/worker.err", encoding: .utf8)) ?? "")
                .split(separator: "\n").suffix(5).joined(separator: "\n    ")
            print(BenchFormat.line("worker", "\(exit.description); last stderr lines:\n    \(errors)"))
        }

        // 4. What it did, from the database: one run item per receipt; a Sandbox receipt stored
        //    without an environment cost a 21007 answer first (one extra call).
        let counts = try Self.countCalls(databasePath: databasePath)

        // 5. The naive baseline, same simulator.
        var naive: NaiveBaseline.Result?
        if naiveCount > 0 {
            naive = try await NaiveBaseline(
                productionURL: simulator.productionURL, sandboxURL: simulator.sandboxURL, secret: secret
            ).run(databasePath: naivePath)
        }
        return Result(
            configuration: c, seconds: seconds, verified: counts.items, worker: exit,
            simulatorCPUSeconds: simulatorCPU, simulatorPeakRSSKilobytes: simulator.peakRSSKilobytes(),
            appleCalls: counts.items + counts.sandbox, sandboxReroutes: counts.sandbox, failed: counts.failed,
            naive: naive)
    }

    private static func countCalls(databasePath: String) throws -> (items: Int, sandbox: Int, failed: Int) {
        let queue = try DatabaseQueue(path: databasePath)
        return try queue.read { db in
            let row = try Row.fetchOne(
                db,
                sql: BenchmarkSQL.runItemCalls)
            return (row?["items"] ?? 0, row?["sandbox"] ?? 0, row?["failed"] ?? 0)
        }
    }

}
