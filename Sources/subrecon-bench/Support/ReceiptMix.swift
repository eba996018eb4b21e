import AppStoreSimulator

/// The stored receipts of a realistic app, for the throughput runs: mostly active monthly and
/// yearly subscribers bought at any time over the past year, then the states a nightly job meets
/// every night (auto-renew off, trials, family sharing, upgrades, scheduled downgrades, expired,
/// grace period, billing retry, recovered, refunded), a few Sandbox receipts (they cost a 21007
/// reroute on their first verification) and a few receipts Apple rejects (21003, 21010).
///
/// Deterministic: receipt `index` is the same in every run, so the worker and the naive baseline
/// see the same data.
struct ReceiptMix: ReceiptSource {
    /// What receipt `index` is; weights per 1,000 receipts.
    enum Kind: String, CaseIterable, Sendable {
        case monthlyActive, yearlyActive, autoRenewOff, trial, familyShared, upgraded, downgradePending
        case expired, billingExpired, gracePeriod, billingRetry, billingRecovered, refunded
        case sandbox, invalidReceipt, accountGone

        var weight: Int {
            switch self {
            case .monthlyActive: 530
            case .yearlyActive: 200
            case .autoRenewOff: 50
            case .trial: 20
            case .familyShared: 20
            case .upgraded: 10
            case .downgradePending: 10
            case .expired: 80
            case .billingExpired: 10
            case .gracePeriod: 15
            case .billingRetry: 15
            case .billingRecovered: 10
            case .refunded: 10
            case .sandbox: 10
            case .invalidReceipt: 5
            case .accountGone: 5
            }
        }

        /// The preset that builds it, for kinds that are not generated with a random purchase date.
        var scenario: SimulatedScenario? {
            switch self {
            case .monthlyActive, .yearlyActive: nil
            case .autoRenewOff: .activeAutoRenewOff
            case .trial: .trialActive
            case .familyShared: .familyShared
            case .upgraded: .upgraded
            case .downgradePending: .downgradePending
            case .expired: .expired
            case .billingExpired: .billingExpired
            case .gracePeriod: .gracePeriod
            case .billingRetry: .billingRetry
            case .billingRecovered: .billingRecovered
            case .refunded: .refunded
            case .sandbox: .sandboxActive
            case .invalidReceipt: .invalidReceipt
            case .accountGone: .accountGone
            }
        }
    }

    /// "Now" the accounts are built at (the simulator answers at the wall clock; receipts a few
    /// minutes old by then are no different).
    var nowMs: Int64
    /// Receipt filler bytes (default 3,000: ~4.4 KB of base64, ~7 KB answers).
    var paddingBytes: Int
    /// The apps (bundle IDs) the receipts are spread over, receipt `index` in app `index % count`;
    /// empty: every receipt is the simulator's first app's, naming none.
    var apps: [String] = []

    private static let table: [Kind] = Kind.allCases.flatMap { Array(repeating: $0, count: $0.weight) }
    private static let stream: UInt64 = 0x5EED_0001

    func kind(of index: Int64) -> Kind {
        var random = BenchRandom(stream: Self.stream, index: index)
        return Self.table[Int(random.next() % UInt64(Self.table.count))]
    }

    /// The simulated account of receipt `index` (ids seeded by `index + 1`).
    func subscriber(_ index: Int64) -> SimulatedSubscriber {
        var subscriber = account(index)
        if !apps.isEmpty { subscriber.bundleID = apps[Int(index % Int64(apps.count))] }
        return subscriber
    }

    private func account(_ index: Int64) -> SimulatedSubscriber {
        var random = BenchRandom(stream: Self.stream, index: index)
        let kind = Self.table[Int(random.next() % UInt64(Self.table.count))]
        let id = index + 1
        if let scenario = kind.scenario {
            return scenario.subscriber(id: id, nowMs: nowMs, paddingBytes: paddingBytes)
        }
        let now = nowMs - nowMs % 1000
        let yearly = kind == .yearlyActive
        let subscription = SimulatedSubscription(
            productID: yearly ? SimulatedProducts.proYearly : SimulatedProducts.proMonthly,
            periodMs: yearly ? SimulatedProducts.yearMs : SimulatedProducts.monthMs,
            firstPurchaseMs: now - random.milliseconds(in: SimulatedProducts.dayMs..<SimulatedProducts.yearMs))
        return SimulatedSubscriber(id: id, subscriptions: [subscription], paddingBytes: paddingBytes)
    }

    func row(_ index: Int64) -> ReceiptRow {
        let subscriber = subscriber(index)
        return ReceiptRow(
            userID: "user-\(index + 1)", receiptData: SimulatedReceipt.encode(subscriber),
            productID: subscriber.subscriptions.first?.productID, bundleID: subscriber.bundleID)
    }
}
