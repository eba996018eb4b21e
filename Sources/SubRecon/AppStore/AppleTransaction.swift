/// One entry of `latest_receipt_info`, reduced to the fields subrecon uses.
/// Identifiers stay strings: they are 64-bit digit strings and must never pass through Double.
public struct AppleTransaction: Sendable, Equatable, Decodable {
    public var transactionID: String?
    public var originalTransactionID: String?
    public var webOrderLineItemID: String?
    public var productID: String?
    public var purchaseDateMs: Int64?
    /// Absent for consumables, non-consumables and non-renewing subscriptions.
    public var expiresDateMs: Int64?
    public var cancellationDateMs: Int64?
    public var cancellationReason: String?
    public var isUpgraded: Bool
    public var isTrialPeriod: Bool?
    public var isInIntroOfferPeriod: Bool?
    public var ownershipType: String?
    public var subscriptionGroupIdentifier: String?

    public init(
        transactionID: String?, originalTransactionID: String?, webOrderLineItemID: String? = nil,
        productID: String?, purchaseDateMs: Int64? = nil, expiresDateMs: Int64?,
        cancellationDateMs: Int64? = nil, cancellationReason: String? = nil, isUpgraded: Bool = false,
        isTrialPeriod: Bool? = nil, isInIntroOfferPeriod: Bool? = nil, ownershipType: String? = nil,
        subscriptionGroupIdentifier: String? = nil
    ) {
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID
        self.webOrderLineItemID = webOrderLineItemID
        self.productID = productID
        self.purchaseDateMs = purchaseDateMs
        self.expiresDateMs = expiresDateMs
        self.cancellationDateMs = cancellationDateMs
        self.cancellationReason = cancellationReason
        self.isUpgraded = isUpgraded
        self.isTrialPeriod = isTrialPeriod
        self.isInIntroOfferPeriod = isInIntroOfferPeriod
        self.ownershipType = ownershipType
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
    }

    enum CodingKeys: String, CodingKey {
        case transaction_id, original_transaction_id, web_order_line_item_id, product_id
        case purchase_date_ms, purchase_date, expires_date_ms, expires_date
        case cancellation_date_ms, cancellation_date, cancellation_reason, is_upgraded
        case is_trial_period, is_in_intro_offer_period, in_app_ownership_type
        case subscription_group_identifier
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        transactionID = c.lenientString(.transaction_id)
        originalTransactionID = c.lenientString(.original_transaction_id)
        webOrderLineItemID = c.lenientString(.web_order_line_item_id)
        productID = c.lenientString(.product_id)
        purchaseDateMs = c.lenientMilliseconds(.purchase_date_ms, fallback: .purchase_date)
        expiresDateMs = c.lenientMilliseconds(.expires_date_ms, fallback: .expires_date)
        cancellationDateMs = c.lenientMilliseconds(.cancellation_date_ms, fallback: .cancellation_date)
        cancellationReason = c.lenientString(.cancellation_reason)
        isUpgraded = c.lenientBool(.is_upgraded) ?? false
        isTrialPeriod = c.lenientBool(.is_trial_period)
        isInIntroOfferPeriod = c.lenientBool(.is_in_intro_offer_period)
        ownershipType = c.lenientString(.in_app_ownership_type)
        subscriptionGroupIdentifier = c.lenientString(.subscription_group_identifier)
    }

    /// Apple's key for one subscription period (stable across restores); `transaction_id` where it is missing.
    public var periodKey: String? {
        if let webOrderLineItemID { return webOrderLineItemID }
        return transactionID.map { "txn:\($0)" }
    }
}
