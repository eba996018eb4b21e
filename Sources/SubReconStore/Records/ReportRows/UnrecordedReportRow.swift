/// One row of `report unrecorded`: a billed period a run found first, with the receipt it came
/// through and when that receipt was imported.
public struct UnrecordedReportRow: Sendable, Equatable {
    public var userID: String?
    public var originalTransactionID: String?
    public var transactionID: String?
    public var webOrderLineItemID: String?
    public var productID: String?
    public var purchaseDateMs: Int64?
    public var expiresDateMs: Int64?
    public var cancellationDateMs: Int64?
    public var isTrialPeriod: Bool?
    public var isInIntroOfferPeriod: Bool?
    public var firstSeenAtMs: Int64?
    public var firstSeenRunID: Int64?
    public var runKind: String?
    public var receiptID: Int64?
    public var receiptImportedAtMs: Int64?
    public var bundleID: String?

    /// Whether Apple billed the period after the app server handed the receipt over (nil when
    /// either date is unknown): the app's copy of the receipt cannot contain it.
    public var purchasedAfterImport: Bool? {
        guard let purchaseDateMs, let receiptImportedAtMs else { return nil }
        return purchaseDateMs > receiptImportedAtMs
    }

    init(_ row: any QueryRow) throws {
        userID = try row.text("user_id")
        originalTransactionID = try row.text("original_transaction_id")
        transactionID = try row.text("transaction_id")
        webOrderLineItemID = try row.text("web_order_line_item_id")
        productID = try row.text("product_id")
        purchaseDateMs = try row.integer("purchase_date_ms")
        expiresDateMs = try row.integer("expires_date_ms")
        cancellationDateMs = try row.integer("cancellation_date_ms")
        isTrialPeriod = try row.flag("is_trial_period")
        isInIntroOfferPeriod = try row.flag("is_in_intro_offer_period")
        firstSeenAtMs = try row.integer("first_seen_at")
        firstSeenRunID = try row.integer("first_seen_run_id")
        runKind = try row.text("run_kind")
        receiptID = try row.integer("receipt_id")
        receiptImportedAtMs = try row.integer("receipt_imported_at")
        bundleID = try row.text("bundle_id")
    }
}
