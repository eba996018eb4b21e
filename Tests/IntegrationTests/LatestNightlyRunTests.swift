import AppStoreSimulator
import Foundation
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@testable import SubReconStore

/// "The latest run" means the nightly job's (issue 34, item 5): support lookups (`subrecon user`,
/// runs of kind `user`) after it change neither what `report changes` and `report run-items` show
/// without `--run`, nor the dashboard's last-run card, nor push it off `status`.
@Suite struct LatestNightlyRunTests {
    @Test(arguments: StoreKind.allCases) func lookupsAfterTheNightlyRunDoNotHideIt(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            try await world.importScenarios([.active, .refunded])
            let nightly = try await world.run()
            #expect(nightly.runID == 1)
            let lookups = StatusReport.runLimit + 1
            for _ in 0..<lookups {
                #expect(try await world.run(.user("user-active"), kind: .user).exitCode == 0)
            }
            let env = world.storeEnvironment

            let changes = try await SubreconBinary.run(["report", "changes"], environment: env)
            #expect(changes.exitCode == 0, "\(changes.stderr)")
            let changed = CSVTable.parse(changes.stdout)
            #expect(changed.count == 2)
            #expect(changed.allSatisfy { $0["run_id"] == "1" && $0["change"] == "new" })

            let items = try await SubreconBinary.run(["report", "run-items"], environment: env)
            #expect(items.exitCode == 0, "\(items.stderr)")
            let rows = CSVTable.parse(items.stdout)
            #expect(rows.map { $0["user_id"] } == ["user-active", "user-refunded"])
            #expect(rows.allSatisfy { $0["run_id"] == "1" })
            // A lookup is still there by its id.
            let lookup = try await SubreconBinary.run(["report", "run-items", "--run", "2"], environment: env)
            #expect(CSVTable.parse(lookup.stdout).map { $0["user_id"] } == ["user-active"])

            let status = try await SubreconBinary.run(["status", "--json"], environment: env)
            #expect(status.exitCode == 0, "\(status.stderr)")
            let json = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
            let runs = try #require(json?["last_runs"] as? [[String: Any]])
            let lastLookup = Int(nightly.runID ?? 0) + lookups
            // The latest three lookups, then the nightly run.
            let shown = (0..<3).map { lastLookup - $0 } + [1]
            #expect(runs.compactMap { $0["run_id"] as? Int } == shown)
            #expect(runs.compactMap { $0["kind"] as? String } == Array(repeating: "user", count: 3) + ["nightly"])
            let text = try await SubreconBinary.run(["status"], environment: env)
            let nightlyLine = try #require(text.stdout.split(separator: "\n").first { $0.hasPrefix("  1  ") })
            #expect(nightlyLine.contains("nightly"))

            let page = world.folder + "/dashboard.html"
            let dashboard = try await SubreconBinary.run(["report", "dashboard", "--output", page], environment: env)
            #expect(dashboard.exitCode == 0, "\(dashboard.stderr)")
            let html = try String(contentsOfFile: page, encoding: .utf8)
            #expect(html.contains(">last nightly run #1<"))
            #expect(!html.contains("run #\(lastLookup)<"))
        }
    }

    /// With only lookups recorded there is no nightly run to show: nothing, rather than a lookup.
    @Test(arguments: StoreKind.allCases) func withOnlyLookupsThereIsNoLatestRun(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            try await world.importScenarios([.active])
            #expect(try await world.run(.user("user-active"), kind: .user).exitCode == 0)
            #expect(try await world.report(.runItems).isEmpty)
            #expect(try await world.report(.changes).isEmpty)
            #expect(try await world.report(.runItems, runID: 1).count == 1)
        }
    }
}
