import AppStoreSimulator
import ArgumentParser
import Foundation

/// `subrecon-bench seed`: only the data of a throughput run, in a database of its own, so a single
/// worker run can be repeated under a profiler (perf, valgrind --tool=callgrind) on the same input:
/// copy the seeded file, then `subrecon run --all` against `subrecon simulator`.
struct SeedCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seed",
        abstract: "Write the throughput benchmark's receipts into a new database (for profiling one run).")

    @Option(help: "Receipts to generate.")
    var receipts: Int = 2_000

    @Option(help: "The database to create (must not exist).")
    var database: String

    @Option(help: "Receipt filler bytes (3000: ~4.4 KB receipts and ~7 KB answers, like Apple's).")
    var paddingBytes: Int = 3000

    func validate() throws {
        if receipts < 1 { throw ValidationError("--receipts must be at least 1") }
        if paddingBytes < 0 { throw ValidationError("--padding-bytes must be 0 or more") }
        if FileManager.default.fileExists(atPath: database) {
            throw ValidationError("\(database) already exists; seed writes a new database")
        }
    }

    func run() throws {
        let mix = ReceiptMix(nowMs: SimulatedClock.wallNowMs(), paddingBytes: paddingBytes)
        let seeded = try ReceiptSeeder(source: mix, nowMs: mix.nowMs).seedSubreconDatabase(path: database, count: receipts)
        print("seeded \(BenchFormat.grouped(seeded.receipts)) receipts into \(database) in \(BenchFormat.fixed(seeded.seconds, 1)) s")
    }
}
