import ArgumentParser

/// `subrecon-bench due-policy`: Apple calls of the due policy against "everything every night", and
/// its nightly peaks with and without the spread of the 7-day re-checks, and the calls of a
/// catalogue whose notifications flow (NOTIFIED).
struct DuePolicyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "due-policy",
        abstract: "Simulated nights: the due policy's Apple calls, lags and nightly peaks against verifying everything nightly.")

    @Option(help: "Subscribers (receipts) in each of the four databases.")
    var subscribers: Int = 2_000

    @Option(help: "Simulated nights.")
    var days: Int = 30

    @Option(help: "Each run's concurrency.")
    var concurrency: Int = 32

    @Option(help: "Receipt filler bytes (small: this measures calls, not bytes).")
    var paddingBytes: Int = 200

    @Option(help: "Share of the notifications the NOTIFIED database's receiver gets (the rest are lost), 0 to 1.")
    var notifiedShare: Double = 0.95

    @Flag(help: "No daily backfill for NOTIFIED: what its receiver lost waits for a run's check.")
    var noBackfill = false

    @Flag(help: "Print each night's calls.")
    var verbose = false

    @Flag(help: "Keep the temporary folder (the four databases).")
    var keep = false

    func validate() throws {
        if subscribers < 1 { throw ValidationError("--subscribers must be at least 1") }
        if days < 1 { throw ValidationError("--days must be at least 1") }
        if !(1...1024).contains(concurrency) { throw ValidationError("--concurrency must be 1 to 1024") }
        if !(0...1).contains(notifiedShare) { throw ValidationError("--notified-share must be 0 to 1") }
    }

    func run() async throws {
        LineBufferedOutput.enable()
        let result = try await DuePolicyBenchmark(configuration: .init(
            subscribers: subscribers, days: days, concurrency: concurrency, paddingBytes: paddingBytes,
            startMs: DuePolicyBenchmark.defaultStartMs, verbose: verbose, keepFolder: keep,
            notifiedShare: notifiedShare, backfill: !noBackfill)).run()
        _ = DuePolicyReport.print(result)
        if !DuePolicyReport.problems(result).isEmpty { throw ExitCode.failure }
    }
}
