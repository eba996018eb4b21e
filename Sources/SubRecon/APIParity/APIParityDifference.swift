
/// One field of one subscription on which the two Apple APIs disagree (`subrecon parity`).
public struct APIParityDifference: Sendable, Equatable {
    public var userID: String
    public var originalTransactionID: String
    /// A `report subscriptions` column, `subscription` when only one API knows it, or `outcome`
    /// when the receipt's outcomes differ (the ID column is then empty).
    public var field: String
    public var verifyReceiptValue: String
    public var serverAPIValue: String

    public init(userID: String, originalTransactionID: String, field: String, verifyReceiptValue: String, serverAPIValue: String) {
        self.userID = userID
        self.originalTransactionID = originalTransactionID
        self.field = field
        self.verifyReceiptValue = verifyReceiptValue
        self.serverAPIValue = serverAPIValue
    }

    public static let csvHeader = ["user_id", "original_transaction_id", "field", "verify_receipt_value", "server_api_value"]

    public var csvFields: [String?] { [userID, originalTransactionID, field, verifyReceiptValue, serverAPIValue] }
}
