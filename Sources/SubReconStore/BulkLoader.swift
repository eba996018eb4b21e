import SubReconModel

/// Rows going into a store inside one transaction (`SubscriptionStore.bulkLoad`), table by table,
/// columns by name: how `subrecon db copy` fills its target.
public protocol BulkLoader {
    /// How many rows `table` holds, read after keeping every other writer out of it until the load
    /// ends (so a store found empty stays empty but for this load).
    func lockedRowCount(_ table: String) async throws -> Int64
    /// Inserts `rows`, each one value per column of `columns`, into `table`.
    func insert(into table: String, columns: [String], rows: [[SQLArgument]]) async throws
}
