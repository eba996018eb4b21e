/// One row of `report renewals`: a billed period of the ledger, Apple's fields as stored, with the
/// app of the receipt holding it (else the one the period kept).
public struct RenewalReportRow: Sendable, Equatable {
    public var transactionID: String?
    public var originalTransactionID: String?
    public var webOrderLineItemID: String?
    public var userID: String?
    public var productID: String?
    public var purchaseDateMs: Int64?
    public var expiresDateMs: Int64?
    public var cancellationDateMs: Int64?
    public var isTrialPeriod: Bool?
    public var isInIntroOfferPeriod: Bool?
    public var firstSeenRunID: Int64?
    public var priceMilliunits: Int64?
    public var currency: String?
    public var storefront: String?
    public var offerType: Int64?
    public var offerDiscountType: String?
    public var offerPeriod: String?
    public var transactionReason: String?
    public var ownershipType: String?
    public var environment: String?
    public var revocationType: String?
    public var revocationPercentage: Int64?
    public var refundMilliunits: Int64?
    public var bundleID: String?

    init(_ row: any QueryRow) throws {
        transactionID = try row.text("transaction_id")
        originalTransactionID = try row.text("original_transaction_id")
        webOrderLineItemID = try row.text("web_order_line_item_id")
        userID = try row.text("user_id")
        productID = try row.text("product_id")
        purchaseDateMs = try row.integer("purchase_date_ms")
        expiresDateMs = try row.integer("expires_date_ms")
        cancellationDateMs = try row.integer("cancellation_date_ms")
        isTrialPeriod = try row.flag("is_trial_period")
        isInIntroOfferPeriod = try row.flag("is_in_intro_offer_period")
        firstSeenRunID = try row.integer("first_seen_run_id")
        priceMilliunits = try row.integer("price_milliunits")
        currency = try row.text("currency")
        storefront = try row.text("storefront")
        offerType = try row.integer("offer_type")
        offerDiscountType = try row.text("offer_discount_type")
        offerPeriod = try row.text("offer_period")
        transactionReason = try row.text("transaction_reason")
        ownershipType = try row.text("ownership_type")
        environment = try row.text("environment")
        revocationType = try row.text("revocation_type")
        revocationPercentage = try row.integer("revocation_percentage")
        refundMilliunits = try row.integer("refund_milliunits")
        bundleID = try row.text("bundle_id")
    }
}
