import AppStoreSimulator
import Foundation
import Testing
@_spi(RawSQL) import SubReconStore
@testable import SubRecon
import SubReconModel
import SubReconTestSupport

/// Events (the outbox): written in the transaction of the change they report, on both stores,
/// numbered per subscription without gap, with the contract's body.
@Suite(.serialized) struct EventOutboxTests {
    /// The events as stored, by position: (position, type, user, otid, seq, source, body as JSON).
    struct StoredEvent {
        var position: Int64
        var type: String
        var userID: String
        var originalTransactionID: String
        var seq: Int64?
        var source: String
        var body: String
        var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]) ?? [:]
        }
    }

    static func events(_ world: TestWorld) async throws -> [StoredEvent] {
        try await world.store.withReadSnapshot { db in
            try await db.all(
                "SELECT position, type, user_id, original_transaction_id, seq, source, body FROM events ORDER BY position"
            ) { row in
                StoredEvent(
                    position: try row.requiredInteger("position"), type: try row.requiredText("type"),
                    userID: try row.requiredText("user_id"), originalTransactionID: try row.requiredText("original_transaction_id"),
                    seq: try row.integer("seq"), source: try row.requiredText("source"), body: try row.requiredText("body"))
            }
        }
    }

    /// The body's keys in the order they are written.
    static func keyOrder(_ body: String) -> [String] {
        // Top-level keys only: scan the JSON text at depth 1.
        var keys: [String] = []
        var depth = 0
        var inString = false
        var escaped = false
        var current = ""
        var expectingKey = false
        for character in body {
            if inString {
                if escaped { escaped = false; current.append(character); continue }
                if character == "\\" { escaped = true; continue }
                if character == "\"" {
                    inString = false
                    if expectingKey && depth == 1 { keys.append(current) }
                    expectingKey = false
                    continue
                }
                current.append(character)
                continue
            }
            switch character {
            case "\"":
                inString = true
                current = ""
            case "{":
                depth += 1
                if depth == 1 { expectingKey = true }
            case "}": depth -= 1
            case ",": if depth == 1 { expectingKey = true }
            default: break
            }
        }
        return keys
    }

    static let bodyKeys = [
        "id", "type", "created_at", "app", "environment", "user_id", "original_transaction_id", "seq", "position",
        "source", "run_id", "notification_uuid", "before", "after", "period",
    ]

    @Test(arguments: StoreKind.allCases) func aRunWritesOneEventPerChangeAndARerunThatChangesNothingWritesNone(
        store: StoreKind
    ) async throws {
        try await TestWorld.make(store: store).closing { world in
            try await world.importScenarios([.active, .refunded, .trialActive])
            let first = try await world.run()
            let subscriptions = try await world.subscriptions()
            let events = try await Self.events(world)

            #expect(subscriptions.count >= 3)
            #expect(events.count == subscriptions.count, "one subscription.new per subscription found")
            #expect(events.allSatisfy { $0.type == "subscription.new" && $0.seq == 1 && $0.source == "run" })
            #expect(events.map(\.position) == Array(1...Int64(events.count)), "positions without gap, in order")
            for event in events {
                let json = event.json
                #expect(Self.keyOrder(event.body) == Self.bodyKeys)
                #expect(json["before"] is NSNull)
                #expect((json["run_id"] as? Int).map(Int64.init) == first.runID)
                #expect(json["notification_uuid"] is NSNull)
                #expect((json["position"] as? Int).map(Int64.init) == event.position)
                let id = try #require(json["id"] as? String)
                #expect(UUID(uuidString: id) != nil && id == id.lowercased())
                let after = try #require(json["after"] as? [String: Any])
                let stored = try #require(
                    subscriptions.first { $0.userID == event.userID && $0.originalTransactionID == event.originalTransactionID })
                #expect(after["status"] as? String == stored.status.rawValue)
                #expect((after["expires_date_ms"] as? Int).map(Int64.init) == stored.expiresDateMs)
                #expect(after["entitled"] as? Bool == stored.status.isEntitled)
                let period = try #require(json["period"] as? [String: Any], "a new subscription names its governing period")
                #expect((period["expires_date_ms"] as? Int).map(Int64.init) == stored.expiresDateMs)
                #expect(period["original_transaction_id"] as? String == event.originalTransactionID)
            }
            let refunded = try #require(events.first { $0.userID == "user-refunded" }).json
            let refundedAfter = try #require(refunded["after"] as? [String: Any])
            #expect(refundedAfter["status"] as? String == "refunded")
            #expect(refundedAfter["cancellation_date_ms"] is Int)

            // Nothing changed at Apple: a second run of every receipt writes no event.
            let second = try await world.run(.all)
            #expect(second.count(.unchanged) == 3)
            #expect(try await Self.events(world).count == events.count)
        }
    }

    @Test(arguments: StoreKind.allCases) func aRenewalIsTheSubscriptionsNextSeqWithBeforeAfterAndTheNewPeriod(
        store: StoreKind
    ) async throws {
        try await TestWorld.make(store: store).closing { world in
            try await world.importScenarios([.trialActive])
            _ = try await world.run()
            let trial = try #require(try await world.subscriptions().first)
            world.clock.set(nowMs: trial.expiresDateMs + DuePolicy.hour + 1)
            let renewed = try await world.run()
            #expect(renewed.count(.updated) == 1)

            let events = try await Self.events(world).filter { $0.originalTransactionID == trial.originalTransactionID }
            #expect(events.map(\.type) == ["subscription.new", "subscription.renewed"])
            #expect(events.map(\.seq) == [1, 2])
            let json = events[1].json
            let before = try #require(json["before"] as? [String: Any])
            let after = try #require(json["after"] as? [String: Any])
            let period = try #require(json["period"] as? [String: Any])
            #expect((before["expires_date_ms"] as? Int).map(Int64.init) == trial.expiresDateMs)
            let newExpiry = try #require((after["expires_date_ms"] as? Int).map(Int64.init))
            #expect(newExpiry > trial.expiresDateMs)
            #expect((period["expires_date_ms"] as? Int).map(Int64.init) == newExpiry)
            #expect((period["first_seen_run_id"] as? Int).map(Int64.init) == renewed.runID)
            #expect((json["seq"] as? Int) == 2)
        }
    }

    /// A refund Apple notifies: `subscription.refunded` with source `notification` and its uuid, no
    /// run; the same notification delivered again writes nothing.
    @Test(arguments: StoreKind.allCases) func aNotificationsChangeIsItsEventAndADuplicateWritesNone(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            let start = world.clock.nowMs
            let subscriber = SimulatedScenario.refunded.subscriber(id: 3, nowMs: start + 5 * DuePolicy.day + 3_600_000, paddingBytes: 200)
            world.simulator.register(subscriber)
            let refund = world.simulator.makeNotification(.refund, for: subscriber, atMs: start + 2 * 3_600_000)
            let otid = try #require(refund.originalTransactionID)
            _ = try await world.store.importReceipts(
                [ImportRow(line: 2, userID: "user-r", receiptData: "", transactionID: String(otid))], nowMs: start)
            _ = try await world.runServerAPI()
            let afterRun = try await Self.events(world)
            #expect(afterRun.map(\.type) == ["subscription.new"])

            let processor = try world.notificationProcessor(clockMs: { start + 2 * 3_600_000 + 60_000 })
            _ = await processor.receive(body: refund.bodyBytes, source: .receiver)
            let events = try await Self.events(world)
            #expect(events.map(\.type) == ["subscription.new", "subscription.refunded"])
            let json = events[1].json
            #expect(events[1].source == "notification" && events[1].seq == 2)
            #expect(json["notification_uuid"] as? String == refund.notificationUUID)
            #expect(json["run_id"] is NSNull)
            let period = try #require(json["period"] as? [String: Any], "a refund names the revoked transaction")
            #expect(period["cancellation_date_ms"] is Int)
            #expect(json["app"] as? String == SimulatedProducts.bundleID)

            _ = await processor.receive(body: refund.bodyBytes, source: .receiver)
            #expect(try await Self.events(world).count == 2, "a duplicate notificationUUID writes no event")
        }
    }

    @Test(arguments: StoreKind.allCases) func aUserRunsEventsSaySourceUser(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            try await world.importScenarios([.active])
            let summary = try await world.run(.user("user-active"), kind: .user)
            let events = try await Self.events(world)
            #expect(!events.isEmpty)
            #expect(events.allSatisfy { $0.source == "user" })
            #expect(events.allSatisfy { ($0.json["run_id"] as? Int).map(Int64.init) == summary.runID })
        }
    }

    @Test(arguments: StoreKind.allCases) func aDryRunWritesNoEvent(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            try await world.importScenarios([.active, .refunded])
            _ = try await world.run(dryRun: true)
            #expect(try await Self.events(world).isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases) func forgetRemovesTheUsersEventsAndLeavesOneUserForgotten(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            try await world.importScenarios([.active, .refunded])
            _ = try await world.run()
            let before = try await Self.events(world)
            #expect(before.contains { $0.userID == "user-active" })

            _ = try await world.store.forgetUser("user-active", pseudonym: "forgotten-x")
            let after = try await Self.events(world)
            let mine = after.filter { $0.userID == "user-active" }
            #expect(mine.map(\.type) == ["user.forgotten"])
            let forgotten = try #require(mine.first)
            #expect(forgotten.seq == nil && forgotten.originalTransactionID.isEmpty && forgotten.source == "forget")
            #expect(Self.keyOrder(forgotten.body) == Self.bodyKeys)
            let json = forgotten.json
            for key in ["environment", "original_transaction_id", "seq", "run_id", "notification_uuid", "before", "after", "period"] {
                #expect(json[key] is NSNull, "\(key)")
            }
            #expect(forgotten.position > before.map(\.position).max()!)
            // Another user's events stay.
            #expect(after.filter { $0.userID == "user-refunded" }.count == before.filter { $0.userID == "user-refunded" }.count)

            // A second forget finds nothing and writes nothing.
            let again = try await world.store.forgetUser("user-active", pseudonym: "forgotten-y")
            #expect(again.foundNothing)
            #expect(try await Self.events(world).count == after.count)
        }
    }

    /// The outbox trap: with several writers, positions are taken in one order and committed in
    /// another. Here every writer takes its positions and then dawdles before committing; a
    /// reader following the feed (`position > cursor`) must still see every event.
    @Test func onPostgreSQLAReaderFollowingPositionsNeverSkipsAnEventCommittedLater() async throws {
        guard ProcessInfo.processInfo.environment["SUBRECON_TEST_POSTGRES_URL"] != nil else { return }
        let postgres = try await TestPostgres.createDatabase()
        let store = try await postgres.open()
        try await store.closing { store in
            let writers = 6
            let transactionsPerWriter = 25
            let seen = try await withThrowingTaskGroup(of: [Int64].self) { group in
                for writer in 0..<writers {
                    group.addTask {
                        for index in 0..<transactionsPerWriter {
                            try await store.withTransaction("writing test events") { connection in
                                var batch = EventBatch()
                                for n in 0..<(1 + index % 3) {
                                    batch.append(
                                        EventDraft(
                                            id: EventID.make(), type: .subscriptionOther, createdAtMs: 1, app: "com.example",
                                            environment: "Production", userID: "user-\(writer)", originalTransactionID: "otid-\(n)",
                                            source: .run, runID: nil, notificationUUID: nil))
                                }
                                try await PostgresEventWriter.write(batch, connection)
                                // Positions are taken; the commit comes later, at a random moment.
                                try await Task.sleep(for: .milliseconds(Int.random(in: 0...8)))
                            }
                        }
                        return []
                    }
                }
                group.addTask {
                    var cursor: Int64 = 0
                    var seen: [Int64] = []
                    let deadline = ContinuousClock.now + .seconds(60)
                    while ContinuousClock.now < deadline {
                        let batch = try await store.withReadSnapshot { db in
                            try await db.all(
                                "SELECT position FROM events WHERE position > ? ORDER BY position", [.integer(cursor)]
                            ) { try $0.requiredInteger("position") }
                        }
                        seen += batch
                        cursor = batch.last ?? cursor
                        if seen.count == Self.expectedEvents(writers: writers, perWriter: transactionsPerWriter) { break }
                        try await Task.sleep(for: .milliseconds(1))
                    }
                    return seen
                }
                var seen: [Int64] = []
                for try await part in group { seen += part }
                return seen
            }
            let expected = Self.expectedEvents(writers: writers, perWriter: transactionsPerWriter)
            let stored = try await store.withReadSnapshot { db in
                try await db.all("SELECT position FROM events ORDER BY position") { try $0.requiredInteger("position") }
            }
            #expect(stored == Array(1...Int64(expected)), "positions without gap")
            #expect(seen == stored, "the reader saw every event, each once, in position order")
            // Each subscription's seq counts 1, 2, 3, … without gap.
            let seqs = try await store.withReadSnapshot { db in
                try await db.all(
                    "SELECT user_id, original_transaction_id, seq FROM events ORDER BY user_id, original_transaction_id, position"
                ) { (try $0.requiredText("user_id") + "/" + $0.requiredText("original_transaction_id"), try $0.requiredInteger("seq")) }
            }
            for (_, rows) in Dictionary(grouping: seqs, by: \.0) {
                #expect(rows.map(\.1) == Array(1...Int64(rows.count)))
            }
        }
    }

    static func expectedEvents(writers: Int, perWriter: Int) -> Int {
        writers * (0..<perWriter).reduce(0) { $0 + 1 + $1 % 3 }
    }
}
