import ArgumentParser
import SubRecon

/// The workers measurement's settings, shared by `workers` and `all`.
struct WorkersSuite: ParsableArguments {
    @Option(help: "Receipts of the workers run (0: skip it); 2,500 first checks ≈ 5,000 requests ≈ 25 s at 200/s.")
    var workersReceipts: Int = 2_500

    @Option(help: "How many `subrecon run` processes share the database.")
    var workerProcesses: Int = 4

    @Option(help: "How many apps the receipts are spread over (one apps file for the workers and the simulator).")
    var workersApps: Int = 1

    @Option(help: "verify-receipt or server-api.")
    var workersAppleAPI: String = AppleAPI.serverAPI.rawValue

    @Option(help: "Each app's api_rate: its budget, all workers together (0: no limit).")
    var workersAPIRate: Int = 200

    @Option(help: "The simulator's --api-rate-limit per app (429 above it) in the workers run (0: none).")
    var workersSimulatorRateLimit: Double = 210

    @Option(help: "Simulator latency of the workers run.")
    var workersLatencyMs: Int = 20

    @Option(help: "Each worker's --concurrency.")
    var workersConcurrency: Int = 32

    @Option(help: "The PostgreSQL server (the role needs CREATEDB; default SUBRECON_BENCH_POSTGRES_URL, else SUBRECON_TEST_POSTGRES_URL, with the password file of the same name: …_PASSWORD_FILE).")
    var postgresURL: String?

    func validate() throws {
        if workersReceipts < 0 { throw ValidationError("--workers-receipts must be 0 or more") }
        if !(1...32).contains(workerProcesses) { throw ValidationError("--worker-processes must be 1 to 32") }
        if workersAPIRate < 0 { throw ValidationError("--workers-api-rate must be 0 (no limit) or more") }
        if !(workersSimulatorRateLimit >= 0) { throw ValidationError("--workers-simulator-rate-limit must be 0 (none) or more") }
        if !(1...8).contains(workersApps) { throw ValidationError("--workers-apps must be 1 to 8") }
        if AppleAPI(rawValue: workersAppleAPI) == nil {
            throw ValidationError("--workers-apple-api must be verify-receipt or server-api")
        }
        if workersLatencyMs < 0 { throw ValidationError("--workers-latency-ms must be 0 or more") }
        if !(1...1024).contains(workersConcurrency) { throw ValidationError("--workers-concurrency must be 1 to 1024") }
    }

    /// The PostgreSQL server to measure on, or nil when none is configured.
    func postgres() throws -> BenchPostgres? { try BenchPostgres.find(url: postgresURL) }

    /// Runs the measurement on `postgres` and prints it.
    func run(on postgres: BenchPostgres, options: BenchOptions) async throws -> (checks: [TargetCheck], problems: [String]) {
        let result = try await WorkersBenchmark(configuration: .init(
            receipts: workersReceipts, workers: workerProcesses, apps: workersApps,
            appleAPI: AppleAPI(rawValue: workersAppleAPI) ?? .serverAPI, workerRate: workersAPIRate,
            simulatorRateLimit: workersSimulatorRateLimit > 0 ? workersSimulatorRateLimit : nil, latencyMs: workersLatencyMs, concurrency: workersConcurrency,
            paddingBytes: options.paddingBytes, postgres: postgres, subreconPath: options.subreconPath,
            keepFolder: options.keep)).run()
        return (WorkersReport.print(result), WorkersReport.problems(result).map { "workers: \($0)" })
    }

    static let noPostgres =
        "no PostgreSQL: set SUBRECON_BENCH_POSTGRES_URL (or --postgres-url), or run scripts/bench.sh, which starts a throwaway one"
}
