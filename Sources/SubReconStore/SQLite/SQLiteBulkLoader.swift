import GRDB
import SubReconModel

/// `BulkLoader` on the connection that holds the load's transaction open (`AppDatabase.bulkLoad`).
package struct SQLiteBulkLoader: BulkLoader {
    package let queue: DatabaseQueue

    /// The transaction began with `BEGIN IMMEDIATE`: other writers are already kept out.
    package func lockedRowCount(_ table: String) async throws -> Int64 {
        let sql = "SELECT COUNT(*) FROM \(BulkLoadSQL.identifier(table))"
        do {
            return try await queue.writeWithoutTransaction { db in try Int64.fetchOne(db, sql: sql) ?? 0 }
        } catch {
            throw AppDatabase.wrap(error, "counting the rows of \(table)")
        }
    }

    package func insert(into table: String, columns: [String], rows: [[SQLArgument]]) async throws {
        let sql = BulkLoadSQL.insert(into: table, columns: columns)
        do {
            try await queue.writeWithoutTransaction { db in
                let statement = try db.cachedStatement(sql: sql)
                for row in rows { try statement.execute(arguments: StatementArguments(row.map(\.databaseValue))) }
            }
        } catch {
            throw AppDatabase.wrap(error, "loading rows into \(table)")
        }
    }
}
