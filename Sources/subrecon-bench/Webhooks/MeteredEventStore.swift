import Dispatch
import Synchronization
import SubReconModel
import SubReconStore

/// The deliverer's store with a meter: how many settle-and-claim transactions it ran, how many
/// results each recorded and events each claimed, and the wall time spent in them. Where the time
/// of a delivery goes, without touching the deliverer.
final class MeteredEventStore: ForwardingEventStore {
    struct Totals: Sendable {
        var transactions = 0
        var settled = 0
        var claimed = 0
        var nanoseconds: UInt64 = 0
        var otherCalls = 0
        var otherNanoseconds: UInt64 = 0

        var millisecondsEach: Double { transactions > 0 ? Double(nanoseconds) / Double(transactions) / 1e6 : 0 }
        var settledEach: Double { transactions > 0 ? Double(settled) / Double(transactions) : 0 }
    }

    let inner: any EventStore
    private let totals = Mutex(Totals())

    init(_ inner: any EventStore) { self.inner = inner }

    var snapshot: Totals { totals.withLock { $0 } }

    func settleAndClaimEvents(
        _ results: [WebhookAttemptResult], token: String, scope: EventDeliveryScope, nowMs: Int64, limit: Int,
        leaseMs: Int64
    ) async throws(StoreError) -> [DeliverableEvent] {
        let started = DispatchTime.now().uptimeNanoseconds
        let claimed = try await inner.settleAndClaimEvents(
            results, token: token, scope: scope, nowMs: nowMs, limit: limit, leaseMs: leaseMs)
        let elapsed = DispatchTime.now().uptimeNanoseconds - started
        totals.withLock {
            $0.transactions += 1
            $0.settled += results.count
            $0.claimed += claimed.count
            $0.nanoseconds += elapsed
        }
        return claimed
    }

    /// Times any other call.
    private func other<T>(_ body: () async throws(StoreError) -> T) async throws(StoreError) -> T {
        let started = DispatchTime.now().uptimeNanoseconds
        let result = try await body()
        let elapsed = DispatchTime.now().uptimeNanoseconds - started
        totals.withLock {
            $0.otherCalls += 1
            $0.otherNanoseconds += elapsed
        }
        return result
    }

    func nextEventDueAt(scope: EventDeliveryScope) async throws(StoreError) -> Int64? {
        try await other { () throws(StoreError) in try await inner.nextEventDueAt(scope: scope) }
    }

    func pendingEventCount(scope: EventDeliveryScope) async throws(StoreError) -> Int64 {
        try await other { () throws(StoreError) in try await inner.pendingEventCount(scope: scope) }
    }

    func releaseEventLeases(token: String) async throws(StoreError) {
        try await other { () throws(StoreError) in try await inner.releaseEventLeases(token: token) }
    }
}
