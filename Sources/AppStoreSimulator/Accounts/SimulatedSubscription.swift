/// One auto-renewable subscription (one `original_transaction_id`) and everything that will
/// happen to it over time. The simulator replays this script at each request's "now", so the
/// same receipt answers differently as the clock moves: renewals appear, auto-renew turns off,
/// a renewal fails, a refund (and perhaps its reversal) or an upgrade lands.
///
/// All times are Unix-epoch milliseconds. Renewals happen at the end of each period as long as
/// nothing below stops them.
public struct SimulatedSubscription: Codable, Sendable, Hashable {
    /// Product of the first purchase.
    public var productID: String
    /// Length of one billing period of `productID`.
    public var periodMs: Int64
    /// Start of the first period (`purchase_date` of the first transaction, also `original_purchase_date`).
    public var firstPurchaseMs: Int64
    /// When set, the first period is a free trial of this length (`is_trial_period` "true").
    public var trialPeriodMs: Int64?
    /// When set (and `trialPeriodMs` is not), the first period is an introductory offer paid up
    /// front: this long, at `SimulatedPriceTable.introPriceMilliunits` (`is_in_intro_offer_period`
    /// "true", `offerDiscountType` "PAY_UP_FRONT"); regular renewals follow it.
    public var payUpFrontIntroPeriodMs: Int64?
    /// The customer turns auto-renew off at this time: the period running then is the last one,
    /// and once it ends the subscription is expired with `expiration_intent` "1".
    public var cancelAtMs: Int64?
    /// The first renewal due at or after this time fails for billing reasons: Apple retries for
    /// up to 60 days (`is_in_billing_retry_period` "1", `expiration_intent` "2"), then gives up.
    public var billingFailureAtMs: Int64?
    /// Billing Grace Period length in days after a failed renewal (Apple offers 3, 16 or 28); nil = no grace period.
    public var graceDays: Int?
    /// When inside the billing-retry window, Apple collects payment at this time and a new period starts then.
    public var recoverAtMs: Int64?
    /// The transaction running at this time is refunded (`cancellation_date*`, `cancellation_reason` "1")
    /// and auto-renew stops.
    public var refundAtMs: Int64?
    /// nil: the refund gives the whole price back (`revocationType` "REFUND_FULL"). Set: only this
    /// share, in milli-percent 0–100000 (`revocationType` "REFUND_PRORATED", `revocationPercentage`).
    public var refundPercentage: Int64?
    /// Apple reverses the refund at this time (after `refundAtMs`, and before the refunded period
    /// would have ended, as disputes are settled within days): from then on the transaction carries
    /// no revocation, as if it had never been refunded, and renewals go on (`REFUND_REVERSED`).
    public var refundReversedAtMs: Int64?
    /// The transaction running at this time is cancelled by an upgrade (`is_upgraded` "true",
    /// `cancellation_reason` "0") and a `upgradeProductID` transaction starts at this time.
    public var upgradeAtMs: Int64?
    /// Product the subscription is upgraded to.
    public var upgradeProductID: String?
    /// Period of `upgradeProductID`; nil = same as `periodMs`.
    public var upgradePeriodMs: Int64?
    /// The customer picks a lower plan at this time; it shows as `auto_renew_product_id` until the
    /// next renewal, which then bills `downgradeProductID`.
    public var downgradeAtMs: Int64?
    /// Product of the scheduled downgrade.
    public var downgradeProductID: String?
    /// Period of `downgradeProductID`; nil = same as the current period.
    public var downgradePeriodMs: Int64?

    /// Creates a subscription script; only the product, its period and the first purchase are required.
    public init(
        productID: String,
        periodMs: Int64,
        firstPurchaseMs: Int64,
        trialPeriodMs: Int64? = nil,
        payUpFrontIntroPeriodMs: Int64? = nil,
        cancelAtMs: Int64? = nil,
        billingFailureAtMs: Int64? = nil,
        graceDays: Int? = nil,
        recoverAtMs: Int64? = nil,
        refundAtMs: Int64? = nil,
        refundPercentage: Int64? = nil,
        refundReversedAtMs: Int64? = nil,
        upgradeAtMs: Int64? = nil,
        upgradeProductID: String? = nil,
        upgradePeriodMs: Int64? = nil,
        downgradeAtMs: Int64? = nil,
        downgradeProductID: String? = nil,
        downgradePeriodMs: Int64? = nil
    ) {
        self.productID = productID
        self.periodMs = periodMs
        self.firstPurchaseMs = firstPurchaseMs
        self.trialPeriodMs = trialPeriodMs
        self.payUpFrontIntroPeriodMs = payUpFrontIntroPeriodMs
        self.cancelAtMs = cancelAtMs
        self.billingFailureAtMs = billingFailureAtMs
        self.graceDays = graceDays
        self.recoverAtMs = recoverAtMs
        self.refundAtMs = refundAtMs
        self.refundPercentage = refundPercentage
        self.refundReversedAtMs = refundReversedAtMs
        self.upgradeAtMs = upgradeAtMs
        self.upgradeProductID = upgradeProductID
        self.upgradePeriodMs = upgradePeriodMs
        self.downgradeAtMs = downgradeAtMs
        self.downgradeProductID = downgradeProductID
        self.downgradePeriodMs = downgradePeriodMs
    }
}
