/// One row of `report shared`: one user's claim on a subscription more than one user claims.
public struct SharedReportRow: Sendable, Equatable {
    public var originalTransactionID: String?
    /// How many users claim the subscription.
    public var users: Int64?
    public var userID: String?
    public var receiptID: Int64?
    public var receiptImportedAtMs: Int64?
    public var productID: String?
    public var status: String
    public var expiresDateMs: Int64?
    public var ownershipType: String?
    public var firstSeenAtMs: Int64?
    public var lastVerifiedAtMs: Int64?
    public var bundleID: String?

    init(_ row: any QueryRow) throws {
        originalTransactionID = try row.text("original_transaction_id")
        users = try row.integer("users")
        userID = try row.text("user_id")
        receiptID = try row.integer("receipt_id")
        receiptImportedAtMs = try row.integer("receipt_imported_at")
        productID = try row.text("product_id")
        status = try row.requiredText("status")
        expiresDateMs = try row.integer("expires_date_ms")
        ownershipType = try row.text("ownership_type")
        firstSeenAtMs = try row.integer("first_seen_at")
        lastVerifiedAtMs = try row.integer("last_verified_at")
        bundleID = try row.text("bundle_id")
    }
}
