import PostgresNIO
import SubReconModel

/// `BulkLoader` on the connection that holds the load's transaction (`PostgresStore.bulkLoad`):
/// one statement per page of rows, bound as one JSON array and read by `jsonb_populate_recordset`
/// with the table's own row type, so each value lands in its column by name and type.
package final class PostgresBulkLoader: BulkLoader {
    package let connection: PostgresConnection
    /// Tables rows went into, for `continueIdentities`.
    private var loadedTables: [String] = []

    package init(connection: PostgresConnection) { self.connection = connection }

    /// SHARE ROW EXCLUSIVE: others may still read the table, nobody else writes it (nor loads it)
    /// until the transaction ends.
    package func lockedRowCount(_ table: String) async throws -> Int64 {
        let name = BulkLoadSQL.identifier(table)
        return try await attempt("counting the rows of \(table)") {
            try await connection.run("LOCK TABLE \(name) IN SHARE ROW EXCLUSIVE MODE")
            return try await connection.integer("SELECT COUNT(*) FROM \(name)") ?? 0
        }
    }

    package func insert(into table: String, columns: [String], rows: [[SQLArgument]]) async throws {
        guard !rows.isEmpty else { return }
        var records = JSONRecords(columns)
        for row in rows { records.append(row) }
        let (name, list) = (BulkLoadSQL.identifier(table), BulkLoadSQL.columnList(columns))
        try await attempt("loading rows into \(table)") {
            try await connection.run(
                "INSERT INTO \(name) (\(list)) SELECT \(list) FROM jsonb_populate_recordset(NULL::\(name), ?::jsonb)",
                [.text(records.json)])
        }
        if !loadedTables.contains(table) { loadedTables.append(table) }
    }

    /// Identity columns (`receipts.id`, `runs.id`, `subscription_changes.id`) carried their values
    /// over from the source; their sequences move past the largest, so new rows continue after them.
    package func continueIdentities() async throws {
        for table in loadedTables {
            let name = BulkLoadSQL.identifier(table)
            try await attempt("continuing the identity columns of \(table)") {
                let identities = try await connection.all(
                    "SELECT attname::text FROM pg_attribute WHERE attrelid = ?::regclass AND attidentity <> '' AND NOT attisdropped",
                    [.text(name)]
                ) { row in try row[0].decode(String.self) }
                for column in identities {
                    try await connection.run(
                        """
                        SELECT setval(pg_get_serial_sequence(?, ?), largest)
                        FROM (SELECT max(\(BulkLoadSQL.identifier(column))) AS largest FROM \(name)) AS loaded
                        WHERE largest IS NOT NULL
                        """, [.text(name), .text(column)])
                }
            }
        }
    }

    @discardableResult
    private func attempt<T>(_ operation: String, _ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch { throw StoreError.failed(operation: operation, reason: PostgresFailure(error).message) }
    }
}
