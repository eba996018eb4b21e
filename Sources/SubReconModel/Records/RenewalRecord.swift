/// A row of `renewals`: one subscription period Apple reported for a user, never duplicated.
/// Keyed by Apple's `web_order_line_item_id` (stable across restores), else by `transaction_id`.
public struct RenewalRecord: Sendable, Equatable, Codable {
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

    package enum CodingKeys: String, CodingKey {
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

    package init(userID: String, periodKey: String, transactionID: String, originalTransactionID: String, webOrderLineItemID: String? = nil, productID: String, purchaseDateMs: Int64? = nil, expiresDateMs: Int64, cancellationDateMs: Int64? = nil, isTrialPeriod: Bool, isInIntroOfferPeriod: Bool, receiptID: Int64? = nil, firstSeenRunID: Int64? = nil, firstSeenAt: Int64, priceMilliunits: Int64? = nil, currency: String? = nil, storefront: String? = nil, offerType: Int64? = nil, offerDiscountType: String? = nil, offerPeriod: String? = nil, transactionReason: String? = nil, ownershipType: String? = nil, environment: String? = nil, revocationType: String? = nil, revocationPercentage: Int64? = nil, refundMilliunits: Int64? = nil, isUpgraded: Bool = false, ledgerSignedDateMs: Int64? = nil) {
        self.userID = userID
        self.periodKey = periodKey
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID
        self.webOrderLineItemID = webOrderLineItemID
        self.productID = productID
        self.purchaseDateMs = purchaseDateMs
        self.expiresDateMs = expiresDateMs
        self.cancellationDateMs = cancellationDateMs
        self.isTrialPeriod = isTrialPeriod
        self.isInIntroOfferPeriod = isInIntroOfferPeriod
        self.receiptID = receiptID
        self.firstSeenRunID = firstSeenRunID
        self.firstSeenAt = firstSeenAt
        self.priceMilliunits = priceMilliunits
        self.currency = currency
        self.storefront = storefront
        self.offerType = offerType
        self.offerDiscountType = offerDiscountType
        self.offerPeriod = offerPeriod
        self.transactionReason = transactionReason
        self.ownershipType = ownershipType
        self.environment = environment
        self.revocationType = revocationType
        self.revocationPercentage = revocationPercentage
        self.refundMilliunits = refundMilliunits
        self.isUpgraded = isUpgraded
        self.ledgerSignedDateMs = ledgerSignedDateMs
    }
}
