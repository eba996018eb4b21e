import PostgresNIO
import SubReconModel

/// A batch of receipts' outcomes in one transaction and a fixed number of round trips, whatever
/// the batch's size: read what is stored for the whole batch (3 queries), decide each receipt in
/// order against it (a receipt sees the writes of the receipts before it, as on SQLite), then
/// write one statement per table. Each receipt's writes are in or out with the batch.
extension PostgresStore: ReconciliationStore {
    public func subscriptions(ofUser userID: String) async throws(StoreError) -> [StoredSubscription] {
        try await withConnection("reading a user's subscriptions") { connection in
            try await connection.all(
                "SELECT \(StoredSubscription.selectedColumns) FROM subscriptions WHERE user_id = ? ORDER BY original_transaction_id",
                [.text(userID)], StoredSubscription.init(postgresRow:))
        }
    }

    public func reconcile(_ batch: [ReceiptReconciliation], runID: Int64?, write: Bool, origin: EventOrigin?)
        async throws(StoreError) -> [ReceiptUpdate]
    {
        guard !batch.isEmpty else { return [] }
        if !write {
            return try await withConnection("reading receipts' stored state") { connection in
                // As on SQLite, a dry run decides each receipt against what is stored.
                var stored = try await StoredBatchState.read(batch, connection)
                return batch.map { stored.decide($0, folding: false) }
            }
        }
        let worker = worker
        return try await withTransaction("writing receipts' outcomes") { connection in
            // Two workers writing receipts of one user (two receipts, one subscription) take turns:
            // a transaction-level lock per user, taken in one order so two batches never deadlock.
            let users = Array(Set(batch.map(\.receipt.userID)))
            _ = try await connection.execute(LockUsers(users: users), logger: Self.quiet)
            var stored = try await StoredBatchState.read(batch, connection)
            let updates = batch.map { stored.decide($0) }
            try await PostgresUpdateWriter(connection: connection, worker: worker).write(
                updates, digests: batch.map(\.latestReceiptDigest), receiptIDs: batch.map(\.receipt.id), runID: runID)
            // Last: the events' positions are taken just before the commit (see PostgresEventWriter).
            if let origin, runID != nil {
                let changed = updates.filter { !$0.subscriptionChanges.isEmpty }.map(\.receiptID)
                if !changed.isEmpty {
                    let apps = try await PostgresEventWriter.apps(ofReceipts: changed, connection)
                    let events = PostgresEventWriter.batch(updates, origins: updates.map { _ in origin }, apps: apps)
                    try await PostgresEventWriter.write(events, connection)
                }
            }
            return updates
        }
    }
}

/// What the store holds for one batch's receipts, read in three statements (two prepared: parsed
/// and planned once per connection) and kept up to date as each receipt's update is decided.
package struct StoredBatchState {
    package var receipts: [Int64: (userID: String, environment: ReceiptEnvironment?, failures: Int, data: String?)] = [:]
    package var subscriptions: [String: [String: StoredSubscription]] = [:]
    package var renewals: [String: [String: RenewalRecord]] = [:]

    package static func read(_ batch: [ReceiptReconciliation], _ connection: PostgresConnection) async throws -> StoredBatchState {
        var state = StoredBatchState()
        let users = Array(Set(batch.map(\.receipt.userID)))
        for try await (id, userID, environment, failures, data) in try await connection.execute(
            ReadBatchReceipts(ids: batch.map(\.receipt.id)), logger: PostgresStore.quiet)
        {
            state.receipts[id] = (userID, environment.flatMap(ReceiptEnvironment.init(rawValue:)), Int(failures), data)
        }
        // Planned at each call, not prepared: a plan made while the table was small (a first
        // run into a new database, before any ANALYZE) read the whole table for every batch.
        for try await row in try await connection.query(ReadBatchSubscriptions.query(users), logger: PostgresStore.quiet) {
            let subscription = try StoredSubscription(postgresRow: row.makeRandomAccess())
            state.subscriptions[subscription.userID, default: [:]][subscription.originalTransactionID] = subscription
        }
        var keyUsers: [String] = []
        var keys: [String] = []
        for item in batch {
            for key in Set(item.periodKeys) {
                keyUsers.append(item.receipt.userID)
                keys.append(key)
            }
        }
        if !keys.isEmpty {
            for try await renewal in try await connection.execute(
                ReadBatchRenewals(users: keyUsers, keys: keys), logger: PostgresStore.quiet)
            {
                state.renewals[renewal.userID, default: [:]][renewal.periodKey] = renewal
            }
        }
        return state
    }

    /// Decides `item` against the stored state, then (`folding`) folds its update in for the items after it.
    package mutating func decide(_ item: ReceiptReconciliation, folding: Bool = true) -> ReceiptUpdate {
        var receipt = item.receipt
        var failures = 0
        if let stored = receipts[receipt.id] {
            // Re-read: a concurrent `subrecon user` may have replaced its data.
            receipt.userID = stored.userID
            receipt.environment = stored.environment
            failures = stored.failures
            if let data = stored.data { receipt.receiptData = data }
        }
        let userRenewals = renewals[item.receipt.userID] ?? [:]
        var named: [String: RenewalRecord] = [:]
        for key in item.periodKeys { if let renewal = userRenewals[key] { named[key] = renewal } }
        let update = item.decide(
            ReceiptSnapshot(
                receipt: receipt, subscriptions: subscriptions[item.receipt.userID] ?? [:], renewals: named,
                consecutiveFailures: failures))
        guard folding else { return update }
        for subscription in update.subscriptions {
            subscriptions[subscription.userID, default: [:]][subscription.originalTransactionID] = subscription
        }
        for renewal in update.newRenewals where renewals[renewal.userID]?[renewal.periodKey] == nil {
            renewals[renewal.userID, default: [:]][renewal.periodKey] = renewal
        }
        for cancellation in update.renewalCancellations {
            if renewals[update.userID]?[cancellation.periodKey]?.cancellationDateMs == nil {
                renewals[update.userID]?[cancellation.periodKey]?.cancellationDateMs = cancellation.cancellationDateMs
                renewals[update.userID]?[cancellation.periodKey]?.refundMilliunits = cancellation.refundMilliunits
            }
        }
        for revision in update.renewalRevisions {
            if let stored = renewals[revision.userID]?[revision.periodKey], stored.hasNewerLedger(than: revision) { continue }
            renewals[revision.userID, default: [:]][revision.periodKey] = revision
        }
        if let change = update.receipt, var stored = receipts[update.receiptID] {
            stored.failures = change.consecutiveFailures
            if let data = change.newReceiptData { stored.data = data }
            if let environment = change.environment { stored.environment = environment }
            receipts[update.receiptID] = stored
        }
        return update
    }
}

extension StoredSubscription {
    package init(postgresRow row: PostgresRandomAccessRow) throws {
        let (status, environment) = try Self.vocabulary(
            status: try row["status"].decode(String.self), environment: try row["environment"].decode(String.self))
        func flag(_ column: String) throws -> Bool? { try row[column].decode(Int64?.self).map { $0 != 0 } }
        self.init(
            userID: try row["user_id"].decode(String.self),
            originalTransactionID: try row["original_transaction_id"].decode(String.self),
            receiptID: try row["receipt_id"].decode(Int64?.self), productID: try row["product_id"].decode(String.self),
            status: status, expiresDateMs: try row["expires_date_ms"].decode(Int64.self),
            autoRenewStatus: try flag("auto_renew_status"),
            autoRenewProductID: try row["auto_renew_product_id"].decode(String?.self),
            expirationIntent: try row["expiration_intent"].decode(Int64?.self).map { Int($0) },
            gracePeriodExpiresDateMs: try row["grace_period_expires_date_ms"].decode(Int64?.self),
            isInBillingRetry: try flag("is_in_billing_retry"),
            cancellationDateMs: try row["cancellation_date_ms"].decode(Int64?.self),
            ownershipType: try row["ownership_type"].decode(String?.self), environment: environment,
            lastVerifiedAt: try row["last_verified_at"].decode(Int64.self),
            firstSeenAt: try row["first_seen_at"].decode(Int64.self), updatedAt: try row["updated_at"].decode(Int64.self),
            flag: try row["flag"].decode(String?.self),
            latestTransactionID: try row["latest_transaction_id"].decode(String?.self),
            appAccountToken: try row["app_account_token"].decode(String?.self),
            appTransactionID: try row["app_transaction_id"].decode(String?.self))
    }
}

extension RenewalRecord {
    package init(postgresRow row: PostgresRandomAccessRow) throws {
        self.init(
            userID: try row["user_id"].decode(String.self), periodKey: try row["period_key"].decode(String.self),
            transactionID: try row["transaction_id"].decode(String.self),
            originalTransactionID: try row["original_transaction_id"].decode(String.self),
            webOrderLineItemID: try row["web_order_line_item_id"].decode(String?.self),
            productID: try row["product_id"].decode(String.self),
            purchaseDateMs: try row["purchase_date_ms"].decode(Int64?.self),
            expiresDateMs: try row["expires_date_ms"].decode(Int64.self),
            cancellationDateMs: try row["cancellation_date_ms"].decode(Int64?.self),
            isTrialPeriod: try row["is_trial_period"].decode(Int64.self) != 0,
            isInIntroOfferPeriod: try row["is_in_intro_offer_period"].decode(Int64.self) != 0,
            receiptID: try row["receipt_id"].decode(Int64?.self),
            firstSeenRunID: try row["first_seen_run_id"].decode(Int64?.self),
            firstSeenAt: try row["first_seen_at"].decode(Int64.self),
            priceMilliunits: try row["price_milliunits"].decode(Int64?.self),
            currency: try row["currency"].decode(String?.self), storefront: try row["storefront"].decode(String?.self),
            offerType: try row["offer_type"].decode(Int64?.self),
            offerDiscountType: try row["offer_discount_type"].decode(String?.self),
            offerPeriod: try row["offer_period"].decode(String?.self),
            transactionReason: try row["transaction_reason"].decode(String?.self),
            ownershipType: try row["ownership_type"].decode(String?.self),
            environment: try row["environment"].decode(String?.self),
            revocationType: try row["revocation_type"].decode(String?.self),
            revocationPercentage: try row["revocation_percentage"].decode(Int64?.self),
            refundMilliunits: try row["refund_milliunits"].decode(Int64?.self),
            isUpgraded: try row["is_upgraded"].decode(Int64.self) != 0,
            ledgerSignedDateMs: try row["ledger_signed_date"].decode(Int64?.self))
    }
}

/// The batch's receipts: user, environment, failures so far, data.
package struct ReadBatchReceipts: PostgresPreparedStatement {
    package typealias Row = (Int64, String, String?, Int64, String?)
    package static let sql = "SELECT id, user_id, environment, consecutive_failures, receipt_data FROM receipts WHERE id = ANY($1::bigint[])"
    package let ids: [Int64]

    package func makeBindings() throws -> PostgresBindings { try PostgresSQL.bindings(ids) }

    package func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
}

/// Every subscription of the batch's users (an unnamed statement: see `StoredBatchState.read`).
package enum ReadBatchSubscriptions {
    package static func query(_ users: [String]) -> PostgresQuery {
        "SELECT \(unescaped: StoredSubscription.selectedColumns) FROM subscriptions WHERE user_id = ANY(\(users)::text[])"
    }
}

/// The stored renewal records of the periods the batch's answers name, as (user, period key) pairs.
package struct ReadBatchRenewals: PostgresPreparedStatement {
    package typealias Row = RenewalRecord
    package static let sql = """
        SELECT \(RenewalRecord.selectedColumns) FROM renewals
        WHERE (user_id, period_key) IN (SELECT u, k FROM unnest($1::text[], $2::text[]) AS t(u, k))
        """
    package let users: [String]
    package let keys: [String]

    package func makeBindings() throws -> PostgresBindings { try PostgresSQL.bindings(users, keys) }

    package func decodeRow(_ row: PostgresRow) throws -> Row { try RenewalRecord(postgresRow: row.makeRandomAccess()) }
}
