import PostgresNIO
import SubReconModel

extension PostgresStore: ImportStore {
    /// All rows or none, in one transaction; rows already known for their user are counted, not stored.
    public func importReceipts(_ rows: [ImportRow], nowMs: Int64) async throws(StoreError) -> ImportSummary {
        let digests = rows.map(\.versionDigest)
        return try await withTransaction("importing receipts") { connection in
            try await Self.importRows(rows, digests: digests, nowMs: nowMs, connection)
        }
    }

    /// `importReceipts` inside the caller's transaction (`recordLink` stores its row so too).
    package static func importRows(_ rows: [ImportRow], digests: [String], nowMs: Int64, _ connection: PostgresConnection)
        async throws -> ImportSummary
    {
        var summary = ImportSummary(imported: 0, alreadyStored: 0)
        for (row, digest) in zip(rows, digests) {
            if let token = row.appAccountToken {
                let registered = try await connection.integer(
                    "WITH registered AS (\(ImportSQL.registerToken) RETURNING 1) SELECT COUNT(*) FROM registered",
                    [.text(token), .text(row.userID), SQLArgument(row.bundleID), .integer(nowMs)])
                summary.tokensRegistered += Int(registered ?? 0)
                if row.registersTokenOnly { continue }
            }
            // One statement per row: a version the user already has is skipped, else the
            // receipt and its version are inserted together.
            let inserted = try await connection.integer(
                """
                WITH known AS (SELECT 1 FROM receipt_versions WHERE user_id = ? AND receipt_sha256 = ?),
                receipt AS (
                    INSERT INTO receipts (user_id, receipt_data, product_id, environment, imported_at, next_due_at,
                        transaction_id, receipt_sha256, bundle_id)
                    SELECT ?, ?, ?, ?, ?, 0, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM known) RETURNING id)
                INSERT INTO receipt_versions (user_id, receipt_sha256, receipt_id, first_seen_at)
                SELECT ?, ?, id, ? FROM receipt RETURNING receipt_id
                """,
                [
                    .text(row.userID), .text(digest), .text(row.userID),
                    SQLArgument(row.receiptData.isEmpty ? nil : row.receiptData), SQLArgument(row.productID),
                    SQLArgument(row.environment?.rawValue), .integer(nowMs), SQLArgument(row.transactionID),
                    SQLArgument(row.receiptData.isEmpty ? nil : digest), SQLArgument(row.bundleID), .text(row.userID),
                    .text(digest), .integer(nowMs),
                ])
            if inserted == nil {
                summary.alreadyStored += 1
                if let bundleID = row.bundleID {
                    let named = try await connection.integer(
                        ImportSQL.nameAppOfVersion, [.text(bundleID), .text(row.userID), .text(digest)])
                    summary.appNamed += named == nil ? 0 : 1
                }
            } else {
                summary.imported += 1
            }
        }
        return summary
    }

    public func userOfToken(_ token: String, forUnknownTransaction otid: String) async throws(StoreError) -> String? {
        try await withConnection("reading an app account token") { connection in
            try await connection.all(ImportSQL.tokenUserOfUnknownTransaction, [.text(token), .text(otid), .text(otid)]) { row in
                try row[0].decode(String.self)
            }.first
        }
    }
}
