/// One row of `report run-items`: what a run did with one receipt.
public struct RunItemReportRow: Sendable, Equatable {
    public var runID: Int64?
    public var receiptID: Int64?
    public var userID: String?
    public var outcome: String?
    public var appleStatus: Int64?
    public var environment: String?
    public var oldStatus: String?
    public var newStatus: String?
    public var oldExpiresDateMs: Int64?
    public var newExpiresDateMs: Int64?
    public var message: String?
    public var bundleID: String?

    init(_ row: any QueryRow) throws {
        runID = try row.integer("run_id")
        receiptID = try row.integer("receipt_id")
        userID = try row.text("user_id")
        outcome = try row.text("outcome")
        appleStatus = try row.integer("apple_status")
        environment = try row.text("environment")
        oldStatus = try row.text("old_status")
        newStatus = try row.text("new_status")
        oldExpiresDateMs = try row.integer("old_expires_date_ms")
        newExpiresDateMs = try row.integer("new_expires_date_ms")
        message = try row.text("message")
        bundleID = try row.text("bundle_id")
    }
}
