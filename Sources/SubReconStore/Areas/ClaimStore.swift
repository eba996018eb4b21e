import SubReconModel

/// The receipts a run verifies: counted, paged by keyset, and on PostgreSQL claimed by the worker
/// that verifies them.
public protocol ClaimStore: Sendable {
    /// Whether several workers may run at once, claiming due receipts (PostgreSQL): `.due` pages
    /// are then claims for this worker, and a nightly run takes no run lock.
    var splitsDueReceipts: Bool { get }
    /// How long a claim (and, on SQLite, the run lock) lasts unless renewed.
    var claimTimeoutMs: Int64 { get }
    /// Gives back the receipts this worker claimed but did not write (a run that ended early).
    func releaseClaims() async throws(StoreError)
    /// How many receipts of `app` the selection holds now.
    func countReceipts(_ selection: ReceiptSelection, app: AppScope, nowMs: Int64) async throws(StoreError) -> Int
    /// The next page of the selection's receipts of `app` after `after` (keyset paging: flat
    /// memory), with `detail`.
    func receipts(
        _ selection: ReceiptSelection, app: AppScope, after: ReceiptCursorPosition, limit: Int, nowMs: Int64,
        detail: ReceiptDetail
    )
        async throws(StoreError) -> [ReceiptToVerify]
    /// How many receipts name no app (stored before the deployment had several).
    func countReceiptsWithoutApp() async throws(StoreError) -> Int
}

extension ClaimStore {
    /// A page of receipts alone (what verifyReceipt needs), of every app.
    public func receipts(_ selection: ReceiptSelection, after: ReceiptCursorPosition, limit: Int, nowMs: Int64)
        async throws(StoreError) -> [ReceiptToVerify]
    {
        try await receipts(selection, app: .every, after: after, limit: limit, nowMs: nowMs, detail: .receiptOnly)
    }

    /// A page of every app's receipts.
    public func receipts(
        _ selection: ReceiptSelection, after: ReceiptCursorPosition, limit: Int, nowMs: Int64, detail: ReceiptDetail
    ) async throws(StoreError) -> [ReceiptToVerify] {
        try await receipts(selection, app: .every, after: after, limit: limit, nowMs: nowMs, detail: detail)
    }

    /// How many receipts of every app the selection holds now.
    public func countReceipts(_ selection: ReceiptSelection, nowMs: Int64) async throws(StoreError) -> Int {
        try await countReceipts(selection, app: .every, nowMs: nowMs)
    }
}
