import GRDB
import SubReconModel

/// How both stores read a `subscriptions` row.
extension StoredSubscription: FetchableRecord {
    /// The columns `init(selectedRow:)` reads, in its order. The reconciliation's hot path selects
    /// exactly these and reads them by position: GRDB's Codable row decoding was a visible share of
    /// each write (docs/performance.md, "Earlier figures behind the code's choices").
    package static let selectedColumns = """
        user_id, original_transaction_id, receipt_id, product_id, status, expires_date_ms, auto_renew_status,
        auto_renew_product_id, expiration_intent, grace_period_expires_date_ms, is_in_billing_retry,
        cancellation_date_ms, ownership_type, environment, last_verified_at, first_seen_at, updated_at, flag,
        latest_transaction_id, app_account_token, app_transaction_id
        """

    /// The current row of `SELECT \(selectedColumns) FROM subscriptions`.
    package init(selectedColumnsOf row: DirectStatement) throws {
        let (status, environment) = try Self.vocabulary(status: row.text(4), environment: row.text(13))
        self.init(
            userID: row.text(0), originalTransactionID: row.text(1), receiptID: row.optionalInt64(2),
            productID: row.text(3), status: status, expiresDateMs: row.int64(5), autoRenewStatus: row.optionalBool(6),
            autoRenewProductID: row.optionalText(7), expirationIntent: row.optionalInt(8),
            gracePeriodExpiresDateMs: row.optionalInt64(9), isInBillingRetry: row.optionalBool(10),
            cancellationDateMs: row.optionalInt64(11), ownershipType: row.optionalText(12), environment: environment,
            lastVerifiedAt: row.int64(14), firstSeenAt: row.int64(15), updatedAt: row.int64(16),
            flag: row.optionalText(17), latestTransactionID: row.optionalText(18),
            appAccountToken: row.optionalText(19), appTransactionID: row.optionalText(20))
    }

    /// A `SELECT *` row, by column name (`subscriptions(ofUser:)`, reports).
    public init(row: Row) throws {
        let (status, environment) = try Self.vocabulary(status: row["status"], environment: row["environment"])
        self.init(
            userID: row["user_id"], originalTransactionID: row["original_transaction_id"], receiptID: row["receipt_id"],
            productID: row["product_id"], status: status, expiresDateMs: row["expires_date_ms"],
            autoRenewStatus: row["auto_renew_status"], autoRenewProductID: row["auto_renew_product_id"],
            expirationIntent: row["expiration_intent"], gracePeriodExpiresDateMs: row["grace_period_expires_date_ms"],
            isInBillingRetry: row["is_in_billing_retry"], cancellationDateMs: row["cancellation_date_ms"],
            ownershipType: row["ownership_type"], environment: environment, lastVerifiedAt: row["last_verified_at"],
            firstSeenAt: row["first_seen_at"], updatedAt: row["updated_at"], flag: row["flag"],
            latestTransactionID: row["latest_transaction_id"], appAccountToken: row["app_account_token"],
            appTransactionID: row["app_transaction_id"])
    }

    /// The stored status and environment, which the schema's CHECKs keep to the vocabulary.
    package static func vocabulary(status: String, environment: String) throws -> (SubscriptionStatus, ReceiptEnvironment) {
        guard let decodedStatus = SubscriptionStatus(rawValue: status),
            let decodedEnvironment = ReceiptEnvironment(rawValue: environment)
        else {
            throw StoreError.failed(
                operation: "reading subscriptions",
                reason: "a stored subscription has status \(status.prefix(20)) and environment \(environment.prefix(20))")
        }
        return (decodedStatus, decodedEnvironment)
    }
}
