import GRDB
import SubReconModel

extension AppDatabase: ImportStore {
    /// Stores validated import rows in one transaction: all of them or, on any error, none.
    /// A row whose receipt data is already known for that user is a no-op, counted as such.
    public func importReceipts(_ rows: [ImportRow], nowMs: Int64) async throws(StoreError) -> ImportSummary {
        // Digests are computed outside the write transaction so the writer is held only for SQL.
        // A row with only a transaction id is known by that id, so importing it again is a no-op too.
        let digests = rows.map(\.versionDigest)
        return try await write("importing receipts") { db in try Self.importRows(rows, digests: digests, nowMs: nowMs, db: db) }
    }

    /// `importReceipts` inside the caller's write transaction (`recordLink` stores its row so too).
    package static func importRows(_ rows: [ImportRow], digests: [String], nowMs: Int64, db: Database) throws -> ImportSummary {
        var summary = ImportSummary(imported: 0, alreadyStored: 0)
        let known = try db.cachedStatement(sql: ImportSQL.knownVersion)
        let nameApp = try db.cachedStatement(sql: ImportSQL.nameApp)
        let registerToken = try db.cachedStatement(sql: ImportSQL.registerToken)
        let insertReceipt = try db.cachedStatement(
            sql: """
                INSERT INTO receipts (user_id, receipt_data, product_id, environment, imported_at, next_due_at,
                    transaction_id, receipt_sha256, bundle_id)
                VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?)
                """)
        let insertVersion = try db.cachedStatement(
            sql: "INSERT INTO receipt_versions (user_id, receipt_sha256, receipt_id, first_seen_at) VALUES (?, ?, ?, ?)")
        for (row, digest) in zip(rows, digests) {
            if let token = row.appAccountToken {
                try registerToken.execute(arguments: [token, row.userID, row.bundleID, nowMs])
                summary.tokensRegistered += db.changesCount
                if row.registersTokenOnly { continue }
            }
            if let receiptID = try Int64.fetchOne(known, arguments: [row.userID, digest]) {
                summary.alreadyStored += 1
                if let bundleID = row.bundleID {
                    try nameApp.execute(arguments: [bundleID, receiptID])
                    summary.appNamed += db.changesCount
                }
                continue
            }
            try insertReceipt.execute(arguments: [
                row.userID, row.receiptData.isEmpty ? nil : row.receiptData, row.productID, row.environment?.rawValue, nowMs,
                row.transactionID, row.receiptData.isEmpty ? nil : digest, row.bundleID,
            ])
            try insertVersion.execute(arguments: [row.userID, digest, db.lastInsertedRowID, nowMs])
            summary.imported += 1
        }
        return summary
    }

    public func userOfToken(_ token: String, forUnknownTransaction otid: String) async throws(StoreError) -> String? {
        try await read("reading an app account token") { db in
            try String.fetchOne(db, sql: ImportSQL.tokenUserOfUnknownTransaction, arguments: [token, otid, otid])
        }
    }
}
