import Foundation
import GRDB

extension AppDatabase: SubscriptionStore {
    public func countReceipts(_ selection: ReceiptSelection, nowMs: Int64) async throws(StoreError) -> Int {
        try await read("counting receipts") { db in
            switch selection {
            case .due:
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM receipts WHERE next_due_at <= ?", arguments: [nowMs]) ?? 0
            case .all:
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM receipts") ?? 0
            case .user(let userID):
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM receipts WHERE user_id = ?", arguments: [userID]) ?? 0
            }
        }
    }

    public func receipts(_ selection: ReceiptSelection, after: ReceiptCursorPosition, limit: Int, nowMs: Int64)
        async throws(StoreError) -> [ReceiptToVerify]
    {
        let afterID = after.id
        return try await read("reading receipts to verify") { db in
            let columns = "id, user_id, receipt_data, environment, next_due_at"
            switch selection {
            case .due:
                // Walks the (next_due_at, id) index: a run over a million receipts of which a few
                // thousand are due reads only those. A receipt written in this run moves past
                // `nowMs` (its next due time is later), so it is never read twice.
                return try ReceiptToVerify.fetchAll(
                    db.cachedStatement(
                        sql: """
                            SELECT \(columns) FROM receipts
                            WHERE next_due_at <= ? AND (next_due_at > ? OR (next_due_at = ? AND id > ?))
                            ORDER BY next_due_at, id LIMIT ?
                            """),
                    arguments: [nowMs, after.nextDueAt, after.nextDueAt, after.id, limit])
            case .all:
                return try ReceiptToVerify.fetchAll(
                    db.cachedStatement(sql: "SELECT \(columns) FROM receipts WHERE id > ? ORDER BY id LIMIT ?"),
                    arguments: [afterID, limit])
            case .user(let userID):
                return try ReceiptToVerify.fetchAll(
                    db.cachedStatement(
                        sql: "SELECT \(columns) FROM receipts WHERE user_id = ? AND id > ? ORDER BY id LIMIT ?"),
                    arguments: [userID, afterID, limit])
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

    public func finishRun(id: Int64, status: RunStatus, exitCode: Int32, nowMs: Int64) async throws(StoreError) {
        try await write("recording the end of a run") { db in
            try db.execute(
                sql: "UPDATE runs SET finished_at = ?, status = ?, exit_code = ? WHERE id = ?",
                arguments: [nowMs, status.rawValue, Int(exitCode), id])
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
                try batch.map { item in try item.decide(Self.snapshot(db, receipt: item.receipt, periodKeys: item.periodKeys)) }
            }
        }
        // One transaction for the batch: each receipt's writes are all in or all out, and a
        // crash loses at most the batch, whose receipts are simply still due.
        return try await self.write("writing receipts' outcomes") { db in
            let updates = try batch.map { item in
                let update = item.decide(try Self.snapshot(db, receipt: item.receipt, periodKeys: item.periodKeys))
                try Self.apply(update, runID: runID, db: db)
                return update
            }
            if let runID { try Self.addToRunCounters(updates, runID: runID, db: db) }
            return updates
        }
    }

    /// The run's counters move once per batch, in the batch's transaction (so they always agree
    /// with its run items), rather than once per receipt.
    static func addToRunCounters(_ updates: [ReceiptUpdate], runID: Int64, db: Database) throws {
        var verified = 0, updated = 0, unchanged = 0, invalid = 0, failed = 0
        for update in updates {
            switch update.runItem.outcome {
            case .updated: verified += 1; updated += 1
            case .unchanged: verified += 1; unchanged += 1
            case .invalid, .accountGone: verified += 1; invalid += 1
            case .failed: failed += 1
            case .skipped: break
            }
        }
        try db.cachedStatement(
            sql: """
                UPDATE runs SET verified = verified + ?, updated = updated + ?, unchanged = unchanged + ?,
                    invalid = invalid + ?, failed = failed + ? WHERE id = ?
                """
        ).execute(arguments: [verified, updated, unchanged, invalid, failed, runID])
    }

    static func snapshot(_ db: Database, receipt: ReceiptToVerify, periodKeys: [String]) throws -> ReceiptSnapshot {
        // Re-read the receipt inside the transaction: a concurrent `subrecon user` may have replaced its data.
        let row = try Row.fetchOne(
            db.cachedStatement(
                sql: "SELECT id, user_id, receipt_data, environment, consecutive_failures FROM receipts WHERE id = ?"),
            arguments: [receipt.id])
        let current = try row.map(ReceiptToVerify.init(row:)) ?? receipt
        let failures: Int = row?["consecutive_failures"] ?? 0
        var subscriptions: [String: StoredSubscription] = [:]
        let subscriptionRows = try Row.fetchCursor(
            db.cachedStatement(
                sql: "SELECT \(StoredSubscription.selectedColumns) FROM subscriptions WHERE user_id = ?"),
            arguments: [receipt.userID])
        while let row = try subscriptionRows.next() {
            let subscription = try StoredSubscription(selectedRow: row)
            subscriptions[subscription.originalTransactionID] = subscription
        }
        var renewals: [String: RenewalRecord] = [:]
        if !periodKeys.isEmpty {
            let statement = try db.cachedStatement(
                sql: "SELECT \(RenewalRecord.selectedColumns) FROM renewals WHERE user_id = ? AND period_key = ?")
            for key in Set(periodKeys) {
                if let row = try Row.fetchOne(statement, arguments: [receipt.userID, key]) {
                    renewals[key] = RenewalRecord(selectedRow: row)
                }
            }
        }
        return ReceiptSnapshot(
            receipt: current, subscriptions: subscriptions, renewals: renewals, consecutiveFailures: failures)
    }

    static func apply(_ update: ReceiptUpdate, runID: Int64?, db: Database) throws {
        let upsertSubscription = try db.cachedStatement(
            sql: """
                INSERT INTO subscriptions (user_id, original_transaction_id, receipt_id, product_id, status,
                    expires_date_ms, auto_renew_status, auto_renew_product_id, expiration_intent,
                    grace_period_expires_date_ms, is_in_billing_retry, cancellation_date_ms, ownership_type,
                    environment, last_verified_at, first_seen_at, updated_at, flag)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (user_id, original_transaction_id) DO UPDATE SET
                    receipt_id = excluded.receipt_id, product_id = excluded.product_id, status = excluded.status,
                    expires_date_ms = excluded.expires_date_ms, auto_renew_status = excluded.auto_renew_status,
                    auto_renew_product_id = excluded.auto_renew_product_id,
                    expiration_intent = excluded.expiration_intent,
                    grace_period_expires_date_ms = excluded.grace_period_expires_date_ms,
                    is_in_billing_retry = excluded.is_in_billing_retry,
                    cancellation_date_ms = excluded.cancellation_date_ms, ownership_type = excluded.ownership_type,
                    environment = excluded.environment, last_verified_at = excluded.last_verified_at,
                    updated_at = excluded.updated_at, flag = excluded.flag
                """)
        for s in update.subscriptions {
            try upsertSubscription.execute(arguments: [
                s.userID, s.originalTransactionID, s.receiptID, s.productID, s.status.rawValue, s.expiresDateMs,
                s.autoRenewStatus, s.autoRenewProductID, s.expirationIntent, s.gracePeriodExpiresDateMs,
                s.isInBillingRetry, s.cancellationDateMs, s.ownershipType, s.environment.rawValue, s.lastVerifiedAt,
                s.firstSeenAt, s.updatedAt, s.flag,
            ])
        }
        if !update.newRenewals.isEmpty {
            // DO NOTHING on conflict: a period is stored once, whoever saw it first.
            let insertRenewal = try db.cachedStatement(
                sql: """
                    INSERT INTO renewals (user_id, period_key, transaction_id, original_transaction_id,
                        web_order_line_item_id, product_id, purchase_date_ms, expires_date_ms, cancellation_date_ms,
                        is_trial_period, is_in_intro_offer_period, receipt_id, first_seen_run_id, first_seen_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (user_id, period_key) DO NOTHING
                    """)
            for r in update.newRenewals {
                try insertRenewal.execute(arguments: [
                    r.userID, r.periodKey, r.transactionID, r.originalTransactionID, r.webOrderLineItemID, r.productID,
                    r.purchaseDateMs, r.expiresDateMs, r.cancellationDateMs, r.isTrialPeriod, r.isInIntroOfferPeriod,
                    r.receiptID, r.firstSeenRunID, r.firstSeenAt,
                ])
            }
        }
        if !update.renewalCancellations.isEmpty {
            let fill = try db.cachedStatement(
                sql: """
                    UPDATE renewals SET cancellation_date_ms = ?
                    WHERE user_id = ? AND period_key = ? AND cancellation_date_ms IS NULL
                    """)
            for c in update.renewalCancellations {
                try fill.execute(arguments: [c.cancellationDateMs, update.userID, c.periodKey])
            }
        }
        if let change = update.receipt {
            try db.cachedStatement(
                sql: """
                    UPDATE receipts SET
                        receipt_data = COALESCE(?, receipt_data), environment = COALESCE(?, environment),
                        next_due_at = ?, last_attempt_at = ?, last_verified_at = COALESCE(?, last_verified_at),
                        last_apple_status = ?, verification_state = ?, consecutive_failures = ?, last_message = ?
                    WHERE id = ?
                    """
            ).execute(arguments: [
                change.newReceiptData, change.environment?.rawValue, change.nextDueAt,
                change.attemptedAt, change.verifiedAt, change.appleStatus,
                change.verificationState, change.consecutiveFailures, change.message, update.receiptID,
            ])
            if let data = change.newReceiptData {
                try recordVersion(db, userID: update.userID, receiptData: data, receiptID: update.receiptID,
                    nowMs: change.attemptedAt)
            }
        }
        if let runID {
            let item = update.runItem
            try db.cachedStatement(
                sql: """
                    INSERT INTO run_items (run_id, receipt_id, user_id, outcome, apple_status, environment,
                        old_status, new_status, old_expires_date_ms, new_expires_date_ms, message, recorded_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (run_id, receipt_id) DO UPDATE SET outcome = excluded.outcome,
                        apple_status = excluded.apple_status, environment = excluded.environment,
                        new_status = excluded.new_status, new_expires_date_ms = excluded.new_expires_date_ms,
                        message = excluded.message, recorded_at = excluded.recorded_at
                    """
            ).execute(arguments: [
                runID, item.receiptID, item.userID, item.outcome.rawValue, item.appleStatus,
                item.environment?.rawValue, item.oldStatus?.rawValue, item.newStatus?.rawValue,
                item.oldExpiresDateMs, item.newExpiresDateMs, item.message,
                item.recordedAt,
            ])
            if !update.subscriptionChanges.isEmpty {
                let insertChange = try db.cachedStatement(
                    sql: """
                        INSERT INTO subscription_changes (run_id, user_id, original_transaction_id, receipt_id, change,
                            old_status, new_status, old_product_id, new_product_id, old_expires_date_ms,
                            new_expires_date_ms, old_auto_renew_status, new_auto_renew_status,
                            old_auto_renew_product_id, new_auto_renew_product_id, recorded_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """)
                for c in update.subscriptionChanges {
                    try insertChange.execute(arguments: [
                        runID, c.userID, c.originalTransactionID, c.receiptID, c.kind.rawValue, c.oldStatus?.rawValue,
                        c.newStatus.rawValue, c.oldProductID, c.newProductID, c.oldExpiresDateMs, c.newExpiresDateMs,
                        c.oldAutoRenewStatus, c.newAutoRenewStatus, c.oldAutoRenewProductID, c.newAutoRenewProductID,
                        c.recordedAt,
                    ])
                }
            }
        }
    }

    static func recordVersion(_ db: Database, userID: String, receiptData: String, receiptID: Int64, nowMs: Int64)
        throws
    {
        try db.cachedStatement(
            sql: """
                INSERT INTO receipt_versions (user_id, receipt_sha256, receipt_id, first_seen_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (user_id, receipt_sha256) DO NOTHING
                """
        ).execute(arguments: [userID, ReceiptFingerprint.sha256Hex(receiptData), receiptID, nowMs])
    }

    // MARK: - Error wrapping at the boundary

    func read<T: Sendable>(_ operation: String, _ body: @Sendable (Database) throws -> T) async throws(StoreError) -> T {
        do { return try await writer.read(body) } catch { throw Self.wrap(error, operation) }
    }

    func write<T: Sendable>(_ operation: String, _ body: @Sendable (Database) throws -> T) async throws(StoreError) -> T {
        do { return try await writer.write(body) } catch { throw Self.wrap(error, operation) }
    }

    static func wrap(_ error: any Error, _ operation: String) -> StoreError {
        if let error = error as? StoreError { return error }
        if let error = error as? DatabaseError {
            return .failed(operation: operation, reason: error.message ?? "\(error.resultCode)")
        }
        return .failed(operation: operation, reason: "\(error)")
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
