import AppStoreSimulator
import Foundation
import GRDB
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@_spi(RawSQL) @testable import SubReconStore

/// `subrecon db copy` and `subrecon db migrate`: a SQLite store filled by real runs against the
/// simulator moves to PostgreSQL and back with every row and every report byte intact; a target
/// with data is refused and left alone; the binary prints counts and never the password; four
/// migrations at once migrate once.
@Suite struct StoreCopyTests {
    /// SQLite → PostgreSQL → SQLite, in pages smaller than the tables (so keyset paging resumes on
    /// one- and two-column keys on both kinds of source).
    @Test func aCopyBothWaysKeepsEveryRowAndEveryReport() async throws {
        try await Self.filledWorld().closing { world in
            let source = world.store
            let sourceRows = try await Self.dump(source)
            for table in StoreCopier.copiedTables {
                #expect(sourceRows[table.name]?.isEmpty == false, "the runs left no rows in \(table.name)")
            }

            try await TestPostgres.createDatabase().open().closing { postgres in
                let up = try await StoreCopier(pageSize: 3).copy(from: source, to: postgres)
                let back = try AppDatabase.open(path: world.folder + "/copied-back.sqlite")
                let down = try await StoreCopier(pageSize: 2).copy(from: postgres, to: back)

                let expectedCounts = StoreCopier.copiedTables.map {
                    StoreCopier.Report.Count(table: $0.name, rows: Int64(sourceRows[$0.name]?.count ?? -1))
                }
                #expect(up.tables == expectedCounts)
                #expect(down.tables == expectedCounts)
                #expect(up.schemaVersion == PostgresSchema.migrations.count)
                #expect(down.schemaVersion == up.schemaVersion)

                // Every column of every row, as stored.
                #expect(try await Self.dump(postgres) == sourceRows)
                #expect(try await Self.dump(back) == sourceRows)

                // Every report kind, byte for byte, with the same options on all three.
                let options = ReportOptions(nowMs: world.clock.nowMs)
                for kind in ReportKind.allCases {
                    let original = try await Self.export(source, kind, options)
                    #expect(original.split(separator: UInt8(ascii: "\n")).count > 1, "report \(kind.rawValue) has no rows to compare")
                    #expect(try await Self.export(postgres, kind, options) == original, "report \(kind.rawValue) on PostgreSQL")
                    #expect(try await Self.export(back, kind, options) == original, "report \(kind.rawValue) copied back to SQLite")
                }

                // PostgreSQL's identity columns continue after the copied ids.
                var largest: [String: Int64] = [:]
                for table in ["receipts", "runs", "subscription_changes"] {
                    largest[table] = try await source.withReadSnapshot { db in try await db.integer("SELECT max(id) AS value FROM \(table)") }
                    let sequence = try await postgres.withReadSnapshot { db in
                        try await db.integer(
                            "SELECT last_value AS value FROM pg_sequences WHERE schemaname = current_schema() AND sequencename = ?",
                            [.text(table + "_id_seq")])
                    }
                    #expect(sequence != nil && sequence == largest[table], "\(table)'s identity")
                }
                let newRun = try await postgres.startRun(kind: .nightly, targetUserID: nil, receiptsTotal: 0, nowMs: world.clock.nowMs)
                #expect(newRun == (largest["runs"] ?? 0) + 1)
                let imported = try await postgres.importReceipts(
                    [ImportRow(line: 2, userID: "user-after-copy", receiptData: world.receipt(.active, id: 99))], nowMs: world.clock.nowMs)
                #expect(imported.imported == 1)
                let newReceipt = try await postgres.withReadSnapshot { db in
                    try await db.integer("SELECT id AS value FROM receipts WHERE user_id = 'user-after-copy'")
                }
                #expect(newReceipt == (largest["receipts"] ?? 0) + 1)
                await back.close()
            }
        }
    }

    /// A target holding receipts: exit 2, nothing changed in it (the binary, to PostgreSQL and to
    /// SQLite); the password never in the output.
    @Test func aTargetHoldingReceiptsIsRefusedAndLeftAsItWas() async throws {
        let (world, database, postgres) = try await Self.filledWorldAndEmptyPostgres()
        try await withTeardown {
            _ = try await postgres.importReceipts(
                [ImportRow(line: 2, userID: "user-already-there", receiptData: world.receipt(.expired, id: 7))],
                nowMs: world.clock.nowMs)
            let sqliteTarget = try AppDatabase.open(path: world.folder + "/target.sqlite")
            _ = try await sqliteTarget.importReceipts(
                [ImportRow(line: 2, userID: "user-already-there", receiptData: world.receipt(.expired, id: 7))],
                nowMs: world.clock.nowMs)

            for (target, store) in [(database.url, postgres as any SubscriptionStore), (world.folder + "/target.sqlite", sqliteTarget)] {
                let before = try await Self.dump(store)
                #expect(before["receipts"]?.count == 1)
                let result = try await SubreconBinary.run(
                    ["db", "copy", world.folder + "/subrecon.sqlite", target], environment: database.environment)
                #expect(result.exitCode == 2, "\(result.stderr)")
                #expect(result.stderr.contains("already holds data (1 receipts"), "\(result.stderr)")
                #expect(result.stdout.isEmpty)
                #expect(try await Self.dump(store) == before)
                try Self.expectNoPassword(result, database)
            }
            await sqliteTarget.close()
        } teardown: {
            await postgres.close()
            await world.close()
        }
    }

    /// The binary both ways, with the password in the password file only: counts printed per
    /// table, reports the same, the password nowhere; then `db migrate` on the copy.
    @Test func theBinaryCopiesPrintsCountsAndNeverThePassword() async throws {
        try await Self.filledWorld().closing { world in
            let database = try await TestPostgres.createDatabase()
            let sqlite = world.folder + "/subrecon.sqlite"
            let sourceRows = try await Self.dump(world.store)

            let up = try await SubreconBinary.run(["db", "copy", sqlite, database.url], environment: database.environment)
            #expect(up.exitCode == 0, "\(up.stderr)")
            try Self.expectNoPassword(up, database)
            var printed: [String: Int] = [:]
            for line in up.stdout.split(separator: "\n").dropLast() {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                if fields.count == 2, let rows = Int(fields[1]) { printed[String(fields[0])] = rows }
            }
            #expect(printed == sourceRows.mapValues(\.count))
            let total = sourceRows.values.reduce(0) { $0 + $1.count }
            var warnings: [String] = []
            let target = try DatabaseLocation.resolve(
                database.url, passwordFile: database.environment["SUBRECON_DB_PASSWORD_FILE"], warnings: &warnings)
            #expect(
                up.stdout.split(separator: "\n").last.map(String.init)
                    == "copied \(total) rows from \(sqlite) to \(target) (schema version \(PostgresSchema.migrations.count))",
                "\(up.stdout)")

            let back = world.folder + "/back.sqlite"
            let down = try await SubreconBinary.run(["db", "copy", database.url, back], environment: database.environment)
            #expect(down.exitCode == 0, "\(down.stderr)")
            try Self.expectNoPassword(down, database)
            for kind in [ReportKind.subscriptions, .renewals, .runs] {
                let original = try await SubreconBinary.run(["report", kind.rawValue], environment: ["SUBRECON_DB": sqlite])
                let viaPostgres = try await SubreconBinary.run(
                    ["report", kind.rawValue], environment: database.environment.merging(["SUBRECON_DB": database.url]) { $1 })
                let copiedBack = try await SubreconBinary.run(["report", kind.rawValue], environment: ["SUBRECON_DB": back])
                #expect(original.exitCode == 0 && original.stdout.count > 200, "\(original.stderr)")
                #expect(viaPostgres.stdout == original.stdout)
                #expect(copiedBack.stdout == original.stdout)
            }

            let migrate = try await SubreconBinary.run(
                ["db", "migrate"], environment: database.environment.merging(["SUBRECON_DB": database.url]) { $1 })
            #expect(migrate.exitCode == 0, "\(migrate.stderr)")
            #expect(migrate.stdout.split(separator: "\n").last == "schema version \(PostgresSchema.migrations.count)")
            try Self.expectNoPassword(migrate, database)

            // No SQLite file at SOURCE: exit 66, and no file made there.
            let missing = try await SubreconBinary.run(["db", "copy", world.folder + "/none.sqlite", world.folder + "/t.sqlite"])
            #expect(missing.exitCode == 66, "\(missing.stderr)")
            #expect(!FileManager.default.fileExists(atPath: world.folder + "/none.sqlite"))
        }
    }

    /// Four `db migrate` at once on a fresh PostgreSQL database: all succeed with the same version,
    /// each migration recorded once; SQLite counts the same version.
    @Test func fourMigrationsAtOnceMigrateOnce() async throws {
        let database = try await TestPostgres.createDatabase()
        let environment = database.environment.merging(["SUBRECON_DB": database.url]) { $1 }
        let results = try await withThrowingTaskGroup(of: SubreconBinary.Result.self) { group in
            for _ in 0..<4 { group.addTask { try await SubreconBinary.run(["db", "migrate"], environment: environment) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let expected = "schema version \(PostgresSchema.migrations.count)"
        #expect(results.count == 4)
        for result in results {
            #expect(result.exitCode == 0, "\(result.stderr)")
            #expect(result.stdout.split(separator: "\n").last.map(String.init) == expected)
            try Self.expectNoPassword(result, database)
        }
        let store = try await database.open()
        let applied = try await store.withReadSnapshot { db in
            try await db.all("SELECT identifier FROM grdb_migrations ORDER BY identifier") { try $0.requiredText("identifier") }
        }
        await store.close()
        #expect(applied == PostgresSchema.migrations.map(\.identifier).sorted())

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("subrecon-migrate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let sqlite = try await SubreconBinary.run(
            ["db", "migrate"], environment: ["SUBRECON_DB": folder.appendingPathComponent("fresh.sqlite").path])
        #expect(sqlite.exitCode == 0, "\(sqlite.stderr)")
        #expect(sqlite.stdout.split(separator: "\n").last.map(String.init) == expected)
    }

    /// A copy that fails on its last table (a trigger refuses the row) leaves the target empty:
    /// one transaction, rolled back, identities untouched.
    @Test(arguments: StoreKind.allCases) func aCopyThatFailsHalfwayLeavesTheTargetEmpty(target kind: StoreKind) async throws {
        let (world, database, postgres) = try await Self.filledWorldAndEmptyPostgres()
        try await withTeardown {
            let target: any SubscriptionStore
            switch kind {
            case .postgres:
                try await database.execute(
                    """
                    CREATE FUNCTION refuse_changes() RETURNS trigger LANGUAGE plpgsql AS
                    $$ BEGIN RAISE EXCEPTION 'the test refuses subscription_changes'; END $$
                    """)
                try await database.execute(
                    "CREATE TRIGGER refuse_changes BEFORE INSERT ON subscription_changes FOR EACH ROW EXECUTE FUNCTION refuse_changes()")
                target = postgres
            case .sqlite:
                let sqlite = try AppDatabase.open(path: world.folder + "/target.sqlite")
                try await sqlite.writer.write { db in
                    try db.execute(
                        sql: """
                            CREATE TRIGGER refuse_changes BEFORE INSERT ON subscription_changes
                            BEGIN SELECT RAISE(ABORT, 'the test refuses subscription_changes'); END
                            """)
                }
                target = sqlite
            }
            do throws(StoreError) {
                _ = try await StoreCopier(pageSize: 4).copy(from: world.store, to: target)
                Issue.record("the copy went through despite the trigger")
            } catch {
                #expect(!error.isConfiguration, "a failure, exit 74")
                #expect(error.description.contains("subscription_changes"), "\(error)")
            }
            let rows = try await Self.dump(target)
            #expect(rows.count == StoreCopier.copiedTables.count)
            let left = rows.filter { !$0.value.isEmpty }.mapValues { $0.count }
            #expect(left.isEmpty, "rows left behind")
            if kind == .postgres {
                let next = try await postgres.startRun(kind: .nightly, targetUserID: nil, receiptsTotal: 0, nowMs: world.clock.nowMs)
                #expect(next == 1)
            }
        } teardown: {
            await postgres.close()
            await world.close()
        }
    }

    /// The contract's exit codes: a refused password is a configuration error (2), a server that
    /// cannot be reached a database failure (74, after SUBRECON_DB_RETRY_SECONDS); no version line.
    @Test func dbMigrateAndCopyExitCodes() async throws {
        let database = try await TestPostgres.createDatabase()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("subrecon-exit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let wrong = folder.appendingPathComponent("wrong-password").path
        try "not-the-password\n".write(toFile: wrong, atomically: true, encoding: .utf8)
        let refusedEnvironment = ["SUBRECON_DB": database.url, "SUBRECON_DB_PASSWORD_FILE": wrong]

        let refused = try await SubreconBinary.run(["db", "migrate"], environment: refusedEnvironment)
        #expect(refused.exitCode == 2, "\(refused.stderr)")
        #expect(refused.stderr.contains("refused the user or password"), "\(refused.stderr)")
        #expect(!refused.stdout.contains("schema version"))

        let copyRefused = try await SubreconBinary.run(
            ["db", "copy", database.url, folder.appendingPathComponent("t.sqlite").path], environment: refusedEnvironment)
        #expect(copyRefused.exitCode == 2, "\(copyRefused.stderr)")

        let unreachable = try await SubreconBinary.run(
            ["db", "migrate"], environment: ["SUBRECON_DB": "postgres://nobody@127.0.0.1:1/none", "SUBRECON_DB_RETRY_SECONDS": "1"])
        #expect(unreachable.exitCode == 74, "\(unreachable.stderr)")
        #expect(!unreachable.stdout.contains("schema version"))
    }

    /// A target at another schema version is refused before anything is written.
    @Test func aSchemaVersionMismatchIsRefused() async throws {
        let (world, database, postgres) = try await Self.filledWorldAndEmptyPostgres()
        try await withTeardown {
            try await database.execute("INSERT INTO grdb_migrations (identifier) VALUES ('v99-from-a-newer-subrecon')")
            do throws(StoreError) {
                _ = try await StoreCopier().copy(from: world.store, to: postgres)
                Issue.record("a copy across schema versions went through")
            } catch {
                #expect(error.isConfiguration)
                #expect(error.description.contains("schema version \(PostgresSchema.migrations.count)"), "\(error)")
            }
            #expect(try await Self.dump(postgres).values.allSatisfy(\.isEmpty))
        } teardown: {
            await postgres.close()
            await world.close()
        }
    }

    // MARK: - Helpers

    /// A SQLite store with rows in every table: every scenario imported (one receipt under two
    /// users), a nightly run, a user run two weeks later and a run of every receipt two weeks after
    /// that (the latest run, whose changes `report changes` shows, changes something).
    static func filledWorld() async throws -> TestWorld {
        let world = try await TestWorld.make(store: .sqlite)
        try await world.importScenarios(SimulatedScenario.allCases)
        _ = try await world.store.importReceipts(
            [
                ImportRow(line: 2, userID: "user-active-second-device", receiptData: world.receipt(.active, id: 1)),
                // A token the app server registered for a user (who a purchase belongs to).
                ImportRow(
                    line: 3, userID: "user-token", receiptData: "", bundleID: SimulatedProducts.bundleID,
                    appAccountToken: "7e3fb20b-4cdb-47cc-936d-99d65f608138"),
            ],
            nowMs: world.clock.nowMs)
        _ = try await world.run()
        world.clock.advance(byMs: 14 * DuePolicy.day)
        _ = try await world.run(.user("user-active"), kind: .user)
        // A pass through the Server API, as a ledger refill: every period's money.
        world.clock.advance(byMs: 60_000)
        _ = try await world.store.startLedgerRefill(nowMs: world.clock.nowMs)
        _ = try await world.runServerAPI()
        try await world.store.finishLedgerRefill(nowMs: world.clock.nowMs)
        world.clock.advance(byMs: 14 * DuePolicy.day)
        _ = try await world.run(.all)
        // Notifications too (stale, applied, TEST, unmatched), as the golden reports have them.
        try await ReportGoldenTests.receiveNotifications(world)
        // Webhook attempts: one event delivered, one failed (its retry pending), so every event
        // table holds rows.
        let scope = EventDeliveryScope(apps: nil, firstDelayMs: 0)
        let claimed = try await world.store.settleAndClaimEvents(
            [], token: "copy-test", scope: scope, nowMs: world.clock.nowMs, limit: 2, leaseMs: 60_000)
        _ = try await world.store.settleAndClaimEvents(
            zip(claimed, [true, false]).map { event, delivered in
                WebhookAttemptResult(
                    position: event.position, attemptedAtMs: world.clock.nowMs, status: delivered ? 204 : 500,
                    settlement: delivered ? .delivered : .retry(atMs: world.clock.nowMs + 5_000))
            }, token: "copy-test", scope: scope, nowMs: world.clock.nowMs, limit: 0, leaseMs: 60_000)
        // Apple's sales reports of three days: a day with a lost order and two days Apple had no
        // sales (so apple-parity lists the ledger's periods of those days as missing at Apple).
        let pacific = try PacificTime()
        let today = pacific.day(ofMs: world.clock.nowMs)
        for back in Int64(1)...3 {
            let day = today.adding(days: -back)
            let rows = back == 1
                ? [SalesReportRow(
                    line: 2, sku: "com.example.pro.monthly", productTypeIdentifier: "IAY", units: 1,
                    customerPriceMilliunits: 9_990, customerCurrency: "USD", countryCode: "US", subscription: "New",
                    period: "1 Month", developerProceedsMilliunits: 6_990)]
                : []
            _ = try await world.store.storeAppleReport(
                AppleReportDay(
                    day: day, vendorNumber: "80012345", source: .import, fileName: "S_D_80012345_\(day.ordinal).txt",
                    reportVersion: nil, sha256: String(repeating: "a", count: 64), noSales: rows.isEmpty, rows: rows),
                nowMs: world.clock.nowMs)
        }
        return world
    }

    /// `filledWorld()` and an empty, migrated PostgreSQL database beside it.
    static func filledWorldAndEmptyPostgres() async throws -> (TestWorld, TestPostgres, PostgresStore) {
        let world = try await filledWorld()
        let database = try await TestPostgres.createDatabase()
        return (world, database, try await database.open())
    }

    /// Every copied table's rows, every column by name, in key order.
    static func dump(_ store: any SubscriptionStore) async throws -> [String: [[SQLArgument]]] {
        let columns = try await store.tableColumns()
        return try await store.withReadSnapshot { db in
            var rows: [String: [[SQLArgument]]] = [:]
            for table in StoreCopier.copiedTables {
                let names = columns[table.name] ?? []
                rows[table.name] = try await db.all(
                    "SELECT * FROM \(table.name) ORDER BY \(table.key.joined(separator: ", "))"
                ) { row in try names.map { try row.value($0) } }
            }
            return rows
        }
    }

    static func export(_ store: any SubscriptionStore, _ kind: ReportKind, _ options: ReportOptions) async throws -> Data {
        let box = DataBox()
        if kind == .dashboard {
            // The page names the database it read: the same page but for that.
            try await ReportExporter(store: store).exportDashboard(options: options) { box.append($0) }
            return Data(String(decoding: box.data, as: UTF8.self).replacingOccurrences(of: store.location, with: "DATABASE").utf8)
        }
        try await ReportExporter(store: store).export(kind, options: options) { box.append($0) }
        return box.data
    }

    static func expectNoPassword(_ result: SubreconBinary.Result, _ database: TestPostgres) throws {
        let password = try #require(database.location.password, "the test cluster has a password")
        #expect(!result.stdout.contains(password))
        #expect(!result.stderr.contains(password))
    }
}
