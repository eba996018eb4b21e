import ArgumentParser

/// `subrecon-bench all`: the standard set `scripts/bench.sh` runs, then every target's verdict.
struct AllCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "all",
        abstract: "The standard set: 100 ms and 0 ms throughput, the naive ratio, the 1M-receipt memory run, the due policy, Server API mode, several workers.",
        discussion: """
            Defaults are the issue's: 20,000 receipts at 100 ms (C=64, naive sample 100) and at 0 ms, \
            1,000,000 receipts at 0 ms for peak RSS (200 filler bytes: ~0.6 GB of database instead of ~4.4 GB), \
            2,000 subscribers over 30 simulated nights, then the Server API runs (`subrecon-bench server-api`: \
            20,000 receipts at 100 ms, 2,000 at 200/s, 20,000 at 0 ms; about 2.5 minutes more, \
            --no-server-api skips them), then 4 workers sharing 200/s on one PostgreSQL database \
            (`subrecon-bench workers`: 2,500 receipts, about 40 s; --no-workers skips it, and it is \
            skipped with a note when no PostgreSQL is configured). scripts/bench-smoke.sh runs it with \
            tiny sizes.
            """)

    @Option(help: "Receipts of the two throughput runs.")
    var receipts: Int = 20_000

    @Option(help: "Latency of the first throughput run (the second is always 0 ms).")
    var latencyMs: Int = 100

    @Option(help: "Receipts the naive baseline verifies in the first throughput run.")
    var naiveSample: Int = 100

    @Option(help: "Receipts of the memory run (0: skip it).")
    var memoryReceipts: Int = 1_000_000

    @Option(help: "Receipt filler bytes of the memory run.")
    var memoryPaddingBytes: Int = 200

    @Option(help: "Subscribers of the due-policy run.")
    var subscribers: Int = 2_000

    @Option(help: "Simulated nights of the due-policy run.")
    var days: Int = 30

    @Flag(inversion: .prefixedNo, help: "Run the Server API measurements (see `subrecon-bench server-api --help`).")
    var serverAPI = true

    @OptionGroup(title: "Server API runs") var serverAPISuite: ServerAPISuite

    @Flag(inversion: .prefixedNo, help: "Run the several-workers measurement on PostgreSQL (see `subrecon-bench workers --help`).")
    var workers = true

    @OptionGroup(title: "Several workers") var workersSuite: WorkersSuite

    @OptionGroup var options: BenchOptions

    func validate() throws {
        if receipts < 1 || subscribers < 1 || days < 1 || memoryReceipts < 0 || naiveSample < 0 || latencyMs < 1 {
            throw ValidationError("sizes must be positive (--memory-receipts and --naive-sample may be 0)")
        }
    }

    func run() async throws {
        LineBufferedOutput.enable()
        print("machine: \(BenchMachine.description); worker and simulator share its cores, figures vary with the host and its load")
        var checks: [TargetCheck] = []
        var problems: [String] = []
        func throughput(_ title: String, receipts: Int, latencyMs: Int, naive: Int, padding: Int) async throws {
            let result = try await ThroughputBenchmark(configuration: .init(
                receipts: receipts, latencyMs: latencyMs, concurrency: 64, naiveSample: naive, paddingBytes: padding,
                subreconPath: options.subreconPath, keepFolder: options.keep, title: title)).run()
            checks += ThroughputReport.print(result)
            problems += ThroughputReport.problems(result).map { "\(title): \($0)" }
            print("")
        }
        try await throughput(
            "throughput at \(latencyMs) ms", receipts: receipts, latencyMs: latencyMs, naive: naiveSample,
            padding: options.paddingBytes)
        try await throughput("throughput at 0 ms", receipts: receipts, latencyMs: 0, naive: 0, padding: options.paddingBytes)
        if memoryReceipts > 0 {
            try await throughput(
                "memory", receipts: memoryReceipts, latencyMs: 0, naive: 0, padding: memoryPaddingBytes)
        }
        let due = try await DuePolicyBenchmark(configuration: .init(
            subscribers: subscribers, days: days, concurrency: 32, paddingBytes: 200,
            startMs: DuePolicyBenchmark.defaultStartMs, verbose: false, keepFolder: options.keep)).run()
        checks += DuePolicyReport.print(due)
        problems += DuePolicyReport.problems(due).map { "due-policy: \($0)" }
        if serverAPI && !serverAPISuite.isEmpty {
            print("")
            let api = try await serverAPISuite.run(options: options)
            checks += api.checks
            problems += api.problems
        }
        if workers && workersSuite.workersReceipts > 0 {
            print("")
            if let postgres = try workersSuite.postgres() {
                let measured = try await workersSuite.run(on: postgres, options: options)
                checks += measured.checks
                problems += measured.problems
            } else {
                print("workers: skipped, " + WorkersSuite.noPostgres)
            }
        }
        print("\nsummary (figures, not a test: a MISS never fails the benchmark)")
        for check in checks { print(check.line) }
        if !problems.isEmpty {
            for problem in problems { print("  BROKEN: " + problem) }
            throw ExitCode.failure
        }
    }
}
