import SubReconModel

/// What the commands need from a store, in intent names: SQLite on one machine (`AppDatabase`),
/// PostgreSQL for several workers on several hosts (`PostgresStore`). The run pipeline, import,
/// `user`, status and reports see only this.
public protocol SubscriptionStore: Sendable {
    /// Where the store is, fit to show (a PostgreSQL URL's password is masked).
    var location: String { get }
    /// Whether several workers may run at once, claiming due receipts (PostgreSQL): `.due` pages
    /// are then claims for this worker, and a nightly run takes no run lock.
    var splitsDueReceipts: Bool { get }
    /// How long a claim (and, on SQLite, the run lock) lasts unless renewed.
    var claimTimeoutMs: Int64 { get }
    /// Gives back the receipts this worker claimed but did not write (a run that ended early).
    func releaseClaims() async throws(StoreError)
    /// Reserves `count` consecutive App Store Server API request slots, `intervalMicros` apart, of
    /// the rate budget `budget` that every worker on this database shares (PostgreSQL); nil where one
    /// process has the budget to itself (SQLite), which then paces its requests locally.
    func reserveAPISlots(budget: String, count: Int, intervalMicros: Int64) async throws(StoreError) -> SlotReservation?
    /// Apple answered 429: no slot of `budget` is reserved for anyone before `micros` from now
    /// (nothing to do on SQLite).
    func pauseAPISlots(budget: String, forMicros micros: Int64) async throws(StoreError)
    /// The schema version both stores count the same way (`subrecon db migrate`).
    func schemaVersion() async throws(StoreError) -> Int
    /// Stores validated import rows in one transaction: all of them or none.
    func importReceipts(_ rows: [ImportRow], nowMs: Int64) async throws(StoreError) -> ImportSummary
    /// The user `token` was registered for, when no stored receipt or subscription knows the
    /// original transaction `otid` yet (nil otherwise).
    func userOfToken(_ token: String, forUnknownTransaction otid: String) async throws(StoreError) -> String?
    /// Removes every row naming the user, in one transaction; the ledger's periods stay under
    /// `pseudonym` (`subrecon forget`). With `dryRun` the same statements run and are rolled back:
    /// the summary says exactly what would go, and nothing changes.
    func forgetUser(_ userID: String, pseudonym: String, dryRun: Bool) async throws(StoreError) -> ForgetSummary
    /// `link --move`: takes the purchase `otid` from each of `holders` for `userID`, in one
    /// transaction: each holder's subscription row goes (recorded as a change under a `user` run
    /// for `userID`), their billed periods of it become the user's (once), their receipts known
    /// by its transaction id go, Apple's notifications about it follow; `token`, when given, is
    /// registered to the user instead of whoever had it. Returns the changes recorded.
    func movePurchase(_ otid: String, from holders: [String], to userID: String, token: String?, nowMs: Int64)
        async throws(StoreError) -> Int
    /// Users whose subscriptions or renewal records carry this original_transaction_id.
    func users(holdingOriginalTransactionID otid: String) async throws(StoreError) -> [String]
    /// Runs read-only queries against one consistent snapshot (reports, status, metrics, copies).
    /// Errors of `body` come out as they are; the store's own as `StoreError`.
    func withReadSnapshot<T: Sendable>(_ body: (any SnapshotQuerying) async throws -> T) async throws -> T
    /// Every table with its column names in order (`subrecon db copy` copies columns by name).
    func tableColumns() async throws(StoreError) -> [String: [String]]
    /// Fills the store in one write transaction (`subrecon db copy`): all of `body`'s rows or none.
    /// Errors of `body` come out as they are; the store's own as `StoreError`.
    func bulkLoad<T: Sendable>(_ body: (any BulkLoader) async throws -> T) async throws -> T
    /// `run --refill-ledger`: marks every receipt to read its whole Server API history again and
    /// be due now, unless a refill is already under way (then nothing is marked: it resumes).
    func startLedgerRefill(nowMs: Int64) async throws(StoreError) -> LedgerRefillStart
    /// Records that the refill under way has reached every receipt.
    func finishLedgerRefill(nowMs: Int64) async throws(StoreError)
    /// Stores one day of Apple's Summary Sales Report in one transaction, replacing any copy of
    /// that day stored before (`apple-reports fetch|import`).
    func storeAppleReport(_ report: AppleReportDay, nowMs: Int64) async throws(StoreError) -> AppleReportStoreResult
    /// Closes connections (PostgreSQL); a no-op on SQLite.
    func close() async
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
    /// Records the start of a run and returns its id.
    func startRun(kind: RunKind, targetUserID: String?, receiptsTotal: Int, nowMs: Int64)
        async throws(StoreError) -> Int64
    /// For each receipt of the batch: reads what is stored about it, lets its `decide` compute the
    /// update, and writes it with the run item and the run's counters. One transaction for the
    /// batch. With `write == false` (dry run) nothing is written and the updates are only returned.
    func reconcile(_ batch: [ReceiptReconciliation], runID: Int64?, write: Bool) async throws(StoreError)
        -> [ReceiptUpdate]
    /// Records how a run ended; `receiptsTotal`, when given, replaces the count recorded at its
    /// start (a worker that split the run with others records its own share).
    func finishRun(id: Int64, status: RunStatus, exitCode: Int32, nowMs: Int64, receiptsTotal: Int?)
        async throws(StoreError)
    /// Asks for the database's run lock (a lease); recovers runs left `running` by dead processes.
    func acquireRunLock(token: String, nowMs: Int64, leaseMs: Int64) async throws(StoreError) -> RunLockResult
    /// Extends the lease; false when another process took the lock over.
    func renewRunLock(token: String, runID: Int64?, nowMs: Int64, leaseMs: Int64) async throws(StoreError) -> Bool
    func releaseRunLock(token: String) async throws(StoreError)
    /// Records that a run is alive (for runs that hold no lock).
    func heartbeat(runID: Int64, nowMs: Int64) async throws(StoreError)
    /// The user's subscriptions, ordered by original_transaction_id.
    func subscriptions(ofUser userID: String) async throws(StoreError) -> [StoredSubscription]
    /// Stores verified notifications and carries out their plans, in one transaction, in order: the
    /// result is what storing them one after another would give (a later one sees the earlier
    /// ones' writes; the same uuid twice is a duplicate the second time), one result per write.
    /// A uuid stored before changes nothing but its delivery count (`countsAsDelivery`), unless it
    /// is still unmatched and a receipt now knows its transaction: it is then linked and applied.
    func storeNotifications(_ writes: [NotificationWrite]) async throws(StoreError) -> [NotificationStoreResult]
    /// Unmatched notifications that some stored receipt now knows, oldest `signedDate` first.
    func linkableNotifications(limit: Int) async throws(StoreError) -> [LinkableNotification]
}

extension SubscriptionStore {
    /// Forgets the user (`dryRun` false).
    public func forgetUser(_ userID: String, pseudonym: String) async throws(StoreError) -> ForgetSummary {
        try await forgetUser(userID, pseudonym: pseudonym, dryRun: false)
    }

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
