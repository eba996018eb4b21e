import ArgumentParser
import Foundation
import SubRecon
import SubReconAppStore
import SubReconModel
import SubReconStore

/// `subrecon-bench money`: the money reports over a large ledger, on SQLite and (when a server is
/// named) PostgreSQL: `report revenue --by month`, `report metrics --by month`, `report dashboard`,
/// each run by the real binary, timed, with its peak RSS.
struct MoneyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "money",
        abstract: "Time report revenue, report metrics and report dashboard over a generated ledger (both stores).",
        discussion: """
            Writes --subscriptions subscriptions with --months months of history (about 12 periods each: \
            monthly, yearly and weekly plans in USD, EUR, JPY and GBP, trials, refunds, family sharing) \
            into a new SQLite store, copies it to PostgreSQL with `subrecon db copy` when a server is \
            named (--postgres-url, SUBRECON_BENCH_POSTGRES_URL or SUBRECON_TEST_POSTGRES_URL), then runs \
            each report --repeat times and prints the median.
            """)

    @OptionGroup var ledger: LedgerBenchOptions

    func run() async throws {
        let binary = ledger.binary
        let folder = try BenchFolder.make()
        defer { BenchFolder.remove(folder, keep: ledger.keep) }
        print("money reports benchmark: \(BenchMachine.description)")
        let nowMs = Int64(Date().timeIntervalSince1970 * 1000)
        let path = try ledger.writeLedger(in: folder, nowMs: nowMs)

        let prepared = try await LedgerStores.prepare(
            sqlitePath: path, binary: binary, folder: folder, postgresURL: ledger.postgresURL, sqliteOnly: ledger.sqliteOnly)
        let stores = prepared.stores

        let reports: [(name: String, arguments: [String], limitSeconds: Double)] = [
            ("report revenue --by month", ["report", "revenue", "--by", "month", "--output", folder + "/revenue.csv"], 3),
            ("report metrics --by month", ["report", "metrics", "--by", "month", "--output", folder + "/metrics.csv"], 10),
            ("report dashboard", ["report", "dashboard", "--output", folder + "/dashboard.html"], 15),
        ]
        var checks: [TargetCheck] = []
        for store in stores {
            for report in reports {
                let measured = try await ReportRuns.measure(
                    binary, report.arguments, store.environment, folder, times: ledger.repeat, name: report.name)
                print(measured.line(store.name, report.name))
                checks += measured.checks("\(store.name) \(report.name)", limitSeconds: report.limitSeconds)
            }
            // The same bytes from both stores, over closed months (the current one is measured
            // "now", which moves between the two runs).
            let month = String(ISO8601.string(fromMilliseconds: nowMs).prefix(7)) + "-01"
            var outputs: [String: Data] = [:]
            for kind in ["revenue", "metrics"] {
                let output = folder + "/compare-\(kind).csv"
                let result = try await ReportRuns.run(
                    binary, ["report", kind, "--until", month, "--output", output], store.environment, folder)
                guard result.exit.code == 0 else { throw ChildProcess.SpawnError(description: "\(kind) failed: \(result.stderr)") }
                outputs[kind] = FileManager.default.contents(atPath: output)
            }
            if store.name == "SQLite" {
                Self.sqliteOutputs = outputs
            } else {
                let same = outputs == Self.sqliteOutputs
                print("  \(store.name): revenue and metrics over closed months, the same bytes as SQLite: \(same ? "yes" : "NO")")
                // Not a figure: two stores disagreeing is a broken report, and the benchmark says so.
                if !same { throw ChildProcess.SpawnError(description: "\(store.name)'s revenue or metrics differ from SQLite's") }
            }
        }
        print("targets:")
        for check in checks { print(check.line) }
        await prepared.finish(keep: ledger.keep)
    }

    nonisolated(unsafe) static var sqliteOutputs: [String: Data] = [:]
}
