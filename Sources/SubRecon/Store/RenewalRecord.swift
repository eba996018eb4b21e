import GRDB

/// A row of `renewals`: one subscription period Apple reported for a user, never duplicated.
/// Keyed by Apple's `web_order_line_item_id` (stable across restores), else by `transaction_id`.
public struct RenewalRecord: Sendable, Equatable, Codable, FetchableRecord {
    public var userID: String
    public var periodKey: String
    public var transactionID: String
    public var originalTransactionID: String
    public var webOrderLineItemID: String?
    public var productID: String
    public var purchaseDateMs: Int64?
    public var expiresDateMs: Int64
    public var cancellationDateMs: Int64?
    public var isTrialPeriod: Bool
    public var isInIntroOfferPeriod: Bool
    public var receiptID: Int64?
    public var firstSeenRunID: Int64?
    public var firstSeenAt: Int64

    enum CodingKeys: String, CodingKey {
        case userID = "user_id", periodKey = "period_key", transactionID = "transaction_id"
        case originalTransactionID = "original_transaction_id", webOrderLineItemID = "web_order_line_item_id"
        case productID = "product_id", purchaseDateMs = "purchase_date_ms", expiresDateMs = "expires_date_ms"
        case cancellationDateMs = "cancellation_date_ms", isTrialPeriod = "is_trial_period"
        case isInIntroOfferPeriod = "is_in_intro_offer_period", receiptID = "receipt_id"
        case firstSeenRunID = "first_seen_run_id", firstSeenAt = "first_seen_at"
    }
}

extension RenewalRecord {
    /// The columns `init(selectedRow:)` reads, in its order (see `StoredSubscription.selectedColumns`).
    static let selectedColumns = """
        user_id, period_key, transaction_id, original_transaction_id, web_order_line_item_id, product_id,
        purchase_date_ms, expires_date_ms, cancellation_date_ms, is_trial_period, is_in_intro_offer_period,
        receipt_id, first_seen_run_id, first_seen_at
        """

    /// The current row of `SELECT \(selectedColumns) FROM renewals`.
    init(selectedColumnsOf row: DirectStatement) {
        self.init(
            userID: row.text(0), periodKey: row.text(1), transactionID: row.text(2),
            originalTransactionID: row.text(3), webOrderLineItemID: row.optionalText(4), productID: row.text(5),
            purchaseDateMs: row.optionalInt64(6), expiresDateMs: row.int64(7), cancellationDateMs: row.optionalInt64(8),
            isTrialPeriod: row.bool(9), isInIntroOfferPeriod: row.bool(10), receiptID: row.optionalInt64(11),
            firstSeenRunID: row.optionalInt64(12), firstSeenAt: row.int64(13))
    }
}
