import PostgresNIO

extension PostgresStore: SnapshotStore {
    public func withReadSnapshot<T: Sendable>(_ body: (any SnapshotQuerying) async throws -> T) async throws -> T {
        // REPEATABLE READ: every query of `body` sees the same committed data.
        try await inOneTransaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", "reading") { connection in
            try await body(PostgresSnapshot(connection: connection))
        }
    }
}
