
/// The `status` column of `report apple-parity`.
public enum SalesParityStatus: String, Sendable, Hashable, CaseIterable {
    /// Both sides count the same.
    case match
    /// The difference cancels against the same key on a nearby day (the day boundary).
    case shifted
    /// Apple counts more: the ledger never recorded it (for billed rows, lost orders).
    case missingInLedger = "missing_in_ledger"
    /// The ledger counts more than Apple.
    case missingAtApple = "missing_at_apple"
}
