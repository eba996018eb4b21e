import ArgumentParser

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
