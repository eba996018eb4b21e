/// When a receipt is next worth asking Apple about. Pure: state + now → next due time.
///
/// Apple's answer only changes at a renewal, a lapse or a refund, so a subscription far from its
/// expiry needs no nightly call: we ask just after each period ends (to see the renewal or the
/// lapse), daily while Apple is retrying billing, and at most `maxAge` apart otherwise so refunds
/// are caught within that delay. Intervals are shortened by `cronSlack` so a nightly cron that
/// starts a little earlier than yesterday still finds the receipt due.
public struct DuePolicy: Sendable, Equatable {
    /// Longest gap between two verifications of an entitled subscription (catches refunds).
    public var maxAgeMs: Int64 = 7 * day
    /// How long after a period's end to look for its renewal.
    public var afterExpiryMs: Int64 = hour
    /// Gap while in grace period or billing retry, or after an answer we did not apply.
    public var retryingMs: Int64 = day
    /// Gap for expired, refunded, invalid (21003), gone (21010) or subscription-less receipts.
    public var lapsedMs: Int64 = 30 * day
    /// Tolerance for cron start times drifting earlier from one night to the next.
    public var cronSlackMs: Int64 = 3 * hour

    public static let day: Int64 = 86_400_000
    public static let hour: Int64 = 3_600_000
    public static let standard = DuePolicy()

    public init() {}

    /// Next due time for a receipt whose subscriptions are now `subscriptions` (empty: none).
    public func nextDue(subscriptions: [StoredSubscription], flagged: Bool, nowMs: Int64) -> Int64 {
        var next = nowMs + (flagged ? retryingMs : lapsedMs) - cronSlackMs
        for subscription in subscriptions {
            let candidate: Int64
            switch subscription.status {
            case .active:
                candidate = min(subscription.expiresDateMs + afterExpiryMs, nowMs + maxAgeMs - cronSlackMs)
            case .gracePeriod, .billingRetry:
                candidate = nowMs + retryingMs - cronSlackMs
            case .expired, .refunded:
                candidate = nowMs + lapsedMs - cronSlackMs
            }
            next = min(next, candidate)
        }
        // Never schedule into the past: an answer that says "active" for an expiry already behind us
        // would otherwise be asked again in the same run.
        return max(next, nowMs + 1)
    }

    /// A receipt Apple gave a definitive negative answer about (21003, 21010).
    public func nextDueAfterDefinitiveRejection(nowMs: Int64) -> Int64 { nowMs + lapsedMs - cronSlackMs }

    /// A receipt that got no usable answer is due again at the very next run.
    public func nextDueAfterFailure(nowMs: Int64) -> Int64 { nowMs }
}
