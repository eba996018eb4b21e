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
    // The ledger (v9): Apple's newest verified money data about this period; nil where Apple did
    // not give it (verifyReceipt gives none of the money fields).
    public var priceMilliunits: Int64? = nil
    public var currency: String? = nil
    public var storefront: String? = nil
    public var offerType: Int64? = nil
    public var offerDiscountType: String? = nil
    public var offerPeriod: String? = nil
    public var transactionReason: String? = nil
    public var ownershipType: String? = nil
    public var environment: String? = nil
    public var revocationType: String? = nil
    public var revocationPercentage: Int64? = nil
    /// What Apple gave back for this period (``RefundAmount``); nil when the price is unknown.
    public var refundMilliunits: Int64? = nil
    public var isUpgraded: Bool = false
    /// When Apple signed the money data stored (ms); nil when none came from signed data. Older
    /// data never replaces newer (a notification delivered late).
    public var ledgerSignedDateMs: Int64? = nil

    enum CodingKeys: String, CodingKey {
        case userID = "user_id", periodKey = "period_key", transactionID = "transaction_id"
        case originalTransactionID = "original_transaction_id", webOrderLineItemID = "web_order_line_item_id"
        case productID = "product_id", purchaseDateMs = "purchase_date_ms", expiresDateMs = "expires_date_ms"
        case cancellationDateMs = "cancellation_date_ms", isTrialPeriod = "is_trial_period"
        case isInIntroOfferPeriod = "is_in_intro_offer_period", receiptID = "receipt_id"
        case firstSeenRunID = "first_seen_run_id", firstSeenAt = "first_seen_at"
        case priceMilliunits = "price_milliunits", currency, storefront, offerType = "offer_type"
        case offerDiscountType = "offer_discount_type", offerPeriod = "offer_period"
        case transactionReason = "transaction_reason", ownershipType = "ownership_type", environment
        case revocationType = "revocation_type", revocationPercentage = "revocation_percentage"
        case refundMilliunits = "refund_milliunits", isUpgraded = "is_upgraded", ledgerSignedDateMs = "ledger_signed_date"
    }
}

extension RenewalRecord {
    /// The columns `init(selectedRow:)` reads, in its order (see `StoredSubscription.selectedColumns`).
    static let selectedColumns = """
        user_id, period_key, transaction_id, original_transaction_id, web_order_line_item_id, product_id,
        purchase_date_ms, expires_date_ms, cancellation_date_ms, is_trial_period, is_in_intro_offer_period,
        receipt_id, first_seen_run_id, first_seen_at, price_milliunits, currency, storefront, offer_type,
        offer_discount_type, offer_period, transaction_reason, ownership_type, environment, revocation_type,
        revocation_percentage, refund_milliunits, is_upgraded, ledger_signed_date
        """

    /// How many columns `selectedColumns` names (an insert binds them all).
    static let insertColumnCount = selectedColumns.split(separator: ",").count

    /// The ledger's columns a revision sets (``ledgerValues`` in this order).
    static let ledgerColumns = [
        "cancellation_date_ms", "price_milliunits", "currency", "storefront", "offer_type", "offer_discount_type",
        "offer_period", "transaction_reason", "ownership_type", "environment", "revocation_type",
        "revocation_percentage", "refund_milliunits", "is_upgraded", "ledger_signed_date",
    ]

    /// The values of ``ledgerColumns``.
    var ledgerValues: [SQLArgument] {
        [
            SQLArgument(cancellationDateMs), SQLArgument(priceMilliunits), SQLArgument(currency), SQLArgument(storefront),
            SQLArgument(offerType), SQLArgument(offerDiscountType), SQLArgument(offerPeriod),
            SQLArgument(transactionReason), SQLArgument(ownershipType), SQLArgument(environment),
            SQLArgument(revocationType), SQLArgument(revocationPercentage), SQLArgument(refundMilliunits),
            .integer(isUpgraded ? 1 : 0), SQLArgument(ledgerSignedDateMs),
        ]
    }

    /// Every column of `selectedColumns`, in order, for an insert.
    var insertValues: [SQLArgument] {
        [
            .text(userID), .text(periodKey), .text(transactionID), .text(originalTransactionID),
            SQLArgument(webOrderLineItemID), .text(productID), SQLArgument(purchaseDateMs), .integer(expiresDateMs),
            SQLArgument(cancellationDateMs), .integer(isTrialPeriod ? 1 : 0), .integer(isInIntroOfferPeriod ? 1 : 0),
            SQLArgument(receiptID), SQLArgument(firstSeenRunID), .integer(firstSeenAt), SQLArgument(priceMilliunits),
            SQLArgument(currency), SQLArgument(storefront), SQLArgument(offerType), SQLArgument(offerDiscountType),
            SQLArgument(offerPeriod), SQLArgument(transactionReason), SQLArgument(ownershipType),
            SQLArgument(environment), SQLArgument(revocationType), SQLArgument(revocationPercentage),
            SQLArgument(refundMilliunits), .integer(isUpgraded ? 1 : 0), SQLArgument(ledgerSignedDateMs),
        ]
    }

    /// The current row of `SELECT \(selectedColumns) FROM renewals`.
    init(selectedColumnsOf row: DirectStatement) {
        self.init(
            userID: row.text(0), periodKey: row.text(1), transactionID: row.text(2),
            originalTransactionID: row.text(3), webOrderLineItemID: row.optionalText(4), productID: row.text(5),
            purchaseDateMs: row.optionalInt64(6), expiresDateMs: row.int64(7), cancellationDateMs: row.optionalInt64(8),
            isTrialPeriod: row.bool(9), isInIntroOfferPeriod: row.bool(10), receiptID: row.optionalInt64(11),
            firstSeenRunID: row.optionalInt64(12), firstSeenAt: row.int64(13), priceMilliunits: row.optionalInt64(14),
            currency: row.optionalText(15), storefront: row.optionalText(16), offerType: row.optionalInt64(17),
            offerDiscountType: row.optionalText(18), offerPeriod: row.optionalText(19),
            transactionReason: row.optionalText(20), ownershipType: row.optionalText(21), environment: row.optionalText(22),
            revocationType: row.optionalText(23), revocationPercentage: row.optionalInt64(24),
            refundMilliunits: row.optionalInt64(25), isUpgraded: row.bool(26), ledgerSignedDateMs: row.optionalInt64(27))
    }
}
