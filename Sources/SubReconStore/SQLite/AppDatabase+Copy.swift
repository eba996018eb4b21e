import GRDB
import SubReconModel

extension AppDatabase: CopyStore {
    /// Migrations applied, counted the way `PostgresStore` counts its schema version.
    public func schemaVersion() async throws(StoreError) -> Int {
        try await read("reading the schema version") { db in try Self.migrator.appliedIdentifiers(db).count }
    }

    /// Every table but SQLite's own, with its columns in declaration order.
    public func tableColumns() async throws(StoreError) -> [String: [String]] {
        try await read("reading the tables' columns") { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT m.name AS table_name, c.name AS column_name
                    FROM sqlite_master AS m JOIN pragma_table_info(m.name) AS c
                    WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%'
                    ORDER BY m.name, c.cid
                    """)
            var columns: [String: [String]] = [:]
            for row in rows { columns[row["table_name"], default: []].append(row["column_name"]) }
            return columns
        }
    }

    /// One write transaction (`BEGIN IMMEDIATE`: no other writer until it ends) that spans `body`'s
    /// awaits. GRDB keeps a transaction within one database access unless a connection allows it
    /// to stay open across accesses, so the load has a connection of its own that does.
    public func bulkLoad<T: Sendable>(_ body: (any BulkLoader) async throws -> T) async throws -> T {
        var configuration = Configuration()
        configuration.busyMode = .timeout(30)
        configuration.allowsUnsafeTransactions = true
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(path: path, configuration: configuration)
            try await queue.writeWithoutTransaction { db in try db.execute(sql: "BEGIN IMMEDIATE") }
        } catch {
            throw Self.wrap(error, "starting to load rows")
        }
        let result: T
        do {
            result = try await body(SQLiteBulkLoader(queue: queue))
        } catch {
            try? await queue.writeWithoutTransaction { db in try db.rollback() }
            throw error
        }
        do {
            try await queue.writeWithoutTransaction { db in try db.commit() }
        } catch {
            try? await queue.writeWithoutTransaction { db in try db.rollback() }
            throw Self.wrap(error, "committing the loaded rows")
        }
        return result
    }
}
