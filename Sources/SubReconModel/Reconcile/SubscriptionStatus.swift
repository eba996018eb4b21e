/// The contract's status vocabulary (`report subscriptions`, column `status`).
public enum SubscriptionStatus: String, Sendable, Codable, CaseIterable, Comparable {
    case active
    case gracePeriod = "grace_period"
    case billingRetry = "billing_retry"
    case expired
    case refunded

    /// Whether the user should have access: active and grace_period.
    public var isEntitled: Bool { self == .active || self == .gracePeriod }

    /// Order used to pick a receipt's headline subscription: entitled first.
    private var rank: Int {
        switch self {
        case .active: 0
        case .gracePeriod: 1
        case .billingRetry: 2
        case .expired: 3
        case .refunded: 4
        }
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rank < rhs.rank }
}
