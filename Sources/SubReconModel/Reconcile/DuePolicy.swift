/// When a receipt is next worth asking Apple about. Pure: state + now → next due time.
///
/// Apple's answer only changes at a renewal, a lapse or a refund, so a subscription far from its
/// expiry needs no nightly call: we ask just after each period ends (to see the renewal or the
/// lapse), daily while Apple is retrying billing, and at most `maxAge` apart otherwise so refunds
/// are caught within that delay. Intervals are shortened by `cronSlack` so a nightly cron that
/// starts a little earlier than yesterday still finds the receipt due.
///
/// The `maxAge` re-checks are spread (`maxAgeCheck`): each receipt has its own fixed moment in a
/// repeating cycle, derived from its id, and its re-check is brought forward to that moment, so a
/// catalogue imported on one day is not all due again on the same night. Only ever earlier.
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
    /// Spread the `maxAgeMs` re-checks over the cycle by a per-receipt offset (see `maxAgeCheck`).
    public var spreadsMaxAgeChecks = true

    public static let day: Int64 = 86_400_000
    public static let hour: Int64 = 3_600_000
    public static let standard = DuePolicy()

    /// The policy while App Store Server Notifications flow (`notificationsFlowing`): Apple tells
    /// us of renewals, lapses and refunds as they happen, and the daily backfill recovers what the
    /// receiver missed, so the re-check of an entitled subscription is only a safety net, 30 days
    /// apart. The checks just after each period's end stay: they catch a lost renewal notice.
    public static let notified: DuePolicy = {
        var policy = DuePolicy()
        policy.maxAgeMs = 30 * day
        return policy
    }()

    /// Notifications count as flowing when one arrived (received or backfilled) this recently.
    public static let notificationsFlowingWithinMs: Int64 = 2 * day

    public init() {}

    /// The longest gap between two verifications of an entitled receipt as scheduled: `maxAgeMs`
    /// less the cron slack. Also the cycle the re-checks are spread over.
    public var maxAgeCycleMs: Int64 { maxAgeMs - cronSlackMs }

    /// Next due time for receipt `receiptID` whose subscriptions are now `subscriptions` (empty: none).
    public func nextDue(receiptID: Int64, subscriptions: [StoredSubscription], flagged: Bool, nowMs: Int64) -> Int64 {
        var next = nowMs + (flagged ? retryingMs : lapsedMs) - cronSlackMs
        for subscription in subscriptions {
            let candidate: Int64
            switch subscription.status {
            case .active:
                candidate = min(subscription.expiresDateMs + afterExpiryMs, maxAgeCheck(receiptID: receiptID, nowMs: nowMs))
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

    /// When an entitled receipt verified at `nowMs` is checked again at the latest: its next moment
    /// `maxAgeOffsetMs(receiptID:)` into the cycle (cycles counted from the Unix epoch), the one
    /// time in `nowMs + 1 ... nowMs + maxAgeCycleMs` on that phase. So the first re-check after
    /// an import (or after a renewal check) lands anywhere in the cycle, and each later one a whole
    /// cycle after it: receipts imported together spread evenly over the nights of the cycle.
    /// Never later than `nowMs + maxAgeCycleMs`, the unspread time.
    public func maxAgeCheck(receiptID: Int64, nowMs: Int64) -> Int64 {
        let latest = nowMs + maxAgeCycleMs
        let cycle = maxAgeCycleMs
        guard spreadsMaxAgeChecks, cycle > 0 else { return latest }
        let sincePhase = ((latest - maxAgeOffsetMs(receiptID: receiptID)) % cycle + cycle) % cycle
        return latest - sincePhase
    }

    /// Receipt `receiptID`'s fixed place in the re-check cycle: `0..<maxAgeCycleMs` (0 when the
    /// cycle is empty). A hash of the id, so the same receipt always gets the same schedule.
    public func maxAgeOffsetMs(receiptID: Int64) -> Int64 {
        guard maxAgeCycleMs > 0 else { return 0 }
        return Int64(Self.mix(UInt64(bitPattern: receiptID)) % UInt64(maxAgeCycleMs))
    }

    /// SplitMix64's output for seed `value` (the first value of the generator seeded with it):
    /// neighbouring ids land far apart. Part of the schedule: changing it moves every re-check.
    package static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A receipt Apple gave a definitive negative answer about (21003, 21010).
    public func nextDueAfterDefinitiveRejection(nowMs: Int64) -> Int64 { nowMs + lapsedMs - cronSlackMs }

    /// A receipt that got no usable answer is due again at the very next run.
    public func nextDueAfterFailure(nowMs: Int64) -> Int64 { nowMs }
}
