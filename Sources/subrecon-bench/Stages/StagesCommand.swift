import ArgumentParser

/// `subrecon-bench stages`: CPU per receipt of each stage of a run, one stage at a time.
struct StagesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stages",
        abstract: "CPU µs per receipt of each stage (request, simulator answer, decode, reconcile + write; then the same answers written again, as in a steady-state run), no HTTP.")

    @Option(help: "Receipts to generate and take through every stage.")
    var receipts: Int = 20_000

    @Option(help: "Receipts per write transaction (the run's default).")
    var batchSize: Int = 32

    @Option(help: "Receipt filler bytes (3000: ~4.4 KB receipts and ~7 KB answers, like Apple's).")
    var paddingBytes: Int = 3_000

    @Flag(help: "Also print SQLite's time per statement of the write stage.")
    var sqlProfile = false

    func validate() throws {
        if receipts < 1 { throw ValidationError("--receipts must be at least 1") }
        if batchSize < 1 { throw ValidationError("--batch-size must be at least 1") }
        if paddingBytes < 0 { throw ValidationError("--padding-bytes must be 0 or more") }
    }

    func run() async throws {
        LineBufferedOutput.enable()
        print("stages: \(BenchFormat.grouped(receipts)) receipts, batches of \(batchSize), padding \(paddingBytes) B (CPU of this process)")
        let stages = try await StagesBenchmark(receipts: receipts, batchSize: batchSize, paddingBytes: paddingBytes, profileSQL: sqlProfile).run()
        for stage in stages {
            print(BenchFormat.line(
                stage.name, "\(BenchFormat.fixed(stage.microsecondsEach, 1)) µs each (\(BenchFormat.grouped(stage.count)) in \(BenchFormat.fixed(stage.cpuSeconds)) s)"))
        }
        let total = stages.filter(\.inTotal).reduce(0) { $0 + $1.cpuSeconds } / Double(max(1, receipts)) * 1e6
        print(BenchFormat.line("all stages", "\(BenchFormat.fixed(total, 1)) µs per receipt"))
    }
}
