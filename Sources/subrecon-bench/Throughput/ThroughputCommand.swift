import ArgumentParser

/// `subrecon-bench throughput`: one throughput measurement and, in the same run, the naive baseline.
struct ThroughputCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "throughput",
        abstract: "N receipts through `subrecon run --all` against `subrecon simulator`, then the naive baseline.")

    @Option(help: "Receipts to generate and verify.")
    var receipts: Int = 20_000

    @Option(help: "Milliseconds the simulator adds to every answer.")
    var latencyMs: Int = 100

    @Option(help: "The worker's --concurrency.")
    var concurrency: Int = 64

    @Option(help: "Receipts the naive baseline verifies (0: skip it).")
    var naiveSample: Int = 100

    @OptionGroup var options: BenchOptions

    func validate() throws {
        if receipts < 1 { throw ValidationError("--receipts must be at least 1") }
        if latencyMs < 0 { throw ValidationError("--latency-ms must be 0 or more") }
        if !(1...1024).contains(concurrency) { throw ValidationError("--concurrency must be 1 to 1024") }
        if naiveSample < 0 { throw ValidationError("--naive-sample must be 0 or more") }
    }

    func run() async throws {
        LineBufferedOutput.enable()
        let result = try await ThroughputBenchmark(configuration: .init(
            receipts: receipts, latencyMs: latencyMs, concurrency: concurrency, naiveSample: naiveSample,
            paddingBytes: options.paddingBytes, subreconPath: options.subreconPath, keepFolder: options.keep,
            title: "throughput")).run()
        _ = ThroughputReport.print(result)
        if !ThroughputReport.problems(result).isEmpty { throw ExitCode.failure }
    }
}
