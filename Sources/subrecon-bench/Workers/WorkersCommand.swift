import ArgumentParser

/// `subrecon-bench workers`: several `subrecon run` processes on one PostgreSQL database sharing
/// one App Store Server API rate budget.
struct WorkersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "workers",
        abstract: "Several workers on one PostgreSQL database: each app's Server API rate (or the wall time without one), 429s, receipts verified twice.",
        discussion: """
            Generates N receipts into a fresh database on the PostgreSQL server (dropped afterwards), \
            starts `subrecon simulator` answering 429 above the threshold and registers the accounts \
            with it, then starts the workers together: `subrecon run` (nightly, server-api mode), each \
            with SUBRECON_API_RATE set to the budget of all of them. Prints each worker's requests, \
            429s and rate, the summed rate (all requests over the span of their runs), and how many \
            receipts were verified twice (run items per receipt). Targets: the sum within 5 % of the \
            rate, no 429, no receipt twice. With --workers-apps N the receipts are spread over N apps \
            (one apps file for the workers and the simulator, each app its own key and budget), and \
            each app's rate as the simulator saw it must be within 5 %. With --workers-api-rate 0 \
            (and --workers-simulator-rate-limit 0) there is no budget: the target is the processes' \
            wall time within 1.10 × the ideal, requests × latency ÷ (workers × concurrency).

            Figures, not a test: a MISS never fails the command; only a broken benchmark does.
            Example: SUBRECON_BENCH_POSTGRES_URL=postgres://me@127.0.0.1/postgres subrecon-bench workers
              subrecon-bench workers --workers-apps 2 --worker-processes 4 --workers-receipts 5000
              subrecon-bench workers --workers-apple-api verify-receipt --workers-api-rate 0 \
                --workers-simulator-rate-limit 0 --workers-latency-ms 100 --workers-receipts 20000
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
            throw ExitCode.failure
        }
        let (checks, problems) = try await suite.run(on: postgres, options: options)
        print("summary (figures, not a test: a MISS never fails the benchmark)")
        for check in checks { print(check.line) }
        if !problems.isEmpty {
            for problem in problems { print("  BROKEN: " + problem) }
            throw ExitCode.failure
        }
    }
}
