import GRDB
import SubReconModel

/// Writes a transaction's events on SQLite: each stream's `seq`, then the positions, then the
/// rows. One writer at a time, so positions are in commit order by construction.
package enum SQLiteEventWriter {
    package static func write(_ batch: EventBatch, db: Database) throws {
        guard !batch.isEmpty else { return }
        var lastSeq: [EventBatch.StreamKey: Int64] = [:]
        let advance = try db.cachedStatement(sql: EventSQL.advanceStream)
        for (key, count) in batch.streams {
            lastSeq[key] = try Int64.fetchOne(advance, arguments: [key.userID, key.originalTransactionID, count])
        }
        let last = try Int64.fetchOne(
            db.cachedStatement(sql: EventSQL.allocatePositions), arguments: [Int64(batch.drafts.count)]) ?? 0
        let insert = try db.cachedStatement(sql: EventSQL.insert)
        for row in batch.rows(lastSeq: lastSeq, lastPosition: last) {
            try insert.execute(arguments: StatementArguments(row.arguments.map(\.databaseValue)))
        }
    }

    /// The app a receipt names, or nil.
    package static func app(ofReceipt id: Int64?, db: Database) throws -> String? {
        guard let id else { return nil }
        let app = try String.fetchOne(db.cachedStatement(sql: EventSQL.receiptApp), arguments: [id])
        return app?.isEmpty == false ? app : nil
    }
}
