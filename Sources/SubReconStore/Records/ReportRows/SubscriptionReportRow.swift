/// One row of `report subscriptions`: a stored subscription with its receipt's app.
public struct SubscriptionReportRow: Sendable, Equatable {
    public var userID: String?
    public var originalTransactionID: String?
    public var productID: String?
    public var status: String
    public var expiresDateMs: Int64
    public var autoRenewStatus: Int64?
    public var autoRenewProductID: String?
    public var expirationIntent: Int64?
    public var gracePeriodExpiresDateMs: Int64?
    public var isInBillingRetry: Int64?
    public var environment: String?
    public var lastVerifiedAtMs: Int64?
    public var cancellationDateMs: Int64?
    public var appAccountToken: String?
    public var bundleID: String?

    init(_ row: any QueryRow) throws {
        userID = try row.text("user_id")
        originalTransactionID = try row.text("original_transaction_id")
        productID = try row.text("product_id")
        status = try row.requiredText("status")
        expiresDateMs = try row.requiredInteger("expires_date_ms")
        autoRenewStatus = try row.integer("auto_renew_status")
        autoRenewProductID = try row.text("auto_renew_product_id")
        expirationIntent = try row.integer("expiration_intent")
        gracePeriodExpiresDateMs = try row.integer("grace_period_expires_date_ms")
        isInBillingRetry = try row.integer("is_in_billing_retry")
        environment = try row.text("environment")
        lastVerifiedAtMs = try row.integer("last_verified_at")
        cancellationDateMs = try row.integer("cancellation_date_ms")
        appAccountToken = try row.text("app_account_token")
        bundleID = try row.text("bundle_id")
    }
}
