/// The `type` of an event: a fixed vocabulary (more may be added). The `subscription.*` types are
/// one to one with the `change` words of `report changes`.
public enum EventType: String, Sendable, CaseIterable {
    case subscriptionNew = "subscription.new"
    case subscriptionRenewed = "subscription.renewed"
    case subscriptionExpired = "subscription.expired"
    case subscriptionRefunded = "subscription.refunded"
    case subscriptionEnteredGracePeriod = "subscription.entered_grace_period"
    case subscriptionEnteredBillingRetry = "subscription.entered_billing_retry"
    case subscriptionRecovered = "subscription.recovered"
    case subscriptionProductChanged = "subscription.product_changed"
    case subscriptionAutoRenewChanged = "subscription.auto_renew_changed"
    case subscriptionOther = "subscription.other"
    case userForgotten = "user.forgotten"
    case refundRequestReceived = "refund_request.received"
    case refundRequestAnswered = "refund_request.answered"
    case refundRequestResolved = "refund_request.resolved"

    /// The event a subscription change writes.
    public init(change: SubscriptionChange.Kind) {
        self = Self(rawValue: "subscription." + change.rawValue) ?? .subscriptionOther
    }

    /// Whether the event's `period` carries the billed period (new, renewed, refunded).
    public var carriesPeriod: Bool {
        self == .subscriptionNew || self == .subscriptionRenewed || self == .subscriptionRefunded
    }
}
