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
