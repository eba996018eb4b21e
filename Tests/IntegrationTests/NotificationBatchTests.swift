import AppStoreSimulator
import Foundation
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@testable import SubReconStore

/// Notifications arriving together share one transaction (`NotificationWriteQueue`): a batch must
/// end exactly as storing its notifications one after another, on both stores (same results, same
/// rows in every report), and one notification the database refuses must not take its batch with it.
@Suite struct NotificationBatchTests {
    static let day: Int64 = 86_400_000

    /// A second, empty store of the world's kind.
    static func secondStore(of world: TestWorld) async throws -> any SubscriptionStore {
        if world.postgres != nil { return try await TestPostgres.createDatabase().open() }
        return try AppDatabase.open(path: world.folder + "/one-by-one.sqlite")
    }

    static func reports(_ store: any SubscriptionStore, sinceMs: Int64, nowMs: Int64) async throws -> [String: String] {
        var texts: [String: String] = [:]
        for kind in [ReportKind.notifications, .subscriptions, .renewals, .changes] {
            let box = DataBox()
            let options = ReportOptions(sinceMs: kind == .changes ? sinceMs : nil, nowMs: nowMs)
            try await ReportExporter(store: store).export(kind, options: options) { box.append($0) }
            texts[kind.rawValue] = box.text
        }
        return texts
    }

    /// Every case of the writer in batches: two renewals of one subscription in either order (the
    /// older `stale`), the same uuid twice in one batch, a uuid stored by an earlier batch, an
    /// unmatched notification then linked in a later batch beside a newer one of its subscription,
    /// and a TEST. Stored as batches in one store and one by one in another: the same results and
    /// byte-identical reports.
    @Test(arguments: StoreKind.allCases) func aBatchEndsAsStoringItsNotificationsOneAfterAnother(store kind: StoreKind)
        async throws
    {
        try await TestWorld.make(store: kind).closing { world in
            try await Self.secondStore(of: world).closing { oneByOne in
                let stores = [world.store, oneByOne]
                let start = world.clock.nowMs

                let known = SimulatedScenario.active.subscriber(id: 1, nowMs: start, paddingBytes: 200)
                let later = SimulatedScenario.active.subscriber(id: 2, nowMs: start, paddingBytes: 200)
                world.simulator.register(known)
                world.simulator.register(later)
                let otids = try [known, later].map { subscriber in
                    try #require(world.simulator.notifications(for: subscriber, afterMs: 0, throughMs: start).first?.originalTransactionID)
                }
                world.simulator.removeAllNotifications()
                for store in stores {
                    _ = try await store.importReceipts(
                        [ImportRow(line: 2, userID: "user-a", receiptData: "", transactionID: String(otids[0]))], nowMs: start)
                }

                world.clock.advance(byMs: 65 * Self.day)
                let renewals = world.simulator.notifications(for: known, afterMs: start, throughMs: world.clock.nowMs)
                    .filter { $0.type == .didRenew }
                try #require(renewals.count == 2)
                // Signed before either renewal: stored first, it is the oldest data of its subscription.
                let earlier = world.simulator.makeNotification(
                    .didChangeRenewalStatus, subtype: .autoRenewDisabled, for: known, atMs: start + 1_000)
                let unmatched = world.simulator.makeNotification(.didRenew, for: later)
                let test = world.simulator.makeTestNotification()
                let processor = try world.notificationProcessor()
                func write(_ notification: SimulatedNotification, _ source: NotificationSource = .receiver, delivery: Bool = true)
                    async throws -> NotificationWrite
                {
                    try await processor.prepare(signedPayload: notification.signedPayload, source: source, countsAsDelivery: delivery)
                }

                let first = [try await write(earlier)]
                let second = [
                    try await write(renewals[1]), try await write(renewals[0]), try await write(renewals[1]),
                    try await write(unmatched), try await write(test), try await write(earlier, .backfill),
                ]
                var results: [[NotificationStoreResult]] = [[], []]
                for batch in [first, second] {
                    results[0] += try await world.store.storeNotifications(batch)
                    for write in batch { results[1] += try await oneByOne.storeNotifications([write]) }
                }
                // The receipt for the unmatched one arrives; it is linked beside a newer notification of its subscription.
                for store in stores {
                    _ = try await store.importReceipts(
                        [ImportRow(line: 2, userID: "user-b", receiptData: "", transactionID: String(otids[1]))],
                        nowMs: world.clock.nowMs)
                }
                world.clock.advance(byMs: 1_000)
                let newer = world.simulator.makeNotification(.didChangeRenewalStatus, subtype: .autoRenewDisabled, for: later)
                let third = [
                    try await write(unmatched, .import, delivery: false), try await write(newer), try await write(renewals[0]),
                ]
                results[0] += try await world.store.storeNotifications(third)
                for write in third { results[1] += try await oneByOne.storeNotifications([write]) }

                #expect(results[0] == results[1])
                #expect(
                    results[0].map { "\($0.outcome.rawValue)\($0.duplicate ? " again" : "")" } == [
                        "applied",
                        "applied", "stale", "applied again", "unmatched", "test", "applied again",
                        "applied again", "applied", "stale again",
                    ])
                #expect(results[0][1].changes > 0 && results[0][7].changes > 0)
                #expect(results[0][2].changes == 0 && results[0][3].changes == 0)
                let batched = try await Self.reports(world.store, sinceMs: start, nowMs: world.clock.nowMs)
                let alone = try await Self.reports(oneByOne, sinceMs: start, nowMs: world.clock.nowMs)
                for kind in batched.keys.sorted() { #expect(batched[kind] == alone[kind], "report \(kind)") }
                let notifications = CSVTable.parse(batched["notifications"] ?? "")
                let deliveries = Dictionary(uniqueKeysWithValues: notifications.map { ($0["notification_uuid"] ?? "", $0["deliveries"] ?? "") })
                #expect(deliveries[renewals[1].notificationUUID] == "2")
                #expect(deliveries[renewals[0].notificationUUID] == "2")
                #expect(deliveries[earlier.notificationUUID] == "2")
                #expect(deliveries[unmatched.notificationUUID] == "1")
                #expect(notifications.first { $0["notification_uuid"] == unmatched.notificationUUID }?["user_id"] == "user-b")
                let subscriptions = try await world.subscriptions()
                #expect(subscriptions.map(\.userID) == ["user-a", "user-b"])
                #expect(subscriptions.first?.lastVerifiedAt == renewals[1].signedDateMs)
                #expect(subscriptions.last?.lastVerifiedAt == newer.signedDateMs)
            }
        }
    }

    /// The store's `storeNotifications`, refusing every batch that holds a refused uuid (as a
    /// database refuses a row), and counting the batches it was asked to store.
    final class RefusingStore: @unchecked Sendable {
        let base: any SubscriptionStore
        let refused: Set<String>
        private let lock = NSLock()
        private var sizes: [Int] = []

        init(base: any SubscriptionStore, refused: Set<String>) {
            self.base = base
            self.refused = refused
        }

        var batchSizes: [Int] { lock.withLock { sizes } }

        func store(_ writes: [NotificationWrite]) async throws(StoreError) -> [NotificationStoreResult] {
            lock.withLock { sizes.append(writes.count) }
            if writes.contains(where: { refused.contains($0.notification.uuid) }) {
                throw .failed(operation: "storing notifications", reason: "the test refuses this batch")
            }
            return try await base.storeNotifications(writes)
        }
    }

    static func testWrites(_ world: TestWorld, count: Int) async throws -> [(uuid: String, write: NotificationWrite)] {
        let processor = try world.notificationProcessor()
        var writes: [(String, NotificationWrite)] = []
        for _ in 0..<count {
            let notification = world.simulator.makeTestNotification()
            writes.append(
                (notification.notificationUUID,
                 try await processor.prepare(signedPayload: notification.signedPayload, source: .receiver, countsAsDelivery: true)))
        }
        return writes
    }

    /// The batch fails; its notifications are then stored one at a time, so only the refused ones
    /// are answered with the error (503, Apple retries) and the others are stored.
    @Test(arguments: StoreKind.allCases) func aRefusedNotificationFailsAloneNotItsBatch(store kind: StoreKind) async throws {
        try await TestWorld.make(store: kind).closing { world in
            let writes = try await Self.testWrites(world, count: 5)
            let store = RefusingStore(base: world.store, refused: [writes[0].uuid, writes[3].uuid])
            let outcomes = await NotificationWriteQueue.write(writes.map(\.write)) { batch throws(StoreError) in
                try await store.store(batch)
            }
            #expect(store.batchSizes == [5, 1, 1, 1, 1, 1])
            #expect(outcomes.map { (try? $0.get())?.outcome } == [nil, .test, .test, nil, .test])
            let stored = try await world.report(.notifications).compactMap { $0["notification_uuid"] }
            #expect(Set(stored) == Set([1, 2, 4].map { writes[$0].uuid }))
        }
    }

    /// When two notifications tried alone fail in a row, the database itself is failing: the rest
    /// of the batch is answered with that error at once, not after another wait each.
    @Test func aFailingDatabaseIsNotAskedOncePerNotification() async throws {
        try await TestWorld.make().closing { world in
            let writes = try await Self.testWrites(world, count: 5)
            let store = RefusingStore(base: world.store, refused: Set(writes.map(\.uuid)))
            let outcomes = await NotificationWriteQueue.write(writes.map(\.write)) { batch throws(StoreError) in
                try await store.store(batch)
            }
            #expect(store.batchSizes == [5, 1, 1])
            #expect(outcomes.count == 5 && outcomes.allSatisfy { (try? $0.get()) == nil })
            #expect(try await world.count("SELECT COUNT(*) FROM notifications") == 0)
        }
    }
}
