import Foundation
import GRDB
import SubReconModel

extension AppDatabase: SubscriptionStore {
    public func countReceipts(_ selection: ReceiptSelection, app: AppScope, nowMs: Int64) async throws(StoreError) -> Int {
        let (filter, appBundleID) = Self.appFilter(app)
        return try await read("counting receipts") { db in
            switch selection {
            case .due, .duePreview:
                try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM receipts WHERE next_due_at <= ?\(filter)",
                    arguments: Self.arguments([nowMs], app: appBundleID)) ?? 0
            case .all:
                try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM receipts WHERE 1\(filter)", arguments: Self.arguments([], app: appBundleID)) ?? 0
            case .user(let userID):
                try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM receipts WHERE user_id = ?\(filter)",
                    arguments: Self.arguments([userID], app: appBundleID)) ?? 0
            }
        }
    }

    public func countReceiptsWithoutApp() async throws(StoreError) -> Int {
        try await read("counting receipts without an app") { db in
            try Int.fetchOne(db, sql: ImportSQL.receiptsWithoutApp) ?? 0
        }
    }

    /// The condition limiting a selection to one app (its argument is `app.bundleID`); nothing for every app.
    static func appFilter(_ app: AppScope) -> (sql: String, bundleID: String?) {
        guard let bundleID = app.bundleID else { return ("", nil) }
        return (" AND bundle_id = ?", bundleID)
    }

    /// `head`, the app's bundle ID when the selection is limited to one, then `tail`.
    static func arguments(
        _ head: [any DatabaseValueConvertible], app bundleID: String?, _ tail: [any DatabaseValueConvertible] = []
    ) -> StatementArguments {
        StatementArguments(head + (bundleID.map { [$0] } ?? []) + tail)
    }

    public func receipts(
        _ selection: ReceiptSelection, app: AppScope, after: ReceiptCursorPosition, limit: Int, nowMs: Int64,
        detail: ReceiptDetail
    )
        async throws(StoreError) -> [ReceiptToVerify]
    {
        let afterID = after.id
        let (filter, appBundleID) = Self.appFilter(app)
        return try await read("reading receipts to verify") { db in
            let columns = detail == .withServerAPIContext ? ReceiptToVerify.selectedColumns : ReceiptToVerify.verifyReceiptColumns
            switch selection {
            case .due, .duePreview:
                // Walks the (next_due_at, id) index, or (bundle_id, next_due_at, id) for one app:
                // a run over a million receipts of which a few thousand are due reads only those.
                // A receipt written in this run moves past `nowMs` (its next due time is later),
                // so it is never read twice.
                return try ReceiptToVerify.fetchAll(
                    db.cachedStatement(
                        sql: """
                            SELECT \(columns) FROM receipts
                            WHERE next_due_at <= ? AND (next_due_at > ? OR (next_due_at = ? AND id > ?))\(filter)
                            ORDER BY next_due_at, id LIMIT ?
                            """),
                    arguments: Self.arguments([nowMs, after.nextDueAt, after.nextDueAt, after.id], app: appBundleID, [limit]))
            case .all:
                return try ReceiptToVerify.fetchAll(
                    db.cachedStatement(sql: "SELECT \(columns) FROM receipts WHERE id > ?\(filter) ORDER BY id LIMIT ?"),
                    arguments: Self.arguments([afterID], app: appBundleID, [limit]))
            case .user(let userID):
                return try ReceiptToVerify.fetchAll(
                    db.cachedStatement(
                        sql: "SELECT \(columns) FROM receipts WHERE user_id = ? AND id > ?\(filter) ORDER BY id LIMIT ?"),
                    arguments: Self.arguments([userID, afterID], app: appBundleID, [limit]))
            }
        }
    }

    public func startRun(kind: RunKind, targetUserID: String?, receiptsTotal: Int, nowMs: Int64)
        async throws(StoreError) -> Int64
    {
        try await write("recording the start of a run") { db in
            try db.execute(
                sql: """
                    INSERT INTO runs (kind, started_at, status, receipts_total, target_user_id, pid, host, heartbeat_at)
                    VALUES (?, ?, 'running', ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    kind.rawValue, nowMs, receiptsTotal, targetUserID, Int(getpid()),
                    ProcessInfo.processInfo.hostName, nowMs,
                ])
            return db.lastInsertedRowID
        }
    }

    public func finishRun(id: Int64, status: RunStatus, exitCode: Int32, nowMs: Int64, receiptsTotal: Int?)
        async throws(StoreError)
    {
        try await write("recording the end of a run") { db in
            try db.execute(
                sql: """
                    UPDATE runs SET finished_at = ?, status = ?, exit_code = ?, receipts_total = COALESCE(?, receipts_total)
                    WHERE id = ?
                    """,
                arguments: [nowMs, status.rawValue, Int(exitCode), receiptsTotal, id])
        }
    }

    public func subscriptions(ofUser userID: String) async throws(StoreError) -> [StoredSubscription] {
        try await read("reading a user's subscriptions") { db in
            try StoredSubscription.fetchAll(
                db, sql: "SELECT * FROM subscriptions WHERE user_id = ? ORDER BY original_transaction_id",
                arguments: [userID])
        }
    }

    public func reconcile(_ batch: [ReceiptReconciliation], runID: Int64?, write: Bool)
        async throws(StoreError) -> [ReceiptUpdate]
    {
        if !write {
            return try await read("reading receipts' stored state") { db in
                let reader = try SnapshotReader(db)
                return try batch.map { item in
                    try item.decide(reader.snapshot(receipt: item.receipt, periodKeys: item.periodKeys))
                }
            }
        }
        // One transaction for the batch: each receipt's writes are all in or all out, and a
        // crash loses at most the batch, whose receipts are simply still due.
        return try await self.write("writing receipts' outcomes") { db in
            let reader = try SnapshotReader(db)
            let writer = try UpdateWriter(db)
            let updates = try batch.map { item in
                let snapshot = try reader.snapshot(receipt: item.receipt, periodKeys: item.periodKeys)
                let update = item.decide(snapshot)
                try writer.apply(update, runID: runID, digest: item.latestReceiptDigest, stored: snapshot.subscriptions)
                return update
            }
            if let runID { try Self.addToRunCounters(updates, runID: runID, db: db) }
            return updates
        }
    }

    /// The run's counters move once per batch, in the batch's transaction (see `RunCounters`).
    package static func addToRunCounters(_ updates: [ReceiptUpdate], runID: Int64, db: Database) throws {
        try db.cachedStatement(sql: RunCounters.sql).execute(
            arguments: StatementArguments(RunCounters(updates).arguments(runID: runID).map(\.databaseValue)))
    }

    // MARK: - Error wrapping at the boundary

    package func read<T: Sendable>(_ operation: String, _ body: @Sendable (Database) throws -> T) async throws(StoreError) -> T {
        do { return try await writer.read(body) } catch { throw Self.wrap(error, operation) }
    }

    package func write<T: Sendable>(_ operation: String, _ body: @Sendable (Database) throws -> T) async throws(StoreError) -> T {
        do { return try await writer.write(body) } catch { throw Self.wrap(error, operation) }
    }

    package static func wrap(_ error: any Error, _ operation: String) -> StoreError {
        if let error = error as? StoreError { return error }
        return .failed(operation: operation, reason: StoreError.reason(error))
    }
}

extension AppDatabase {
    /// Users whose subscriptions or renewal records carry this original_transaction_id.
    public func users(holdingOriginalTransactionID otid: String) async throws(StoreError) -> [String] {
        try await read("finding users by original_transaction_id") { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT user_id FROM subscriptions WHERE original_transaction_id = ?
                    UNION SELECT user_id FROM renewals WHERE original_transaction_id = ?
                    ORDER BY user_id
                    """, arguments: [otid, otid])
        }
    }
}
