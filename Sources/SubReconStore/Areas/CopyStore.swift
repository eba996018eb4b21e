/// `subrecon db`: the schema version (`db status`, `db migrate`) and what `db copy` needs to move
/// every table from one store to the other.
public protocol CopyStore: Sendable {
    /// The schema version both stores count the same way (`subrecon db migrate`).
    func schemaVersion() async throws(StoreError) -> Int
    /// Every table with its column names in order (`subrecon db copy` copies columns by name).
    func tableColumns() async throws(StoreError) -> [String: [String]]
    /// Fills the store in one write transaction (`subrecon db copy`): all of `body`'s rows or none.
    /// Errors of `body` come out as they are; the store's own as `StoreError`.
    func bulkLoad<T: Sendable>(_ body: (any BulkLoader) async throws -> T) async throws -> T
}
