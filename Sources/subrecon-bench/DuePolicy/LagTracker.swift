/// Compares, night after night, the subscriptions the due policy keeps with those of the naive
/// "verify everything every night" job on the same data. Whenever they disagree about a
/// subscription, the disagreement is an event the policy has not seen yet; it is tracked until
/// the two agree again, and its lag (nights) is kept per kind of event.
struct LagTracker {
    enum Kind: String, CaseIterable, Sendable {
        case renewal = "renewal (expiry)"
        case lapse = "lapse (active → expired/grace/retry)"
        case billing = "grace/billing retry change"
        case refund = "refund"
        case planChange = "plan change (upgrade)"
        case other = "other"

        /// The documented delay (docs/due-policy.md's table), in nights, or nil when it documents none.
        var documentedNights: Int? {
            switch self {
            // "1 hour after the current period ends": the first nightly run an hour past the end.
            case .renewal, .lapse: 1
            // "grace period, billing retry: daily".
            case .billing: 1
            // "at most 7 days after the last check (catches refunds within 7 days)".
            case .refund, .planChange: 7
            case .other: nil
            }
        }

        var documentedText: String {
            switch self {
            case .renewal, .lapse: "≤ 1 (night after the period ends)"
            case .billing: "≤ 1 (daily)"
            case .refund, .planChange: "≤ 7 (7-day maximum age)"
            case .other: "—"
            }
        }
    }

    struct Key: Hashable, Sendable {
        var userID: String
        var originalTransactionID: String
    }

    struct State: Equatable, Sendable {
        var status: String
        var expiresDateMs: Int64
        var productID: String
    }

    struct Stats: Sendable {
        var episodes = 0
        var maxLag = 0
        var totalLag = 0
        /// Still disagreeing after the last night; `maxOpenLag` is a lower bound of their lag.
        var open = 0
        var maxOpenLag = 0
    }

    private var since: [Key: (night: Int, kind: Kind)] = [:]
    private(set) var stats: [Kind: Stats] = [:]
    private(set) var disagreementsTonight = 0

    static func kind(policy p: State?, naive n: State) -> Kind {
        guard let p else { return .other }
        if n.status == "refunded" && p.status != "refunded" { return .refund }
        if p.productID != n.productID { return .planChange }
        if p.status == "active" && ["expired", "grace_period", "billing_retry"].contains(n.status) { return .lapse }
        if ["grace_period", "billing_retry"].contains(p.status) && p.status != n.status { return .billing }
        if ["grace_period", "billing_retry"].contains(p.status) && p.expiresDateMs != n.expiresDateMs { return .billing }
        if p.status == "active" && n.status == "active" && p.expiresDateMs != n.expiresDateMs { return .renewal }
        return .other
    }

    mutating func observe(night: Int, policy: [Key: State], naive: [Key: State]) {
        disagreementsTonight = 0
        for (key, truth) in naive {
            let mine = policy[key]
            if mine == truth {
                if let open = since.removeValue(forKey: key) {
                    let lag = night - open.night
                    stats[open.kind, default: Stats()].episodes += 1
                    stats[open.kind, default: Stats()].maxLag = max(stats[open.kind, default: Stats()].maxLag, lag)
                    stats[open.kind, default: Stats()].totalLag += lag
                }
            } else {
                disagreementsTonight += 1
                if since[key] == nil { since[key] = (night, Self.kind(policy: mine, naive: truth)) }
            }
        }
    }

    /// Closes the books after the last night (`lastNight`): what still disagrees is counted open.
    mutating func finish(lastNight: Int) {
        for (_, open) in since {
            let lagSoFar = lastNight - open.night + 1
            stats[open.kind, default: Stats()].open += 1
            stats[open.kind, default: Stats()].maxOpenLag = max(stats[open.kind, default: Stats()].maxOpenLag, lagSoFar)
        }
        since = [:]
    }
}
