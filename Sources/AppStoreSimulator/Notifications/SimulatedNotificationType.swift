/// Apple's `notificationType` values (Notifications V2). The simulator derives the subscription
/// ones from scenarios; tests may make any of them for a subscriber (see
/// `AppStoreSimulator.makeNotification`).
public enum SimulatedNotificationType: String, Sendable, Hashable, CaseIterable, Codable {
    case subscribed = "SUBSCRIBED"
    case didRenew = "DID_RENEW"
    case didFailToRenew = "DID_FAIL_TO_RENEW"
    case gracePeriodExpired = "GRACE_PERIOD_EXPIRED"
    case expired = "EXPIRED"
    case didChangeRenewalPref = "DID_CHANGE_RENEWAL_PREF"
    case didChangeRenewalStatus = "DID_CHANGE_RENEWAL_STATUS"
    case offerRedeemed = "OFFER_REDEEMED"
    case priceIncrease = "PRICE_INCREASE"
    case refund = "REFUND"
    case refundDeclined = "REFUND_DECLINED"
    case refundReversed = "REFUND_REVERSED"
    case revoke = "REVOKE"
    case consumptionRequest = "CONSUMPTION_REQUEST"
    case renewalExtended = "RENEWAL_EXTENDED"
    case test = "TEST"
}

/// Apple's `subtype` values (Notifications V2).
public enum SimulatedNotificationSubtype: String, Sendable, Hashable, CaseIterable, Codable {
    case initialBuy = "INITIAL_BUY"
    case resubscribe = "RESUBSCRIBE"
    case downgrade = "DOWNGRADE"
    case upgrade = "UPGRADE"
    case autoRenewEnabled = "AUTO_RENEW_ENABLED"
    case autoRenewDisabled = "AUTO_RENEW_DISABLED"
    case voluntary = "VOLUNTARY"
    case billingRetry = "BILLING_RETRY"
    case priceIncrease = "PRICE_INCREASE"
    case gracePeriod = "GRACE_PERIOD"
    case pending = "PENDING"
    case accepted = "ACCEPTED"
    case billingRecovery = "BILLING_RECOVERY"
    case productNotForSale = "PRODUCT_NOT_FOR_SALE"
}

extension SimulatedNotificationType {
    /// The subtypes Apple sends with this type (none listed: the type never has one). Get
    /// Notification History answers `4000018` for a pair outside this table.
    public var allowedSubtypes: Set<SimulatedNotificationSubtype> {
        switch self {
        case .subscribed: [.initialBuy, .resubscribe]
        case .didRenew: [.billingRecovery]
        case .didFailToRenew: [.gracePeriod]
        case .expired: [.voluntary, .billingRetry, .priceIncrease, .productNotForSale]
        case .didChangeRenewalPref: [.upgrade, .downgrade]
        case .didChangeRenewalStatus: [.autoRenewEnabled, .autoRenewDisabled]
        case .offerRedeemed: [.upgrade, .downgrade]
        case .priceIncrease: [.pending, .accepted]
        case .gracePeriodExpired, .refund, .refundDeclined, .refundReversed, .revoke, .consumptionRequest,
             .renewalExtended, .test: []
        }
    }
}
