import AppStoreSimulator
import Foundation
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@_spi(RawSQL) @testable import SubReconStore

/// The receiver end to end: real HTTP over loopback to `NotificationReceiverServer`, the real
/// processor, real stores (SQLite file, PostgreSQL database), notifications signed by the
/// simulator's chain.
@Suite struct NotificationReceiverStoreTests {
    /// Every notification type the contract names, for one subscriber in time order: each 200,
    /// each stored once; forged, foreign, malformed and oversized bodies refused with nothing stored.
    @Test(arguments: StoreKind.allCases) func everyTypeIsStoredAndBadBodiesAreRefused(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            let subscriber = try await NotificationProcessingTests.importedActiveSubscriber(world)
            let receiver = try await RunningReceiver.start(intake: try world.notificationProcessor())

            var sent: [(SimulatedNotificationType, SimulatedNotificationSubtype?)] = []
            for type in SimulatedNotificationType.allCases {
                // Without a subtype too, except where Apple always sends one.
                let bare: [SimulatedNotificationSubtype?] = [.subscribed, .priceIncrease].contains(type) ? [] : [nil]
                for subtype in bare + type.allowedSubtypes.sorted { $0.rawValue < $1.rawValue }.map(Optional.some) {
                    sent.append((type, subtype))
                }
            }
            var atMs = world.clock.nowMs - Int64(sent.count) * 60_000
            for (type, subtype) in sent {
                atMs += 60_000
                let notification =
                    type == .test
                    ? world.simulator.makeTestNotification(atMs: atMs)
                    : world.simulator.makeNotification(type, subtype: subtype, for: subscriber, atMs: atMs)
                let response = try await receiver.post(notification.bodyBytes)
                #expect(response.status == 200, "\(type) \(subtype?.rawValue ?? "")")
                // Apple's retry of the same notification: 200 again, nothing new.
                if type == .didRenew && subtype == nil { #expect(try await receiver.post(notification.bodyBytes).status == 200) }
            }
            let rows = try await world.report(.notifications)
            #expect(rows.count == sent.count)
            #expect(rows.filter { $0["outcome"] == "test" }.count == 1)
            #expect(rows.filter { $0["outcome"] == "applied" }.count == sent.count - 1)
            #expect(rows.filter { $0["deliveries"] == "2" }.count == 1)
            #expect(try await world.subscriptions().first?.status == .active)

            let before = try await world.count("SELECT COUNT(*) FROM notifications")
            let refused: [(String, [UInt8], Int)] = [
                ("forged", world.simulator.makeNotification(
                    .didRenew, for: subscriber, signing: NotificationSigning(chain: .badSignature)).bodyBytes, 400),
                ("foreign root", world.simulator.makeNotification(
                    .didRenew, for: subscriber, signing: NotificationSigning(chain: .foreignRoot)).bodyBytes, 400),
                ("other app", world.simulator.makeNotification(.didRenew, for: subscriber, signing: .otherApp).bodyBytes, 400),
                ("malformed", Array("{\"signedPayload\":".utf8), 400),
                ("oversized", Array(repeating: UInt8(ascii: " "), count: (1 << 20) + 1), 413),
            ]
            for (name, body, status) in refused {
                #expect(try await receiver.post(body).status == status, "\(name)")
            }
            #expect(try await world.count("SELECT COUNT(*) FROM notifications") == before)
            let metrics = String(decoding: try await receiver.get("/metrics").body, as: UTF8.self)
            #expect(metrics.contains("subrecon_notifications_rejected_total{reason=\"signature\"} 2"), "\(metrics)")
            #expect(metrics.contains("subrecon_notifications_rejected_total{reason=\"bundle\"} 1"))
            #expect(metrics.contains("subrecon_notifications_rejected_total{reason=\"too_large\"} 1"))
            try await receiver.stop()
        }
    }

    /// PostgreSQL down: 503, nothing stored; Apple's retry after it is back: 200, applied once.
    @Test func theStoreUnreachableAnswers503AndTheRetrySucceeds() async throws {
        let cluster = try await OwnPostgresCluster.start()
        let world = try await TestWorld.make()
        let postgres = try await TestPostgres.createDatabase(in: cluster.environment)
        // Migrated and filled with the usual window; the receiver's store gives up after 2 s.
        let setup = try await postgres.open()
        // Under a full suite's load, a first pooled connection (SCRAM) can take longer than that
        // window: opening is tried again; the window is what the test is about, later.
        var opened: PostgresStore?
        for attempt in 1...10 where opened == nil {
            do {
                opened = try await postgres.open(retrySeconds: 2)
            } catch where attempt < 10 {}
        }
        let store = try #require(opened)
        defer {
            Task {
                await store.close()
                await world.close()
                await cluster.remove()
            }
        }
        let subscriber = SimulatedScenario.active.subscriber(id: 5, nowMs: world.clock.nowMs, paddingBytes: 200)
        world.simulator.register(subscriber)
        let notification = world.simulator.makeNotification(.didRenew, for: subscriber)
        let otid = try #require(notification.originalTransactionID)
        _ = try await setup.importReceipts(
            [ImportRow(line: 2, userID: "user-o", receiptData: "", transactionID: String(otid))], nowMs: world.clock.nowMs)
        await setup.close()
        let processor = NotificationProcessor(
            store: store, settings: try world.notificationProcessor().settings, reconciler: ReceiptReconciler(),
            clock: world.clock.millisecondsClock, logger: .init(label: "test"))
        let receiver = try await RunningReceiver.start(intake: processor)

        // The test cluster commits asynchronously (synchronous_commit off): its WAL writer makes
        // what is committed durable within 3 × wal_writer_delay (600 ms); wait that out before the crash.
        try await Task.sleep(for: .seconds(1))
        try await cluster.server("stop")
        #expect(try await receiver.post(notification.bodyBytes).status == 503)
        try await cluster.server("start")
        var status = 0
        // The pool reconnects on its own; Apple would retry an hour later.
        for _ in 0..<50 where status != 200 {
            status = try await receiver.post(notification.bodyBytes).status
            if status != 200 { try await Task.sleep(for: .milliseconds(200)) }
        }
        #expect(status == 200)
        let rows = try await store.withReadSnapshot { db in
            try await db.all("SELECT outcome, deliveries FROM notifications") { row in
                [try row.text("outcome") ?? "", String(try row.integer("deliveries") ?? 0)]
            }
        }
        #expect(rows == [["applied", "1"]])
        try await receiver.stop()
    }
}
