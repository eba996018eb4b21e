/// A subscription as an event's `before` / `after`: exactly the `report subscriptions` columns as
/// keys, in its order, typed as the API types them (integers, a boolean `entitled`, strings,
/// `null` for an empty cell; no formula guard).
public enum EventSubscriptionObject {
    public static let keys = [
        "user_id", "original_transaction_id", "product_id", "status", "entitled", "expires_at", "expires_date_ms",
        "auto_renew_status", "auto_renew_product_id", "expiration_intent", "grace_period_expires_at",
        "is_in_billing_retry", "environment", "last_verified_at", "cancellation_date_ms", "app_account_token",
        "bundle_id",
    ]

    public static func json(_ s: StoredSubscription, bundleID: String?) -> EventJSON {
        func flag(_ value: Bool?) -> EventJSON { value.map { .integer($0 ? 1 : 0) } ?? .null }
        let values: [EventJSON] = [
            .string(s.userID), .string(s.originalTransactionID), .string(s.productID), .string(s.status.rawValue),
            .boolean(s.status.isEntitled), .string(ISO8601.string(fromMilliseconds: s.expiresDateMs)),
            .integer(s.expiresDateMs), flag(s.autoRenewStatus), .optional(s.autoRenewProductID),
            .optional(s.expirationIntent.map(Int64.init)),
            .optional(s.gracePeriodExpiresDateMs.map(ISO8601.string(fromMilliseconds:))), flag(s.isInBillingRetry),
            .string(s.environment.rawValue), .string(ISO8601.string(fromMilliseconds: s.lastVerifiedAt)),
            // As the report: the revocation date only while the subscription stands refunded.
            s.status == .refunded ? .optional(s.cancellationDateMs) : .null, .optional(s.appAccountToken),
            .optional(bundleID),
        ]
        return .object(Array(zip(keys, values)))
    }
}
