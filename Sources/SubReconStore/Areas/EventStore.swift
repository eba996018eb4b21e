import SubReconModel

/// Delivering the outbox: events are written by the other areas' transactions (their changes'
/// events); this area claims them for delivery, records the attempts, replays, skips and removes them.
public protocol EventStore: Sendable {
    /// Records `results` (each only while `token` still leases its event) and the attempt
    /// counters, then claims up to `limit` events due at `nowMs`: the oldest pending event of each
    /// subscription, not leased by anyone, leased to `token` until `nowMs + leaseMs`. One transaction.
    func settleAndClaimEvents(
        _ results: [WebhookAttemptResult], token: String, scope: EventDeliveryScope, nowMs: Int64, limit: Int,
        leaseMs: Int64
    ) async throws(StoreError) -> [DeliverableEvent]
    /// When the earliest pending event in scope is due (ms); nil when none is pending.
    func nextEventDueAt(scope: EventDeliveryScope) async throws(StoreError) -> Int64?
    /// How many events in scope are pending.
    func pendingEventCount(scope: EventDeliveryScope) async throws(StoreError) -> Int64
    /// Gives back the leases `token` holds (a deliverer stopping before its attempts finished).
    func releaseEventLeases(token: String) async throws(StoreError)
    /// Makes events pending again with a fresh schedule from `nowMs`: the one `eventID` names, or
    /// those created in `[sinceMs, untilMs)`; `deadOnly` narrows it. Returns how many.
    func replayEvents(eventID: String?, sinceMs: Int64, untilMs: Int64, deadOnly: Bool, nowMs: Int64)
        async throws(StoreError) -> Int
    /// Marks pending events created before `beforeMs` `skipped` (apps nil: every app). Returns how many.
    func skipEvents(createdBefore beforeMs: Int64, apps: [String]?) async throws(StoreError) -> Int
    /// Retention: removes delivered, dead and skipped events created before `beforeMs`.
    func removeSettledEvents(createdBefore beforeMs: Int64) async throws(StoreError) -> Int
}
