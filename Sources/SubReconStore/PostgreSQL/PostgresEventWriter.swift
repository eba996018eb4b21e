import PostgresNIO
import SubReconModel

/// Writes a transaction's events on PostgreSQL in three statements, whatever their number: the
/// streams' `seq`, then the positions (the `event_positions` row stays locked until the commit,
/// so a position never becomes visible before a smaller one that will still commit), then the rows.
package enum PostgresEventWriter {
    package static func write(_ batch: EventBatch, _ connection: PostgresConnection) async throws {
        guard !batch.isEmpty else { return }
        var lastSeq: [EventBatch.StreamKey: Int64] = [:]
        if !batch.streams.isEmpty {
            var streams = JSONRecords(["user_id", "original_transaction_id", "last_seq"])
            for (key, count) in batch.streams {
                streams.append([.text(key.userID), .text(key.originalTransactionID), .integer(count)])
            }
            for try await (userID, otid, seq) in try await connection.run(EventSQL.advanceStreams, [.text(streams.json)])
                .decode((String, String, Int64).self)
            {
                lastSeq[EventBatch.StreamKey(userID: userID, originalTransactionID: otid)] = seq
            }
        }
        let last = try await connection.integer(EventSQL.allocatePositions, [.integer(Int64(batch.drafts.count))]) ?? 0
        var rows = JSONRecords(EventSQL.insertColumns)
        for row in batch.rows(lastSeq: lastSeq, lastPosition: last) { rows.append(row.arguments) }
        try await connection.run(EventSQL.insertAll, [.text(rows.json)])
    }

    /// The apps the receipts name (receipts naming none are absent).
    package static func apps(ofReceipts ids: [Int64], _ connection: PostgresConnection) async throws -> [Int64: String] {
        guard !ids.isEmpty else { return [:] }
        var apps: [Int64: String] = [:]
        let list = "{" + Set(ids).map(String.init).joined(separator: ",") + "}"
        for try await (id, app) in try await connection.run(EventSQL.receiptApps, [.text(list)]).decode((Int64, String).self)
            where !app.isEmpty
        {
            apps[id] = app
        }
        return apps
    }

    /// The events of a batch's updates, each from its origin.
    package static func batch(
        _ updates: [ReceiptUpdate], origins: [EventOrigin?], apps: [Int64: String], notificationApps: [String?] = []
    ) -> EventBatch {
        var events = EventBatch()
        for (index, (update, origin)) in zip(updates, origins).enumerated() {
            guard let origin, !update.subscriptionChanges.isEmpty else { continue }
            // The receipt's app first, as on SQLite; else the notification's; else the deployment's one app.
            let own = index < notificationApps.count ? notificationApps[index] : nil
            events.append(changesOf: update, origin: origin, app: apps[update.receiptID] ?? own ?? origin.defaultApp)
        }
        return events
    }
}
