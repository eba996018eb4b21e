/// One entry of `latest_receipt_info`, reduced to the fields subrecon uses.
/// Identifiers stay strings: they are 64-bit digit strings and must never pass through Double.
public struct AppleTransaction: Sendable, Equatable {
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
    /// The UUID the app attached to the purchase (`appAccountToken`, or verifyReceipt's `app_account_token`).
    public var appAccountToken: String?
    /// The period's price, offer and refund as signed data gives them; nil from verifyReceipt.
    public var money: TransactionMoney?
    /// The app download the purchase belongs to (`appTransactionId`, App Store Server API 1.15).
    public var appTransactionID: String?

    public init(
        transactionID: String?, originalTransactionID: String?, webOrderLineItemID: String? = nil,
        productID: String?, purchaseDateMs: Int64? = nil, expiresDateMs: Int64?,
        cancellationDateMs: Int64? = nil, cancellationReason: String? = nil, isUpgraded: Bool = false,
        isTrialPeriod: Bool? = nil, isInIntroOfferPeriod: Bool? = nil, ownershipType: String? = nil,
        subscriptionGroupIdentifier: String? = nil, appAccountToken: String? = nil,
        money: TransactionMoney? = nil, appTransactionID: String? = nil
    ) {
        self.appTransactionID = appTransactionID
        self.money = money
        self.appAccountToken = appAccountToken
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

    /// Apple's key for one subscription period (stable across restores); `transaction_id` where it is missing.
    public var periodKey: String? {
        if let webOrderLineItemID { return webOrderLineItemID }
        return transactionID.map { "txn:\($0)" }
    }
}
