import PostgresNIO

extension PostgresStore {
    public func storeNotification(
        _ notification: StoredNotification, plan: NotificationPlan, countsAsDelivery: Bool, nowMs: Int64
    ) async throws(StoreError) -> NotificationStoreResult {
        let worker = worker
        // One transaction: the notification row and everything it changes are in or out together.
        return try await withTransaction("storing a notification") { connection in
            // Two deliveries of one notification (Apple retrying while the first is being
            // written, or a backfill beside the receiver) take turns on its uuid.
            // (Not one statement with the check below: that one's snapshot must come after the lock.)
            _ = try await connection.execute(LockNotification(arguments: [.text(notification.uuid)]), logger: Self.quiet)
            var existing: (String, String?)? = nil
            for try await row in try await connection.execute(
                ExistingNotification(arguments: [.text(notification.uuid)]), logger: Self.quiet)
            {
                if existing == nil { existing = row }
            }
            if let existing {
                let stored = NotificationOutcome(rawValue: existing.0) ?? .applied
                if countsAsDelivery {
                    _ = try await connection.execute(
                        CountNotificationDelivery(arguments: [.integer(notification.receivedAtMs), .text(notification.uuid)]),
                        logger: Self.quiet)
                }
                guard stored == .unmatched, case .apply(let keys, let decide) = plan,
                    let applied = try await Self.apply(
                        notification, periodKeys: keys, decide: decide, worker: worker, connection)
                else { return NotificationStoreResult(outcome: stored, duplicate: true, userID: existing.1) }
                _ = try await connection.execute(
                    LinkNotification(arguments: [
                        .text(applied.userID), .integer(applied.receiptID), .text(applied.outcome.outcome.rawValue),
                        .text(notification.uuid),
                    ]), logger: Self.quiet)
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
                if let applied = try await Self.apply(
                    notification, periodKeys: keys, decide: decide, worker: worker, connection)
                {
                    (outcome, changes) = (applied.outcome.outcome, applied.outcome.changes)
                    (userID, receiptID) = (applied.userID, applied.receiptID)
                } else {
                    outcome = .unmatched
                }
            }
            _ = try await connection.execute(
                InsertNotification(
                    arguments: NotificationSQL.insertArguments(
                        notification, userID: userID, receiptID: receiptID, outcome: outcome)), logger: Self.quiet)
            return NotificationStoreResult(outcome: outcome, duplicate: false, userID: userID, changes: changes)
        }
    }

    public func linkableNotifications(limit: Int) async throws(StoreError) -> [LinkableNotification] {
        try await withConnection("finding notifications that can be linked") { connection in
            try await connection.all(NotificationSQL.linkable, [.integer(Int64(limit))]) { row in
                LinkableNotification(uuid: try row[0].decode(String.self), signedPayload: try row[1].decode(String.self))
            }
        }
    }

    /// Applies `notification` to every receipt holding its subscription, under those users'
    /// locks (as a run's batch); nil when no receipt does.
    private static func apply(
        _ notification: StoredNotification, periodKeys: [String],
        decide: @escaping @Sendable (ReceiptSnapshot) -> ReceiptUpdate, worker: String, _ connection: PostgresConnection
    ) async throws -> (userID: String, receiptID: Int64, outcome: NotificationApplyResult)? {
        guard let otid = notification.originalTransactionID else { return nil }
        // The receipts, found and their users locked in one round trip.
        var found: [(Int64, String)] = []
        for try await row in try await connection.execute(
            LockNotificationTargets(arguments: [.text(otid), .text(notification.transactionID ?? otid)]), logger: quiet)
        {
            found.append(row)
        }
        guard let first = found.first else { return nil }
        let batch = found.map { receiptID, userID in
            ReceiptReconciliation(
                receipt: ReceiptToVerify(id: receiptID, userID: userID, receiptData: "", environment: nil),
                periodKeys: periodKeys, decide: decide)
        }
        var stored = try await StoredBatchState.read(batch, connection)
        let updates = batch.map { stored.decide($0) }
        try await PostgresUpdateWriter(connection: connection, worker: worker).write(
            updates, digests: updates.map { _ in nil }, receiptIDs: [], runID: nil, notificationUUID: notification.uuid)
        var result = NotificationApplyResult()
        result.outcome = NotificationSQL.outcome(of: updates[0], originalTransactionID: otid)
        result.changes = updates.reduce(0) { $0 + $1.subscriptionChanges.count }
        return (first.1, first.0, result)
    }
}
