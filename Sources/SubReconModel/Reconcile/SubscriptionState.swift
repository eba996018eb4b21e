/// What Apple's answer says about one subscription (one `original_transaction_id`) at a given now.
public struct SubscriptionState: Sendable, Equatable {
    public var originalTransactionID: String
    /// The governing transaction's product: after an upgrade, the new product.
    public var productID: String
    public var status: SubscriptionStatus
    /// Apple's `expires_date_ms` of the governing transaction (a refund does not change it).
    public var expiresDateMs: Int64
    public var autoRenewStatus: Bool?
    public var autoRenewProductID: String?
    public var expirationIntent: Int?
    public var gracePeriodExpiresDateMs: Int64?
    public var isInBillingRetry: Bool?
    /// When a refunded subscription was revoked; nil otherwise.
    public var cancellationDateMs: Int64?
    /// `PURCHASED` or `FAMILY_SHARED` when Apple says.
    public var ownershipType: String?
    /// The governing transaction's id: when Apple's newest differs from the stored one, something
    /// was billed since (the Server API then reads the history).
    public var latestTransactionID: String?
    /// The governing transaction's `appAccountToken`, when Apple sent one.
    public var appAccountToken: String?
    /// The governing transaction's `appTransactionId` (the app download it belongs to), when Apple sent one.
    public var appTransactionID: String?

    public init(
        originalTransactionID: String, productID: String, status: SubscriptionStatus, expiresDateMs: Int64,
        autoRenewStatus: Bool? = nil, autoRenewProductID: String? = nil, expirationIntent: Int? = nil,
        gracePeriodExpiresDateMs: Int64? = nil, isInBillingRetry: Bool? = nil, cancellationDateMs: Int64? = nil,
        ownershipType: String? = nil, latestTransactionID: String? = nil, appAccountToken: String? = nil,
        appTransactionID: String? = nil
    ) {
        self.appTransactionID = appTransactionID
        self.latestTransactionID = latestTransactionID
        self.appAccountToken = appAccountToken
        self.originalTransactionID = originalTransactionID
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
    }
}
