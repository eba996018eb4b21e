import PostgresNIO
import SubReconModel

/// Writes a batch's `ReceiptUpdate`s with one prepared statement per table (rows bound as one
/// JSON array, read by `jsonb_to_recordset`; see `PostgresWriteStatements.swift`), inside the
/// batch's transaction: the same rows and the same conflict rules as SQLite's `UpdateWriter`.
package struct PostgresUpdateWriter {
    package let connection: PostgresConnection
    package let worker: String

    /// A run's updates record run items and changes under `runID`.
    package func write(_ updates: [ReceiptUpdate], digests: [ReceiptDigest?], receiptIDs: [Int64], runID: Int64?) async throws {
        let rows = PostgresBatchRows(updates, digests: digests, runID: runID)
        try await execute(InsertSubscriptions.self, rows.subscriptions)
        try await execute(InsertRenewals.self, rows.renewals)
        try await execute(FillRenewalCancellations.self, rows.cancellations)
        try await execute(ReviseRenewalLedgers.self, rows.revisions)
        try await execute(UpdateReceipts.self, rows.receipts)
        // The batch's receipts are done with: their claims end with the write (also those whose
        // answer was discarded, which stay due for the next run).
        if !receiptIDs.isEmpty {
            _ = try await connection.execute(ReleaseWrittenClaims(ids: receiptIDs, worker: worker), logger: PostgresStore.quiet)
        }
        try await execute(InsertReceiptVersions.self, rows.versions)
        try await execute(UpsertRunItems.self, rows.runItems)
        try await execute(InsertSubscriptionChanges.self, rows.changes)
        if let runID {
            let arguments = RunCounters(updates).arguments(runID: runID).compactMap { argument -> Int64? in
                if case .integer(let value) = argument { return value }
                return nil
            }
            _ = try await connection.execute(AddToRunCounters(arguments: arguments), logger: PostgresStore.quiet)
        }
    }

    private func execute<Statement: JSONBatchStatement>(_ statement: Statement.Type, _ records: JSONRecords) async throws {
        guard records.count > 0 else { return }
        _ = try await connection.execute(Statement(json: records.json), logger: PostgresStore.quiet)
    }
}
