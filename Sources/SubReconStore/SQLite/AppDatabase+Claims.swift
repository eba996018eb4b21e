import GRDB
import SubReconModel

/// One machine, one nightly run at a time (the run lock): due receipts are paged, not claimed.
extension AppDatabase: ClaimStore {
    public var splitsDueReceipts: Bool { false }
    public func releaseClaims() async throws(StoreError) {}
    /// The run lock's default lease (`ReconciliationRun.Options.leaseMs`).
    public var claimTimeoutMs: Int64 { 120_000 }

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
}
