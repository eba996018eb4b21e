import AppStoreSimulator
import AppleSignedData
import Foundation
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@testable import SubReconStore

/// `report revenue`, `report metrics` and `report dashboard` through the built binary: bad flags
/// are usage errors (exit 2) that touch nothing; the dashboard is written atomically, mode 0600.
@Suite struct MoneyReportsBinaryTests {
    @Test("bad money-report flags exit 2 and say what is accepted", arguments: [
        (["report", "revenue", "--by", "week"], "--by must be month"),
        (["report", "metrics", "--since", "2026-11-15"], "first day of a month"),
        (["report", "revenue", "--by", "day", "--since", "2026-02-30"], "--since"),
        (["report", "revenue", "--since", "2026-12-01", "--until", "2026-11-01"], "must be later than --since"),
        (["report", "revenue", "--since", "2026-11-01", "--until", "2026-11-01"], "must be later than --since"),
        (["report", "metrics", "--environment", "live"], "--environment must be Production"),
        (["report", "revenue", "--run", "3"], "--run applies only to"),
        (["report", "metrics", "--within", "7d"], "--within applies only to"),
        (["report", "subscriptions", "--by", "month"], "--by and --environment apply only to revenue and metrics"),
        (["report", "dashboard"], "give --output FILE.html"),
        (["report", "dashboard", "--output", "FOLDER/x.html", "--until", "2026-11-01"], "--since only"),
        (["report", "revenue", "--currency", "USD"], "Unknown option"),
        (["report", "runs", "--all"], "--all applies only to unrecorded"),
    ])
    func badFlags(arguments: [String], message: String) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("subrecon-money-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let database = folder + "/subrecon.sqlite"
        let result = try await SubreconBinary.run(
            arguments.map { $0.replacingOccurrences(of: "FOLDER", with: folder) }, environment: ["SUBRECON_DB": database])
        #expect(result.exitCode == 2, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        // A usage error creates no database and writes no file.
        #expect(!FileManager.default.fileExists(atPath: database))
        #expect(!FileManager.default.fileExists(atPath: folder + "/x.html"))
    }

    @Test func theDashboardAndTheMoneyReportsRunThroughTheBinary() async throws {
        try await TestWorld.make().closing { world in
            _ = try await world.importScenarios([.active, .refunded, .trialActive])
            world.clock.set(nowMs: WallClock.unixMilliseconds())
            _ = try await world.run()
            let env = ["SUBRECON_DB": world.databasePath]

            let revenue = try await SubreconBinary.run(["report", "revenue"], environment: env)
            #expect(revenue.exitCode == 0, "\(revenue.stderr)")
            #expect(CSVTable.header(revenue.stdout) == ReportKind.revenue.columns)
            // verifyReceipt gives no prices: every period is there, unpriced, under an empty currency.
            let rows = CSVTable.parse(revenue.stdout)
            #expect(!rows.isEmpty && rows.allSatisfy { $0["currency"] == "" && $0["gross"] == "" })
            let metrics = try await SubreconBinary.run(["report", "metrics", "--by", "day", "--since", "2026-11-01"], environment: env)
            #expect(metrics.exitCode == 0, "\(metrics.stderr)")
            #expect(CSVTable.header(metrics.stdout) == ReportKind.metrics.columns)

            let page = world.folder + "/dashboard.html"
            let dashboard = try await SubreconBinary.run(["report", "dashboard", "--output", page], environment: env)
            #expect(dashboard.exitCode == 0, "\(dashboard.stderr)")
            let html = try String(contentsOfFile: page, encoding: .utf8)
            #expect(html.hasPrefix("<!DOCTYPE html>") || html.hasPrefix("<!doctype html>"))
            #expect(html.contains("No prices yet"))
            #expect(html.contains(world.databasePath))
            let mode = try FileManager.default.attributesOfItem(atPath: page)[.posixPermissions] as? Int
            #expect(mode == 0o600)
        }
    }
}

/// `jobs/export-reports.sh`, as cron runs it: finance's dated CSVs, the money reports among them,
/// and the dashboard page.
@Suite struct ExportReportsJobTests {
    @Test func theExportJobWritesTheMoneyReportsAndTheDashboard() async throws {
        try await TestWorld.make().closing { world in
            try await LedgerScenarioRunTests.importLedgerScenarios(world)
            #expect(try await world.runServerAPI().exitCode == 0)
            let envFile = world.folder + "/subrecon.env"
            try "SUBRECON_DB=\(world.databasePath)\n".write(toFile: envFile, atomically: true, encoding: .utf8)
            let out = world.folder + "/reports"
            let job = try await ShellScript.run(
                NotificationsBackfillJobTests.jobs + "/export-reports.sh", [out],
                environment: ["SUBRECON_ENV_FILE": envFile, "SUBRECON_BIN": SubreconBinary.path])
            #expect(job.exitCode == 0, "\(job.stderr)")
            let files = try FileManager.default.contentsOfDirectory(atPath: out)
            for kind in ["subscriptions", "renewals", "runs", "run-items", "revenue", "metrics"] {
                #expect(files.contains { $0.hasPrefix(kind + "-") && $0.hasSuffix(".csv") }, "\(kind): \(files)")
            }
            let page = try #require(files.first { $0.hasPrefix("dashboard-") && $0.hasSuffix(".html") })
            #expect(try String(contentsOfFile: out + "/" + page, encoding: .utf8).contains("<svg"))
            let revenue = try #require(files.first { $0.hasPrefix("revenue-") })
            #expect(try String(contentsOfFile: out + "/" + revenue, encoding: .utf8).contains(",GBP,"))
        }
    }
}
