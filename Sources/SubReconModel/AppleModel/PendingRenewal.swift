/// One entry of `pending_renewal_info`: what happens at the next renewal, or why the last one failed.
public struct PendingRenewal: Sendable, Equatable {
    /// Missing in 2017-era bodies; matching then falls back to the product (see `SubscriptionStateDerivation`).
    public var originalTransactionID: String?
    public var productID: String?
    public var autoRenewProductID: String?
    public var autoRenewStatus: Bool?
    public var expirationIntent: Int?
    public var isInBillingRetryPeriod: Bool?
    public var gracePeriodExpiresDateMs: Int64?
    /// The renewal info's `appAccountToken` (App Store Server API 1.15): a token Set App Account
    /// Token attached after the purchase shows here and on later transactions, not on earlier ones.
    public var appAccountToken: String?

    public init(
        originalTransactionID: String?, productID: String? = nil, autoRenewProductID: String? = nil,
        autoRenewStatus: Bool? = nil, expirationIntent: Int? = nil, isInBillingRetryPeriod: Bool? = nil,
        gracePeriodExpiresDateMs: Int64? = nil, appAccountToken: String? = nil
    ) {
        self.appAccountToken = appAccountToken
        self.originalTransactionID = originalTransactionID
        self.productID = productID
        self.autoRenewProductID = autoRenewProductID
        self.autoRenewStatus = autoRenewStatus
        self.expirationIntent = expirationIntent
        self.isInBillingRetryPeriod = isInBillingRetryPeriod
        self.gracePeriodExpiresDateMs = gracePeriodExpiresDateMs
    }
}
