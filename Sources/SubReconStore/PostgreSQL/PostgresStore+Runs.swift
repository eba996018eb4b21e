import Foundation
import PostgresNIO
import SubReconModel

extension PostgresStore {
    public func schemaVersion() async throws(StoreError) -> Int {
        try await withConnection("reading the schema version") { connection in
            Int(try await connection.integer("SELECT COUNT(*) FROM grdb_migrations") ?? 0)
        }
    }

    public func startRun(kind: RunKind, targetUserID: String?, receiptsTotal: Int, nowMs: Int64)
        async throws(StoreError) -> Int64
    {
        let (pid, host, claimTimeoutMs) = (Int64(getpid()), ProcessInfo.processInfo.hostName, claimTimeoutMs)
        return try await withTransaction("recording the start of a run") { connection in
            // Runs whose worker stopped sending heartbeats for a whole claim timeout were killed:
            // record them as interrupted (their claims run out at the same time).
            try await connection.run(
                "UPDATE runs SET status = 'interrupted', finished_at = ? WHERE status = 'running' AND heartbeat_at < ?",
                [.integer(nowMs), .integer(nowMs - claimTimeoutMs)])
            guard
                let id = try await connection.integer(
                    """
                    INSERT INTO runs (kind, started_at, status, receipts_total, target_user_id, pid, host, heartbeat_at)
                    VALUES (?, ?, 'running', ?, ?, ?, ?, ?) RETURNING id
                    """,
                    [
                        .text(kind.rawValue), .integer(nowMs), .integer(Int64(receiptsTotal)), SQLArgument(targetUserID),
                        .integer(pid), .text(host), .integer(nowMs),
                    ])
            else { throw StoreError.failed(operation: "recording the start of a run", reason: "no id returned") }
            return id
        }
    }

    public func finishRun(id: Int64, status: RunStatus, exitCode: Int32, nowMs: Int64, receiptsTotal: Int?)
        async throws(StoreError)
    {
        try await withConnection("recording the end of a run") { connection in
            try await connection.run(
                """
                UPDATE runs SET finished_at = ?, status = ?, exit_code = ?, receipts_total = COALESCE(?, receipts_total)
                WHERE id = ?
                """,
                [
                    .integer(nowMs), .text(status.rawValue), .integer(Int64(exitCode)),
                    SQLArgument(receiptsTotal.map(Int64.init)), .integer(id),
                ])
        }
    }

    /// Workers cooperate through claims; the SQLite run lock has no meaning here, so asking for it
    /// always succeeds (the pipeline doesn't ask when `splitsDueReceipts`).
    public func acquireRunLock(token: String, nowMs: Int64, leaseMs: Int64) async throws(StoreError) -> RunLockResult {
        .acquired(tookOverFrom: nil)
    }

    public func renewRunLock(token: String, runID: Int64?, nowMs: Int64, leaseMs: Int64) async throws(StoreError) -> Bool {
        if let runID { try await heartbeat(runID: runID, nowMs: nowMs) }
        return true
    }

    public func releaseRunLock(token: String) async throws(StoreError) {}

    /// The run is alive, and so are this worker's claims: both are renewed together.
    public func heartbeat(runID: Int64, nowMs: Int64) async throws(StoreError) {
        // Claims live in the database's clock (see `claimDue`), whatever clock the run's states use.
        let (worker, timeout) = (worker, claimTimeoutMs)
        try await withConnection("renewing the run's claims") { connection in
            try await connection.run("UPDATE runs SET heartbeat_at = ? WHERE id = ?", [.integer(nowMs), .integer(runID)])
            try await connection.run(
                "UPDATE receipts SET claimed_until = \(PostgresSchema.nowMs) + ? WHERE claimed_by = ?",
                [.integer(timeout), .text(worker)])
        }
    }

    public func subscriptions(ofUser userID: String) async throws(StoreError) -> [StoredSubscription] {
        try await withConnection("reading a user's subscriptions") { connection in
            try await connection.all(
                "SELECT \(StoredSubscription.selectedColumns) FROM subscriptions WHERE user_id = ? ORDER BY original_transaction_id",
                [.text(userID)], StoredSubscription.init(postgresRow:))
        }
    }

    public func users(holdingOriginalTransactionID otid: String) async throws(StoreError) -> [String] {
        try await withConnection("finding users by original_transaction_id") { connection in
            try await connection.all(
                """
                SELECT user_id FROM subscriptions WHERE original_transaction_id = ?
                UNION SELECT user_id FROM renewals WHERE original_transaction_id = ?
                ORDER BY user_id
                """, [.text(otid), .text(otid)]
            ) { row in try row[0].decode(String.self) }
        }
    }

    /// All rows or none, in one transaction; rows already known for their user are counted, not stored.
    public func importReceipts(_ rows: [ImportRow], nowMs: Int64) async throws(StoreError) -> ImportSummary {
        let digests = rows.map(\.versionDigest)
        return try await withTransaction("importing receipts") { connection in
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
    }

    public func userOfToken(_ token: String, forUnknownTransaction otid: String) async throws(StoreError) -> String? {
        try await withConnection("reading an app account token") { connection in
            try await connection.all(ImportSQL.tokenUserOfUnknownTransaction, [.text(token), .text(otid), .text(otid)]) { row in
                try row[0].decode(String.self)
            }.first
        }
    }

    public func movePurchase(_ otid: String, from holders: [String], to userID: String, token: String?, nowMs: Int64)
        async throws(StoreError) -> Int
    {
        try await withTransaction("moving a purchase to its user") { connection in
            let runID = try await connection.integer(
                PurchaseHoldersSQL.moveRun, [.integer(nowMs), .integer(nowMs), .integer(Int64(holders.count)), .text(userID)]) ?? 0
            var changes = 0
            for holder in holders {
                for step in PurchaseHoldersSQL.Step.allCases {
                    let arguments = PurchaseHoldersSQL.arguments(
                        step, runID: runID, nowMs: nowMs, otid: otid, user: userID, holder: holder)
                    if step == .recordChange {
                        let rows = try await connection.integer(
                            "WITH touched AS (\(PurchaseHoldersSQL.statement(step)) RETURNING 1) SELECT COUNT(*) FROM touched",
                            arguments)
                        changes += Int(rows ?? 0)
                    } else {
                        try await connection.run(PurchaseHoldersSQL.statement(step), arguments)
                    }
                }
            }
            if let token { try await connection.run(PurchaseHoldersSQL.moveToken, [.text(userID), .text(token)]) }
            return changes
        }
    }

    public func forgetUser(_ userID: String, pseudonym: String, dryRun: Bool) async throws(StoreError) -> ForgetSummary {
        try await withTransaction("forgetting a user") { connection in
            var summary = ForgetSummary()
            // A dry run counts the same statements and takes them back.
            if dryRun { try await connection.query("SAVEPOINT forget_dry_run", logger: Self.quiet) }
            for step in ForgetSQL.Step.allCases {
                let (sql, pseudonymFirst) = ForgetSQL.statement(step)
                let rows = try await connection.integer(
                    "WITH touched AS (\(sql) RETURNING 1) SELECT COUNT(*) FROM touched",
                    pseudonymFirst ? [.text(pseudonym), .text(userID)] : [.text(userID)])
                ForgetSQL.count(Int(rows ?? 0), of: step, into: &summary)
            }
            if dryRun { try await connection.query("ROLLBACK TO SAVEPOINT forget_dry_run", logger: Self.quiet) }
            return summary
        }
    }

    public func withReadSnapshot<T: Sendable>(_ body: (any SnapshotQuerying) async throws -> T) async throws -> T {
        // REPEATABLE READ: every query of `body` sees the same committed data.
        try await inOneTransaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", "reading") { connection in
            try await body(PostgresSnapshot(connection: connection))
        }
    }
}

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

/// A one-dimensional array in PostgreSQL's binary form, read element by element: a header
/// (dimensions, null flag, element type, then length and lower bound), then each element as a
/// 4-byte length (-1: NULL) and its bytes.
package struct PostgresBinaryArray {
    private var buffer: ByteBuffer
    package private(set) var count: Int

    package init(_ bytes: ByteBuffer?) throws {
        guard var buffer = bytes, let dimensions = buffer.readInteger(as: Int32.self),
            buffer.readInteger(as: Int32.self) != nil, buffer.readInteger(as: UInt32.self) != nil
        else { throw StoreError.failed(operation: "reading the ledger", reason: "an array is malformed") }
        switch dimensions {
        case 0: count = 0
        case 1:
            guard let length = buffer.readInteger(as: Int32.self), buffer.readInteger(as: Int32.self) != nil, length >= 0 else {
                throw StoreError.failed(operation: "reading the ledger", reason: "an array is malformed")
            }
            count = Int(length)
        default: throw StoreError.failed(operation: "reading the ledger", reason: "an array has \(dimensions) dimensions")
        }
        self.buffer = buffer
    }

    /// The next element's bytes; nil for NULL (or past the end).
    package mutating func nextBytes() -> ByteBuffer? { next() }

    private mutating func next() -> ByteBuffer? {
        guard let length = buffer.readInteger(as: Int32.self), length >= 0 else { return nil }
        return buffer.readSlice(length: Int(length))
    }

    package mutating func nextText() -> String? { next().map { String(buffer: $0) } }

    package mutating func nextInteger() throws -> Int64? {
        guard var bytes = next() else { return nil }
        guard bytes.readableBytes == 8, let value = bytes.readInteger(as: Int64.self) else {
            throw StoreError.failed(operation: "reading the ledger", reason: "a BIGINT is not 8 bytes")
        }
        return value
    }
}

package struct PostgresQueryRow: QueryRow {
    package let row: PostgresRandomAccessRow

    private func cell(_ column: String) throws -> PostgresCell {
        guard row.contains(column) else { throw StoreError.failed(operation: "reading a row", reason: "no column \(column)") }
        return row[column]
    }

    package func text(_ column: String) throws -> String? { try cell(column).decode(String?.self) }
    package func integer(_ column: String) throws -> Int64? { try cell(column).decode(Int64?.self) }

    package func value(_ column: String) throws -> SQLArgument {
        let cell = try cell(column)
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int8, .int4, .int2: return .integer(try cell.decode(Int64.self))
        case .text, .varchar, .name: return .text(try cell.decode(String.self))
        default:
            throw StoreError.failed(operation: "reading \(column)", reason: "its type \(cell.dataType) is neither BIGINT nor TEXT")
        }
    }
}
