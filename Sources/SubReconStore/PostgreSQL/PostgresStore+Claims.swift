import PostgresNIO
import SubReconModel

/// Several workers split the due receipts by claiming them (see docs/postgresql.md, "How the
/// workers split the nightly run"):
/// a short transaction picks due, unclaimed receipts with `FOR UPDATE SKIP LOCKED` and stamps
/// them `claimed_by`/`claimed_until`; the worker's heartbeat renews its claims, each receipt's
/// write clears its claim, and a claim that ran out (its worker died) is released by whoever
/// claims next.
extension PostgresStore: ClaimStore {
    public func countReceipts(_ selection: ReceiptSelection, app: AppScope, nowMs: Int64) async throws(StoreError) -> Int {
        let (filter, appArguments) = Self.appFilter(app)
        return try await withConnection("counting receipts") { connection in
            let count: Int64? =
                switch selection {
                case .due:
                    // What is left for the workers (this one's share is not known in advance).
                    try await connection.integer(
                        """
                        SELECT COUNT(*) FROM receipts WHERE next_due_at <= ? AND (last_attempt_at IS NULL OR last_attempt_at < ?)
                            AND (claimed_by IS NULL OR claimed_until < \(PostgresSchema.nowMs))\(filter)
                        """, [.integer(nowMs), .integer(nowMs)] + appArguments)
                case .duePreview:
                    try await connection.integer(
                        "SELECT COUNT(*) FROM receipts WHERE next_due_at <= ?\(filter)", [.integer(nowMs)] + appArguments)
                case .all:
                    try await connection.integer("SELECT COUNT(*) FROM receipts WHERE TRUE\(filter)", appArguments)
                case .user(let userID):
                    try await connection.integer(
                        "SELECT COUNT(*) FROM receipts WHERE user_id = ?\(filter)", [.text(userID)] + appArguments)
                }
            return Int(count ?? 0)
        }
    }

    public func countReceiptsWithoutApp() async throws(StoreError) -> Int {
        try await withConnection("counting receipts without an app") { connection in
            Int(try await connection.integer(ImportSQL.receiptsWithoutApp) ?? 0)
        }
    }

    /// The condition (and its argument) limiting a selection to one app; nothing for every app.
    static func appFilter(_ app: AppScope) -> (sql: String, arguments: [SQLArgument]) {
        guard let bundleID = app.bundleID else { return ("", []) }
        return (" AND bundle_id = ?", [.text(bundleID)])
    }

    /// `.due`: claims the next `limit` due receipts of `app` for this worker (`after` is not
    /// needed: a claimed or written receipt is no longer due-and-unclaimed). `.all` and `.user`:
    /// keyset pages, as on SQLite (`run --all` and `user` don't split).
    public func receipts(
        _ selection: ReceiptSelection, app: AppScope, after: ReceiptCursorPosition, limit: Int, nowMs: Int64,
        detail: ReceiptDetail
    )
        async throws(StoreError) -> [ReceiptToVerify]
    {
        let columns = detail == .withServerAPIContext ? Self.serverAPIColumns : ReceiptToVerify.verifyReceiptColumns
        let (filter, appArguments) = Self.appFilter(app)
        switch selection {
        case .due:
            return try await claimDue(limit: limit, dueBy: nowMs, columns: columns, app: app)
        case .duePreview:
            return try await withConnection("reading receipts to verify") { connection in
                try await connection.all(
                    """
                    SELECT \(columns) FROM receipts
                    WHERE next_due_at <= ? AND (next_due_at > ? OR (next_due_at = ? AND id > ?))\(filter)
                    ORDER BY next_due_at, id LIMIT ?
                    """,
                    [.integer(nowMs), .integer(after.nextDueAt), .integer(after.nextDueAt), .integer(after.id)]
                        + appArguments + [.integer(Int64(limit))], ReceiptToVerify.init(postgresRow:))
            }
        case .all:
            return try await withConnection("reading receipts to verify") { connection in
                try await connection.all(
                    "SELECT \(columns) FROM receipts WHERE id > ?\(filter) ORDER BY id LIMIT ?",
                    [.integer(after.id)] + appArguments + [.integer(Int64(limit))], ReceiptToVerify.init(postgresRow:))
            }
        case .user(let userID):
            return try await withConnection("reading receipts to verify") { connection in
                try await connection.all(
                    "SELECT \(columns) FROM receipts WHERE user_id = ? AND id > ?\(filter) ORDER BY id LIMIT ?",
                    [.text(userID), .integer(after.id)] + appArguments + [.integer(Int64(limit))],
                    ReceiptToVerify.init(postgresRow:))
            }
        }
    }

    /// Claims up to `limit` receipts due by `dueBy` (the run's start) and not attempted since: a
    /// receipt this run wrote, or failed and left due, is not claimed again in it.
    package func claimDue(limit: Int, dueBy: Int64, columns: String, app: AppScope = .every)
        async throws(StoreError) -> [ReceiptToVerify]
    {
        let (worker, timeout) = (worker, claimTimeoutMs)
        let (filter, appArguments) = Self.appFilter(app)
        // The partial index receipts_due_unclaimed (receipts_app_due_unclaimed for one app)
        // serves the inner query; SKIP LOCKED lets workers claiming at the same moment take
        // different receipts instead of waiting.
        @Sendable func pick(_ connection: PostgresConnection, limit: Int) async throws -> [ReceiptToVerify] {
            try await connection.all(
                """
                WITH picked AS (
                    SELECT id FROM receipts
                    WHERE next_due_at <= ? AND claimed_by IS NULL AND (last_attempt_at IS NULL OR last_attempt_at < ?)\(filter)
                    ORDER BY next_due_at, id LIMIT ?
                    FOR UPDATE SKIP LOCKED)
                UPDATE receipts SET claimed_by = ?, claimed_until = \(PostgresSchema.nowMs) + ?
                FROM picked WHERE receipts.id = picked.id
                RETURNING \(Self.qualified(columns))
                """,
                [.integer(dueBy), .integer(dueBy)] + appArguments
                    + [.integer(Int64(limit)), .text(worker), .integer(timeout)],
                ReceiptToVerify.init(postgresRow:))
        }
        // The rescuer releases claims whose worker stopped renewing them. It runs once per
        // quarter of a claim's life, and whenever a claim comes back short, so lapsed claims
        // are picked up before this worker runs out of work; on every claim, its scan over the
        // run's churned rows cost a big first run a tenth of the database's CPU.
        let rescueFirst = connection.claimRescueIsDue(every: .milliseconds(max(1_000, timeout / 4)))
        return try await withTransaction("claiming due receipts") { connection in
            // Claims live in the database's clock, so hosts whose clocks disagree agree on when a
            // claim runs out.
            func rescue() async throws {
                try await connection.run(
                    """
                    UPDATE receipts SET claimed_by = NULL, claimed_until = NULL
                    WHERE claimed_by IS NOT NULL AND claimed_until < \(PostgresSchema.nowMs)
                    """)
            }
            if rescueFirst { try await rescue() }
            var picked = try await pick(connection, limit: limit)
            if !rescueFirst, picked.count < limit {
                try await rescue()
                picked += try await pick(connection, limit: limit - picked.count)
            }
            return picked.sorted { ($0.nextDueAt, $0.id) < ($1.nextDueAt, $1.id) }
        }
    }

    /// Gives back what this worker claimed and did not write, so the next worker need not wait
    /// for the claims to run out.
    public func releaseClaims() async throws(StoreError) {
        let worker = worker
        try await withConnection("releasing claims") { connection in
            try await connection.run(
                "UPDATE receipts SET claimed_by = NULL, claimed_until = NULL WHERE claimed_by = ?", [.text(worker)])
        }
    }

    /// `ReceiptToVerify.selectedColumns` in PostgreSQL's words (`string_agg` for `group_concat`).
    package static let serverAPIColumns = """
        id, user_id, receipt_data, environment, next_due_at, transaction_id, history_revision,
        (SELECT string_agg(original_transaction_id || ' ' || COALESCE(latest_transaction_id, ''), ',')
           FROM subscriptions WHERE receipt_id = receipts.id) AS known_subscriptions
        """

    /// Columns of `receipts` named unambiguously in `UPDATE … FROM picked RETURNING`.
    package static func qualified(_ columns: String) -> String {
        columns.replacingOccurrences(of: "id, user_id,", with: "receipts.id, user_id,")
    }
}

extension ReceiptToVerify {
    package init(postgresRow row: PostgresRandomAccessRow) throws {
        let environment = try row["environment"].decode(String?.self)
        var context = ServerAPIContext()
        if row.contains("transaction_id") { context.importedTransactionID = try row["transaction_id"].decode(String?.self) }
        if row.contains("history_revision") { context.historyRevision = try row["history_revision"].decode(String?.self) }
        if row.contains("known_subscriptions"), let known = try row["known_subscriptions"].decode(String?.self) {
            context.knownSubscriptions = Self.knownSubscriptions(known)
        }
        self.init(
            id: try row["id"].decode(Int64.self), userID: try row["user_id"].decode(String.self),
            receiptData: try row["receipt_data"].decode(String?.self) ?? "",
            environment: environment.flatMap(ReceiptEnvironment.init(rawValue:)),
            nextDueAt: try row["next_due_at"].decode(Int64.self), serverAPI: context)
    }
}
