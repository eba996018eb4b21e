/// Which receipts a run verifies.
public enum ReceiptSelection: Sendable, Equatable {
    /// Receipts the due policy says are due now (never-verified ones always are).
    case due
    /// Every stored receipt (`run --all`).
    case all
    /// Every receipt of one user, due or not (`subrecon user`).
    case user(String)
    /// The due receipts, read without claiming them (a dry run on a store that splits runs).
    case duePreview
}
