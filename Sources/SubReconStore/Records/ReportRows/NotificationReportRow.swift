/// One row of `report notifications`: a stored notification as the store holds it.
public struct NotificationReportRow: Sendable, Equatable {
    public var receivedAtMs: Int64?
    public var notificationUUID: String?
    public var notificationType: String?
    public var subtype: String?
    public var environment: String?
    public var originalTransactionID: String?
    public var userID: String?
    public var outcome: String?
    public var signedDateMs: Int64?
    public var deliveries: Int64?
    public var bundleID: String?

    init(_ row: any QueryRow) throws {
        receivedAtMs = try row.integer("received_at")
        notificationUUID = try row.text("notification_uuid")
        notificationType = try row.text("notification_type")
        subtype = try row.text("subtype")
        environment = try row.text("environment")
        originalTransactionID = try row.text("original_transaction_id")
        userID = try row.text("user_id")
        outcome = try row.text("outcome")
        signedDateMs = try row.integer("signed_date")
        deliveries = try row.integer("deliveries")
        bundleID = try row.text("bundle_id")
    }
}
