import SubReconModel
import SubReconStore

/// An `EventStore` the benchmark wraps around a store's own: what the wrapper does not implement
/// goes to `inner` unchanged.
protocol ForwardingEventStore: EventStore {
    var inner: any EventStore { get }
}

extension ForwardingEventStore {
    func nextEventDueAt(scope: EventDeliveryScope) async throws(StoreError) -> Int64? {
        try await inner.nextEventDueAt(scope: scope)
    }

    func pendingEventCount(scope: EventDeliveryScope) async throws(StoreError) -> Int64 {
        try await inner.pendingEventCount(scope: scope)
    }

    func releaseEventLeases(token: String) async throws(StoreError) { try await inner.releaseEventLeases(token: token) }

    func replayEvents(eventID: String?, sinceMs: Int64, untilMs: Int64, deadOnly: Bool, nowMs: Int64)
        async throws(StoreError) -> Int
    {
        try await inner.replayEvents(eventID: eventID, sinceMs: sinceMs, untilMs: untilMs, deadOnly: deadOnly, nowMs: nowMs)
    }

    func skipEvents(createdBefore beforeMs: Int64, apps: [String]?) async throws(StoreError) -> Int {
        try await inner.skipEvents(createdBefore: beforeMs, apps: apps)
    }

    func removeSettledEvents(createdBefore beforeMs: Int64) async throws(StoreError) -> Int {
        try await inner.removeSettledEvents(createdBefore: beforeMs)
    }
}
