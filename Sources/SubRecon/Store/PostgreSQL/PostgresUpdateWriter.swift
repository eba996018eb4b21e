import PostgresNIO

/// Writes a batch's `ReceiptUpdate`s with one statement per table (rows bound as one JSON array,
/// read by `jsonb_to_recordset`), inside the batch's transaction: the same rows and the same
/// conflict rules as SQLite's `UpdateWriter`.
struct PostgresUpdateWriter {
    let connection: PostgresConnection
    let worker: String

    func write(_ updates: [ReceiptUpdate], digests: [ReceiptDigest?], receiptIDs: [Int64], runID: Int64?) async throws {
        var subscriptions = JSONRecords(Self.subscriptionColumns)
        var renewals = JSONRecords(Self.renewalColumns)
        var cancellations = JSONRecords(["user_id", "period_key", "cancellation_date_ms"])
        var receipts = JSONRecords(Self.receiptColumns)
        var versions = JSONRecords(["user_id", "receipt_sha256", "receipt_id", "first_seen_at"])
        var runItems = JSONRecords(Self.runItemColumns)
        var changes = JSONRecords(Self.changeColumns)

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
                SQLArgument(s.appAccountToken),
            ])
        }
        for (update, digest) in zip(updates, digests) {
            for r in update.newRenewals {
                renewals.append([
                    .text(r.userID), .text(r.periodKey), .text(r.transactionID), .text(r.originalTransactionID),
                    SQLArgument(r.webOrderLineItemID), .text(r.productID), SQLArgument(r.purchaseDateMs),
                    .integer(r.expiresDateMs), SQLArgument(r.cancellationDateMs), .integer(r.isTrialPeriod ? 1 : 0),
                    .integer(r.isInIntroOfferPeriod ? 1 : 0), SQLArgument(r.receiptID), SQLArgument(r.firstSeenRunID),
                    .integer(r.firstSeenAt),
                ])
            }
            for c in update.renewalCancellations {
                cancellations.append([.text(update.userID), .text(c.periodKey), .integer(c.cancellationDateMs)])
            }
            if let change = update.receipt {
                let sha256 = change.newReceiptData.map { ReceiptDigest.sha256Hex(of: $0, precomputed: digest) }
                receipts.append([
                    .integer(update.receiptID), SQLArgument(change.newReceiptData), SQLArgument(change.environment?.rawValue),
                    .integer(change.nextDueAt), .integer(change.attemptedAt), SQLArgument(change.verifiedAt),
                    SQLArgument(change.appleStatus.map(Int64.init)), .text(change.verificationState),
                    .integer(Int64(change.consecutiveFailures)), SQLArgument(change.message),
                    SQLArgument(change.historyRevision), SQLArgument(sha256),
                ])
                if let sha256 {
                    versions.append([.text(update.userID), .text(sha256), .integer(update.receiptID), .integer(change.attemptedAt)])
                }
            }
            guard let runID else { continue }
            let item = update.runItem
            runItems.append([
                .integer(runID), .integer(item.receiptID), .text(item.userID), .text(item.outcome.rawValue),
                SQLArgument(item.appleStatus.map(Int64.init)), SQLArgument(item.environment?.rawValue),
                SQLArgument(item.oldStatus?.rawValue), SQLArgument(item.newStatus?.rawValue),
                SQLArgument(item.oldExpiresDateMs), SQLArgument(item.newExpiresDateMs), SQLArgument(item.message),
                .integer(item.recordedAt),
            ])
            for c in update.subscriptionChanges {
                changes.append([
                    .integer(runID), .text(c.userID), .text(c.originalTransactionID), SQLArgument(c.receiptID),
                    .text(c.kind.rawValue), SQLArgument(c.oldStatus?.rawValue), .text(c.newStatus.rawValue),
                    SQLArgument(c.oldProductID), .text(c.newProductID), SQLArgument(c.oldExpiresDateMs),
                    .integer(c.newExpiresDateMs), Self.flag(c.oldAutoRenewStatus), Self.flag(c.newAutoRenewStatus),
                    SQLArgument(c.oldAutoRenewProductID), SQLArgument(c.newAutoRenewProductID), .integer(c.recordedAt),
                ])
            }
        }

        try await insert(subscriptions, into: "subscriptions", conflict: SchemaSQL.subscriptionUpsert)
        try await insert(renewals, into: "renewals", conflict: SchemaSQL.renewalInsertOnce)
        if cancellations.count > 0 {
            try await connection.run(
                """
                UPDATE renewals SET cancellation_date_ms = x.cancellation_date_ms
                FROM jsonb_to_recordset(?::jsonb) AS x(\(cancellations.recordType(Self.types)))
                WHERE renewals.user_id = x.user_id AND renewals.period_key = x.period_key
                  AND renewals.cancellation_date_ms IS NULL
                """, [.text(cancellations.json)])
        }
        if receipts.count > 0 {
            try await connection.run(
                """
                UPDATE receipts SET
                    receipt_data = COALESCE(x.receipt_data, receipts.receipt_data),
                    environment = COALESCE(x.environment, receipts.environment),
                    next_due_at = x.next_due_at, last_attempt_at = x.last_attempt_at,
                    last_verified_at = COALESCE(x.last_verified_at, receipts.last_verified_at),
                    last_apple_status = x.last_apple_status, verification_state = x.verification_state,
                    consecutive_failures = x.consecutive_failures, last_message = x.last_message,
                    history_revision = COALESCE(x.history_revision, receipts.history_revision),
                    receipt_sha256 = COALESCE(x.receipt_sha256, receipts.receipt_sha256)
                FROM jsonb_to_recordset(?::jsonb) AS x(\(receipts.recordType(Self.types)))
                WHERE receipts.id = x.id
                """, [.text(receipts.json)])
        }
        // The batch's receipts are done with: their claims end with the write (also those whose
        // answer was discarded, which stay due for the next run).
        try await connection.query(
            """
            UPDATE receipts SET claimed_by = NULL, claimed_until = NULL
            WHERE id = ANY(\(receiptIDs)::bigint[]) AND claimed_by = \(worker)
            """, logger: PostgresStore.quiet)
        try await insert(versions, into: "receipt_versions", conflict: "ON CONFLICT (user_id, receipt_sha256) DO NOTHING")
        try await insert(runItems, into: "run_items", conflict: SchemaSQL.runItemUpsert)
        try await insert(changes, into: "subscription_changes", conflict: "")
        if let runID {
            let counters = RunCounters(updates)
            try await connection.run(RunCounters.sql, counters.arguments(runID: runID))
        }
    }

    private func insert(_ records: JSONRecords, into table: String, conflict: String) async throws {
        guard records.count > 0 else { return }
        let columns = records.columns.joined(separator: ", ")
        try await connection.run(
            """
            INSERT INTO \(table) (\(columns))
            SELECT \(columns) FROM jsonb_to_recordset(?::jsonb) AS x(\(records.recordType(Self.types)))
            \(conflict)
            """, [.text(records.json)])
    }

    private static func flag(_ value: Bool?) -> SQLArgument { value.map { .integer($0 ? 1 : 0) } ?? .null }

    static let subscriptionColumns = StoredSubscription.selectedColumns.split(separator: ",").map {
        $0.trimmingCharacters(in: .whitespacesAndNewlines)
    }
    static let renewalColumns = RenewalRecord.selectedColumns.split(separator: ",").map {
        $0.trimmingCharacters(in: .whitespacesAndNewlines)
    }
    static let receiptColumns = [
        "id", "receipt_data", "environment", "next_due_at", "last_attempt_at", "last_verified_at", "last_apple_status",
        "verification_state", "consecutive_failures", "last_message", "history_revision", "receipt_sha256",
    ]
    static let runItemColumns = [
        "run_id", "receipt_id", "user_id", "outcome", "apple_status", "environment", "old_status", "new_status",
        "old_expires_date_ms", "new_expires_date_ms", "message", "recorded_at",
    ]
    static let changeColumns = [
        "run_id", "user_id", "original_transaction_id", "receipt_id", "change", "old_status", "new_status",
        "old_product_id", "new_product_id", "old_expires_date_ms", "new_expires_date_ms", "old_auto_renew_status",
        "new_auto_renew_status", "old_auto_renew_product_id", "new_auto_renew_product_id", "recorded_at",
    ]

    /// The record types `jsonb_to_recordset` reads with; every other column is text.
    static let types: [String: String] = Dictionary(
        uniqueKeysWithValues: [
            "id", "receipt_id", "expires_date_ms", "auto_renew_status", "expiration_intent",
            "grace_period_expires_date_ms", "is_in_billing_retry", "cancellation_date_ms", "last_verified_at",
            "first_seen_at", "updated_at", "purchase_date_ms", "is_trial_period", "is_in_intro_offer_period",
            "first_seen_run_id", "next_due_at", "last_attempt_at", "last_apple_status", "consecutive_failures",
            "run_id", "apple_status", "old_expires_date_ms", "new_expires_date_ms", "recorded_at",
            "old_auto_renew_status", "new_auto_renew_status",
        ].map { ($0, "bigint") })
}

/// How a batch moves its run's counters (once per batch, in the batch's transaction, so they
/// always agree with its run items).
struct RunCounters {
    var verified = 0, updated = 0, unchanged = 0, invalid = 0, failed = 0

    init(_ updates: [ReceiptUpdate]) {
        for update in updates {
            switch update.runItem.outcome {
            case .updated: verified += 1; updated += 1
            case .unchanged: verified += 1; unchanged += 1
            case .invalid, .accountGone: verified += 1; invalid += 1
            case .failed: failed += 1
            case .skipped: break
            }
        }
    }

    static let sql = """
        UPDATE runs SET verified = verified + ?, updated = updated + ?, unchanged = unchanged + ?,
            invalid = invalid + ?, failed = failed + ? WHERE id = ?
        """

    func arguments(runID: Int64) -> [SQLArgument] {
        [verified, updated, unchanged, invalid, failed].map { .integer(Int64($0)) } + [.integer(runID)]
    }
}
