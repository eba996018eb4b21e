/// A row of `subscriptions`: one per (user_id, original_transaction_id).
public struct StoredSubscription: Sendable, Equatable, Codable {
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

    package enum CodingKeys: String, CodingKey {
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

    package init(userID: String, originalTransactionID: String, receiptID: Int64? = nil, productID: String, status: SubscriptionStatus, expiresDateMs: Int64, autoRenewStatus: Bool? = nil, autoRenewProductID: String? = nil, expirationIntent: Int? = nil, gracePeriodExpiresDateMs: Int64? = nil, isInBillingRetry: Bool? = nil, cancellationDateMs: Int64? = nil, ownershipType: String? = nil, environment: ReceiptEnvironment, lastVerifiedAt: Int64, firstSeenAt: Int64, updatedAt: Int64, flag: String? = nil, latestTransactionID: String? = nil, appAccountToken: String? = nil) {
        self.userID = userID
        self.originalTransactionID = originalTransactionID
        self.receiptID = receiptID
        self.productID = productID
        self.status = status
        self.expiresDateMs = expiresDateMs
        self.autoRenewStatus = autoRenewStatus
        self.autoRenewProductID = autoRenewProductID
        self.expirationIntent = expirationIntent
        self.gracePeriodExpiresDateMs = gracePeriodExpiresDateMs
        self.isInBillingRetry = isInBillingRetry
        self.cancellationDateMs = cancellationDateMs
        self.ownershipType = ownershipType
        self.environment = environment
        self.lastVerifiedAt = lastVerifiedAt
        self.firstSeenAt = firstSeenAt
        self.updatedAt = updatedAt
        self.flag = flag
        self.latestTransactionID = latestTransactionID
        self.appAccountToken = appAccountToken
    }
}

extension StoredSubscription {
    /// Whether every column but `last_verified_at` holds exactly what `stored` holds, texts byte
    /// for byte (Swift's `==` on strings is canonical equivalence, which would let a differently
    /// normalised text count as unchanged and never be written).
    package func differsOnlyInLastVerifiedAt(from stored: StoredSubscription) -> Bool {
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
}
