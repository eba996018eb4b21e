/// One row of `report expiring`: an entitled subscription and when its access ends (its expiry,
/// or the end of its grace period).
public struct ExpiringReportRow: Sendable, Equatable {
    public var userID: String?
    public var originalTransactionID: String?
    public var productID: String?
    public var status: String?
    public var accessEndsMs: Int64?
    public var expiresDateMs: Int64?
    public var gracePeriodExpiresDateMs: Int64?
    public var autoRenewStatus: Int64?
    public var autoRenewProductID: String?
    public var environment: String?
    public var lastVerifiedAtMs: Int64?
    public var bundleID: String?

    init(_ row: any QueryRow) throws {
        userID = try row.text("user_id")
        originalTransactionID = try row.text("original_transaction_id")
        productID = try row.text("product_id")
        status = try row.text("status")
        accessEndsMs = try row.integer("access_ends_ms")
        expiresDateMs = try row.integer("expires_date_ms")
        gracePeriodExpiresDateMs = try row.integer("grace_period_expires_date_ms")
        autoRenewStatus = try row.integer("auto_renew_status")
        autoRenewProductID = try row.text("auto_renew_product_id")
        environment = try row.text("environment")
        lastVerifiedAtMs = try row.integer("last_verified_at")
        bundleID = try row.text("bundle_id")
    }
}
