import Foundation
import PostgresNIO
import SubReconModel

/// `SnapshotQuerying` on one connection inside a REPEATABLE READ transaction.
package struct PostgresSnapshot: SnapshotQuerying {
    package let connection: PostgresConnection

    package func forEachRow(_ sql: String, _ arguments: [SQLArgument], _ body: (any QueryRow) throws -> Void) async throws {
        for try await row in try await connection.run(sql, arguments) {
            try body(PostgresQueryRow(row: row.makeRandomAccess()))
        }
    }
}

extension PostgresSnapshot {
    /// The ledger one subscription a row, each column an array in the walk's order
    /// (`SchemaSQL.ledgerWalk`'s rows, aggregated): postgres-nio's per-row machinery costs the
    /// client far more for a row per period than for a row of arrays per subscription, read
    /// straight from their binary form. The rows are aggregated as the index-only scan of
    /// `renewals_ledger` returns them, already in order (an ORDER BY inside each array_agg sorted
    /// thirteen times per subscription). Measured: docs/performance.md, "Money reports over a large
    /// ledger". Unknown purchase dates come last here (PostgreSQL's order); `LedgerWalk` puts them
    /// first, as SQLite returns them.
    package static let ledgerBySubscription = ledgerBySubscription(ledgerColumns)
    /// With the storefront and revocation type (`report apple-parity`).
    package static let ledgerBySubscriptionWithParityColumns = ledgerBySubscription(
        ledgerColumns + ["storefront", "revocation_type"])

    package static let ledgerColumns = [
        "period_key", "product_id", "purchase_date_ms", "expires_date_ms", "cancellation_date_ms", "is_upgraded",
        "price_milliunits", "currency", "offer_discount_type", "transaction_reason", "ownership_type",
        "refund_milliunits",
    ]

    private static func ledgerBySubscription(_ columns: [String]) -> String {
        """
            SELECT original_transaction_id, \(columns.map { "array_agg(\($0))" }.joined(separator: ", "))
            FROM (SELECT original_transaction_id, \(columns.joined(separator: ", ")) FROM renewals
                  WHERE environment = 'ENVIRONMENT' OR (environment IS NULL AND 'ENVIRONMENT' = 'Production')
                  ORDER BY original_transaction_id, purchase_date_ms, period_key) AS ordered
            GROUP BY original_transaction_id ORDER BY original_transaction_id
            """
    }

    /// Subscriptions a FETCH reads: the server streams faster than the reports sum, and
    /// without a cursor the rows pile up in the client's memory (docs/performance.md, "Money
    /// reports over a large ledger").
    package static let ledgerFetchSize = 1_000

    /// Which of the 13 columns are BIGINT (the others TEXT), in `ledgerBySubscription`'s order; the
    /// parity columns (TEXT) follow. (No environment column: the query selects one; its rows get that name.)
    package static let ledgerIntegerColumns = [false, false, false, true, true, true, true, true, false, false, false, false, true]

    package func forEachLedgerRow(
        environment: String, withParityColumns: Bool, _ body: (String, LedgerEntry) throws -> Void
    ) async throws {
        // A cursor (inside the snapshot's transaction) holds the client to a page of rows. DECLARE
        // takes no parameters: the environment is one of two names, checked, spelled in.
        guard MoneyReportOptions.environments.contains(environment) else {
            throw StoreError.failed(operation: "reading the ledger", reason: "no environment \(environment)")
        }
        try await connection.run(
            "DECLARE ledger_walk NO SCROLL CURSOR FOR "
                + (withParityColumns ? Self.ledgerBySubscriptionWithParityColumns : Self.ledgerBySubscription)
                .replacingOccurrences(of: "ENVIRONMENT", with: environment))
        // The next page is fetched while this one is summed: the server and the reports overlap,
        // as they did without a cursor, with two pages at most in memory.
        let connection = connection
        @Sendable func page() async throws -> [PostgresRow] {
            var rows: [PostgresRow] = []
            rows.reserveCapacity(Self.ledgerFetchSize)
            for try await row in try await connection.run("FETCH FORWARD \(Self.ledgerFetchSize) FROM ledger_walk") {
                rows.append(row)
            }
            return rows
        }
        var rows = try await page()
        var checked = false
        while !rows.isEmpty {
            let more = rows.count == Self.ledgerFetchSize
            async let next = more ? page() : []
            for row in rows {
                try Self.readSubscription(
                    row, environment: environment, withParityColumns: withParityColumns, checkTypes: !checked, body)
                checked = true
            }
            rows = try await next
        }
        // Closed here, not at the transaction's end: the dashboard walks the ledger twice in one snapshot.
        try await connection.run("CLOSE ledger_walk")
    }

    /// One subscription's row: its id, then its periods' columns as arrays of one length.
    private static func readSubscription(
        _ row: PostgresRow, environment: String, withParityColumns: Bool, checkTypes: Bool,
        _ body: (String, LedgerEntry) throws -> Void
    ) throws {
        let columnCount = withParityColumns ? 15 : 13
        var cells: [ByteBuffer?] = []
        cells.reserveCapacity(columnCount)
        for cell in row {
            if checkTypes {
                let isInteger = cells.count < ledgerIntegerColumns.count && ledgerIntegerColumns[cells.count]
                let expected: PostgresDataType = cells.isEmpty ? .text : (isInteger ? .int8Array : .textArray)
                guard cell.format == .binary, cell.dataType == expected else {
                    throw StoreError.failed(
                        operation: "reading the ledger", reason: "column \(cell.columnName) is \(cell.dataType) in \(cell.format)")
                }
            }
            cells.append(cell.bytes)
        }
        guard cells.count == columnCount, let otidBytes = cells[0] else {
            throw StoreError.failed(operation: "reading the ledger", reason: "a subscription row is incomplete")
        }
        let otid = String(buffer: otidBytes)
        var arrays = try (1..<columnCount).map { column in try PostgresBinaryArray(cells[column]) }
        let count = arrays[0].count
        guard arrays.allSatisfy({ $0.count == count }) else {
            throw StoreError.failed(operation: "reading the ledger", reason: "the arrays of \(otid) differ in length")
        }
        // A subscription's periods mostly share one product: its String is made once.
        var product = ""
        var productBytes: ByteBuffer?
        for _ in 0..<count {
            let bytes = arrays[1].nextBytes()
            if let bytes, bytes != productBytes {
                product = String(buffer: bytes)
                productBytes = bytes
            }
            guard let key = arrays[0].nextText(), bytes != nil else {
                throw StoreError.failed(operation: "reading the ledger", reason: "a NOT NULL column is NULL")
            }
            let purchase = try arrays[2].nextInteger()
            guard let expires = try arrays[3].nextInteger() else {
                throw StoreError.failed(operation: "reading the ledger", reason: "a NOT NULL column is NULL")
            }
            let cancelled = try arrays[4].nextInteger()
            let upgraded = try arrays[5].nextInteger()
            let price = try arrays[6].nextInteger()
            try body(
                key,
                LedgerEntry(
                    originalTransactionID: otid, productID: product, purchaseDateMs: purchase, expiresDateMs: expires,
                    cancellationDateMs: cancelled, isUpgraded: (upgraded ?? 0) != 0, priceMilliunits: price,
                    currency: arrays[7].nextText(), offerDiscountType: arrays[8].nextText(),
                    transactionReason: arrays[9].nextText(), ownershipType: arrays[10].nextText(),
                    environment: environment, refundMilliunits: try arrays[11].nextInteger(),
                    storefront: withParityColumns ? arrays[12].nextText() : nil,
                    revocationType: withParityColumns ? arrays[13].nextText() : nil))
        }
    }
}
