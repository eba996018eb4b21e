import PostgresNIO

/// Writes a batch's `ReceiptUpdate`s with one prepared statement per table (rows bound as one
/// JSON array, read by `jsonb_to_recordset`; see `PostgresWriteStatements.swift`), inside the
/// batch's transaction: the same rows and the same conflict rules as SQLite's `UpdateWriter`.
struct PostgresUpdateWriter {
    let connection: PostgresConnection
    let worker: String

    /// A run's updates record run items and changes under `runID`; a notification's (no run)
    /// record their changes under `notificationUUID`.
    func write(
        _ updates: [ReceiptUpdate], digests: [ReceiptDigest?], receiptIDs: [Int64], runID: Int64?,
        notificationUUID: String? = nil
    ) async throws {
        var subscriptions = JSONRecords(InsertSubscriptions.columns)
        var renewals = JSONRecords(InsertRenewals.columns)
        var cancellations = JSONRecords(FillRenewalCancellations.columns)
        var receipts = JSONRecords(UpdateReceipts.columns)
        var versions = JSONRecords(InsertReceiptVersions.columns)
        var runItems = JSONRecords(UpsertRunItems.columns)
        var changes = JSONRecords(InsertSubscriptionChanges.columns)

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

        try await execute(InsertSubscriptions.self, subscriptions)
        try await execute(InsertRenewals.self, renewals)
        try await execute(FillRenewalCancellations.self, cancellations)
        try await execute(UpdateReceipts.self, receipts)
        // The batch's receipts are done with: their claims end with the write (also those whose
        // answer was discarded, which stay due for the next run).
        // (A notification's write claims nothing: no round trip for it.)
        if !receiptIDs.isEmpty {
            _ = try await connection.execute(ReleaseWrittenClaims(ids: receiptIDs, worker: worker), logger: PostgresStore.quiet)
        }
        try await execute(InsertReceiptVersions.self, versions)
        try await execute(UpsertRunItems.self, runItems)
        try await execute(InsertSubscriptionChanges.self, changes)
        if let runID {
            let arguments = RunCounters(updates).arguments(runID: runID).compactMap { argument -> Int64? in
                if case .integer(let value) = argument { return value }
                return nil
            }
            _ = try await connection.execute(AddToRunCounters(arguments: arguments), logger: PostgresStore.quiet)
        }
    }

    private func execute<Statement: JSONBatchStatement>(_ statement: Statement.Type, _ records: JSONRecords) async throws {
        guard records.count > 0 else { return }
        _ = try await connection.execute(Statement(json: records.json), logger: PostgresStore.quiet)
    }

    private static func flag(_ value: Bool?) -> SQLArgument { value.map { .integer($0 ? 1 : 0) } ?? .null }
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
