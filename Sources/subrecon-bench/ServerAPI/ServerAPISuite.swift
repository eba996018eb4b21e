import ArgumentParser

/// The three Server API measurements (latency, rate, zero latency), shared by `server-api` and `all`.
struct ServerAPISuite: ParsableArguments {
    @Option(help: "Receipts of the latency run (0: skip it).")
    var latencyReceipts: Int = 20_000

    @Option(name: .customLong("api-latency-ms"), help: "Simulator latency of the latency run.")
    var apiLatencyMs: Int = 100

    @Option(help: "Receipts of the rate run (0: skip it); 2,000 first checks ≈ 4,000+ requests ≈ 20+ s at 200/s.")
    var rateReceipts: Int = 2_000

    @Option(help: "Simulator latency of the rate run.")
    var rateLatencyMs: Int = 20

    @Option(help: "SUBRECON_API_RATE of the rate run.")
    var apiRate: Int = 200

    @Option(help: "The simulator's --api-rate-limit (429 above it) in the rate run.")
    var simulatorRateLimit: Double = 210

    @Option(help: "Receipts of the zero-latency run (0: skip it).")
    var zeroReceipts: Int = 20_000

    @Option(name: .customLong("api-concurrency"), help: "The worker's --concurrency in every Server API run.")
    var apiConcurrency: Int = 64

    @Option(help: "The simulator's --history-page-size (Apple: 20).")
    var historyPageSize: Int = 20

    @Option(name: .customLong("repeat"), help: "Run each Server API measurement this many times; prints the median and spread.")
    var repetitions: Int = 1

    func validate() throws {
        if latencyReceipts < 0 || rateReceipts < 0 || zeroReceipts < 0 {
            throw ValidationError("--latency-receipts, --rate-receipts and --zero-receipts must be 0 or more")
        }
        if apiLatencyMs < 1 { throw ValidationError("--api-latency-ms must be at least 1 (the ideal needs a latency)") }
        if rateLatencyMs < 0 { throw ValidationError("--rate-latency-ms must be 0 or more") }
        if apiRate < 1 { throw ValidationError("--api-rate must be at least 1") }
        if !(simulatorRateLimit > 0) { throw ValidationError("--simulator-rate-limit must be more than 0") }
        if !(1...1024).contains(apiConcurrency) { throw ValidationError("--api-concurrency must be 1 to 1024") }
        if historyPageSize < 1 { throw ValidationError("--history-page-size must be at least 1") }
        if !(1...20).contains(repetitions) { throw ValidationError("--repeat must be 1 to 20") }
    }

    var isEmpty: Bool { latencyReceipts == 0 && rateReceipts == 0 && zeroReceipts == 0 }

    /// Runs every measurement not skipped, `repetitions` times each; prints as it goes.
    func run(options: BenchOptions) async throws -> (checks: [TargetCheck], problems: [String]) {
        var checks: [TargetCheck] = []
        var problems: [String] = []
        func measure(
            _ title: String, kind: ServerAPIReport.Kind, receipts: Int, latencyMs: Int, workerRate: Int,
            simulatorLimit: Double?, steadyState: Bool
        ) async throws {
            guard receipts > 0 else { return }
            var repetitionsFigures: [[ServerAPIReport.Figure]] = []
            for repetition in 1...repetitions {
                let name = repetitions > 1 ? "\(title) (\(repetition)/\(repetitions))" : title
                let result = try await ServerAPIBenchmark(configuration: .init(
                    title: name, receipts: receipts, latencyMs: latencyMs, concurrency: apiConcurrency,
                    workerRate: workerRate, simulatorRateLimit: simulatorLimit, historyPageSize: historyPageSize,
                    steadyState: steadyState, paddingBytes: options.paddingBytes, subreconPath: options.subreconPath,
                    keepFolder: options.keep)).run()
                let printed = ServerAPIReport.print(result, kind: kind)
                // Only the last repetition's verdicts go to the summary; the spread says the rest.
                if repetition == repetitions { checks += printed.checks }
                repetitionsFigures.append(printed.figures)
                problems += ServerAPIReport.problems(result).map { "\(name): \($0)" }
                print("")
            }
            if repetitions > 1 {
                ServerAPIReport.printSpread(title: title, repetitionsFigures)
                print("")
            }
        }
        try await measure(
            "server-api latency \(apiLatencyMs) ms", kind: .latency, receipts: latencyReceipts, latencyMs: apiLatencyMs,
            workerRate: 0, simulatorLimit: nil, steadyState: true)
        try await measure(
            "server-api rate \(apiRate)/s", kind: .rate, receipts: rateReceipts, latencyMs: rateLatencyMs,
            workerRate: apiRate, simulatorLimit: simulatorRateLimit, steadyState: false)
        try await measure(
            "server-api 0 ms", kind: .zeroLatency, receipts: zeroReceipts, latencyMs: 0, workerRate: 0,
            simulatorLimit: nil, steadyState: true)
        return (checks, problems)
    }
}
