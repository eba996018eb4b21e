/// Accounts made for matching the ledger against Apple's sales reports (`GET /v1/salesReports`):
/// purchases the reports show in a way a server's own records would not. Built relative to a
/// given "now" like `SimulatedLedgerScenario` (kept apart from it, so that enum's golden files do
/// not move). Production, payer-owned, USA/USD pro monthly at 9.99.
public enum SimulatedSalesScenario: String, CaseIterable, Sendable {
    /// Pro monthly, USA/USD 9.99, bought 3 days ago: a purchase the server never heard of (register it with the simulator, never import its receipt): a lost order only Apple's report shows.
    case unreportedPurchase
    /// Pro monthly, USA/USD 9.99, bought at 23:58 Pacific two Pacific days before now's: on that Pacific day in Apple's report, on the next day in UTC.
    case latePacificEvening

    /// The account for this scenario, with `id` seeding its ids, as of `nowMs`.
    public func subscriber(id: Int64, nowMs: Int64) -> SimulatedSubscriber {
        SimulatedSubscriber(
            id: id, storefront: .usa,
            subscriptions: [SimulatedSubscription(
                productID: expectedProductID, periodMs: SimulatedProducts.monthMs,
                firstPurchaseMs: purchaseMs(nowMs: nowMs))],
            paddingBytes: SimulatedScenario.defaultPaddingBytes)
    }

    /// The accounts of every scenario, in case order, with ids `firstID`, `firstID + 1`, … (pick
    /// a range no other account of the simulator uses).
    public static func subscribers(firstID: Int64, nowMs: Int64) -> [(scenario: Self, subscriber: SimulatedSubscriber)] {
        allCases.enumerated().map { index, scenario in
            (scenario, scenario.subscriber(id: firstID + Int64(index), nowMs: nowMs))
        }
    }

    /// The product of the scenario's purchase.
    public var expectedProductID: String { SimulatedProducts.proMonthly }

    /// When the first (and, within a month, only) purchase happens.
    public func purchaseMs(nowMs: Int64) -> Int64 {
        // Whole seconds, like Apple's purchase times.
        let now = nowMs - ((nowMs % 1000) + 1000) % 1000
        switch self {
        case .unreportedPurchase:
            return now - 3 * SimulatedProducts.dayMs
        case .latePacificEvening:
            let day = PacificDay(dayNumber: PacificDay(containing: now).dayNumber - 2)
            return day.startMs(ofHour: 23) + 58 * 60_000
        }
    }

    /// The Pacific day (`YYYY-MM-DD`) whose Summary Sales Report bills the purchase.
    public func reportDate(nowMs: Int64) -> String {
        PacificDay(containing: purchaseMs(nowMs: nowMs)).reportDate
    }
}
