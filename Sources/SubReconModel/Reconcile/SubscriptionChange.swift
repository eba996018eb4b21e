/// One subscription's change in one run: the stored row before and the row written, side by side
/// (a row of `subscription_changes`, reported by `subrecon report changes`).
///
/// Computed by the reconciler inside the write transaction, from the very rows it compares, so the
/// report says exactly what the run changed, for every subscription of a receipt (a run item only
/// keeps the headline one).
public struct SubscriptionChange: Sendable, Equatable {
    /// The `change` column's fixed vocabulary. Exactly one per row: the most significant change,
    /// in the order the cases are listed in ``classify(old:new:)``; the old and new columns show
    /// everything else that moved.
    public enum Kind: String, Sendable, CaseIterable {
        /// First seen: no stored row for this (user, original_transaction_id) before.
        case new
        /// Active before and after, same product, later expiry: Apple billed a new period.
        case renewed
        /// Newly expired (from active, grace period or billing retry).
        case expired
        /// Newly refunded (or revoked) by Apple.
        case refunded
        /// Newly in the billing grace period: a renewal failed, still entitled.
        case enteredGracePeriod = "entered_grace_period"
        /// Newly in billing retry without grace: a renewal failed, not entitled.
        case enteredBillingRetry = "entered_billing_retry"
        /// Active again after grace period, billing retry or expiry.
        case recovered
        /// Active before and after on another product (upgrade, downgrade or crossgrade taking effect).
        case productChanged = "product_changed"
        /// Only the renewal preference moved: auto-renew turned off or on, or another product
        /// scheduled for the next renewal (a pending downgrade).
        case autoRenewChanged = "auto_renew_changed"
        /// Any other change of a reported field (e.g. the grace period's end, an earlier expiry
        /// Apple explained, the expiration intent).
        case other
    }

    public var userID: String
    public var originalTransactionID: String
    public var receiptID: Int64?
    public var kind: Kind
    public var oldStatus: SubscriptionStatus?
    public var newStatus: SubscriptionStatus
    public var oldProductID: String?
    public var newProductID: String
    public var oldExpiresDateMs: Int64?
    public var newExpiresDateMs: Int64
    public var oldAutoRenewStatus: Bool?
    public var newAutoRenewStatus: Bool?
    public var oldAutoRenewProductID: String?
    public var newAutoRenewProductID: String?
    public var recordedAt: Int64
    /// The rows themselves, for the change's event (`before` / `after`).
    public var before: StoredSubscription?
    public var after: StoredSubscription
    /// The billed period the event names (`new`: the governing transaction, `renewed`: the new
    /// period, `refunded`: the revoked transaction), as stored after the write; set by the reconciler.
    public var period: RenewalRecord? = nil

    /// The change from `old` (nil: first seen) to `new`, or nil when no reported field moved
    /// (a re-verification that only refreshed `last_verified_at` is not a change).
    public init?(old: StoredSubscription?, new: StoredSubscription, recordedAt: Int64) {
        guard let kind = Self.classify(old: old, new: new) else { return nil }
        self.userID = new.userID
        self.originalTransactionID = new.originalTransactionID
        self.receiptID = new.receiptID
        self.kind = kind
        self.oldStatus = old?.status
        self.newStatus = new.status
        self.oldProductID = old?.productID
        self.newProductID = new.productID
        self.oldExpiresDateMs = old?.expiresDateMs
        self.newExpiresDateMs = new.expiresDateMs
        self.oldAutoRenewStatus = old?.autoRenewStatus
        self.newAutoRenewStatus = new.autoRenewStatus
        self.oldAutoRenewProductID = old?.autoRenewProductID
        self.newAutoRenewProductID = new.autoRenewProductID
        self.recordedAt = recordedAt
        self.before = old
        self.after = new
    }

    /// The one word for a change; nil when nothing the contract reports changed.
    ///
    /// Status transitions win over everything else, because they change what the customer may
    /// use (and what finance counts); then a product change between two active rows; then a new
    /// period; then the renewal preference; anything else is `other`.
    public static func classify(old: StoredSubscription?, new: StoredSubscription) -> Kind? {
        guard let old else { return .new }
        if old.hasSameReportedState(as: new) { return nil }
        if old.status != new.status {
            switch new.status {
            case .refunded: return .refunded
            case .gracePeriod: return .enteredGracePeriod
            case .billingRetry: return .enteredBillingRetry
            case .expired: return .expired
            case .active:
                // Back from a lapse; active after a refund is a new purchase Apple filed under the
                // same original transaction, which the vocabulary has no word for.
                return old.status == .refunded ? .other : .recovered
            }
        }
        if new.status == .active, old.productID != new.productID { return .productChanged }
        if new.status == .active, new.expiresDateMs > old.expiresDateMs { return .renewed }
        if old.autoRenewStatus != new.autoRenewStatus || old.autoRenewProductID != new.autoRenewProductID {
            return .autoRenewChanged
        }
        return .other
    }
}
