import PostgresNIO
import SubReconModel

extension PostgresStore: CopyStore {
    public func schemaVersion() async throws(StoreError) -> Int {
        try await withConnection("reading the schema version") { connection in
            Int(try await connection.integer("SELECT COUNT(*) FROM grdb_migrations") ?? 0)
        }
    }

    /// Every table of the schema the connection uses, with its columns in declaration order.
    public func tableColumns() async throws(StoreError) -> [String: [String]] {
        try await withConnection("reading the tables' columns") { connection in
            let pairs = try await connection.all(
                """
                SELECT c.relname::text, a.attname::text
                FROM pg_attribute AS a
                JOIN pg_class AS c ON c.oid = a.attrelid
                JOIN pg_namespace AS n ON n.oid = c.relnamespace
                WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped
                ORDER BY c.relname, a.attnum
                """
            ) { row in (try row[0].decode(String.self), try row[1].decode(String.self)) }
            var columns: [String: [String]] = [:]
            for (table, column) in pairs { columns[table, default: []].append(column) }
            return columns
        }
    }

    /// One transaction; at its end, before the commit, identity columns continue after the
    /// largest value loaded (`PostgresBulkLoader.continueIdentities`). Not retried: a copy that
    /// loses its connection fails (exit 74) with nothing written, and is run again.
    public func bulkLoad<T: Sendable>(_ body: (any BulkLoader) async throws -> T) async throws -> T {
        try await inOneTransaction("BEGIN", "loading rows") { connection in
            let loader = PostgresBulkLoader(connection: connection)
            let result = try await body(loader)
            try await loader.continueIdentities()
            return result
        }
    }

    /// `body` on one leased connection inside one transaction that `begin` opens: committed when
    /// `body` returns, rolled back when it throws. Not retried (`body` may not be safe to run twice).
    /// The driver's errors come out as `StoreError`, `body`'s others as they are.
    package func inOneTransaction<T: Sendable>(
        _ begin: String, _ operation: String, _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        do {
            return try await connection.client.withConnection { connection in
                try await connection.query(PostgresQuery(unsafeSQL: begin), logger: Self.quiet)
                do {
                    let result = try await body(connection)
                    try await connection.query("COMMIT", logger: Self.quiet)
                    return result
                } catch {
                    _ = try? await connection.query("ROLLBACK", logger: Self.quiet)
                    throw error
                }
            }
        } catch let error as PSQLError {
            throw StoreError.failed(operation: operation, reason: PostgresFailure(error).message)
        }
    }
}
