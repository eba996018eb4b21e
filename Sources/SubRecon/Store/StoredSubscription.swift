import GRDB

/// A row of `subscriptions`: one per (user_id, original_transaction_id).
public struct StoredSubscription: Sendable, Equatable, Codable, FetchableRecord {
    public var userID: String
    public var originalTransactionID: String
    public var receiptID: Int64?
    public var productID: String
    public var status: SubscriptionStatus
    public var expiresDateMs: Int64
    public var autoRenewStatus: Bool?
    public var autoRenewProductID: String?
    public var expirationIntent: Int?
    public var gracePeriodExpiresDateMs: Int64?
    public var isInBillingRetry: Bool?
    public var cancellationDateMs: Int64?
    public var ownershipType: String?
    public var environment: ReceiptEnvironment
    public var lastVerifiedAt: Int64
    public var firstSeenAt: Int64
    public var updatedAt: Int64
    /// Why the last answer was not applied (kept state), if it wasn't.
    public var flag: String?
    /// The newest transaction id Apple reported for it (decides whether the Server API history is read).
    public var latestTransactionID: String? = nil
    /// The `appAccountToken` of the governing transaction, when Apple sent one.
    public var appAccountToken: String? = nil

    enum CodingKeys: String, CodingKey {
        case userID = "user_id", originalTransactionID = "original_transaction_id", receiptID = "receipt_id"
        case productID = "product_id", status, expiresDateMs = "expires_date_ms"
        case autoRenewStatus = "auto_renew_status", autoRenewProductID = "auto_renew_product_id"
        case expirationIntent = "expiration_intent", gracePeriodExpiresDateMs = "grace_period_expires_date_ms"
        case isInBillingRetry = "is_in_billing_retry", cancellationDateMs = "cancellation_date_ms"
        case ownershipType = "ownership_type", environment, lastVerifiedAt = "last_verified_at"
        case firstSeenAt = "first_seen_at", updatedAt = "updated_at", flag
        case latestTransactionID = "latest_transaction_id", appAccountToken = "app_account_token"
    }

    /// The fields the contract reports about a subscription; a change in any of them is an update.
    public func hasSameReportedState(as other: StoredSubscription) -> Bool {
        productID == other.productID && status == other.status && expiresDateMs == other.expiresDateMs
            && autoRenewStatus == other.autoRenewStatus && autoRenewProductID == other.autoRenewProductID
            && expirationIntent == other.expirationIntent
            && gracePeriodExpiresDateMs == other.gracePeriodExpiresDateMs
            && isInBillingRetry == other.isInBillingRetry && cancellationDateMs == other.cancellationDateMs
            && environment == other.environment && appAccountToken == other.appAccountToken
    }
}

extension StoredSubscription {
    /// Whether every column but `last_verified_at` holds exactly what `stored` holds, texts byte
    /// for byte (Swift's `==` on strings is canonical equivalence, which would let a differently
    /// normalised text count as unchanged and never be written).
    func differsOnlyInLastVerifiedAt(from stored: StoredSubscription) -> Bool {
        var aligned = self
        aligned.lastVerifiedAt = stored.lastVerifiedAt
        guard aligned == stored else { return false }
        func same(_ a: String?, _ b: String?) -> Bool {
            switch (a, b) {
            case (nil, nil): true
            case (let a?, let b?): a.utf8.elementsEqual(b.utf8)
            default: false
            }
        }
        return same(userID, stored.userID) && same(originalTransactionID, stored.originalTransactionID)
            && same(productID, stored.productID) && same(autoRenewProductID, stored.autoRenewProductID)
            && same(ownershipType, stored.ownershipType) && same(flag, stored.flag)
            && same(latestTransactionID, stored.latestTransactionID) && same(appAccountToken, stored.appAccountToken)
    }

    /// The columns `init(selectedRow:)` reads, in its order. The reconciliation's hot path selects
    /// exactly these and reads them by position: GRDB's Codable row decoding cost ~10 % of a write.
    static let selectedColumns = """
        user_id, original_transaction_id, receipt_id, product_id, status, expires_date_ms, auto_renew_status,
        auto_renew_product_id, expiration_intent, grace_period_expires_date_ms, is_in_billing_retry,
        cancellation_date_ms, ownership_type, environment, last_verified_at, first_seen_at, updated_at, flag,
        latest_transaction_id, app_account_token
        """

    /// The current row of `SELECT \(selectedColumns) FROM subscriptions`.
    init(selectedColumnsOf row: DirectStatement) throws {
        let (status, environment) = try Self.vocabulary(status: row.text(4), environment: row.text(13))
        self.init(
            userID: row.text(0), originalTransactionID: row.text(1), receiptID: row.optionalInt64(2),
            productID: row.text(3), status: status, expiresDateMs: row.int64(5), autoRenewStatus: row.optionalBool(6),
            autoRenewProductID: row.optionalText(7), expirationIntent: row.optionalInt(8),
            gracePeriodExpiresDateMs: row.optionalInt64(9), isInBillingRetry: row.optionalBool(10),
            cancellationDateMs: row.optionalInt64(11), ownershipType: row.optionalText(12), environment: environment,
            lastVerifiedAt: row.int64(14), firstSeenAt: row.int64(15), updatedAt: row.int64(16),
            flag: row.optionalText(17), latestTransactionID: row.optionalText(18),
            appAccountToken: row.optionalText(19))
    }

    /// The stored status and environment, which the schema's CHECKs keep to the vocabulary.
    static func vocabulary(status: String, environment: String) throws -> (SubscriptionStatus, ReceiptEnvironment) {
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
