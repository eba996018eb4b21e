import GRDB
import SubReconModel

/// `SnapshotQuerying` over a GRDB reader (a snapshot: every read sees the same data).
package struct SQLiteSnapshot: SnapshotQuerying {
    package let reader: any DatabaseReader

    package func forEachRow(_ sql: String, _ arguments: [SQLArgument], _ body: (any QueryRow) throws -> Void) async throws {
        // A synchronous read: reports and copies are one command's only work. `body` runs on this
        // thread before `read` returns, so handing it over unchecked is safe. Rows are read through
        // SQLite's C API (`DirectStatement`): GRDB's Row decoding was a large share of a money
        // report's CPU over a large ledger (docs/performance.md, "Money reports over a large ledger").
        try withoutActuallyEscaping(body) { body in
            let handler = UncheckedRowHandler(body: body)
            try reader.read { db in
                let statement = try DirectStatement(db, sql: sql)
                defer { statement.reset() }
                try statement.bind(values: arguments)
                let row = SQLiteQueryRow(statement: statement, columns: statement.columnIndexes())
                while try statement.step() { try handler.body(row) }
            }
        }
    }
}

extension SQLiteSnapshot {
    package func forEachLedgerRow(
        environment: String, withParityColumns: Bool, _ body: (String, LedgerEntry) throws -> Void
    ) async throws {
        try withoutActuallyEscaping(body) { body in
            let handler = UncheckedLedgerHandler(body: body)
            try reader.read { db in
                let row = try DirectStatement(
                    db, sql: withParityColumns ? SchemaSQL.ledgerWalkWithParityColumns : SchemaSQL.ledgerWalk)
                defer { row.reset() }
                try row.bind(values: [.text(environment)])
                while try row.step() {
                    try handler.body(
                        row.text(1),
                        LedgerEntry(
                            originalTransactionID: row.text(0), productID: row.text(2), purchaseDateMs: row.optionalInt64(3),
                            expiresDateMs: row.int64(4), cancellationDateMs: row.optionalInt64(5), isUpgraded: row.bool(6),
                            priceMilliunits: row.optionalInt64(7), currency: row.optionalText(8),
                            offerDiscountType: row.optionalText(9), transactionReason: row.optionalText(10),
                            ownershipType: row.optionalText(11), environment: row.optionalText(12),
                            refundMilliunits: row.optionalInt64(13),
                            storefront: withParityColumns ? row.optionalText(14) : nil,
                            revocationType: withParityColumns ? row.optionalText(15) : nil))
                }
            }
        }
    }
}

private struct UncheckedLedgerHandler: @unchecked Sendable {
    let body: (String, LedgerEntry) throws -> Void
}

private struct UncheckedRowHandler: @unchecked Sendable {
    let body: (any QueryRow) throws -> Void
}
