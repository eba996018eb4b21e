import Foundation
import GRDB
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@_spi(RawSQL) @testable import SubReconStore

/// Both stores have the same tables with the same columns in the same order (`PostgresSchema`
/// translates SQLite's migrations; `subrecon db copy` moves columns by name; an app server writes
/// the same `receipts` on both).
@Suite struct StoreSchemaTests {
    /// A new SQLite file (in its own folder) and a new PostgreSQL database, both migrated.
    static func freshStores() async throws -> (folder: URL, sqlite: AppDatabase, postgres: PostgresStore) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("subrecon-schema-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let sqlite = try AppDatabase.open(path: folder.appendingPathComponent("fresh.sqlite").path)
        return (folder, sqlite, try await TestPostgres.createDatabase().open())
    }

    @Test func freshStoresHaveTheSameTablesAndColumns() async throws {
        let (folder, sqlite, postgres) = try await Self.freshStores()
        defer {
            try? FileManager.default.removeItem(at: folder)
            Task { await postgres.close() }
        }

        let (sqliteTables, postgresTables) = (try await sqlite.tableColumns(), try await postgres.tableColumns())
        #expect(sqliteTables.keys.sorted() == postgresTables.keys.sorted())
        for table in Set(sqliteTables.keys).union(postgresTables.keys).sorted() {
            #expect(sqliteTables[table] == postgresTables[table], "the columns of \(table)")
        }
        // Every table is either copied by `db copy` or left out on purpose, and every copied one exists.
        let decided = Set(StoreCopier.copiedTables.map(\.name)).union(StoreCopier.tablesNotCopied.keys)
        #expect(Set(sqliteTables.keys).subtracting(decided).isEmpty)
        #expect(Set(StoreCopier.copiedTables.map(\.name)).isSubset(of: sqliteTables.keys))
        #expect(sqliteTables["receipts"]?.first == "id")
        #expect(try await sqlite.schemaVersion() == postgres.schemaVersion())
    }

    /// v8: one index on `subscriptions.original_transaction_id` on both stores; on PostgreSQL the
    /// base64 columns are stored without compression (pglz only ever tried and gave up on them).
    @Test func v8LeavesOneOriginalTransactionIndexAndBase64StoredUncompressed() async throws {
        let (folder, sqlite, postgres) = try await Self.freshStores()
        defer {
            try? FileManager.default.removeItem(at: folder)
            Task { await postgres.close() }
        }

        let sqliteIndexes = try await sqlite.writer.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'subscriptions'")
        }
        #expect(sqliteIndexes.contains("subscriptions_otid"))
        #expect(!sqliteIndexes.contains("subscriptions_original_transaction"))

        let postgresIndexes = try await postgres.withConnection("reading indexes") { connection in
            try await connection.all("SELECT indexname::text FROM pg_indexes WHERE tablename = 'subscriptions'") { row in
                try row[0].decode(String.self)
            }
        }
        #expect(postgresIndexes.contains("subscriptions_otid"))
        #expect(!postgresIndexes.contains("subscriptions_original_transaction"))

        let storage = try await postgres.withConnection("reading column storage") { connection in
            try await connection.all(
                """
                SELECT c.relname::text || '.' || a.attname::text, a.attstorage::text
                FROM pg_attribute AS a JOIN pg_class AS c ON c.oid = a.attrelid
                WHERE c.relname IN ('notifications', 'receipts') AND a.attname IN ('signed_payload', 'receipt_data')
                """
            ) { row in (try row[0].decode(String.self), try row[1].decode(String.self)) }
        }
        #expect(Dictionary(uniqueKeysWithValues: storage) == ["notifications.signed_payload": "e", "receipts.receipt_data": "e"])
    }
}
