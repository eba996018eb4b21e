/// Which receipts a run verifies.
public enum ReceiptSelection: Sendable, Equatable {
    /// Receipts the due policy says are due now (never-verified ones always are).
    case due
    /// Every stored receipt (`run --all`).
    case all
    /// Every receipt of one user, due or not (`subrecon user`).
    case user(String)
}

/// The store operations a reconciliation run needs, and nothing more: the seam where a second
/// store (PostgreSQL, several workers claiming due receipts) will sit beside the SQLite one.
public protocol SubscriptionStore: Sendable {
    /// How many receipts the selection holds now.
    func countReceipts(_ selection: ReceiptSelection, nowMs: Int64) async throws(StoreError) -> Int
    /// The next page of the selection, in id order after `afterID` (keyset paging: flat memory).
    func receipts(_ selection: ReceiptSelection, afterID: Int64, limit: Int, nowMs: Int64)
        async throws(StoreError) -> [ReceiptToVerify]
    /// Records the start of a run and returns its id.
    func startRun(kind: RunKind, targetUserID: String?, receiptsTotal: Int, nowMs: Int64)
        async throws(StoreError) -> Int64
    /// Reads what is stored about the receipt, lets `decide` compute the update, and writes it with
    /// the run item and the run's counters, all in one transaction. With `write == false` (dry run)
    /// nothing is written and the update is only returned.
    func reconcile(
        _ receipt: ReceiptToVerify, periodKeys: [String], runID: Int64?, write: Bool,
        decide: @escaping @Sendable (ReceiptSnapshot) -> ReceiptUpdate
    ) async throws(StoreError) -> ReceiptUpdate
    /// Records how a run ended.
    func finishRun(id: Int64, status: RunStatus, exitCode: Int32, nowMs: Int64) async throws(StoreError)
    /// Asks for the database's run lock (a lease); recovers runs left `running` by dead processes.
    func acquireRunLock(token: String, nowMs: Int64, leaseMs: Int64) async throws(StoreError) -> RunLockResult
    /// Extends the lease; false when another process took the lock over.
    func renewRunLock(token: String, runID: Int64?, nowMs: Int64, leaseMs: Int64) async throws(StoreError) -> Bool
    func releaseRunLock(token: String) async throws(StoreError)
    /// Records that a run is alive (for runs that hold no lock).
    func heartbeat(runID: Int64, nowMs: Int64) async throws(StoreError)
    /// The user's subscriptions, ordered by original_transaction_id.
    func subscriptions(ofUser userID: String) async throws(StoreError) -> [StoredSubscription]
}
