import SubReconModel

/// What a run writes for each receipt it verified, and the subscriptions that results in.
public protocol ReconciliationStore: Sendable {
    /// For each receipt of the batch: reads what is stored about it, lets its `decide` compute the
    /// update, and writes it with the run item and the run's counters. One transaction for the
    /// batch. With `write == false` (dry run) nothing is written and the updates are only returned.
    /// Every change written also writes its event (`origin` says where it comes from), in the
    /// same transaction; nil writes none (only a store's own tests and benchmarks pass nil).
    func reconcile(_ batch: [ReceiptReconciliation], runID: Int64?, write: Bool, origin: EventOrigin?)
        async throws(StoreError) -> [ReceiptUpdate]
    /// The user's subscriptions, ordered by original_transaction_id.
    func subscriptions(ofUser userID: String) async throws(StoreError) -> [StoredSubscription]
}

extension ReconciliationStore {
    /// As the nightly run writes: its changes' events have source `run`.
    public func reconcile(_ batch: [ReceiptReconciliation], runID: Int64?, write: Bool) async throws(StoreError)
        -> [ReceiptUpdate]
    {
        try await reconcile(batch, runID: runID, write: write, origin: EventOrigin(source: .run, runID: runID))
    }
}
