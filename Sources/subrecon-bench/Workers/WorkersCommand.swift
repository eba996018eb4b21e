import ArgumentParser

/// The workers measurement's settings, shared by `workers` and `all`.
struct WorkersSuite: ParsableArguments {
    @Option(help: "Receipts of the workers run (0: skip it); 2,500 first checks ≈ 5,000 requests ≈ 25 s at 200/s.")
    var workersReceipts: Int = 2_500

    @Option(help: "How many `subrecon run` processes share the database.")
    var workerProcesses: Int = 4

    @Option(help: "SUBRECON_API_RATE of every worker: the budget of all of them together.")
    var workersAPIRate: Int = 200

    @Option(help: "The simulator's --api-rate-limit (429 above it) in the workers run.")
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
        if workersAPIRate < 1 { throw ValidationError("--workers-api-rate must be at least 1") }
        if !(workersSimulatorRateLimit > 0) { throw ValidationError("--workers-simulator-rate-limit must be more than 0") }
        if workersLatencyMs < 0 { throw ValidationError("--workers-latency-ms must be 0 or more") }
        if !(1...1024).contains(workersConcurrency) { throw ValidationError("--workers-concurrency must be 1 to 1024") }
    }

    /// The PostgreSQL server to measure on, or nil when none is configured.
    func postgres() throws -> BenchPostgres? { try BenchPostgres.find(url: postgresURL) }

    /// Runs the measurement on `postgres` and prints it.
    func run(on postgres: BenchPostgres, options: BenchOptions) async throws -> (checks: [TargetCheck], problems: [String]) {
        let result = try await WorkersBenchmark(configuration: .init(
            receipts: workersReceipts, workers: workerProcesses, workerRate: workersAPIRate,
            simulatorRateLimit: workersSimulatorRateLimit, latencyMs: workersLatencyMs, concurrency: workersConcurrency,
            paddingBytes: options.paddingBytes, postgres: postgres, subreconPath: options.subreconPath,
            keepFolder: options.keep)).run()
        return (WorkersReport.print(result), WorkersReport.problems(result).map { "workers: \($0)" })
    }

    static let noPostgres =
        "no PostgreSQL: set SUBRECON_BENCH_POSTGRES_URL (or --postgres-url), or run scripts/bench.sh, which starts a throwaway one"
}

/// `subrecon-bench workers`: several `subrecon run` processes on one PostgreSQL database sharing
/// one App Store Server API rate budget.
struct WorkersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "workers",
        abstract: "Several workers on one PostgreSQL database: their summed Server API rate, 429s, receipts verified twice.",
        discussion: """
            Generates N receipts into a fresh database on the PostgreSQL server (dropped afterwards), \
            starts `subrecon simulator` answering 429 above the threshold and registers the accounts \
            with it, then starts the workers together: `subrecon run` (nightly, server-api mode), each \
            with SUBRECON_API_RATE set to the budget of all of them. Prints each worker's requests, \
            429s and rate, the summed rate (all requests over the span of their runs), and how many \
            receipts were verified twice (run items per receipt). Targets: the sum within 5 % of the \
            rate, no 429, no receipt twice.

            Figures, not a test: a MISS never fails the command; only a broken benchmark does.
            Example: SUBRECON_BENCH_POSTGRES_URL=postgres://me@127.0.0.1/postgres subrecon-bench workers
            """)

    @OptionGroup var suite: WorkersSuite
    @OptionGroup var options: BenchOptions

    func validate() throws {
        if suite.workersReceipts == 0 { throw ValidationError("--workers-receipts 0 skips the only measurement") }
    }

    func run() async throws {
        LineBufferedOutput.enable()
        print("machine: \(BenchMachine.description); workers, simulator and PostgreSQL share its cores, figures vary with the host and its load")
        guard let postgres = try suite.postgres() else {
            print("workers: " + WorkersSuite.noPostgres)
            throw ExitCode(1)
        }
        let (checks, problems) = try await suite.run(on: postgres, options: options)
        print("summary (figures, not a test: a MISS never fails the benchmark)")
        for check in checks { print(check.line) }
        if !problems.isEmpty {
            for problem in problems { print("  BROKEN: " + problem) }
            throw ExitCode(1)
        }
    }
}

/// The workers measurement's figures and targets.
enum WorkersReport {
    static let rateTolerance = 0.05

    static func print(_ r: WorkersBenchmark.Result) -> [TargetCheck] {
        let c = r.configuration
        Swift.print(BenchFormat.line(
            "registered", "\(BenchFormat.grouped(r.registeredAccounts)) accounts with the simulator"))
        for worker in r.workers {
            let seconds = worker.runStartedAtMs.flatMap { start in worker.runFinishedAtMs.map { Double($0 - start) / 1000 } }
            Swift.print(BenchFormat.line(
                "worker \(worker.number)",
                "\(BenchFormat.grouped(worker.receipts)) receipts, \(BenchFormat.grouped(worker.requests)) requests, \(worker.rateLimited) answered 429, its own rate \(BenchFormat.fixed(worker.summary.apiRate ?? 0, 1))/s, run \(seconds.map { BenchFormat.fixed($0, 2) + " s" } ?? "?"), CPU \(BenchFormat.fixed(worker.exit.cpuSeconds, 1)) s, \(worker.exit.description)"))
        }
        let summed = r.summedRate ?? 0
        Swift.print(BenchFormat.line(
            "all workers",
            "\(BenchFormat.grouped(r.requests)) requests in \(BenchFormat.fixed(r.runsSeconds ?? 0, 2)) s (first run's start to last run's end) = \(BenchFormat.fixed(summed, 1))/s; limit \(c.workerRate)/s for all, the simulator's 429 threshold \(BenchFormat.fixed(c.simulatorRateLimit, 0))/s"))
        Swift.print(BenchFormat.line(
            "", "\(BenchFormat.fixed(Double(r.requests) / r.wallSeconds, 1))/s over the processes' wall time (\(BenchFormat.fixed(r.wallSeconds, 2)) s, start-up included); a worker's own rate runs from its first request to its last, and the last one running gets the whole budget"))
        Swift.print(BenchFormat.line("429s", "\(r.rateLimited) answered 429 (the workers' counts)"))
        Swift.print(BenchFormat.line(
            "receipts",
            "\(BenchFormat.grouped(r.receiptsRecorded)) of \(BenchFormat.grouped(c.receipts)) verified, \(BenchFormat.grouped(r.runItems)) run items, \(r.verifiedTwice) verified twice"))
        for problem in problems(r) { Swift.print("  BROKEN: " + problem) }
        let off = abs(summed - Double(c.workerRate)) / Double(c.workerRate)
        let checks = [
            TargetCheck(
                name: "workers \(c.workers) × \(c.workerRate)/s shared: summed rate",
                measured: "\(BenchFormat.fixed(summed, 1))/s (\(BenchFormat.fixed(off * 100, 1)) % off)", limit: "within 5 %",
                met: off <= rateTolerance),
            TargetCheck(name: "workers: 429s", measured: "\(r.rateLimited)", limit: "0", met: r.rateLimited == 0),
            TargetCheck(
                name: "workers: receipts verified twice", measured: "\(r.verifiedTwice)", limit: "0", met: r.verifiedTwice == 0),
        ]
        for check in checks { Swift.print(check.line) }
        return checks
    }

    /// Why the figures can't be trusted (the benchmark broke), if they can't: not about speed.
    static func problems(_ r: WorkersBenchmark.Result) -> [String] {
        var problems: [String] = []
        if r.registeredAccounts < r.configuration.receipts {
            problems.append("the simulator knows \(r.registeredAccounts) accounts, not \(r.configuration.receipts)")
        }
        for worker in r.workers where worker.exit.code != 0 {
            problems.append("worker \(worker.number) ended with \(worker.exit.description): \(worker.summary.text)\n    \(worker.stderrTail)")
        }
        for worker in r.workers where worker.summary.apiRequests == nil {
            problems.append("worker \(worker.number): no `Server API: N requests` in its summary line")
        }
        if r.receiptsRecorded != r.configuration.receipts {
            problems.append("\(r.receiptsRecorded) of \(r.configuration.receipts) receipts were recorded")
        }
        if r.runsSeconds == nil { problems.append("the workers' runs were not all recorded with a start and an end") }
        return problems
    }
}
