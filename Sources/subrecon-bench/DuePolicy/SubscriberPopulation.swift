import AppStoreSimulator

/// The subscribers of the due-policy comparison, built with `SimulatedSubscriber` and
/// `SimulatedSubscription` directly: ~70 % monthly and ~30 % yearly, first purchases spread over
/// the past year (the churned ones up to two years back), and scripted events that land inside
/// the simulated window so both policies have something to catch: auto-renew turned off (a lapse
/// at the period's end), billing failures (grace period or billing retry; half recover), refunds,
/// upgrades. About a quarter churned before the window (a real receipts table keeps them).
struct SubscriberPopulation: ReceiptSource {
    /// What a subscriber's script does, for the per-profile call counts.
    enum Profile: String, CaseIterable, Sendable {
        case renewing = "renewing"
        case lapsedBefore = "lapsed before the window"
        case retryingAtStart = "in grace/billing retry at start"
        case autoRenewOff = "turns auto-renew off"
        case billingFailure = "billing failure in the window"
        case refund = "refunded in the window"
        case upgrade = "upgrades in the window"

        /// Share per 1,000 subscribers.
        var weight: Int {
            switch self {
            case .renewing: 560
            case .lapsedBefore: 250
            case .retryingAtStart: 20
            case .autoRenewOff: 80
            case .billingFailure: 50
            case .refund: 30
            case .upgrade: 10
            }
        }
    }

    /// The first simulated night (whole seconds).
    var startMs: Int64
    /// Length of the simulated window.
    var days: Int
    var paddingBytes: Int

    private static let table: [Profile] = Profile.allCases.flatMap { Array(repeating: $0, count: $0.weight) }
    private static let stream: UInt64 = 0x5EED_0002

    func profile(of index: Int64) -> Profile {
        var random = BenchRandom(stream: Self.stream, index: index)
        return Self.table[Int(random.next() % UInt64(Self.table.count))]
    }

    func subscriber(_ index: Int64) -> SimulatedSubscriber {
        var random = BenchRandom(stream: Self.stream, index: index)
        let profile = Self.table[Int(random.next() % UInt64(Self.table.count))]
        let day = SimulatedProducts.dayMs
        let window = Int64(days) * day
        let yearly = random.unit() < 0.3
        let period = yearly ? SimulatedProducts.yearMs : SimulatedProducts.monthMs
        var s = SimulatedSubscription(
            productID: yearly ? SimulatedProducts.proYearly : SimulatedProducts.proMonthly, periodMs: period,
            firstPurchaseMs: startMs - random.milliseconds(in: day..<SimulatedProducts.yearMs))
        /// The end of the period running at `time` (no trial, no events before it).
        func periodEnd(after time: Int64) -> Int64 {
            s.firstPurchaseMs + ((time - s.firstPurchaseMs) / period + 1) * period
        }
        switch profile {
        case .renewing:
            break
        case .lapsedBefore:
            // Bought long enough ago that a whole period fits between turning auto-renew off and the window.
            s.firstPurchaseMs = startMs - period - random.milliseconds(in: day..<SimulatedProducts.yearMs)
            s.cancelAtMs = s.firstPurchaseMs + random.milliseconds(in: 0..<(startMs - period - s.firstPurchaseMs))
        case .retryingAtStart:
            // The renewal at `failedAt`, 1–20 days before the window, failed; a 16-day grace period for half.
            let failedAt = startMs - random.milliseconds(in: day..<(20 * day))
            let periodsBefore = yearly ? 1 : 1 + Int64.random(in: 0..<11, using: &random)
            s.firstPurchaseMs = failedAt - periodsBefore * period
            s.billingFailureAtMs = failedAt - 1000
            s.graceDays = random.unit() < 0.5 ? 16 : nil
            if random.unit() < 0.5 {
                s.recoverAtMs = startMs + random.milliseconds(in: 0..<window)
            }
        case .autoRenewOff:
            s.cancelAtMs = startMs + random.milliseconds(in: 0..<window)
        case .billingFailure:
            let failAt = startMs + random.milliseconds(in: 0..<window)
            s.billingFailureAtMs = failAt
            let choice = random.unit()
            s.graceDays = choice < 0.4 ? 16 : (choice < 0.6 ? 3 : nil)
            if random.unit() < 0.5 {
                s.recoverAtMs = periodEnd(after: failAt) + random.milliseconds(in: (day / 2)..<(12 * day))
            }
        case .refund:
            s.refundAtMs = startMs + random.milliseconds(in: 0..<window)
        case .upgrade:
            s.upgradeAtMs = startMs + random.milliseconds(in: 0..<window)
            s.upgradeProductID = SimulatedProducts.premiumMonthly
            s.upgradePeriodMs = SimulatedProducts.monthMs
        }
        return SimulatedSubscriber(id: index + 1, subscriptions: [s], paddingBytes: paddingBytes)
    }

    func row(_ index: Int64) -> ReceiptRow {
        let subscriber = subscriber(index)
        return ReceiptRow(
            userID: "user-\(index + 1)", receiptData: SimulatedReceipt.encode(subscriber),
            productID: subscriber.subscriptions.first?.productID)
    }
}
