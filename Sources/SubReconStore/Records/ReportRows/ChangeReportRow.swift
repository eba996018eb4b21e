/// One row of `report changes`: a recorded subscription change, by a run or a notification.
public struct ChangeReportRow: Sendable, Equatable {
    public var runID: Int64?
    public var userID: String?
    public var originalTransactionID: String?
    public var change: String?
    public var oldStatus: String?
    public var newStatus: String?
    public var oldProductID: String?
    public var newProductID: String?
    public var oldExpiresDateMs: Int64?
    public var newExpiresDateMs: Int64?
    public var oldAutoRenewStatus: Int64?
    public var newAutoRenewStatus: Int64?
    public var oldAutoRenewProductID: String?
    public var newAutoRenewProductID: String?
    public var receiptID: Int64?
    public var recordedAtMs: Int64?
    public var notificationUUID: String?
    public var bundleID: String?

    init(_ row: any QueryRow) throws {
        runID = try row.integer("run_id")
        userID = try row.text("user_id")
        originalTransactionID = try row.text("original_transaction_id")
        change = try row.text("change")
        oldStatus = try row.text("old_status")
        newStatus = try row.text("new_status")
        oldProductID = try row.text("old_product_id")
        newProductID = try row.text("new_product_id")
        oldExpiresDateMs = try row.integer("old_expires_date_ms")
        newExpiresDateMs = try row.integer("new_expires_date_ms")
        oldAutoRenewStatus = try row.integer("old_auto_renew_status")
        newAutoRenewStatus = try row.integer("new_auto_renew_status")
        oldAutoRenewProductID = try row.text("old_auto_renew_product_id")
        newAutoRenewProductID = try row.text("new_auto_renew_product_id")
        receiptID = try row.integer("receipt_id")
        recordedAtMs = try row.integer("recorded_at")
        notificationUUID = try row.text("notification_uuid")
        bundleID = try row.text("bundle_id")
    }
}
