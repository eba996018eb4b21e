/// One consistent view of the whole database for what reads a lot at once (reports, status,
/// metrics, the dashboard, copies).
public protocol SnapshotStore: Sendable {
    /// Runs read-only queries against one consistent snapshot (reports, status, metrics, copies).
    /// Errors of `body` come out as they are; the store's own as `StoreError`.
    func withReadSnapshot<T: Sendable>(_ body: (any SnapshotQuerying) async throws -> T) async throws -> T
}
