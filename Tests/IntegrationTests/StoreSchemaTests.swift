import Foundation
import Testing

@testable import SubRecon

/// Both stores have the same tables with the same columns in the same order (`PostgresSchema`
/// translates SQLite's migrations; `subrecon db copy` moves columns by name; an app server writes
/// the same `receipts` on both).
@Suite struct StoreSchemaTests {
    @Test func freshStoresHaveTheSameTablesAndColumns() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("subrecon-schema-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let sqlite = try AppDatabase.open(path: folder.appendingPathComponent("fresh.sqlite").path)
        let postgres = try await TestPostgres.createDatabase().open()
        defer { Task { await postgres.close() } }

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
}
