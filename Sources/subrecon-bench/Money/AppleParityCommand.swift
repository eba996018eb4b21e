import ArgumentParser
import Foundation
import SubRecon
import SubReconAppStore
import SubReconModel
import SubReconStore

/// `subrecon-bench apple-parity`: a year of Apple's daily Summary Sales Reports, derived from a
/// generated ledger and perturbed (lost orders, day-boundary shifts, periods Apple never billed),
/// imported with `subrecon apple-reports import` and matched with `subrecon report apple-parity`
/// on SQLite and (when a server is named) PostgreSQL, each run by the real binary, timed, with
/// its peak RSS.
struct AppleParityCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apple-parity",
        abstract: "Time apple-reports import and report apple-parity over a year of generated sales reports (both stores).",
        discussion: """
            Writes the money benchmark's ledger (--subscriptions × --months), then one Summary Sales Report \
            file per Pacific day up to yesterday, derived from the ledger (billed periods, refunds, prorated \
            refunds, aggregated as Apple does) with --lost-orders units added that the ledger lacks, \
            --shifted units moved to the neighbouring day and --ledger-only units taken away. On each store \
            (PostgreSQL: a new database on --postgres-url, SUBRECON_BENCH_POSTGRES_URL or \
            SUBRECON_TEST_POSTGRES_URL, the ledger copied with `subrecon db copy`) it times the import of \
            every file once and the parity report --repeat times (median). The benchmark fails (exit 1) when \
            the stores' parity CSVs differ by a byte or the report's lost orders are not those added.
            """)

    @OptionGroup var ledger: LedgerBenchOptions

    @Option(help: "Units Apple billed that the ledger never recorded (lost orders).")
    var lostOrders: Int = 500

    @Option(help: "Units Apple reports on the neighbouring Pacific day.")
    var shifted: Int = 500

    @Option(help: "Units the ledger has that Apple never billed.")
    var ledgerOnly: Int = 100

    func validate() throws {
        if lostOrders < 1 { throw ValidationError("--lost-orders must be at least 1 (the benchmark checks they are found)") }
        if shifted < 0 || ledgerOnly < 0 { throw ValidationError("--shifted and --ledger-only cannot be negative") }
    }

    func run() async throws {
        LineBufferedOutput.enable()
        let binary = ledger.binary
        let folder = try BenchFolder.make()
        defer { BenchFolder.remove(folder, keep: ledger.keep) }
        print("apple parity benchmark: \(BenchMachine.description)")
        let nowMs = Int64(Date().timeIntervalSince1970 * 1000)
        let path = try ledger.writeLedger(in: folder, nowMs: nowMs)
        let reportsFolder = folder + "/reports"
        try FileManager.default.createDirectory(atPath: reportsFolder, withIntermediateDirectories: true)
        let reports = try LedgerSalesReports(
            ledgerPath: path, folder: reportsFolder, nowMs: nowMs,
            perturbation: .init(lostOrders: lostOrders, shiftedUnits: shifted, ledgerOnlyUnits: ledgerOnly)
        ).write()
        print(
            "  sales reports written: \(reports.files.count) daily files (\(reports.firstDay.text) to \(reports.lastDay.text), Pacific), "
                + "\(BenchFormat.grouped(reports.rows)) rows, from \(BenchFormat.grouped(reports.periodsBilled)) billed periods and "
                + "\(BenchFormat.grouped(reports.refunds)) refunds in \(BenchFormat.fixed(reports.seconds, 1)) s")
        print(
            "  perturbed: \(reports.lostOrders) lost orders, \(reports.shiftedUnits) units in \(reports.shiftEvents) day-boundary shifts, "
                + "\(reports.ledgerOnlyUnits) units Apple never billed; \(reports.refundsFoldedAway) prorated refunds folded into another row by Apple's aggregation")

        let prepared = try await LedgerStores.prepare(
            sqlitePath: path, binary: binary, folder: folder, postgresURL: ledger.postgresURL, sqliteOnly: ledger.sqliteOnly)
        do {
            try await measure(prepared.stores, binary: binary, folder: folder, reports: reports)
        } catch {
            await prepared.finish(keep: ledger.keep)
            throw error
        }
        await prepared.finish(keep: ledger.keep)
    }

    private func measure(
        _ stores: [LedgerStores.Store], binary: String, folder: String, reports: LedgerSalesReports.Result
    ) async throws {
        var checks: [TargetCheck] = []
        var problems: [String] = []
        var firstOutput: (store: String, bytes: Data)?
        let importName = "apple-reports import (\(reports.files.count) files)"
        for store in stores {
            let imported = try await ReportRuns.measure(
                binary, ["apple-reports", "import", "--vendor-number", LedgerSalesReports.vendorNumber] + reports.files,
                store.environment, folder, times: 1, name: importName)
            print(imported.line(store.name, importName))
            checks += imported.checks("\(store.name) apple-reports import", limitSeconds: 20)

            let output = folder + "/parity-\(store.name).csv"
            // Exit 1: some rows are neither match nor shifted, which the perturbation makes sure of.
            let parity = try await ReportRuns.measure(
                binary, ["report", "apple-parity", "--output", output], store.environment, folder, times: ledger.repeat,
                name: "report apple-parity", accepted: [0, 1])
            print(parity.line(store.name, "report apple-parity"))
            checks += parity.checks("\(store.name) report apple-parity", limitSeconds: 10)

            let stderr = (try? String(contentsOfFile: folder + "/report.err", encoding: .utf8)) ?? ""
            let bytes = FileManager.default.contents(atPath: output) ?? Data()
            let statuses = Self.statuses(csv: bytes)
            print(
                "  \(store.name): parity rows: "
                    + statuses.map { "\($0.key) \(BenchFormat.grouped($0.rows)) (\(BenchFormat.grouped(Int($0.units))) units)" }.joined(separator: ", "))
            let found = Self.lostOrders(summary: stderr)
            print("  \(store.name): lost orders found \(found.map(String.init) ?? "?"), added \(reports.lostOrders)")
            if found != reports.lostOrders {
                problems.append("\(store.name): report apple-parity found \(found.map(String.init) ?? "no") lost orders, \(reports.lostOrders) were added")
            }
            if let first = firstOutput {
                let same = first.bytes == bytes
                print("  \(store.name): parity CSV the same bytes as \(first.store)'s: \(same ? "yes" : "NO")")
                if !same { problems.append("\(store.name)'s parity CSV differs from \(first.store)'s") }
            } else {
                firstOutput = (store.name, bytes)
            }
        }
        print("targets:")
        for check in checks { print(check.line) }
        // Not figures: a wrong answer is a broken report, and the benchmark says so.
        if !problems.isEmpty {
            for problem in problems { print("  BROKEN: " + problem) }
            throw ExitCode.failure
        }
    }

    /// Rows and |difference| units per status of a parity CSV, in the contract's status order.
    static func statuses(csv: Data) -> [(key: String, rows: Int, units: Int64)] {
        var rows: [String: Int] = [:]
        var units: [String: Int64] = [:]
        for line in String(decoding: csv, as: UTF8.self).split(separator: "\n").dropFirst() {
            let cells = line.split(separator: ",", omittingEmptySubsequences: false)
            guard cells.count >= 10 else { continue }
            let status = String(cells[9])
            rows[status, default: 0] += 1
            units[status, default: 0] += abs(Int64(cells[8]) ?? 0)
        }
        let order = ["match", "shifted", "missing_in_ledger", "missing_at_apple"]
        return (order + rows.keys.filter { !order.contains($0) }.sorted()).map { ($0, rows[$0] ?? 0, units[$0] ?? 0) }
    }

    /// The summary's `lost orders found: N`.
    static func lostOrders(summary: String) -> Int64? {
        for line in summary.split(separator: "\n") {
            if let range = line.range(of: "lost orders found: ") {
                return Int64(line[range.upperBound...].prefix { $0.isNumber })
            }
        }
        return nil
    }
}
