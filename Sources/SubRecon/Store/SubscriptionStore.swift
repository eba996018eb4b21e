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
    /// The next page of the selection after `after` (keyset paging: flat memory).
    func receipts(_ selection: ReceiptSelection, after: ReceiptCursorPosition, limit: Int, nowMs: Int64)
        async throws(StoreError) -> [ReceiptToVerify]
    /// Records the start of a run and returns its id.
    func startRun(kind: RunKind, targetUserID: String?, receiptsTotal: Int, nowMs: Int64)
        async throws(StoreError) -> Int64
    /// For each receipt of the batch: reads what is stored about it, lets its `decide` compute the
    /// update, and writes it with the run item and the run's counters. One transaction for the
    /// batch. With `write == false` (dry run) nothing is written and the updates are only returned.
    func reconcile(_ batch: [ReceiptReconciliation], runID: Int64?, write: Bool) async throws(StoreError)
        -> [ReceiptUpdate]
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

/// Where a keyset page of receipts resumes.
public struct ReceiptCursorPosition: Sendable, Equatable {
    public var nextDueAt: Int64
    public var id: Int64

    public static let start = ReceiptCursorPosition(nextDueAt: .min, id: 0)

    public init(nextDueAt: Int64, id: Int64) {
        self.nextDueAt = nextDueAt
        self.id = id
    }
}

/// One receipt's share of a batched write: what to read and how to decide the update.
public struct ReceiptReconciliation: Sendable {
    public var receipt: ReceiptToVerify
    public var periodKeys: [String]
    public var decide: @Sendable (ReceiptSnapshot) -> ReceiptUpdate
    /// The answer's new receipt data with its SHA-256, hashed before the write (optional: the
    /// store hashes whatever it stores that this does not cover).
    public var latestReceiptDigest: ReceiptDigest?

    public init(
        receipt: ReceiptToVerify, periodKeys: [String], latestReceiptDigest: ReceiptDigest? = nil,
        decide: @escaping @Sendable (ReceiptSnapshot) -> ReceiptUpdate
    ) {
        self.receipt = receipt
        self.periodKeys = periodKeys
        self.latestReceiptDigest = latestReceiptDigest
        self.decide = decide
    }

    /// The batch item for one verification outcome: reads the periods the answer names and lets
    /// `reconciler` decide against what is stored.
    public init(
        receipt: ReceiptToVerify, outcome: VerificationOutcome, reconciler: ReceiptReconciler, nowMs: Int64,
        runID: Int64?, latestReceiptDigest: ReceiptDigest? = nil
    ) {
        var periodKeys: [String] = []
        if case .answered(let account) = outcome { periodKeys = account.transactions.compactMap(\.periodKey) }
        self.init(receipt: receipt, periodKeys: periodKeys, latestReceiptDigest: latestReceiptDigest) { snapshot in
            reconciler.reconcile(outcome, snapshot: snapshot, nowMs: nowMs, runID: runID)
        }
    }
}
