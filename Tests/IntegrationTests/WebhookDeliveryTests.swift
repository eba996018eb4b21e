import Foundation
import AppleSignedData
import GRDB
import Logging
import Synchronization
import Testing
@_spi(RawSQL) import SubReconStore
@testable import SubRecon
import SubReconHTTP
import SubReconModel
import SubReconTestSupport

/// Delivery over real HTTP to a loopback receiver: signed (checked by our signer and by the
/// Standard Webhooks project's own library), in order per subscription, retried, dead after the
/// schedule, never two of one subscription at once; on both stores, and by several deliverers.
@Suite(.serialized) struct WebhookDeliveryTests {
    static let secret = "whsec_" + Data((0..<32).map { UInt8($0 * 7 % 256) }).base64EncodedString()

    static func options(
        _ receiver: WebhookReceiver, concurrency: Int = 16, timeout: Duration = .seconds(5),
        schedule: [Int64] = [0, 0, 0], secret: String = WebhookDeliveryTests.secret
    ) throws -> WebhookDeliveryOptions {
        let signer = WebhookSigner(secrets: [try WebhookSecret(text: secret)])
        let target = WebhookTarget(url: receiver.url) { id, timestamp, body in
            signer.headers(eventID: id, timestampSeconds: timestamp, body: body)
        }
        return WebhookDeliveryOptions(
            everyApp: target, concurrency: concurrency, timeout: timeout, scheduleSeconds: schedule, leaseMs: 60_000,
            userAgent: SubReconVersion.userAgent)
    }

    static func deliverer(_ store: any SubscriptionStore, _ options: WebhookDeliveryOptions) -> (WebhookDeliverer, CurlTransport) {
        let transport = CurlTransport(maxConnections: options.concurrency, maxResponseBytes: WebhookDeliverer.maxAnswerBytes)
        let deliverer = WebhookDeliverer(
            store: store, transport: transport, options: options, clock: { WallClock.unixMilliseconds() },
            logger: Logger(label: "test"))
        return (deliverer, transport)
    }

    /// Delivers until nothing is due within `seconds`.
    static func deliver(_ store: any SubscriptionStore, _ options: WebhookDeliveryOptions, seconds: Double = 20) async throws
        -> WebhookDeliverySummary
    {
        let (deliverer, transport) = deliverer(store, options)
        defer { transport.shutdown() }
        return try await deliverer.run(until: .drained(deadlineMs: WallClock.unixMilliseconds() + Int64(seconds * 1000)))
    }

    /// Writes events straight through the store's own outbox writer, one transaction.
    static func write(_ drafts: [EventDraft], to store: any SubscriptionStore) async throws {
        var events = EventBatch()
        for draft in drafts { events.append(draft) }
        let batch = events
        if let database = store as? AppDatabase {
            try await database.writer.write { db in try SQLiteEventWriter.write(batch, db: db) }
        } else if let postgres = store as? PostgresStore {
            try await postgres.withTransaction("writing test events") { connection in
                try await PostgresEventWriter.write(batch, connection)
            }
        }
    }

    /// A draft of `user`'s subscription `otid` created now.
    static func draft(user: String, otid: String, app: String = "com.example.app") -> EventDraft {
        EventDraft(
            id: EventID.make(), type: .subscriptionOther, createdAtMs: WallClock.unixMilliseconds(), app: app,
            environment: "Production", userID: user, originalTransactionID: otid, source: .run, runID: 1, notificationUUID: nil)
    }

    struct Row {
        var eventID: String
        var state: String
        var attempts: Int64
        var lastStatus: Int64?
        var seq: Int64?
        var userID: String
        var otid: String
        var body: String
    }

    static func rows(_ store: any SubscriptionStore) async throws -> [Row] {
        try await store.withReadSnapshot { db in
            try await db.all(
                "SELECT event_id, state, attempts, last_status, seq, user_id, original_transaction_id, body FROM events ORDER BY position"
            ) { row in
                Row(
                    eventID: try row.requiredText("event_id"), state: try row.requiredText("state"),
                    attempts: try row.requiredInteger("attempts"), lastStatus: try row.integer("last_status"),
                    seq: try row.integer("seq"), userID: try row.requiredText("user_id"),
                    otid: try row.requiredText("original_transaction_id"), body: try row.requiredText("body"))
            }
        }
    }

    @Test(arguments: StoreKind.allCases) func aRunsEventsAreDeliveredOnceSignedWithTheStoredBytes(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            try await world.importScenarios([.active, .refunded, .trialActive, .expired])
            _ = try await world.run()
            let stored = try await Self.rows(world.store)
            #expect(stored.count >= 4)

            try await WebhookReceiver.with { receiver in
                let summary = try await Self.deliver(world.store, try Self.options(receiver))
                #expect(summary.delivered == stored.count && summary.pending == 0 && summary.dead == 0)
                let requests = receiver.requests
                #expect(requests.count == stored.count, "each event POSTed exactly once")
                for request in requests {
                    let id = try #require(request.header("webhook-id"))
                    let event = try #require(stored.first { $0.eventID == id })
                    #expect(request.method == "POST")
                    #expect(request.target == "/hooks?x=1", "the URL's path and query as given")
                    #expect(request.bodyText == event.body, "the body as written")
                    #expect(request.header("content-type") == "application/json")
                    #expect(request.header("user-agent") == "subrecon/" + SubReconVersion.text)
                    #expect(request.values(of: "webhook-id").count == 1)
                    #expect(request.values(of: "webhook-timestamp").count == 1)
                    #expect(request.values(of: "webhook-signature").count == 1)
                    let timestamp = try #require(request.header("webhook-timestamp").flatMap { Int64($0) })
                    #expect(abs(timestamp - Int64(Date().timeIntervalSince1970)) < 120)
                    let ours = WebhookSigner(secrets: [try WebhookSecret(text: Self.secret)])
                        .signature(eventID: id, timestampSeconds: timestamp, body: request.body)
                    #expect(request.header("webhook-signature") == ours)
                }
                // The Standard Webhooks project's own verifier accepts every delivery.
                let verdicts = try await StandardWebhooksVerifier.verified(
                    requests.map { StandardWebhooksVerifier.Delivery(secret: Self.secret, headers: $0.headers, body: $0.body) })
                #expect(verdicts == Array(repeating: true, count: requests.count))
            }
            let after = try await Self.rows(world.store)
            #expect(after.allSatisfy { $0.state == "delivered" && $0.attempts == 1 && $0.lastStatus == 200 })
            let report = try await world.report(.events)
            #expect(report.count == stored.count)
        }
    }

    /// Continuous delivery (as under `serve`): an event committed while the deliverer runs is sent
    /// without a restart; cancelling it returns normally, with every lease given back.
    @Test(arguments: StoreKind.allCases) func continuousDeliveryPicksUpNewEventsAndStopsCleanly(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            try await WebhookReceiver.with(behaviour: { request in
                request.header("webhook-id").map { $0.hasPrefix("0") } == true ? .slow(seconds: 3, status: 200) : .status(200)
            }) { receiver in
                let (deliverer, transport) = Self.deliverer(world.store, try Self.options(receiver))
                defer { transport.shutdown() }
                let running = Task { try await deliverer.run(until: .cancelled) }
                let first = Self.draft(user: "u-live", otid: "1000")
                try await Self.write([first], to: world.store)
                _ = try await receiver.waitForRequests(count: 1, timeout: .seconds(60))
                #expect(receiver.requests.first?.header("webhook-id") == first.id)
                // One more, held by a slow receiver while the deliverer is cancelled.
                var slow = Self.draft(user: "u-slow", otid: "1001")
                slow.id = "0" + String(slow.id.dropFirst())
                try await Self.write([slow], to: world.store)
                _ = try await receiver.waitForRequests(count: 2, timeout: .seconds(60))
                running.cancel()
                let summary = try await running.value
                let rows = try await Self.rows(world.store)
                #expect(rows.first { $0.eventID == first.id }?.state == "delivered")
                // The attempt in flight either finished and was recorded (after the cancellation,
                // from a task of its own), or was cut short and is no attempt: never left leased.
                let cut = try #require(rows.first { $0.eventID == slow.id })
                if cut.state == "delivered" {
                    #expect(summary.delivered == 2 && cut.attempts == 1)
                } else {
                    #expect(cut.state == "pending" && cut.attempts == 0 && summary.delivered == 1)
                }
                let leased = try await world.store.withReadSnapshot { db in
                    try await db.integer("SELECT COUNT(*) AS value FROM events WHERE lease_token IS NOT NULL")
                }
                #expect(leased == 0)
            }
        }
    }

    /// During a rotation every secret of the file signs: a consumer holding either verifies.
    @Test func duringARotationEachRequestCarriesOneSignaturePerSecret() async throws {
        try await TestWorld.make().closing { world in
            let old = Self.secret
            let new = WebhookSecret.generate()
            try await Self.write([Self.draft(user: "u-rot", otid: "800")], to: world.store)
            try await WebhookReceiver.with { receiver in
                var options = try Self.options(receiver)
                let signer = WebhookSigner(secrets: [try WebhookSecret(text: old), try WebhookSecret(text: new)])
                options.everyApp = WebhookTarget(url: receiver.url) { id, timestamp, body in
                    signer.headers(eventID: id, timestampSeconds: timestamp, body: body)
                }
                _ = try await Self.deliver(world.store, options)
                let request = try #require(receiver.requests.first)
                #expect(request.header("webhook-signature")?.split(separator: " ").count == 2)
                for secret in [old, new] {
                    let verdicts = try await StandardWebhooksVerifier.verified(
                        [StandardWebhooksVerifier.Delivery(secret: secret, headers: request.headers, body: request.body)])
                    #expect(verdicts == [true])
                }
                let stranger = try await StandardWebhooksVerifier.verified(
                    [StandardWebhooksVerifier.Delivery(secret: WebhookSecret.generate(), headers: request.headers, body: request.body)])
                #expect(stranger == [false])
            }
        }
    }

    /// Event n+1 of a subscription waits while n is retried; other subscriptions go on.
    @Test(arguments: StoreKind.allCases) func aFailingEventHoldsBackOnlyItsOwnSubscription(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            let held = (0..<3).map { _ in Self.draft(user: "u-held", otid: "100") }
            let free = (0..<3).map { _ in Self.draft(user: "u-free", otid: "200") }
            try await Self.write([held[0], free[0], held[1], free[1], held[2], free[2]], to: world.store)
            let failFirstTwice = Mutex([String: Int]())
            try await WebhookReceiver.with(behaviour: { request in
                let id = request.header("webhook-id") ?? ""
                guard id == held[0].id else { return .status(204) }
                let seen = failFirstTwice.withLock { counts in
                    counts[id, default: 0] += 1
                    return counts[id]!
                }
                return seen <= 2 ? .status(503) : .status(200)
            }) { receiver in
                // Three attempts, one second apart after the first.
                let summary = try await Self.deliver(world.store, try Self.options(receiver, schedule: [0, 1, 1]))
                #expect(summary.pending == 0 && summary.dead == 0)
                #expect(summary.retrying == 2)
                let ids = receiver.requests.compactMap { $0.header("webhook-id") }
                let heldOrder = ids.filter { id in held.contains { $0.id == id } }
                #expect(heldOrder == [held[0].id, held[0].id, held[0].id, held[1].id, held[2].id])
                let freeOrder = ids.filter { id in free.contains { $0.id == id } }
                #expect(freeOrder == free.map(\.id))
                // The free subscription did not wait for the held one's retries.
                let lastFree = try #require(ids.lastIndex(of: free[2].id))
                let secondHeld = try #require(ids.firstIndex(of: held[1].id))
                #expect(lastFree < secondHeld)
            }
            let rows = try await Self.rows(world.store)
            #expect(rows.allSatisfy { $0.state == "delivered" })
            #expect(rows.first { $0.eventID == held[0].id }?.attempts == 3)
        }
    }

    @Test(arguments: StoreKind.allCases) func afterTheLastAttemptTheEventIsDeadAndTheNextGoes(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            let events = (0..<2).map { _ in Self.draft(user: "u-dead", otid: "300") }
            try await Self.write(events, to: world.store)
            try await WebhookReceiver.with(behaviour: { request in
                request.header("webhook-id") == events[0].id ? .status(500) : .status(200)
            }) { receiver in
                let summary = try await Self.deliver(world.store, try Self.options(receiver, schedule: [0, 0, 0]))
                #expect(summary.dead == 1 && summary.delivered == 1 && summary.pending == 0)
                #expect(receiver.requests.compactMap { $0.header("webhook-id") } == [events[0].id, events[0].id, events[0].id, events[1].id])
            }
            let rows = try await Self.rows(world.store)
            #expect(rows.map(\.state) == ["dead", "delivered"])
            #expect(rows[0].attempts == 3 && rows[0].lastStatus == 500)
            let report = try await world.report(.events)
            #expect(report.map { $0["delivery_state"] } == ["dead", "delivered"])
        }
    }

    /// A receiver that misbehaves costs an attempt each time, never a crash or a stuck deliverer.
    @Test(arguments: [
        WebhookReceiver.Behaviour.garbage, .closeMidBody, .closeImmediately, .redirect(to: "http://127.0.0.1:9/x"),
        .neverAnswer, .slow(seconds: 3, status: 200), .status(301), .reset,
    ])
    func aMisbehavingReceiverIsAFailedAttempt(_ behaviour: WebhookReceiver.Behaviour) async throws {
        try await TestWorld.make().closing { world in
            let event = Self.draft(user: "u-bad", otid: "400")
            try await Self.write([event], to: world.store)
            try await WebhookReceiver.with(behaviour: { _ in behaviour }) { receiver in
                let started = ContinuousClock.now
                let summary = try await Self.deliver(
                    world.store, try Self.options(receiver, timeout: .seconds(1), schedule: [0, 0]))
                #expect(summary.dead == 1 && summary.delivered == 0, "\(behaviour)")
                #expect(ContinuousClock.now - started < .seconds(60), "never stuck: every attempt ends within its timeout")
                #expect(receiver.requests.count >= 2, "\(behaviour)")
            }
            let row = try #require(try await Self.rows(world.store).first)
            #expect(row.state == "dead" && row.attempts == 2)
        }
    }

    @Test func requestsInFlightNeverExceedTheConcurrency() async throws {
        try await TestWorld.make().closing { world in
            let drafts = (0..<60).map { Self.draft(user: "u-\($0)", otid: "500") }
            try await Self.write(drafts, to: world.store)
            try await WebhookReceiver.with(behaviour: { _ in .slow(seconds: 0.05, status: 200) }) { receiver in
                let summary = try await Self.deliver(world.store, try Self.options(receiver, concurrency: 4))
                #expect(summary.delivered == 60)
                #expect(receiver.peakRequestsInFlight <= 4)
                #expect(receiver.peakRequestsInFlight >= 2, "subscriptions go in parallel")
            }
        }
    }

    /// Two deliverers on one PostgreSQL database: every event once, never two of one subscription
    /// at the same time, each subscription in order.
    @Test func severalDeliverersOnPostgreSQLShareTheWorkInOrder() async throws {
        guard ProcessInfo.processInfo.environment["SUBRECON_TEST_POSTGRES_URL"] != nil else { return }
        try await TestWorld.make(store: .postgres).closing { world in
            var drafts: [EventDraft] = []
            for index in 0..<5 {
                for user in 0..<20 { drafts.append(Self.draft(user: "u-\(user)", otid: "600-\(index % 2)")) }
            }
            try await Self.write(drafts, to: world.store)
            let inFlight = Mutex([String: Int]())
            let overlapped = Mutex(false)
            try await WebhookReceiver.with(behaviour: { request in
                let body = request.bodyText
                let key = (body.range(of: #""user_id":"[^"]*","original_transaction_id":"[^"]*""#, options: .regularExpression))
                    .map { String(body[$0]) } ?? ""
                inFlight.withLock { counts in
                    counts[key, default: 0] += 1
                    if counts[key]! > 1 { overlapped.withLock { $0 = true } }
                }
                Thread.sleep(forTimeInterval: 0.01)
                inFlight.withLock { $0[key, default: 1] -= 1 }
                return .status(200)
            }) { receiver in
                let second = try await world.postgres!.open()
                try await second.closing { second in
                    async let a = Self.deliver(world.store, try Self.options(receiver, concurrency: 8))
                    async let b = Self.deliver(second, try Self.options(receiver, concurrency: 8))
                    let (one, two) = try await (a, b)
                    #expect(one.delivered + two.delivered == drafts.count)
                    #expect(one.delivered > 0 && two.delivered > 0, "both deliverers took a share")
                }
                let ids = receiver.requests.compactMap { $0.header("webhook-id") }
                #expect(ids.count == drafts.count && Set(ids).count == drafts.count, "each event once")
                #expect(!overlapped.withLock { $0 }, "two events of one subscription were in flight at once")
                // Per subscription, arrival order is seq order.
                let rows = try await Self.rows(world.store)
                let order = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, $0) })
                for (_, stream) in Dictionary(grouping: rows, by: { $0.userID + "/" + $0.otid }) {
                    let bySeq = stream.sorted { ($0.seq ?? 0) < ($1.seq ?? 0) }.map { order[$0.eventID] ?? -1 }
                    #expect(bySeq == bySeq.sorted())
                }
            }
        }
    }
}
