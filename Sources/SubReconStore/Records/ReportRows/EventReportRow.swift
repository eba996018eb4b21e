/// One row of `report events`: an event and how its delivery stands.
public struct EventReportRow: Sendable, Equatable {
    public var position: Int64
    public var eventID: String
    public var type: String
    public var createdAtMs: Int64
    public var userID: String
    /// '' for `user.forgotten`.
    public var originalTransactionID: String
    public var seq: Int64?
    public var source: String
    /// `pending`, `delivered`, `dead` or `skipped`, as stored.
    public var state: String
    public var attempts: Int64
    public var lastAttemptAtMs: Int64?
    public var lastStatus: Int64?
    public var deliveredAtMs: Int64?
    /// '' when the event names no app.
    public var bundleID: String

    init(_ row: any QueryRow) throws {
        position = try row.requiredInteger("position")
        eventID = try row.requiredText("event_id")
        type = try row.requiredText("type")
        createdAtMs = try row.requiredInteger("created_at")
        userID = try row.requiredText("user_id")
        originalTransactionID = try row.requiredText("original_transaction_id")
        seq = try row.integer("seq")
        source = try row.requiredText("source")
        state = try row.requiredText("state")
        attempts = try row.requiredInteger("attempts")
        lastAttemptAtMs = try row.integer("last_attempt_at")
        lastStatus = try row.integer("last_status")
        deliveredAtMs = try row.integer("delivered_at")
        bundleID = try row.requiredText("bundle_id")
    }
}
