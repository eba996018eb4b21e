import PostgresNIO
import SubReconModel

/// A batch's rows for each table, as `jsonb_to_recordset` reads them: one row per subscription
/// and per receipt (the last decision; see below), every new renewal record, cancellation,
/// receipt version, run item and change. The same rows SQLite's `UpdateWriter` writes one by one.
package struct PostgresBatchRows {
    package var subscriptions: JSONRecords
    package var renewals: JSONRecords
    package var cancellations: JSONRecords
    package var revisions: JSONRecords
    package var receipts: JSONRecords
    package var versions: JSONRecords
    package var runItems: JSONRecords
    package var changes: JSONRecords

    /// A run's updates record run items and changes under `runID`; notifications' (no run) record
    /// their changes under the uuid of the notification each update applies (`notificationUUIDs`,
    /// one per update).
    package init(_ updates: [ReceiptUpdate], digests: [ReceiptDigest?], runID: Int64?, notificationUUIDs: [String] = []) {
        subscriptions = JSONRecords(InsertSubscriptions.columns)
        renewals = JSONRecords(InsertRenewals.columns)
        cancellations = JSONRecords(FillRenewalCancellations.columns)
        revisions = JSONRecords(ReviseRenewalLedgers.columns)
        receipts = JSONRecords(UpdateReceipts.columns)
        versions = JSONRecords(InsertReceiptVersions.columns)
        runItems = JSONRecords(UpsertRunItems.columns)
        changes = JSONRecords(InsertSubscriptionChanges.columns)

        // One row per subscription: a later receipt of the batch decided against the earlier
        // one's row, so its row is the final one (and one statement may not upsert a key twice).
        var lastWrite: [String: StoredSubscription] = [:]
        var order: [String] = []
        for update in updates {
            for s in update.subscriptions {
                let key = s.userID + "\u{0}" + s.originalTransactionID
                if lastWrite.updateValue(s, forKey: key) == nil { order.append(key) }
            }
        }
        for key in order {
            guard let s = lastWrite[key] else { continue }
            subscriptions.append([
                .text(s.userID), .text(s.originalTransactionID), SQLArgument(s.receiptID), .text(s.productID),
                .text(s.status.rawValue), .integer(s.expiresDateMs), Self.flag(s.autoRenewStatus),
                SQLArgument(s.autoRenewProductID), SQLArgument(s.expirationIntent.map(Int64.init)),
                SQLArgument(s.gracePeriodExpiresDateMs), Self.flag(s.isInBillingRetry), SQLArgument(s.cancellationDateMs),
                SQLArgument(s.ownershipType), .text(s.environment.rawValue), .integer(s.lastVerifiedAt),
                .integer(s.firstSeenAt), .integer(s.updatedAt), SQLArgument(s.flag), SQLArgument(s.latestTransactionID),
                SQLArgument(s.appAccountToken), SQLArgument(s.appTransactionID),
            ])
        }
        // One row per receipt, too: several notifications of one batch may touch one receipt. The
        // last decision wins; a column it leaves unset (NULL, kept by COALESCE) keeps the earlier one's.
        var lastRevision: [String: RenewalRecord] = [:]
        var revisionOrder: [String] = []
        var receiptRows: [Int64: [SQLArgument]] = [:]
        var receiptOrder: [Int64] = []
        for (index, (update, digest)) in zip(updates, digests).enumerated() {
            let notificationUUID = index < notificationUUIDs.count ? notificationUUIDs[index] : nil
            for r in update.newRenewals {
                renewals.append(r.insertValues)
            }
            for c in update.renewalCancellations {
                cancellations.append([
                    .text(update.userID), .text(c.periodKey), .integer(c.cancellationDateMs), SQLArgument(c.refundMilliunits),
                ])
            }
            for r in update.renewalRevisions {
                // One UPDATE may set a row once: the newest signed data of the batch wins.
                let key = r.userID + "\u{0}" + r.periodKey
                if let earlier = lastRevision[key], earlier.hasNewerLedger(than: r) { continue }
                if lastRevision.updateValue(r, forKey: key) == nil { revisionOrder.append(key) }
            }
            if let change = update.receipt {
                let sha256 = change.newReceiptData.map { ReceiptDigest.sha256Hex(of: $0, precomputed: digest) }
                var row: [SQLArgument] = [
                    .integer(update.receiptID), SQLArgument(change.newReceiptData), SQLArgument(change.environment?.rawValue),
                    .integer(change.nextDueAt), .integer(change.attemptedAt), SQLArgument(change.verifiedAt),
                    SQLArgument(change.appleStatus.map(Int64.init)), .text(change.verificationState),
                    .integer(Int64(change.consecutiveFailures)), SQLArgument(change.message),
                    SQLArgument(change.historyRevision), SQLArgument(sha256),
                ]
                if let earlier = receiptRows[update.receiptID] {
                    for column in UpdateReceipts.coalescedColumns where row[column] == .null { row[column] = earlier[column] }
                } else {
                    receiptOrder.append(update.receiptID)
                }
                receiptRows[update.receiptID] = row
                if let sha256 {
                    versions.append([.text(update.userID), .text(sha256), .integer(update.receiptID), .integer(change.attemptedAt)])
                }
            }
            if let runID {
                let item = update.runItem
                runItems.append([
                    .integer(runID), .integer(item.receiptID), .text(item.userID), .text(item.outcome.rawValue),
                    SQLArgument(item.appleStatus.map(Int64.init)), SQLArgument(item.environment?.rawValue),
                    SQLArgument(item.oldStatus?.rawValue), SQLArgument(item.newStatus?.rawValue),
                    SQLArgument(item.oldExpiresDateMs), SQLArgument(item.newExpiresDateMs), SQLArgument(item.message),
                    .integer(item.recordedAt),
                ])
            }
            guard runID != nil || notificationUUID != nil else { continue }
            for c in update.subscriptionChanges {
                changes.append([
                    SQLArgument(runID), .text(c.userID), .text(c.originalTransactionID), SQLArgument(c.receiptID),
                    .text(c.kind.rawValue), SQLArgument(c.oldStatus?.rawValue), .text(c.newStatus.rawValue),
                    SQLArgument(c.oldProductID), .text(c.newProductID), SQLArgument(c.oldExpiresDateMs),
                    .integer(c.newExpiresDateMs), Self.flag(c.oldAutoRenewStatus), Self.flag(c.newAutoRenewStatus),
                    SQLArgument(c.oldAutoRenewProductID), SQLArgument(c.newAutoRenewProductID), .integer(c.recordedAt),
                    SQLArgument(notificationUUID),
                ])
            }
        }
        for id in receiptOrder { if let row = receiptRows[id] { receipts.append(row) } }
        for key in revisionOrder {
            guard let r = lastRevision[key] else { continue }
            revisions.append(r.ledgerValues + [.text(r.userID), .text(r.periodKey)])
        }
    }

    private static func flag(_ value: Bool?) -> SQLArgument { value.map { .integer($0 ? 1 : 0) } ?? .null }
}
