import GRDB
import SubReconModel

/// Writes one receipt's `ReceiptUpdate` (subscriptions, renewal records, the receipt row, its
/// version, the run item and the subscription changes) inside the batch's transaction. Prepared
/// once per batch; values are bound through SQLite's C API (see `DirectStatement`).
package struct UpdateWriter {
    private let upsertSubscription: DirectStatement
    private let touchSubscription: DirectStatement
    private let insertRenewal: DirectStatement
    private let fillCancellation: DirectStatement
    private let reviseLedger: DirectStatement
    private let updateReceipt: DirectStatement
    private let insertVersion: DirectStatement
    private let upsertRunItem: DirectStatement
    private let insertChange: DirectStatement
    private let db: Database

    package init(_ db: Database) throws {
        self.db = db
        upsertSubscription = try DirectStatement(
            db,
            sql: """
                INSERT INTO subscriptions (user_id, original_transaction_id, receipt_id, product_id, status,
                    expires_date_ms, auto_renew_status, auto_renew_product_id, expiration_intent,
                    grace_period_expires_date_ms, is_in_billing_retry, cancellation_date_ms, ownership_type,
                    environment, last_verified_at, first_seen_at, updated_at, flag, latest_transaction_id,
                    app_account_token, app_transaction_id)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                \(SchemaSQL.subscriptionUpsert)
                """)
        // An unchanged answer changes only `last_verified_at`: SQLite re-indexes by the columns a
        // SET names, not by the values that change, so the upsert above would rewrite the
        // `subscriptions_receipt` entry and re-check every CHECK for nothing.
        touchSubscription = try DirectStatement(
            db, sql: "UPDATE subscriptions SET last_verified_at = ? WHERE user_id = ? AND original_transaction_id = ?")
        insertRenewal = try DirectStatement(
            db,
            sql: """
                INSERT INTO renewals (\(RenewalRecord.selectedColumns))
                VALUES (\(Array(repeating: "?", count: RenewalRecord.insertColumnCount).joined(separator: ", ")))
                \(SchemaSQL.renewalInsertOnce)
                """)
        fillCancellation = try DirectStatement(
            db,
            sql: """
                UPDATE renewals SET cancellation_date_ms = ?, refund_milliunits = ?
                WHERE user_id = ? AND period_key = ? AND cancellation_date_ms IS NULL
                """)
        reviseLedger = try DirectStatement(db, sql: SchemaSQL.renewalLedgerRevision)
        updateReceipt = try DirectStatement(
            db,
            sql: """
                UPDATE receipts SET
                    receipt_data = COALESCE(?, receipt_data), environment = COALESCE(?, environment),
                    next_due_at = ?, last_attempt_at = ?, last_verified_at = COALESCE(?, last_verified_at),
                    last_apple_status = ?, verification_state = ?, consecutive_failures = ?, last_message = ?,
                    history_revision = COALESCE(?, history_revision), receipt_sha256 = COALESCE(?, receipt_sha256)
                WHERE id = ?
                """)
        insertVersion = try DirectStatement(
            db,
            sql: """
                INSERT INTO receipt_versions (user_id, receipt_sha256, receipt_id, first_seen_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (user_id, receipt_sha256) DO NOTHING
                """)
        upsertRunItem = try DirectStatement(
            db,
            sql: """
                INSERT INTO run_items (run_id, receipt_id, user_id, outcome, apple_status, environment,
                    old_status, new_status, old_expires_date_ms, new_expires_date_ms, message, recorded_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                \(SchemaSQL.runItemUpsert)
                """)
        insertChange = try DirectStatement(
            db,
            sql: """
                INSERT INTO subscription_changes (run_id, user_id, original_transaction_id, receipt_id, change,
                    old_status, new_status, old_product_id, new_product_id, old_expires_date_ms,
                    new_expires_date_ms, old_auto_renew_status, new_auto_renew_status,
                    old_auto_renew_product_id, new_auto_renew_product_id, recorded_at, notification_uuid)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
    }

    /// Writes `update`; `digest` is the new receipt data's precomputed SHA-256, if at hand. A
    /// run's update records its run item and changes under `runID`; a notification's (no run)
    /// records its changes under `notificationUUID`. `stored` is the user's subscriptions as read
    /// in this transaction just before (the snapshot `update` was decided from), or empty: a row
    /// that differs from its stored one only in `last_verified_at` is written by that column alone
    /// (the same values afterwards as the upsert), one identical to it not at all.
    ///
    /// With `origin`, the update's changes are drafted into `events` (written by the caller at the
    /// end of the transaction), for the receipt's app or, when it names none, `app` (a
    /// notification's), else the deployment's one app.
    package func apply(
        _ update: ReceiptUpdate, runID: Int64?, notificationUUID: String? = nil, digest: ReceiptDigest?,
        stored: [String: StoredSubscription] = [:], origin: EventOrigin? = nil, app: String? = nil,
        events: inout EventBatch
    ) throws {
        // A row named twice in one update is compared with what the first write left, not with the
        // snapshot: both go through the upsert then (the reconciler writes each row once).
        let compareWithStored = !stored.isEmpty
            && (update.subscriptions.count < 2
                || Set(update.subscriptions.map(\.originalTransactionID)).count == update.subscriptions.count)
        for s in update.subscriptions {
            if compareWithStored, let old = stored[s.originalTransactionID], s.differsOnlyInLastVerifiedAt(from: old) {
                if s.lastVerifiedAt != old.lastVerifiedAt {
                    try touchSubscription.run(s.lastVerifiedAt, s.userID, s.originalTransactionID)
                }
                continue
            }
            try upsertSubscription.run(
                s.userID, s.originalTransactionID, s.receiptID, s.productID, s.status.rawValue, s.expiresDateMs,
                s.autoRenewStatus, s.autoRenewProductID, s.expirationIntent, s.gracePeriodExpiresDateMs,
                s.isInBillingRetry, s.cancellationDateMs, s.ownershipType, s.environment.rawValue, s.lastVerifiedAt,
                s.firstSeenAt, s.updatedAt, s.flag, s.latestTransactionID, s.appAccountToken, s.appTransactionID)
        }
        for r in update.newRenewals {
            try insertRenewal.run(values: r.insertValues)
        }
        for c in update.renewalCancellations {
            try fillCancellation.run(c.cancellationDateMs, c.refundMilliunits, update.userID, c.periodKey)
        }
        for r in update.renewalRevisions {
            try reviseLedger.run(values: r.ledgerValues + [.text(r.userID), .text(r.periodKey), SQLArgument(r.ledgerSignedDateMs)])
        }
        if let change = update.receipt {
            let sha256 = change.newReceiptData.map { ReceiptDigest.sha256Hex(of: $0, precomputed: digest) }
            try updateReceipt.run(
                change.newReceiptData, change.environment?.rawValue, change.nextDueAt, change.attemptedAt,
                change.verifiedAt, change.appleStatus, change.verificationState, change.consecutiveFailures,
                change.message, change.historyRevision, sha256, update.receiptID)
            if let sha256 { try insertVersion.run(update.userID, sha256, update.receiptID, change.attemptedAt) }
        }
        if let runID {
            let item = update.runItem
            try upsertRunItem.run(
                runID, item.receiptID, item.userID, item.outcome.rawValue, item.appleStatus, item.environment?.rawValue,
                item.oldStatus?.rawValue, item.newStatus?.rawValue, item.oldExpiresDateMs, item.newExpiresDateMs,
                item.message, item.recordedAt)
        }
        guard runID != nil || notificationUUID != nil else { return }
        if let origin, !update.subscriptionChanges.isEmpty {
            let receiptApp = try SQLiteEventWriter.app(ofReceipt: update.receiptID, db: db)
            events.append(changesOf: update, origin: origin, app: receiptApp ?? app ?? origin.defaultApp)
        }
        for c in update.subscriptionChanges {
            try insertChange.run(
                runID, c.userID, c.originalTransactionID, c.receiptID, c.kind.rawValue, c.oldStatus?.rawValue,
                c.newStatus.rawValue, c.oldProductID, c.newProductID, c.oldExpiresDateMs, c.newExpiresDateMs,
                c.oldAutoRenewStatus, c.newAutoRenewStatus, c.oldAutoRenewProductID, c.newAutoRenewProductID,
                c.recordedAt, notificationUUID)
        }
    }

    /// Writes `update` without its events (a store's own tests).
    package func apply(
        _ update: ReceiptUpdate, runID: Int64?, notificationUUID: String? = nil, digest: ReceiptDigest?,
        stored: [String: StoredSubscription] = [:]
    ) throws {
        var ignored = EventBatch()
        try apply(update, runID: runID, notificationUUID: notificationUUID, digest: digest, stored: stored, events: &ignored)
    }
}
