import GRDB
import SubReconModel

extension AppDatabase: ReconciliationStore {
    public func subscriptions(ofUser userID: String) async throws(StoreError) -> [StoredSubscription] {
        try await read("reading a user's subscriptions") { db in
            try StoredSubscription.fetchAll(
                db, sql: "SELECT * FROM subscriptions WHERE user_id = ? ORDER BY original_transaction_id",
                arguments: [userID])
        }
    }

    public func reconcile(_ batch: [ReceiptReconciliation], runID: Int64?, write: Bool, origin: EventOrigin?)
        async throws(StoreError) -> [ReceiptUpdate]
    {
        if !write {
            return try await read("reading receipts' stored state") { db in
                let reader = try SnapshotReader(db)
                return try batch.map { item in
                    try item.decide(reader.snapshot(receipt: item.receipt, periodKeys: item.periodKeys))
                }
            }
        }
        // One transaction for the batch: each receipt's writes are all in or all out, and a
        // crash loses at most the batch, whose receipts are simply still due.
        return try await self.write("writing receipts' outcomes") { db in
            let reader = try SnapshotReader(db)
            let writer = try UpdateWriter(db)
            var events = EventBatch()
            let updates = try batch.map { item in
                let snapshot = try reader.snapshot(receipt: item.receipt, periodKeys: item.periodKeys)
                let update = item.decide(snapshot)
                try writer.apply(
                    update, runID: runID, digest: item.latestReceiptDigest, stored: snapshot.subscriptions, origin: origin,
                    events: &events)
                return update
            }
            if let runID { try Self.addToRunCounters(updates, runID: runID, db: db) }
            try SQLiteEventWriter.write(events, db: db)
            return updates
        }
    }

    /// The run's counters move once per batch, in the batch's transaction (see `RunCounters`).
    package static func addToRunCounters(_ updates: [ReceiptUpdate], runID: Int64, db: Database) throws {
        try db.cachedStatement(sql: RunCounters.sql).execute(
            arguments: StatementArguments(RunCounters(updates).arguments(runID: runID).map(\.databaseValue)))
    }
}
