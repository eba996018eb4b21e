import ArgumentParser
import Foundation
import SubRecon

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

    func run() async throws {
        let binary = subrecon ?? ChildProcess.ownDirectory() + "/subrecon"
        let folder = try BenchFolder.make()
        defer { BenchFolder.remove(folder, keep: keep) }
        print("money reports benchmark: \(BenchMachine.description)")
        let nowMs = Int64(Date().timeIntervalSince1970 * 1000)
        let path = folder + "/ledger.sqlite"
        let written = try LedgerPopulation(subscriptions: subscriptions, months: months, nowMs: nowMs).write(path: path)
        print("  ledger written: \(BenchFormat.grouped(written.subscriptions)) subscriptions, \(BenchFormat.grouped(written.periods)) periods in \(BenchFormat.fixed(written.seconds, 1)) s")

        var stores: [(name: String, environment: [String: String])] = [("SQLite", ["SUBRECON_DB": path])]
        var dropAfter: (BenchPostgres, PostgresLocation)?
        if !sqliteOnly, let server = try BenchPostgres.find(url: postgresURL) {
            let location = try await server.createDatabase()
            dropAfter = (server, location)
            let environment = try BenchPostgres.processEnvironment(location, folder: folder)
            let watch = Stopwatch()
            let copy = try await Self.runReport(binary, ["db", "copy", path, BenchPostgres.url(location)], environment, folder)
            guard copy.exit.code == 0 else { throw ChildProcess.SpawnError(description: "db copy failed: \(copy.stderr)") }
            try await server.vacuumAnalyze(location)
            print("  copied to PostgreSQL and vacuumed in \(BenchFormat.fixed(watch.seconds, 1)) s")
            stores.append(("PostgreSQL", environment))
        }
        defer {
            if let (server, location) = dropAfter {
                if keep {
                    print("kept PostgreSQL database \(location.database) (SUBRECON_DB=\(BenchPostgres.url(location)))")
                } else {
                    Task { try? await server.dropDatabase(location) }
                }
            }
        }

        let reports: [(name: String, arguments: [String], limitSeconds: Double)] = [
            ("report revenue --by month", ["report", "revenue", "--by", "month", "--output", folder + "/revenue.csv"], 3),
            ("report metrics --by month", ["report", "metrics", "--by", "month", "--output", folder + "/metrics.csv"], 10),
            ("report dashboard", ["report", "dashboard", "--output", folder + "/dashboard.html"], 15),
        ]
        var checks: [TargetCheck] = []
        for store in stores {
            for report in reports {
                var seconds: [Double] = []
                var cpu: [Double] = []
                var peak = 0
                for _ in 0..<self.repeat {
                    let watch = Stopwatch()
                    let result = try await Self.runReport(binary, report.arguments, store.environment, folder)
                    guard result.exit.code == 0 else {
                        throw ChildProcess.SpawnError(description: "\(report.name) failed: \(result.stderr)")
                    }
                    seconds.append(watch.seconds)
                    cpu.append(result.exit.cpuSeconds)
                    peak = max(peak, result.exit.peakRSSKilobytes)
                }
                let median = seconds.sorted()[seconds.count / 2]
                print(
                    "  \(store.name): \(report.name): "
                    + "\(BenchFormat.fixed(median, 2)) s median [\(seconds.map { BenchFormat.fixed($0, 2) }.joined(separator: ", "))], CPU \(BenchFormat.fixed(cpu.sorted()[cpu.count / 2], 2)) s, peak RSS \(BenchFormat.megabytes(kilobytes: peak))")
                checks.append(TargetCheck(
                    name: "\(store.name) \(report.name)", measured: "\(BenchFormat.fixed(median, 2)) s",
                    limit: "≤ \(BenchFormat.fixed(report.limitSeconds, 0)) s", met: median <= report.limitSeconds))
                checks.append(TargetCheck(
                    name: "\(store.name) \(report.name) peak RSS", measured: BenchFormat.megabytes(kilobytes: peak),
                    limit: "≤ 150 MB", met: peak <= 150 * 1024))
            }
            // The same bytes from both stores, over closed months (the current one is measured
            // "now", which moves between the two runs).
            let month = String(ISO8601.string(fromMilliseconds: nowMs).prefix(7)) + "-01"
            var outputs: [String: Data] = [:]
            for kind in ["revenue", "metrics"] {
                let output = folder + "/compare-\(kind).csv"
                let result = try await Self.runReport(
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
    }

    nonisolated(unsafe) static var sqliteOutputs: [String: Data] = [:]

    static func runReport(_ binary: String, _ arguments: [String], _ environment: [String: String], _ folder: String)
        async throws -> (exit: ChildProcess.Exit, stderr: String)
    {
        var env = environment
        env["PATH"] = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let child = try ChildProcess.spawn(
            executable: binary, arguments: arguments, environment: env, stdoutPath: folder + "/report.out",
            stderrPath: folder + "/report.err")
        let exit = await child.waitOffTheCooperativePool()
        let stderr = (try? String(contentsOfFile: folder + "/report.err", encoding: .utf8)) ?? ""
        return (exit, stderr)
    }
}
