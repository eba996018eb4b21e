/// Ready-made accounts, built relative to a given "now", each with the answer subrecon must
/// derive from them at that now. Timelines use real-length periods (30-day months, 365-day
/// years) except `sandboxActive`, which renews every 5 minutes like Apple's sandbox.
public enum SimulatedScenario: String, CaseIterable, Sendable {
    /// Monthly, auto-renew on, bought 123 days ago: four renewals the app never reported; expires in 27 days.
    case active
    /// Monthly, auto-renew turned off 5 days ago; the current period still runs 20 more days.
    case activeAutoRenewOff
    /// Free 7-day trial bought 2 days ago.
    case trialActive
    /// The renewal 2 days ago failed; 16-day grace period (ends in 14 days), billing retry on.
    case gracePeriod
    /// The renewal 20 days ago failed; the 3-day grace period is over, Apple still retries.
    case billingRetry
    /// A renewal 40 days ago failed; Apple collected 25 days ago and the new period runs 5 more days.
    case billingRecovered
    /// A renewal 110 days ago failed; billing retry gave up after 60 days (`expiration_intent` "2").
    case billingExpired
    /// Auto-renew turned off 70 days ago; expired 60 days ago (`expiration_intent` "1").
    case expired
    /// The current period was refunded 5 days ago (`cancellation_reason` "1").
    case refunded
    /// Pro monthly upgraded to premium monthly 10 days ago; active on premium.
    case upgraded
    /// Pro yearly (expires in 265 days); a switch to pro monthly is scheduled for the next renewal.
    case downgradePending
    /// Like `active`, but the receipt belongs to a family member (`FAMILY_SHARED`).
    case familyShared
    /// A Sandbox receipt (5-minute months): production answers 21007, the sandbox answers it.
    case sandboxActive
    /// Two `original_transaction_id`s in two groups: pro monthly active (group A), news monthly expired (group B).
    case twoGroups
    /// The receipt always answers 21003 (could not be authenticated).
    case invalidReceipt
    /// The receipt always answers 21010 (account not found), with `is_retryable: false`.
    case accountGone
    /// Status 0 with only a consumable in `receipt.in_app`; no subscription data at all.
    case noSubscriptions

    /// Default filler so receipts are a realistic ~4.4 KB of base64 and answers ~7 KB.
    public static let defaultPaddingBytes = 3_000

    /// The account for this scenario, with `id` seeding its ids, as of `nowMs`.
    public func subscriber(id: Int64, nowMs: Int64) -> SimulatedSubscriber {
        subscriber(id: id, nowMs: nowMs, paddingBytes: Self.defaultPaddingBytes)
    }

    /// The account for this scenario with a chosen receipt filler size.
    public func subscriber(id: Int64, nowMs: Int64, paddingBytes: Int) -> SimulatedSubscriber {
        // Whole seconds, like Apple's purchase and expiry times.
        let now = nowMs - ((nowMs % 1000) + 1000) % 1000
        let day = SimulatedProducts.dayMs
        let month = SimulatedProducts.monthMs
        func monthly(_ product: String = SimulatedProducts.proMonthly, boughtDaysAgo: Int64) -> SimulatedSubscription {
            SimulatedSubscription(productID: product, periodMs: month, firstPurchaseMs: now - boughtDaysAgo * day)
        }
        var environment = SimulatedEnvironment.production
        var ownership = SimulatedOwnership.purchased
        var fixedStatus: Int?
        var subscriptions: [SimulatedSubscription]
        var receiptCreatedMs: Int64?

        switch self {
        case .active:
            subscriptions = [monthly(boughtDaysAgo: 123)]
        case .activeAutoRenewOff:
            var s = monthly(boughtDaysAgo: 70)
            s.cancelAtMs = now - 5 * day
            subscriptions = [s]
        case .trialActive:
            var s = monthly(boughtDaysAgo: 2)
            s.trialPeriodMs = 7 * day
            subscriptions = [s]
        case .gracePeriod:
            var s = monthly(boughtDaysAgo: 62)
            s.billingFailureAtMs = now - 3 * day
            s.graceDays = 16
            subscriptions = [s]
        case .billingRetry:
            var s = monthly(boughtDaysAgo: 80)
            s.billingFailureAtMs = now - 21 * day
            s.graceDays = 3
            subscriptions = [s]
        case .billingRecovered:
            var s = monthly(boughtDaysAgo: 100)
            s.billingFailureAtMs = now - 41 * day
            s.graceDays = 3
            s.recoverAtMs = now - 25 * day
            subscriptions = [s]
        case .billingExpired:
            var s = monthly(boughtDaysAgo: 200)
            s.billingFailureAtMs = now - 115 * day
            subscriptions = [s]
        case .expired:
            var s = monthly(boughtDaysAgo: 150)
            s.cancelAtMs = now - 70 * day
            subscriptions = [s]
        case .refunded:
            var s = monthly(boughtDaysAgo: 45)
            s.refundAtMs = now - 5 * day
            subscriptions = [s]
        case .upgraded:
            var s = monthly(boughtDaysAgo: 75)
            s.upgradeAtMs = now - 10 * day
            s.upgradeProductID = SimulatedProducts.premiumMonthly
            subscriptions = [s]
        case .downgradePending:
            var s = SimulatedSubscription(
                productID: SimulatedProducts.proYearly, periodMs: SimulatedProducts.yearMs,
                firstPurchaseMs: now - 100 * day)
            s.downgradeAtMs = now - 20 * day
            s.downgradeProductID = SimulatedProducts.proMonthly
            s.downgradePeriodMs = month
            subscriptions = [s]
        case .familyShared:
            ownership = .familyShared
            subscriptions = [monthly(boughtDaysAgo: 123)]
        case .sandboxActive:
            environment = .sandbox
            subscriptions = [SimulatedSubscription(
                productID: SimulatedProducts.proMonthly, periodMs: SimulatedProducts.sandboxMonthMs,
                firstPurchaseMs: now - 12 * 60_000)]
        case .twoGroups:
            var news = monthly(SimulatedProducts.newsMonthly, boughtDaysAgo: 100)
            news.cancelAtMs = now - 50 * day
            subscriptions = [monthly(boughtDaysAgo: 123), news]
        case .invalidReceipt:
            fixedStatus = 21003
            subscriptions = [monthly(boughtDaysAgo: 123)]
        case .accountGone:
            fixedStatus = 21010
            subscriptions = [monthly(boughtDaysAgo: 123)]
        case .noSubscriptions:
            subscriptions = []
            receiptCreatedMs = now - 40 * day
        }
        return SimulatedSubscriber(
            id: id, environment: environment, ownership: ownership, receiptCreatedMs: receiptCreatedMs,
            subscriptions: subscriptions, fixedStatus: fixedStatus, paddingBytes: paddingBytes)
    }

    /// The subscription status subrecon must derive at the scenario's creation time (`active`,
    /// `grace_period`, `billing_retry`, `expired`, `refunded`), or nil when no subscription row is
    /// expected (non-zero status or no subscription). For `twoGroups` this is group A's status
    /// (see `expectedStatusByGroup`).
    public var expectedStatus: String? {
        switch self {
        case .active, .activeAutoRenewOff, .trialActive, .billingRecovered, .upgraded, .downgradePending,
             .familyShared, .sandboxActive, .twoGroups:
            "active"
        case .gracePeriod: "grace_period"
        case .billingRetry: "billing_retry"
        case .billingExpired, .expired: "expired"
        case .refunded: "refunded"
        case .invalidReceipt, .accountGone, .noSubscriptions: nil
        }
    }

    /// The `status` the receipt answers at its own environment's endpoint.
    public var expectedAppleStatus: Int {
        switch self {
        case .invalidReceipt: 21003
        case .accountGone: 21010
        default: 0
        }
    }

    /// The expected status per `subscription_group_identifier` (empty when `expectedStatus` is nil).
    public var expectedStatusByGroup: [String: String] {
        guard let expectedStatus else { return [:] }
        if self == .twoGroups {
            return [SimulatedProducts.groupA: "active", SimulatedProducts.groupB: "expired"]
        }
        return [SimulatedProducts.groupA: expectedStatus]
    }

    /// The product of the governing (newest) transaction in group A, when there is one.
    public var expectedProductID: String? {
        switch self {
        case .invalidReceipt, .accountGone, .noSubscriptions: nil
        case .upgraded: SimulatedProducts.premiumMonthly
        case .downgradePending: SimulatedProducts.proYearly
        default: SimulatedProducts.proMonthly
        }
    }

    /// The environment of the scenario's receipt.
    public var environment: SimulatedEnvironment {
        self == .sandboxActive ? .sandbox : .production
    }
}
