import SubReconModel
import SubReconStore

/// The benchmark's events: `subscription.renewed` bodies shaped like a run's (every
/// `report subscriptions` column before and after, the billed period), about 2 KB each, for
/// subscription `s` of `subscriptions`. Event `i` of a measurement belongs to subscription
/// `i % subscriptions`, so consecutive positions are different subscriptions, as a run's batches are.
struct BenchEventFactory: Sendable {
    static let app = "com.example.bench"

    var subscriptions: Int

    func subscription(ofEvent index: Int) -> Int { index % subscriptions }

    /// Event `index`'s draft, created at `createdAtMs`.
    func draft(_ index: Int, createdAtMs: Int64) -> EventDraft {
        let s = subscription(ofEvent: index)
        let userID = "bench-user-\(s)"
        let otid = String(100_000_000_000_000 + s)
        let month: Int64 = 2_592_000_000
        let expires = createdAtMs + month
        func row(expiresMs: Int64, status: String) -> EventJSON {
            let values: [EventJSON] = [
                .string(userID), .string(otid), .string("com.example.bench.monthly"), .string(status), .boolean(true),
                .string(ISO8601.string(fromMilliseconds: expiresMs)), .integer(expiresMs), .integer(1),
                .string("com.example.bench.monthly"), .null, .null, .integer(0), .string("Production"),
                .string(ISO8601.string(fromMilliseconds: createdAtMs)), .null, .null, .string(Self.app),
            ]
            return .object(Array(zip(EventSubscriptionObject.keys, values)))
        }
        let transaction = String(200_000_000_000_000 + index)
        let periodValues: [EventJSON] = [
            .string(transaction), .string(otid), .string(String(300_000_000_000_000 + index)), .string(userID),
            .string("com.example.bench.monthly"), .integer(createdAtMs), .integer(expires), .null, .boolean(false),
            .boolean(false), .integer(1), .integer(9_990), .string("USD"), .string("USA"), .null, .null, .null,
            .string("RENEWAL"), .string("PURCHASED"), .string("Production"), .null, .null, .null, .string(Self.app),
            .string(ISO8601.string(fromMilliseconds: createdAtMs)), .string(ISO8601.string(fromMilliseconds: expires)),
            .string("9.99"), .null,
        ]
        return EventDraft(
            id: EventID.make(), type: .subscriptionRenewed, createdAtMs: createdAtMs, app: Self.app,
            environment: "Production", userID: userID, originalTransactionID: otid, source: .run, runID: 1,
            notificationUUID: nil, before: row(expiresMs: createdAtMs, status: "active"),
            after: row(expiresMs: expires, status: "active"), period: .object(Array(zip(EventPeriodObject.keys, periodValues))))
    }

    /// Events `range` in one batch (one transaction's events).
    func batch(_ range: Range<Int>, createdAtMs: Int64) -> EventBatch {
        var batch = EventBatch()
        for index in range { batch.append(draft(index, createdAtMs: createdAtMs)) }
        return batch
    }
}
