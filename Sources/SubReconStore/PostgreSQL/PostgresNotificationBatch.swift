import PostgresNIO
import SubReconModel

/// Stores a batch of notifications in one transaction with a fixed number of round trips, whatever
/// the batch's size (BEGIN, six statements, COMMIT; a notification alone costs the same): lock the
/// uuids; read their stored rows while finding and locking the receipts' users; read what is
/// stored for those receipts (3 queries); decide each notification in order through the run's
/// `StoredBatchState` (a notification sees the earlier ones' writes, as on SQLite, where the batch
/// is stored one after another); write every table in one statement. The results are those of
/// storing the notifications one after another.
package struct PostgresNotificationBatch: Sendable {
    package let writes: [NotificationWrite]
    package let worker: String

    /// What applying one notification did: its first receipt (ordered by user), and its changes.
    private struct Applied {
        var userID: String
        var receiptID: Int64
        var outcome: NotificationOutcome
        var changes = 0
    }

    package func store(_ connection: PostgresConnection) async throws -> [NotificationStoreResult] {
        let uuids = Array(Set(writes.map(\.notification.uuid)))
        _ = try await connection.execute(LockNotifications(uuids: uuids), logger: PostgresStore.quiet)

        // The first write of each uuid decides; a later one of the same uuid is a delivery more.
        var firstPosition: [String: Int] = [:]
        var candidates: [Int] = []
        for (position, write) in writes.enumerated() where firstPosition[write.notification.uuid] == nil {
            firstPosition[write.notification.uuid] = position
            if case .apply = write.plan, write.notification.originalTransactionID != nil { candidates.append(position) }
        }
        var stored: [String: (outcome: NotificationOutcome, userID: String?)] = [:]
        var targets: [Int: [(receiptID: Int64, userID: String)]] = [:]
        for try await row in try await connection.execute(
            ReadNotificationsLockingTargets(
                uuids: uuids, positions: candidates.map(Int64.init),
                originalTransactionIDs: candidates.map { writes[$0].notification.originalTransactionID ?? "" },
                transactionIDs: candidates.map {
                    writes[$0].notification.transactionID ?? writes[$0].notification.originalTransactionID ?? ""
                }), logger: PostgresStore.quiet)
        {
            if row.kind == "stored", let uuid = row.uuid {
                stored[uuid] = (NotificationOutcome(rawValue: row.outcome ?? "") ?? .applied, row.userID)
            } else if let position = row.position, let receiptID = row.receiptID, let userID = row.userID {
                targets[Int(position), default: []].append((receiptID, userID))
            }
        }
        // New, or stored while no receipt knew it (a retry, a backfill, the linking after an import).
        let applying = candidates.filter { stored[writes[$0].notification.uuid].map { $0.outcome == .unmatched } ?? true }
        let (rows, applied, events) = try await apply(applying, targets: targets, connection)

        var results: [NotificationStoreResult] = []
        var resultOf: [String: NotificationStoreResult] = [:]
        var inserts = JSONRecords(InsertNotifications.columns)
        var deliveries: [String: (count: Int64, receivedAt: Int64)] = [:]
        var deliveryOrder: [String] = []
        var links: [(uuid: String, applied: Applied)] = []
        for (position, write) in writes.enumerated() {
            let notification = write.notification
            let result: NotificationStoreResult
            if firstPosition[notification.uuid] != position, let first = resultOf[notification.uuid] {
                result = NotificationStoreResult(outcome: first.outcome, duplicate: true, userID: first.userID)
            } else if let existing = stored[notification.uuid] {
                if let done = applied[position] {
                    links.append((notification.uuid, done))
                    result = NotificationStoreResult(
                        outcome: done.outcome, duplicate: true, userID: done.userID, changes: done.changes)
                } else {
                    result = NotificationStoreResult(outcome: existing.outcome, duplicate: true, userID: existing.userID)
                }
            } else {
                let done = applied[position]
                let outcome: NotificationOutcome
                switch write.plan {
                case .record(let fixed): outcome = fixed
                case .apply: outcome = done?.outcome ?? .unmatched
                }
                inserts.append(
                    NotificationSQL.insertArguments(
                        notification, userID: done?.userID, receiptID: done?.receiptID, outcome: outcome))
                result = NotificationStoreResult(
                    outcome: outcome, duplicate: false, userID: done?.userID, changes: done?.changes ?? 0)
            }
            if result.duplicate, write.countsAsDelivery {
                if deliveries[notification.uuid] == nil { deliveryOrder.append(notification.uuid) }
                deliveries[notification.uuid, default: (0, 0)].count += 1
                deliveries[notification.uuid]?.receivedAt = notification.receivedAtMs
            }
            resultOf[notification.uuid] = result
            results.append(result)
        }

        if rows.subscriptions.count + rows.renewals.count + rows.receipts.count + rows.changes.count + inserts.count > 0 {
            _ = try await connection.execute(
                WriteNotificationRows(
                    subscriptions: rows.subscriptions, renewals: rows.renewals, receipts: rows.receipts,
                    changes: rows.changes, notifications: inserts), logger: PostgresStore.quiet)
        }
        // After the renewal records are in: a cancellation may fill one this batch inserted.
        if rows.cancellations.count > 0 {
            _ = try await connection.execute(FillRenewalCancellations(json: rows.cancellations.json), logger: PostgresStore.quiet)
        }
        if rows.revisions.count > 0 {
            _ = try await connection.execute(ReviseRenewalLedgers(json: rows.revisions.json), logger: PostgresStore.quiet)
        }
        // After the notification rows are in: a uuid that arrived twice in this batch counts its
        // second delivery on its new row.
        if !deliveryOrder.isEmpty {
            _ = try await connection.execute(
                CountNotificationDeliveries(
                    uuids: deliveryOrder, counts: deliveryOrder.map { deliveries[$0]?.count ?? 0 },
                    receivedAt: deliveryOrder.map { deliveries[$0]?.receivedAt ?? 0 }), logger: PostgresStore.quiet)
        }
        if !links.isEmpty {
            _ = try await connection.execute(
                LinkNotifications(
                    uuids: links.map(\.uuid), userIDs: links.map(\.applied.userID),
                    receiptIDs: links.map(\.applied.receiptID), outcomes: links.map(\.applied.outcome.rawValue)),
                logger: PostgresStore.quiet)
        }
        // Last: the events' positions are taken just before the commit (see PostgresEventWriter).
        try await PostgresEventWriter.write(events, connection)
        return results
    }

    /// Decides the notifications at `positions` for every receipt holding their subscriptions
    /// (`targets`, whose users are locked), as a run's batch: the rows to write, and what each
    /// did (a position no receipt knows is missing).
    private func apply(
        _ positions: [Int], targets: [Int: [(receiptID: Int64, userID: String)]], _ connection: PostgresConnection
    ) async throws -> (PostgresBatchRows, [Int: Applied], EventBatch) {
        var items: [ReceiptReconciliation] = []
        var owners: [Int] = []
        for position in positions {
            guard case .apply(let keys, let decide) = writes[position].plan, let found = targets[position] else { continue }
            for (receiptID, userID) in found {
                items.append(
                    ReceiptReconciliation(
                        receipt: ReceiptToVerify(id: receiptID, userID: userID, receiptData: "", environment: nil),
                        periodKeys: keys, decide: decide))
                owners.append(position)
            }
        }
        guard !items.isEmpty else { return (PostgresBatchRows([], digests: [], runID: nil), [:], EventBatch()) }
        var state = try await StoredBatchState.read(items, connection)
        let updates = items.map { state.decide($0) }
        let rows = PostgresBatchRows(
            updates, digests: updates.map { _ in nil }, runID: nil,
            notificationUUIDs: owners.map { writes[$0].notification.uuid })
        var applied: [Int: Applied] = [:]
        for (update, position) in zip(updates, owners) {
            if applied[position] == nil {
                let outcome = NotificationSQL.outcome(
                    of: update, originalTransactionID: writes[position].notification.originalTransactionID)
                applied[position] = Applied(userID: update.userID, receiptID: update.receiptID, outcome: outcome)
            }
            applied[position]?.changes += update.subscriptionChanges.count
        }
        let changed = updates.filter { !$0.subscriptionChanges.isEmpty }.map(\.receiptID)
        let apps = changed.isEmpty ? [:] : try await PostgresEventWriter.apps(ofReceipts: changed, connection)
        let events = PostgresEventWriter.batch(
            updates,
            origins: owners.map { EventOrigin(source: .notification, notificationUUID: writes[$0].notification.uuid) },
            apps: apps, notificationApps: owners.map { writes[$0].notification.bundleID })
        return (rows, applied, events)
    }
}
