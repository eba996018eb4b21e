import GRDB
import SubReconModel

extension AppDatabase: NotificationStore {
    public func storeNotifications(_ writes: [NotificationWrite]) async throws(StoreError) -> [NotificationStoreResult] {
        // One transaction: each notification row, and every subscription, renewal record, receipt
        // row and change it causes, are all in or all out. In order: a later one sees the earlier
        // ones' rows.
        try await write(writes.count == 1 ? "storing a notification" : "storing \(writes.count) notifications") { db in
            try writes.map { try Self.store($0.notification, plan: $0.plan, countsAsDelivery: $0.countsAsDelivery, db: db) }
        }
    }

    // Statements come from the connection's cache: compiling them on every notification (SQLite's
    // parser plus GRDB's authorizer callbacks) showed in the receiver's profile (docs/performance.md,
    // "Notifications receiver").
    private static func store(
        _ notification: StoredNotification, plan: NotificationPlan, countsAsDelivery: Bool, db: Database
    ) throws -> NotificationStoreResult {
        if let row = try Row.fetchOne(db.cachedStatement(sql: NotificationSQL.existing), arguments: [notification.uuid]) {
            let stored = NotificationOutcome(rawValue: row["outcome"] as String) ?? .applied
            if countsAsDelivery {
                try db.cachedStatement(sql: NotificationSQL.countDelivery).execute(arguments: [notification.receivedAtMs, notification.uuid])
            }
            // A notification still waiting for its receipt is tried again (a retry, a backfill,
            // or the linking after an import).
            guard stored == .unmatched, case .apply(let keys, let decide) = plan,
                let applied = try apply(notification, periodKeys: keys, decide: decide, db: db)
            else { return NotificationStoreResult(outcome: stored, duplicate: true, userID: row["user_id"]) }
            try db.cachedStatement(sql: NotificationSQL.link).execute(
                arguments: [applied.userID, applied.receiptID, applied.outcome.outcome.rawValue, notification.uuid])
            return NotificationStoreResult(
                outcome: applied.outcome.outcome, duplicate: true, userID: applied.userID, changes: applied.outcome.changes)
        }
        var outcome: NotificationOutcome
        var userID: String? = nil
        var receiptID: Int64? = nil
        var changes = 0
        switch plan {
        case .record(let fixed):
            outcome = fixed
        case .apply(let keys, let decide):
            if let applied = try apply(notification, periodKeys: keys, decide: decide, db: db) {
                (outcome, changes) = (applied.outcome.outcome, applied.outcome.changes)
                (userID, receiptID) = (applied.userID, applied.receiptID)
            } else {
                outcome = .unmatched
            }
        }
        try db.cachedStatement(sql: NotificationSQL.insert).execute(
            arguments: StatementArguments(
                NotificationSQL.insertArguments(notification, userID: userID, receiptID: receiptID, outcome: outcome)
                    .map { $0.databaseValue }))
        return NotificationStoreResult(outcome: outcome, duplicate: false, userID: userID, changes: changes)
    }

    public func linkableNotifications(limit: Int) async throws(StoreError) -> [LinkableNotification] {
        try await read("finding notifications that can be linked") { db in
            try Row.fetchAll(db, sql: NotificationSQL.linkable, arguments: [limit]).map { row in
                LinkableNotification(uuid: row[0], signedPayload: row[1])
            }
        }
    }

    /// Applies `notification` to every receipt holding its subscription; nil when none does.
    private static func apply(
        _ notification: StoredNotification, periodKeys: [String], decide: (ReceiptSnapshot) -> ReceiptUpdate,
        db: Database
    ) throws -> (userID: String, receiptID: Int64, outcome: NotificationApplyResult)? {
        guard let otid = notification.originalTransactionID else { return nil }
        var targets = try Row.fetchAll(db.cachedStatement(sql: NotificationSQL.receiptsBySubscription), arguments: [otid])
        if targets.isEmpty {
            targets = try Row.fetchAll(
                db.cachedStatement(sql: NotificationSQL.receiptsByTransaction),
                arguments: [otid, notification.transactionID ?? otid])
        }
        guard let first = targets.first else { return nil }
        let reader = try SnapshotReader(db)
        let writer = try UpdateWriter(db)
        var result = NotificationApplyResult()
        var events = EventBatch()
        let origin = EventOrigin(source: .notification, notificationUUID: notification.uuid)
        for (index, target) in targets.enumerated() {
            let receipt = ReceiptToVerify(
                id: target["receipt_id"], userID: target["user_id"], receiptData: "", environment: nil)
            let update = decide(try reader.snapshot(receipt: receipt, periodKeys: periodKeys))
            try writer.apply(
                update, runID: nil, notificationUUID: notification.uuid, digest: nil, origin: origin,
                app: notification.bundleID, events: &events)
            result.changes += update.subscriptionChanges.count
            if index == 0 { result.outcome = NotificationSQL.outcome(of: update, originalTransactionID: otid) }
        }
        try SQLiteEventWriter.write(events, db: db)
        return (first["user_id"], first["receipt_id"], result)
    }
}
