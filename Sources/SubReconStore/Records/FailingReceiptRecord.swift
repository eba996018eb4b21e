/// A receipt that failed again and again (`subrecon status`).
public struct FailingReceiptRecord: Sendable, Equatable {
    public var receiptID: Int64
    public var userID: String
    public var consecutiveFailures: Int64
    public var lastAppleStatus: Int64?
    public var lastAttemptAtMs: Int64?
    public var lastMessage: String?

    init(_ row: any QueryRow) throws {
        receiptID = try row.requiredInteger("id")
        userID = try row.requiredText("user_id")
        consecutiveFailures = try row.requiredInteger("consecutive_failures")
        lastAppleStatus = try row.integer("last_apple_status")
        lastAttemptAtMs = try row.integer("last_attempt_at")
        lastMessage = try row.text("last_message")
    }
}
