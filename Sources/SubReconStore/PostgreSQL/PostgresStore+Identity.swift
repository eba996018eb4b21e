import PostgresNIO
import SubReconModel

extension PostgresStore: IdentityStore {
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

    public func recordLink(userID: String, originalTransactionID otid: String, bundleID: String?, token: String, nowMs: Int64)
        async throws(StoreError)
    {
        try await withTransaction("recording the link") { connection in
            let holds = try await connection.integer(IdentitySQL.userHolds, [.text(userID), .text(otid)]) ?? 0
            let row = ImportRow.link(userID: userID, originalTransactionID: otid, userHoldsIt: holds > 0, bundleID: bundleID, token: token)
            _ = try await Self.importRows([row], digests: [row.versionDigest], nowMs: nowMs, connection)
        }
    }

    public func movePurchase(_ otid: String, from holders: [String], to userID: String, token: String?, nowMs: Int64)
        async throws(StoreError) -> Int
    {
        try await withTransaction("moving a purchase to its user") { connection in
            let runID = try await connection.integer(
                PurchaseHoldersSQL.moveRun, [.integer(nowMs), .integer(nowMs), .integer(Int64(holders.count)), .text(userID)]) ?? 0
            var changes = 0
            var events = EventBatch()
            for holder in holders {
                let held = try await connection.all(PurchaseHoldersSQL.holderSubscription, [.text(otid), .text(holder)]) {
                    try StoredSubscription(postgresRow: $0)
                }
                if let held = held.first {
                    let apps = try await PostgresEventWriter.apps(ofReceipts: held.receiptID.map { [$0] } ?? [], connection)
                    events.append(
                        .purchaseMoved(
                            from: held, app: held.receiptID.flatMap { apps[$0] }, runID: runID, id: EventID.make(),
                            createdAtMs: nowMs))
                }
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
            try await PostgresEventWriter.write(events, connection)
            return changes
        }
    }

    public func forgetUser(_ userID: String, pseudonym: String, dryRun: Bool, defaultApp: String?, nowMs: Int64)
        async throws(StoreError) -> ForgetSummary
    {
        try await withTransaction("forgetting a user") { connection in
            var summary = ForgetSummary()
            // A dry run counts the same statements and takes them back.
            if dryRun { try await connection.query("SAVEPOINT forget_dry_run", logger: Self.quiet) }
            let apps = try await connection.all(ForgetSQL.userApps, [.text(userID)]) { try $0[0].decode(String.self) }
            for step in ForgetSQL.Step.allCases {
                let (sql, pseudonymFirst) = ForgetSQL.statement(step)
                let rows = try await connection.integer(
                    "WITH touched AS (\(sql) RETURNING 1) SELECT COUNT(*) FROM touched",
                    pseudonymFirst ? [.text(pseudonym), .text(userID)] : [.text(userID)])
                ForgetSQL.count(Int(rows ?? 0), of: step, into: &summary)
            }
            try await PostgresEventWriter.write(
                ForgetSQL.forgottenEvents(userID: userID, apps: apps, defaultApp: defaultApp, nowMs: nowMs),
                connection)
            if dryRun { try await connection.query("ROLLBACK TO SAVEPOINT forget_dry_run", logger: Self.quiet) }
            return summary
        }
    }
}
