/// Ready-made accounts with money in them: long histories in several storefronts and currencies,
/// offers, refunds of each kind, family sharing, an upgrade and the sandbox, so the ledger, the
/// revenue and metrics reports and the dashboard have realistic, varied data. Built relative to a
/// given "now" like `SimulatedScenario` (kept apart from it because tests and golden files depend
/// on that enum's exact list). Real-length periods (7-day weeks, 30-day months, 365-day years)
/// except `sandboxUSD`. Prices come from `SimulatedPriceTable`; every id is derived from the
/// subscriber id, so a fixed "now" and id always give the same bytes.
public enum SimulatedLedgerScenario: String, CaseIterable, Sendable {
    /// Pro monthly, USA/USD 9.99, bought 410 days ago: the purchase and 13 renewals (14 periods); active, renews in 10 days.
    case monthlyUSD
    /// Pro monthly, DEU/EUR 9.99, bought 300 days ago: 8 periods; auto-renew turned off 70 days ago, expired 60 days ago (churn).
    case monthlyEURChurned
    /// Pro yearly, JPN/JPY 15000, bought 390 days ago and renewed once 25 days ago: 2 periods; active.
    case yearlyJPY
    /// Pro weekly, USA/USD 2.99, bought 66 days ago: 10 weekly periods; active, renews in 4 days.
    case weeklyUSD
    /// Pro monthly, FRA/EUR: a free 1-week trial 169 days ago (price 0, P1W), converted at EUR 9.99 and renewed: trial + 6 paid periods; active.
    case trialConvertedEUR
    /// Pro monthly, USA/USD: a free 1-week trial 40 days ago, auto-renew turned off 4 days in; expired 33 days ago, never paid.
    case trialNotConverted
    /// Pro monthly, USA/USD: a pay-up-front intro offer 225 days ago (3 months for 14.99, P3M), then 5 renewals at 9.99; active.
    case introPayUpFrontUSD
    /// Pro monthly, USA/USD 9.99, bought 270 days ago: 5 periods; the 5th refunded in full (`REFUND_FULL`) 140 days ago, 10 days in, which ended the subscription (refunded).
    case fullRefundUSD
    /// Pro yearly, GBR/GBP 89.99, bought 270 days ago: 1 period, refunded 60 days ago for its unused 42.5% (`REFUND_PRORATED`, 42500: GBP 38.246); refunded.
    case proratedRefundGBP
    /// Pro monthly, GBR/GBP 8.99, bought 155 days ago: 6 periods; the 4th refunded 60 days ago, Apple reversed that 53 days ago (no revocation left); active.
    case refundReversedGBP
    /// Pro monthly, DEU/EUR 9.99, received through Family Sharing (`FAMILY_SHARED`: nobody's revenue) 100 days ago: 4 periods; active.
    case familySharedEUR
    /// Pro monthly, USA/USD 9.99, bought 250 days ago: 6 periods, the 6th upgraded 85 days ago (15 days in); premium monthly at 14.99 since: 3 periods; active.
    case upgradeUSD
    /// Sandbox, pro monthly, USA/USD 9.99 at Apple's sandbox rate (5-minute months): bought 50 minutes ago, auto-renew off 22 minutes in: 5 periods; expired 25 minutes ago.
    case sandboxUSD

    /// The account for this scenario, with `id` seeding its ids, as of `nowMs`.
    public func subscriber(id: Int64, nowMs: Int64) -> SimulatedSubscriber {
        subscriber(id: id, nowMs: nowMs, paddingBytes: SimulatedScenario.defaultPaddingBytes)
    }

    /// The account for this scenario with a chosen receipt filler size.
    public func subscriber(id: Int64, nowMs: Int64, paddingBytes: Int) -> SimulatedSubscriber {
        // Whole seconds, like Apple's purchase and expiry times.
        let now = nowMs - ((nowMs % 1000) + 1000) % 1000
        let day = SimulatedProducts.dayMs
        func plan(_ product: String, _ periodMs: Int64, boughtDaysAgo: Int64) -> SimulatedSubscription {
            SimulatedSubscription(productID: product, periodMs: periodMs, firstPurchaseMs: now - boughtDaysAgo * day)
        }
        func monthly(boughtDaysAgo: Int64) -> SimulatedSubscription {
            plan(SimulatedProducts.proMonthly, SimulatedProducts.monthMs, boughtDaysAgo: boughtDaysAgo)
        }
        func yearly(boughtDaysAgo: Int64) -> SimulatedSubscription {
            plan(SimulatedProducts.proYearly, SimulatedProducts.yearMs, boughtDaysAgo: boughtDaysAgo)
        }
        var environment = SimulatedEnvironment.production
        var ownership = SimulatedOwnership.purchased
        let subscription: SimulatedSubscription

        switch self {
        case .monthlyUSD:
            subscription = monthly(boughtDaysAgo: 410)
        case .monthlyEURChurned:
            var s = monthly(boughtDaysAgo: 300)
            s.cancelAtMs = now - 70 * day
            subscription = s
        case .yearlyJPY:
            subscription = yearly(boughtDaysAgo: 390)
        case .weeklyUSD:
            subscription = plan(SimulatedProducts.proWeekly, SimulatedProducts.weekMs, boughtDaysAgo: 66)
        case .trialConvertedEUR:
            var s = monthly(boughtDaysAgo: 169)
            s.trialPeriodMs = SimulatedProducts.weekMs
            subscription = s
        case .trialNotConverted:
            var s = monthly(boughtDaysAgo: 40)
            s.trialPeriodMs = SimulatedProducts.weekMs
            s.cancelAtMs = now - 36 * day
            subscription = s
        case .introPayUpFrontUSD:
            var s = monthly(boughtDaysAgo: 225)
            s.payUpFrontIntroPeriodMs = 3 * SimulatedProducts.monthMs
            subscription = s
        case .fullRefundUSD:
            var s = monthly(boughtDaysAgo: 270)
            s.refundAtMs = now - 140 * day
            subscription = s
        case .proratedRefundGBP:
            // 210 of 365 days used: Apple gives back the unused share, rounded to 42.5%.
            var s = yearly(boughtDaysAgo: 270)
            s.refundAtMs = now - 60 * day
            s.refundPercentage = 42_500
            subscription = s
        case .refundReversedGBP:
            var s = monthly(boughtDaysAgo: 155)
            s.refundAtMs = now - 60 * day
            s.refundReversedAtMs = now - 53 * day
            subscription = s
        case .familySharedEUR:
            ownership = .familyShared
            subscription = monthly(boughtDaysAgo: 100)
        case .upgradeUSD:
            var s = monthly(boughtDaysAgo: 250)
            s.upgradeAtMs = now - 85 * day
            s.upgradeProductID = SimulatedProducts.premiumMonthly
            subscription = s
        case .sandboxUSD:
            environment = .sandbox
            var s = SimulatedSubscription(
                productID: SimulatedProducts.proMonthly, periodMs: SimulatedProducts.sandboxMonthMs,
                firstPurchaseMs: now - 50 * 60_000)
            s.cancelAtMs = now - 28 * 60_000
            subscription = s
        }
        return SimulatedSubscriber(
            id: id, environment: environment, ownership: ownership, storefront: storefront,
            subscriptions: [subscription], paddingBytes: paddingBytes)
    }

    /// The accounts of every scenario, in case order, with ids `firstID`, `firstID + 1`, … (pick
    /// a range no other account of the simulator uses).
    public static func subscribers(firstID: Int64, nowMs: Int64) -> [(scenario: Self, subscriber: SimulatedSubscriber)] {
        allCases.enumerated().map { index, scenario in
            (scenario, scenario.subscriber(id: firstID + Int64(index), nowMs: nowMs))
        }
    }

    /// Where the account buys, which decides its currency.
    public var storefront: SimulatedStorefront {
        switch self {
        case .monthlyUSD, .weeklyUSD, .trialNotConverted, .introPayUpFrontUSD, .fullRefundUSD, .upgradeUSD, .sandboxUSD:
            .usa
        case .monthlyEURChurned, .familySharedEUR: .deu
        case .trialConvertedEUR: .fra
        case .yearlyJPY: .jpn
        case .proratedRefundGBP, .refundReversedGBP: .gbr
        }
    }

    /// The environment of the scenario's receipt.
    public var environment: SimulatedEnvironment {
        self == .sandboxUSD ? .sandbox : .production
    }

    /// The status subrecon must derive at the scenario's creation time (`active`, `expired`, `refunded`).
    public var expectedStatus: String {
        switch self {
        case .monthlyUSD, .yearlyJPY, .weeklyUSD, .trialConvertedEUR, .introPayUpFrontUSD, .refundReversedGBP,
             .familySharedEUR, .upgradeUSD:
            "active"
        case .monthlyEURChurned, .trialNotConverted, .sandboxUSD: "expired"
        case .fullRefundUSD, .proratedRefundGBP: "refunded"
        }
    }

    /// The product of the newest transaction at the scenario's creation time.
    public var expectedProductID: String {
        switch self {
        case .yearlyJPY, .proratedRefundGBP: SimulatedProducts.proYearly
        case .weeklyUSD: SimulatedProducts.proWeekly
        case .upgradeUSD: SimulatedProducts.premiumMonthly
        default: SimulatedProducts.proMonthly
        }
    }

    /// How many transactions (billed periods, trials included) the history holds at the
    /// scenario's creation time.
    public var expectedTransactionCount: Int {
        switch self {
        case .monthlyUSD: 14
        case .monthlyEURChurned: 8
        case .yearlyJPY: 2
        case .weeklyUSD: 10
        case .trialConvertedEUR: 7
        case .trialNotConverted: 1
        case .introPayUpFrontUSD: 6
        case .fullRefundUSD: 5
        case .proratedRefundGBP: 1
        case .refundReversedGBP: 6
        case .familySharedEUR: 4
        case .upgradeUSD: 9
        case .sandboxUSD: 5
        }
    }
}
