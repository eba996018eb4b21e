/// One entry of `pending_renewal_info`: what happens at the next renewal, or why the last one failed.
public struct PendingRenewal: Sendable, Equatable, Decodable {
    /// Missing in 2017-era bodies; matching then falls back to the product (see `SubscriptionStateDerivation`).
    public var originalTransactionID: String?
    public var productID: String?
    public var autoRenewProductID: String?
    public var autoRenewStatus: Bool?
    public var expirationIntent: Int?
    public var isInBillingRetryPeriod: Bool?
    public var gracePeriodExpiresDateMs: Int64?

    public init(
        originalTransactionID: String?, productID: String? = nil, autoRenewProductID: String? = nil,
        autoRenewStatus: Bool? = nil, expirationIntent: Int? = nil, isInBillingRetryPeriod: Bool? = nil,
        gracePeriodExpiresDateMs: Int64? = nil
    ) {
        self.originalTransactionID = originalTransactionID
        self.productID = productID
        self.autoRenewProductID = autoRenewProductID
        self.autoRenewStatus = autoRenewStatus
        self.expirationIntent = expirationIntent
        self.isInBillingRetryPeriod = isInBillingRetryPeriod
        self.gracePeriodExpiresDateMs = gracePeriodExpiresDateMs
    }

    enum CodingKeys: String, CodingKey {
        case original_transaction_id, product_id, auto_renew_product_id, auto_renew_status
        case expiration_intent, is_in_billing_retry_period
        case grace_period_expires_date_ms, grace_period_expires_date
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        originalTransactionID = c.lenientString(.original_transaction_id)
        productID = c.lenientString(.product_id)
        autoRenewProductID = c.lenientString(.auto_renew_product_id)
        autoRenewStatus = c.lenientBool(.auto_renew_status)
        expirationIntent = c.lenientInt(.expiration_intent)
        isInBillingRetryPeriod = c.lenientBool(.is_in_billing_retry_period)
        gracePeriodExpiresDateMs = c.lenientMilliseconds(
            .grace_period_expires_date_ms, fallback: .grace_period_expires_date)
    }
}
