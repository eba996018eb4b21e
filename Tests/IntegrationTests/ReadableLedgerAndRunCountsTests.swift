import AppStoreSimulator
import Foundation
import GRDB
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@testable import SubReconStore

/// Issue 34, item 22: `report renewals` ends with the dates and amounts as a person reads them, and
/// a run counts `account_gone` and `skipped` apart from `invalid`, as its summary line does, in
/// `report runs` and `status` alike (runs recorded before the change included).
@Suite struct ReadableLedgerAndRunCountsTests {
    @Test(arguments: StoreKind.allCases) func renewalsEndWithReadableDatesAndAmounts(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            try await LedgerScenarioRunTests.importLedgerScenarios(world)
            #expect(try await world.runServerAPI().exitCode == 0)
            // One receipt only verifyReceipt checks: its periods have no price.
            try await world.importScenarios([.active])
            #expect(try await world.run().exitCode == 0)

            let rows = try await world.report(.renewals)
            #expect(Array(ReportKind.renewals.columns.suffix(5)) == ["bundle_id", "purchase_date", "expires_date", "price", "refund"])
            for row in rows {
                #expect(row["purchase_date"] == Int64(row["purchase_date_ms"] ?? "").map(ISO8601.string(fromMilliseconds:)) ?? "")
                #expect(row["expires_date"] == Int64(row["expires_date_ms"] ?? "").map(ISO8601.string(fromMilliseconds:)))
            }
            func only(_ user: String, _ test: ([String: String]) -> Bool) throws -> [String: String] {
                try #require(rows.first { $0["user_id"] == user && test($0) }, "\(user)")
            }
            let usd = try only("ledger-monthlyUSD") { $0["price_milliunits"] == "9990" }
            #expect(usd["price"] == "9.99")
            #expect(usd["refund"] == "0.00")
            let yen = try only("ledger-yearlyJPY") { !($0["price_milliunits"] ?? "").isEmpty }
            #expect(yen["currency"] == "JPY")
            #expect(yen["price"] == MoneyText.text(milliunits: Int64(yen["price_milliunits"] ?? "") ?? -1, currency: "JPY"))
            #expect(!(yen["price"] ?? ".").contains("."))
            let prorated = try only("ledger-proratedRefundGBP") { $0["refund_milliunits"] == "38246" }
            #expect(prorated["refund"] == "38.25")
            #expect(prorated["price"] == "89.99")
            // verifyReceipt carries no price: unknown amounts stay empty, never 0.
            let unpriced = try only("user-active") { _ in true }
            #expect(unpriced["price_milliunits"] == "")
            #expect(unpriced["price"] == "")
            #expect(unpriced["refund"] == "")
            #expect(unpriced["purchase_date"]?.hasSuffix("Z") == true)
        }
    }

    @Test(arguments: StoreKind.allCases) func runsCountAccountGoneApartFromInvalidAsTheSummaryDoes(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            try await world.importScenarios([.active, .invalidReceipt, .accountGone])
            let summary = try await world.run()
            #expect(summary.line.contains("1 invalid, 1 account_gone"))

            let run = try #require(try await world.report(.runs).first)
            #expect(Array(ReportKind.runs.columns.suffix(3)) == ["worker", "account_gone", "skipped"])
            #expect(run["verified"] == "3")
            #expect(run["invalid"] == "1")
            #expect(run["account_gone"] == "1")
            #expect(run["skipped"] == "0")
            let status = try await StatusReport.load(from: world.store, nowMs: world.clock.nowMs)
            let json = try #require(try JSONSerialization.jsonObject(with: status.json()) as? [String: Any])
            let first = try #require((json["last_runs"] as? [[String: Any]])?.first)
            #expect(first["invalid"] as? Int == 1)
            #expect(first["account_gone"] as? Int == 1)
            #expect(first["skipped"] as? Int == 0)
            #expect(status.text().contains("account_gone"))
        }
    }

    /// Receipts a stopped run never verified are `skipped` in its items and now in its counts.
    @Test(arguments: StoreKind.allCases) func aStoppedRunCountsItsSkippedReceipts(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            try await world.importScenarios([.active, .expired, .refunded, .gracePeriod])
            let summary = try await world.run(secret: "not-the-secret", concurrency: 1)
            #expect(summary.exitCode == 2)
            let skippedItems = try await world.count("SELECT COUNT(*) FROM run_items WHERE outcome = 'skipped'")
            #expect(skippedItems > 0)
            let run = try #require(try await world.report(.runs).first)
            #expect(run["skipped"] == String(skippedItems))
            #expect(run["skipped"] == String(summary.count(.skipped)))
        }
    }

    /// Runs recorded before: the migration splits their `invalid` by their items.
    @Test(arguments: StoreKind.allCases) func runsRecordedBeforeAreSplitByTheirItems(store: StoreKind) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("subrecon-v14-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let before = "v14-notification-tokens"
        // Run 1: 2 invalid + 1 account_gone counted as invalid 3 (as schema 14 did), 1 skipped.
        let rows = """
            INSERT INTO runs (id, kind, started_at, finished_at, status, receipts_total, verified, updated, unchanged, invalid, failed, exit_code)
                VALUES (1, 'nightly', 1000, 2000, 'aborted', 5, 4, 1, 0, 3, 0, 2);
            INSERT INTO run_items (run_id, receipt_id, user_id, outcome, recorded_at) VALUES (1, 1, 'a', 'invalid', 1500);
            INSERT INTO run_items (run_id, receipt_id, user_id, outcome, recorded_at) VALUES (1, 2, 'b', 'invalid', 1500);
            INSERT INTO run_items (run_id, receipt_id, user_id, outcome, recorded_at) VALUES (1, 3, 'c', 'account_gone', 1500);
            INSERT INTO run_items (run_id, receipt_id, user_id, outcome, recorded_at) VALUES (1, 4, 'd', 'updated', 1500);
            INSERT INTO run_items (run_id, receipt_id, user_id, outcome, recorded_at) VALUES (1, 5, 'e', 'skipped', 1500)
            """
        let opened: any SubscriptionStore
        switch store {
        case .sqlite:
            let path = folder + "/subrecon.sqlite"
            let queue = try DatabaseQueue(path: path)
            try AppDatabase.migrator.migrate(queue, upTo: before)
            try await queue.write { db in try db.execute(sql: rows) }
            try queue.close()
            opened = try AppDatabase.open(path: path)
        case .postgres:
            let postgres = try await TestPostgres.createDatabase()
            try await postgres.execute("CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
            for migration in PostgresSchema.migrations.prefix(through: try #require(
                PostgresSchema.migrations.firstIndex { $0.identifier == before }))
            {
                for statement in PostgresSchema.statements(migration.sql) { try await postgres.execute(statement) }
                try await postgres.execute("INSERT INTO grdb_migrations (identifier) VALUES ('\(migration.identifier)')")
            }
            for statement in rows.split(separator: ";") { try await postgres.execute(String(statement)) }
            opened = try await postgres.open()
        }
        let csv = DataBox()
        try await ReportExporter(store: opened).export(.runs) { csv.append($0) }
        await opened.close()
        let run = try #require(CSVTable.parse(csv.text).first)
        #expect(run["invalid"] == "2")
        #expect(run["account_gone"] == "1")
        #expect(run["skipped"] == "1")
        #expect(run["verified"] == "4")
    }
}
