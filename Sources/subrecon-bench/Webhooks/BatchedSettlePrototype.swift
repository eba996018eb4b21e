import PostgresNIO
import SubReconModel
import SubReconStore

/// A measurement, not a fix (`webhooks --batched-settle-prototype`): the PostgreSQL store's
/// settle-and-claim with every result of a call recorded by one statement (then the store's own
/// claim), so a call costs the same round trips whatever its number of results. Not atomic as the
/// store's one transaction is; it only shows what batching the settle would buy.
struct BatchedSettlePrototype: ForwardingEventStore {
    let store: PostgresStore
    var inner: any EventStore { store }

    func settleAndClaimEvents(
        _ results: [WebhookAttemptResult], token: String, scope: EventDeliveryScope, nowMs: Int64, limit: Int,
        leaseMs: Int64
    ) async throws(StoreError) -> [DeliverableEvent] {
        if !results.isEmpty {
            // Numbers and the store's own state words only: safe to write as JSON text.
            let rows = results.map { result -> String in
                let next: Int64? = if case .retry(let at) = result.settlement { at } else { nil }
                let delivered: Int64? = result.settlement == .delivered ? result.attemptedAtMs : nil
                func number(_ value: Int64?) -> String { value.map(String.init) ?? "null" }
                return "{\"position\":\(result.position),\"state\":\"\(result.state)\",\"attempted_at\":\(result.attemptedAtMs),\"status\":\(number(result.status.map(Int64.init))),\"delivered_at\":\(number(delivered)),\"next_at\":\(number(next))}"
            }
            let json = "[" + rows.joined(separator: ",") + "]"
            try await store.withConnection("settling webhook attempts in one statement") { connection in
                _ = try await connection.run(BenchmarkSQL.settleEventsAtOnce, [.text(json), .text(token)])
            }
        }
        return try await store.settleAndClaimEvents([], token: token, scope: scope, nowMs: nowMs, limit: limit, leaseMs: leaseMs)
    }
}
