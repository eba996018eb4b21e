import GRDB

/// A stored receipt as the pipeline needs it: what to send to Apple, and where first.
public struct ReceiptToVerify: Sendable, Equatable, FetchableRecord {
    public var id: Int64
    public var userID: String
    public var receiptData: String
    /// Learned from Apple's last answer, or given at import; nil means production first.
    public var environment: ReceiptEnvironment?
    /// When it was due (the keyset position of due pages).
    public var nextDueAt: Int64

    public init(id: Int64, userID: String, receiptData: String, environment: ReceiptEnvironment?, nextDueAt: Int64 = 0) {
        self.id = id
        self.userID = userID
        self.receiptData = receiptData
        self.environment = environment
        self.nextDueAt = nextDueAt
    }

    public init(row: Row) throws {
        id = row["id"]
        userID = row["user_id"]
        receiptData = row["receipt_data"]
        environment = (row["environment"] as String?).flatMap(ReceiptEnvironment.init(rawValue:))
        nextDueAt = row.hasColumn("next_due_at") ? row["next_due_at"] : 0
    }
}
