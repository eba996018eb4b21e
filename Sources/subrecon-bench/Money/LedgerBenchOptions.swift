import ArgumentParser

/// The options of the benchmarks over a generated ledger (``LedgerPopulation``) on both stores:
/// `money` and `apple-parity`.
struct LedgerBenchOptions: ParsableArguments {
    @Option(help: "Subscriptions to generate.")
    var subscriptions: Int = 100_000

    @Option(help: "Months of history.")
    var months: Int = 12

    @Option(help: "Runs of each report; the median is printed.")
    var `repeat`: Int = 3

    @Option(help: "The subrecon executable (default: next to this one).")
    var subrecon: String?

    @Option(help: "A PostgreSQL server to measure on as well (the role needs CREATEDB).")
    var postgresURL: String?

    @Flag(help: "Skip PostgreSQL even when a server is named in the environment.")
    var sqliteOnly = false

    @Flag(help: "Keep the benchmark's folder (for profiling).")
    var keep = false

    func validate() throws {
        if subscriptions < 1 { throw ValidationError("--subscriptions must be at least 1") }
        if months < 1 { throw ValidationError("--months must be at least 1") }
        if self.repeat < 1 { throw ValidationError("--repeat must be at least 1") }
    }

    /// The `subrecon` executable to measure.
    var binary: String { subrecon ?? ChildProcess.ownDirectory() + "/subrecon" }

    /// Writes the ledger into `folder`/ledger.sqlite, says how large it is, and returns its path.
    func writeLedger(in folder: String, nowMs: Int64) throws -> String {
        let path = folder + "/ledger.sqlite"
        let written = try LedgerPopulation(subscriptions: subscriptions, months: months, nowMs: nowMs).write(path: path)
        print("  ledger written: \(BenchFormat.grouped(written.subscriptions)) subscriptions, \(BenchFormat.grouped(written.periods)) periods in \(BenchFormat.fixed(written.seconds, 1)) s")
        return path
    }
}
