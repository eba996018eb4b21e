import GRDB

extension AppDatabase: SnapshotStore {
    /// Every query of `body` reads one WAL snapshot: a run writing meanwhile is invisible to it.
    public func withReadSnapshot<T: Sendable>(_ body: (any SnapshotQuerying) async throws -> T) async throws -> T {
        guard let pool = writer as? DatabasePool else { return try await body(SQLiteSnapshot(reader: writer)) }
        let snapshot: DatabaseSnapshot
        do { snapshot = try pool.makeSnapshot() } catch { throw Self.wrap(error, "opening a read snapshot") }
        return try await body(SQLiteSnapshot(reader: snapshot))
    }
}
