import ArgumentParser

/// `subrecon-bench transport`: the HTTP path alone (diagnosis: is the gap to the ideal in HTTP and
/// the simulator, or in the pipeline and the database?).
struct TransportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transport",
        abstract: "POST receipts through the libcurl transport to `subrecon simulator`, no database (diagnosis).")

    @Option(help: "Requests to send.")
    var requests: Int = 10_000

    @Option(help: "Milliseconds the simulator adds to every answer.")
    var latencyMs: Int = 100

    @Option(help: "Requests in flight at once.")
    var concurrency: Int = 64

    @OptionGroup var options: BenchOptions

    func validate() throws {
        if requests < 1 || !(1...1024).contains(concurrency) || latencyMs < 0 {
            throw ValidationError("--requests ≥ 1, --concurrency 1–1024, --latency-ms ≥ 0")
        }
    }

    func run() async throws {
        LineBufferedOutput.enable()
        try await TransportProbe(
            requests: requests, latencyMs: latencyMs, concurrency: concurrency, paddingBytes: options.paddingBytes,
            subreconPath: options.subreconPath
        ).run()
    }
}
