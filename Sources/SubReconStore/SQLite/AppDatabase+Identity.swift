import GRDB
import SubReconModel

extension AppDatabase: IdentityStore {
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

    public func recordLink(userID: String, originalTransactionID otid: String, bundleID: String?, token: String, nowMs: Int64)
        async throws(StoreError)
    {
        try await write("recording the link") { db in
            let holds = try Int.fetchOne(db, sql: IdentitySQL.userHolds, arguments: [userID, otid]) ?? 0
            let row = ImportRow.link(userID: userID, originalTransactionID: otid, userHoldsIt: holds > 0, bundleID: bundleID, token: token)
            _ = try Self.importRows([row], digests: [row.versionDigest], nowMs: nowMs, db: db)
        }
    }

    public func forgetUser(_ userID: String, pseudonym: String, dryRun: Bool, defaultApp: String?, nowMs: Int64)
        async throws(StoreError) -> ForgetSummary
    {
        try await write("forgetting a user") { db in
            var summary = ForgetSummary()
            try db.inSavepoint {
                let apps = try String.fetchAll(db, sql: ForgetSQL.userApps, arguments: [userID])
                for step in ForgetSQL.Step.allCases {
                    let (sql, pseudonymFirst) = ForgetSQL.statement(step)
                    try db.execute(sql: sql, arguments: pseudonymFirst ? [pseudonym, userID] : [userID])
                    ForgetSQL.count(db.changesCount, of: step, into: &summary)
                }
                try SQLiteEventWriter.write(
                    ForgetSQL.forgottenEvents(userID: userID, apps: apps, defaultApp: defaultApp, nowMs: nowMs),
                    db: db)
                return dryRun ? .rollback : .commit
            }
            return summary
        }
    }

    public func movePurchase(_ otid: String, from holders: [String], to userID: String, token: String?, nowMs: Int64)
        async throws(StoreError) -> Int
    {
        try await write("moving a purchase to its user") { db in
            let runID = try Int64.fetchOne(
                db, sql: PurchaseHoldersSQL.moveRun, arguments: [nowMs, nowMs, holders.count, userID]) ?? 0
            var changes = 0
            var events = EventBatch()
            for holder in holders {
                if let held = try StoredSubscription.fetchOne(
                    db, sql: PurchaseHoldersSQL.holderSubscription, arguments: [otid, holder])
                {
                    let app = try SQLiteEventWriter.app(ofReceipt: held.receiptID, db: db)
                    events.append(.purchaseMoved(from: held, app: app, runID: runID, id: EventID.make(), createdAtMs: nowMs))
                }
                for step in PurchaseHoldersSQL.Step.allCases {
                    let arguments = PurchaseHoldersSQL.arguments(
                        step, runID: runID, nowMs: nowMs, otid: otid, user: userID, holder: holder)
                    try db.execute(
                        sql: PurchaseHoldersSQL.statement(step), arguments: StatementArguments(arguments.map(\.databaseValue)))
                    if step == .recordChange { changes += db.changesCount }
                }
            }
            if let token {
                try db.execute(sql: PurchaseHoldersSQL.moveToken, arguments: [userID, token])
            }
            try SQLiteEventWriter.write(events, db: db)
            return changes
        }
    }
}
