import ArgumentParser

/// `subrecon-bench server-api`: the worker in `SUBRECON_APPLE_API=server-api` mode against the
/// simulator's App Store Server API, separate processes: wall time vs the ideal at 100 ms, the rate
/// reached under a limit, subscriptions/s and CPU per subscription at 0 ms.
struct ServerAPICommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "server-api",
        abstract: "App Store Server API mode: latency vs ideal, the rate limit reached, throughput and CPU at 0 ms.",
        discussion: """
            Each measurement generates N receipts, starts `subrecon simulator` with a fresh In-App \
            Purchase key and its root CA written out, registers the accounts with it (POST \
            /simulator/accounts), then runs `subrecon run --all` in server-api mode: once (the first \
            check: statuses and every history page) and, except in the rate run, once more on the \
            same database (the steady state: nothing changed, statuses only).

            1. latency: --api-latency-ms 100, SUBRECON_API_RATE=0; wall ÷ (requests × L ÷ C), target ≤ 1.10.
            2. rate: SUBRECON_API_RATE=200, the simulator answers 429 above 210/s, 20 ms; rate within 5 %, no 429.
            3. zero latency: subscriptions/s (≥ 3,000), worker CPU per subscription (≤ 250 µs), peak RSS.

            Figures, not a test: a MISS never fails the command; only a broken benchmark does.
            Example: subrecon-bench server-api --repeat 3 --subrecon .build/release/subrecon
            """)

    @OptionGroup var suite: ServerAPISuite
    @OptionGroup var options: BenchOptions

    func validate() throws {
        if suite.isEmpty { throw ValidationError("every measurement is skipped (all receipt counts are 0)") }
    }

    func run() async throws {
        LineBufferedOutput.enable()
        print("machine: \(BenchMachine.description); worker and simulator share its cores, figures vary with the host and its load")
        let (checks, problems) = try await suite.run(options: options)
        print("summary (figures, not a test: a MISS never fails the benchmark)")
        for check in checks { print(check.line) }
        if !problems.isEmpty {
            for problem in problems { print("  BROKEN: " + problem) }
            throw ExitCode.failure
        }
    }
}
