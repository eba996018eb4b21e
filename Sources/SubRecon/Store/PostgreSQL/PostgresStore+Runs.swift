import Foundation
import PostgresNIO

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
                // One statement per row: a version the user already has is skipped, else the
                // receipt and its version are inserted together.
                let inserted = try await connection.integer(
                    """
                    WITH known AS (SELECT 1 FROM receipt_versions WHERE user_id = ? AND receipt_sha256 = ?),
                    receipt AS (
                        INSERT INTO receipts (user_id, receipt_data, product_id, environment, imported_at, next_due_at,
                            transaction_id, receipt_sha256)
                        SELECT ?, ?, ?, ?, ?, 0, ?, ? WHERE NOT EXISTS (SELECT 1 FROM known) RETURNING id)
                    INSERT INTO receipt_versions (user_id, receipt_sha256, receipt_id, first_seen_at)
                    SELECT ?, ?, id, ? FROM receipt RETURNING receipt_id
                    """,
                    [
                        .text(row.userID), .text(digest), .text(row.userID),
                        SQLArgument(row.receiptData.isEmpty ? nil : row.receiptData), SQLArgument(row.productID),
                        SQLArgument(row.environment?.rawValue), .integer(nowMs), SQLArgument(row.transactionID),
                        SQLArgument(row.receiptData.isEmpty ? nil : digest), .text(row.userID), .text(digest),
                        .integer(nowMs),
                    ])
                if inserted == nil { summary.alreadyStored += 1 } else { summary.imported += 1 }
            }
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
struct PostgresSnapshot: SnapshotQuerying {
    let connection: PostgresConnection

    func forEachRow(_ sql: String, _ arguments: [SQLArgument], _ body: (any QueryRow) throws -> Void) async throws {
        for try await row in try await connection.run(sql, arguments) {
            try body(PostgresQueryRow(row: row.makeRandomAccess()))
        }
    }
}

extension PostgresSnapshot {
    func forEachLedgerRow(environment: String, _ body: (String, LedgerEntry) throws -> Void) async throws {
        // The cells read straight from their bytes (BIGINT and TEXT in the binary format, as
        // postgres-nio asks for them): its generic decoding, unspecialised, was half the client's
        // CPU over a million rows. Any other type or format is refused, never guessed.
        var cells = [ByteBuffer?](repeating: nil, count: 14)
        var checked = false
        for try await row in try await connection.run(SchemaSQL.ledgerWalk, [.text(environment)]) {
            var index = 0
            if !checked {
                for cell in row where index < 14 {
                    guard cell.format == .binary, cell.dataType == (Self.ledgerIntegerColumns[index] ? .int8 : .text) else {
                        throw StoreError.failed(
                            operation: "reading the ledger", reason: "column \(cell.columnName) is \(cell.dataType) in \(cell.format)")
                    }
                    index += 1
                }
                checked = true
                index = 0
            }
            for cell in row where index < 14 {
                cells[index] = cell.bytes
                index += 1
            }
            guard index == 14, let otid = Self.text(cells[0]), let key = Self.text(cells[1]), let product = Self.text(cells[2]),
                let expires = Self.integer(cells[4])
            else { throw StoreError.failed(operation: "reading the ledger", reason: "a NOT NULL column is NULL") }
            try body(
                key,
                LedgerEntry(
                    originalTransactionID: otid, productID: product, purchaseDateMs: Self.integer(cells[3]),
                    expiresDateMs: expires, cancellationDateMs: Self.integer(cells[5]),
                    isUpgraded: (Self.integer(cells[6]) ?? 0) != 0, priceMilliunits: Self.integer(cells[7]),
                    currency: Self.text(cells[8]), offerDiscountType: Self.text(cells[9]), transactionReason: Self.text(cells[10]),
                    ownershipType: Self.text(cells[11]), environment: Self.text(cells[12]),
                    refundMilliunits: Self.integer(cells[13])))
        }
    }

    /// The positions of `SchemaSQL.ledgerWalk`'s BIGINT columns.
    static let ledgerIntegerColumns = [false, false, false, true, true, true, true, true, false, false, false, false, false, true]

    static func text(_ bytes: ByteBuffer?) -> String? { bytes.map { String(buffer: $0) } }

    static func integer(_ bytes: ByteBuffer?) -> Int64? {
        guard let bytes, bytes.readableBytes == 8 else { return nil }
        return bytes.getInteger(at: bytes.readerIndex, endianness: .big, as: Int64.self)
    }
}

struct PostgresQueryRow: QueryRow {
    let row: PostgresRandomAccessRow

    private func cell(_ column: String) throws -> PostgresCell {
        guard row.contains(column) else { throw StoreError.failed(operation: "reading a row", reason: "no column \(column)") }
        return row[column]
    }

    func text(_ column: String) throws -> String? { try cell(column).decode(String?.self) }
    func integer(_ column: String) throws -> Int64? { try cell(column).decode(Int64?.self) }

    func value(_ column: String) throws -> SQLArgument {
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
