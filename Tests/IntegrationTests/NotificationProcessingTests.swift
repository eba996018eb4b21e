import AppStoreSimulator
import AppleSignedData
import Foundation
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@testable import SubReconStore

/// App Store Server Notifications V2 through the processor the receiver, `notifications import`
/// and `notifications backfill` share: real stores (SQLite file, PostgreSQL database), notifications
/// signed by the simulator's own chain and verified to its root, applied through the run's
/// reconciler and writer.
@Suite struct NotificationProcessingTests {
    static let day: Int64 = 86_400_000

    /// An `active` subscriber (bought 123 days before the world's start) whose receipt is imported
    /// by its original transaction id, as a StoreKit 2 app would.
    static func importedActiveSubscriber(_ world: TestWorld, id: Int64 = 1, user: String = "user-a") async throws
        -> SimulatedSubscriber
    {
        let subscriber = SimulatedScenario.active.subscriber(id: id, nowMs: world.clock.nowMs, paddingBytes: 200)
        world.simulator.register(subscriber)
        let first = world.simulator.notifications(for: subscriber, afterMs: 0, throughMs: world.clock.nowMs)
        let otid = try #require(first.first?.originalTransactionID)
        _ = try await world.store.importReceipts(
            [ImportRow(line: 2, userID: user, receiptData: "", transactionID: String(otid))], nowMs: world.clock.nowMs)
        world.simulator.removeAllNotifications()
        return subscriber
    }

    static func stored(_ result: NotificationIntakeResult) -> (outcome: NotificationOutcome, duplicate: Bool)? {
        if case .stored(_, let outcome, let duplicate, _) = result { return (outcome, duplicate) }
        return nil
    }

    /// Renewals arrive as notifications and are applied at once: the subscription moves to the
    /// newest period's expiry, every period is recorded, the change is recorded with the
    /// notification, and the receipt counts as freshly verified (not due tonight).
    @Test(arguments: StoreKind.allCases) func renewalsAreAppliedAtOnceAndTheReceiptCountsAsVerified(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            let subscriber = try await Self.importedActiveSubscriber(world)
            _ = try await world.runServerAPI()
            let before = try #require(try await world.subscriptions().first)
            let start = world.clock.nowMs

            world.clock.advance(byMs: 65 * Self.day)
            let notifications = world.simulator.notifications(for: subscriber, afterMs: start, throughMs: world.clock.nowMs)
            #expect(notifications.filter { $0.type == .didRenew }.count == 2)
            let processor = try world.notificationProcessor()
            let end = world.clock.nowMs
            for notification in notifications {
                // Each arrives a second after Apple signed it, as a receiver that is up sees them.
                world.clock.set(nowMs: notification.signedDateMs + 1_000)
                let result = await processor.receive(body: notification.bodyBytes, source: .receiver)
                #expect(Self.stored(result)?.outcome == .applied, "\(result)")
            }
            world.clock.set(nowMs: end)

            let after = try #require(try await world.subscriptions().first)
            #expect(after.expiresDateMs > before.expiresDateMs + 55 * Self.day)
            #expect(after.status == .active)
            #expect(after.lastVerifiedAt == notifications.last?.signedDateMs)
            // The same account asked through the Server API now says the same.
            try await TestWorld.make().closing { reference in
                reference.clock.set(nowMs: world.clock.nowMs)
                reference.simulator.register(subscriber)
                _ = try await reference.store.importReceipts(
                    [ImportRow(line: 2, userID: "user-a", receiptData: "", transactionID: after.originalTransactionID)],
                    nowMs: reference.clock.nowMs)
                _ = try await reference.runServerAPI()
                let expected = try #require(try await reference.subscriptions().first)
                #expect(after.hasSameReportedState(as: expected))
                #expect(try await world.count("SELECT COUNT(*) FROM renewals") == 7)
                #expect(try await world.count("SELECT COUNT(*) FROM subscription_changes WHERE notification_uuid IS NOT NULL") == 2)
                // `report changes --since` shows them after the runs' changes, each with its notification.
                let box = DataBox()
                try await ReportExporter(store: world.store).export(
                    .changes, options: ReportOptions(sinceMs: start + 1, nowMs: world.clock.nowMs)) { box.append($0) }
                let changes = CSVTable.parse(box.text)
                #expect(changes.map { $0["change"] } == ["renewed", "renewed"])
                #expect(changes.allSatisfy { $0["run_id"] == "" && $0["user_id"] == "user-a" })
                #expect(Set(changes.compactMap { $0["notification_uuid"] }) == Set(notifications.filter { $0.type == .didRenew }.map(\.notificationUUID)))
                #expect(try await world.count("SELECT COUNT(*) FROM receipts WHERE next_due_at <= \(world.clock.nowMs)") == 0)
                let report = try await world.report(.notifications)
                #expect(report.map { $0["outcome"] } == notifications.map { _ in "applied" })
                #expect(report.allSatisfy { $0["user_id"] == "user-a" && $0["deliveries"] == "1" })
                #expect(Set(report.compactMap { $0["notification_uuid"] }) == Set(notifications.map(\.notificationUUID)))
            }
        }
    }

    /// Apple retries: the same notification again changes nothing but its delivery count.
    @Test(arguments: StoreKind.allCases) func aDuplicateOnlyCountsAnotherDelivery(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            let subscriber = try await Self.importedActiveSubscriber(world)
            let notification = world.simulator.makeNotification(.didRenew, for: subscriber)
            let processor = try world.notificationProcessor()
            for delivery in 1...3 {
                let result = await processor.receive(body: notification.bodyBytes, source: delivery == 3 ? .backfill : .receiver)
                #expect(Self.stored(result)?.duplicate == (delivery > 1))
                #expect(Self.stored(result)?.outcome == .applied)
            }
            let report = try await world.report(.notifications)
            #expect(report.count == 1)
            #expect(report.first?["deliveries"] == "3")
            #expect(try await world.count("SELECT COUNT(*) FROM subscription_changes") == 1)
        }
    }

    /// Out of order: an older notification after a newer one is stored as `stale` and does not
    /// roll the subscription back; its period is still recorded.
    @Test(arguments: StoreKind.allCases) func anOlderNotificationNeverRollsBack(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            let subscriber = try await Self.importedActiveSubscriber(world)
            let start = world.clock.nowMs
            world.clock.advance(byMs: 65 * Self.day)
            let renewals = world.simulator.notifications(for: subscriber, afterMs: start, throughMs: world.clock.nowMs)
                .filter { $0.type == .didRenew }
            #expect(renewals.count == 2)
            let processor = try world.notificationProcessor()
            #expect(Self.stored(await processor.receive(body: renewals[1].bodyBytes, source: .receiver))?.outcome == .applied)
            let newest = try #require(try await world.subscriptions().first)
            #expect(Self.stored(await processor.receive(body: renewals[0].bodyBytes, source: .receiver))?.outcome == .stale)
            let after = try #require(try await world.subscriptions().first)
            #expect(after == newest)
            #expect(try await world.count("SELECT COUNT(*) FROM renewals") == 2)
            #expect(try await world.report(.notifications).compactMap { $0["outcome"] }.sorted() == ["applied", "stale"])
        }
    }

    /// A notification before its receipt: stored without a user, `unmatched`; the import of a
    /// receipt for its transaction links and applies it.
    @Test(arguments: StoreKind.allCases) func anUnmatchedNotificationIsLinkedWhenItsReceiptArrives(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            let subscriber = SimulatedScenario.active.subscriber(id: 7, nowMs: world.clock.nowMs, paddingBytes: 200)
            world.simulator.register(subscriber)
            let notification = world.simulator.makeNotification(.didRenew, for: subscriber)
            let processor = try world.notificationProcessor()
            #expect(Self.stored(await processor.receive(body: notification.bodyBytes, source: .receiver))?.outcome == .unmatched)
            #expect(try await world.report(.notifications).first?["user_id"] == "")
            #expect(try await world.count("SELECT COUNT(*) FROM subscriptions") == 0)
            #expect(try await processor.linkUnmatched() == 0)

            let otid = try #require(notification.originalTransactionID)
            _ = try await world.store.importReceipts(
                [ImportRow(line: 2, userID: "late-user", receiptData: "", transactionID: String(otid))], nowMs: world.clock.nowMs)
            #expect(try await processor.linkUnmatched() == 1)
            let row = try #require(try await world.report(.notifications).first)
            #expect(row["user_id"] == "late-user")
            #expect(row["outcome"] == "applied")
            #expect(row["deliveries"] == "1")
            #expect(try await world.subscriptions().map(\.userID) == ["late-user"])
            #expect(try await world.count("SELECT COUNT(*) FROM notifications WHERE signed_payload IS NOT NULL") == 0)
            // Linking again finds nothing more to do.
            #expect(try await processor.linkUnmatched() == 0)
        }
    }

    /// Forged or foreign notifications are refused with their reason; nothing is stored.
    @Test(arguments: StoreKind.allCases) func forgedAndForeignNotificationsAreRefusedAndNothingIsStored(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            let subscriber = try await Self.importedActiveSubscriber(world)
            let processor = try world.notificationProcessor()
            var cases: [(String, [UInt8], NotificationRefusal)] = [
                ("other app", world.simulator.makeNotification(.didRenew, for: subscriber, signing: .otherApp).bodyBytes, .bundle),
                ("not JSON", Array("signedPayload=abc".utf8), .malformed),
                ("no signedPayload", Array("{\"payload\":\"x\"}".utf8), .malformed),
                ("not a JWS", Array("{\"signedPayload\":\"abc.def\"}".utf8), .signature),
            ]
            for chain in NotificationSigning.Chain.allCases where chain != .valid {
                let forged = world.simulator.makeNotification(.didRenew, for: subscriber, signing: NotificationSigning(chain: chain))
                cases.append(("chain \(chain)", forged.bodyBytes, .signature))
            }
            for (name, body, reason) in cases {
                let result = await processor.receive(body: body, source: .receiver)
                guard case .refused(let refusal, let message) = result else {
                    Issue.record("\(name): \(result)")
                    continue
                }
                #expect(refusal == reason, "\(name): \(message)")
                #expect(await processor.check(body: body)?.refusal == reason, "\(name)")
            }
            #expect(try await world.count("SELECT COUNT(*) FROM notifications") == 0)
            #expect(try await world.count("SELECT COUNT(*) FROM subscriptions") == 0)
        }
    }

    /// `TEST` is stored and answered; a product outside SUBRECON_PRODUCTS is stored as ignored.
    @Test(arguments: StoreKind.allCases) func testAndOtherProductsAreStoredWithoutChangingSubscriptions(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            let subscriber = try await Self.importedActiveSubscriber(world)
            let processor = try world.notificationProcessor(products: ["com.example.not-this-one"])
            let test = world.simulator.makeTestNotification()
            #expect(Self.stored(await processor.receive(body: test.bodyBytes, source: .receiver))?.outcome == .test)
            let renewal = world.simulator.makeNotification(.didRenew, for: subscriber)
            #expect(Self.stored(await processor.receive(body: renewal.bodyBytes, source: .receiver))?.outcome == .ignored)
            #expect(try await world.count("SELECT COUNT(*) FROM subscriptions") == 0)
            let report = try await world.report(.notifications)
            #expect(Set(report.compactMap { $0["notification_type"] }) == ["TEST", "DID_RENEW"])
        }
    }

    /// A refund notification and a nightly run touching the same subscription, in either order
    /// and at the same time, end where Apple's newest signed data says: refunded.
    @Test(arguments: StoreKind.allCases) func aNotificationAndARunAtTheSameTimeEndInTheNewestState(store: StoreKind) async throws {
        for order in ["run first", "notification first", "together"] {
            let world = try await TestWorld.make(store: store)
            let start = world.clock.nowMs
            // Refunded one hour after the world's start; the run asks before that.
            let subscriber = SimulatedScenario.refunded.subscriber(
                id: 3, nowMs: start + 5 * Self.day + 3_600_000, paddingBytes: 200)
            world.simulator.register(subscriber)
            let refund = world.simulator.makeNotification(.refund, for: subscriber, atMs: start + 2 * 3_600_000)
            let otid = try #require(refund.originalTransactionID)
            _ = try await world.store.importReceipts(
                [ImportRow(line: 2, userID: "user-r", receiptData: "", transactionID: String(otid))], nowMs: start)
            let processor = try world.notificationProcessor(clockMs: { start + 2 * 3_600_000 + 60_000 })
            switch order {
            case "run first":
                _ = try await world.runServerAPI()
                #expect(try await world.subscriptions().first?.status == .active)
                _ = await processor.receive(body: refund.bodyBytes, source: .receiver)
            case "notification first":
                _ = await processor.receive(body: refund.bodyBytes, source: .receiver)
                // The notification made the receipt fresh: `--all` makes the run ask anyway.
                let summary = try await world.runServerAPI(.all)
                #expect(summary.receiptsTotal == 1)
            default:
                async let run = world.runServerAPI(.all)
                async let applied = processor.receive(body: refund.bodyBytes, source: .receiver)
                _ = try await (run, applied)
            }
            let final = try #require(try await world.subscriptions().first, "\(order)")
            #expect(final.status == .refunded, "\(order)")
            #expect(final.lastVerifiedAt == refund.signedDateMs, "\(order)")
            await world.close()
        }
    }
}

/// The property the receiver rests on: whatever order Apple delivers a subscription's
/// notifications in, and however often each (retries, backfills), the subscription ends in the
/// state of the newest `signedDate`.
@Suite struct NotificationOrderPropertyTests {
    static let day: Int64 = 86_400_000

    @Test(arguments: StoreKind.allCases) func anyOrderAndAnyRedeliveriesEndInTheNewestState(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            let trials = store == .sqlite ? 24 : 8
            let now = world.clock.nowMs
            var generator = SplitMix64(seed: UInt64(0x5eed_0f_0d3e))
            var expected: StoredSubscription?
            for trial in 0...trials {
                // Same timeline for every subscriber (their ids only change their transaction ids):
                // bought, renewed, a billing failure with grace, retry, recovery, renewals.
                let subscriber = SimulatedScenario.billingRecovered.subscriber(
                    id: Int64(100 + trial), nowMs: now, paddingBytes: 200)
                world.simulator.register(subscriber)
                let notifications = world.simulator.notifications(for: subscriber, afterMs: 0, throughMs: now)
                #expect(Set(notifications.map(\.type)).isSuperset(of: [.subscribed, .didRenew, .didFailToRenew]))
                #expect(Set(notifications.map(\.signedDateMs)).count == notifications.count, "distinct signedDates")
                let otid = try #require(notifications.first?.originalTransactionID)
                _ = try await world.store.importReceipts(
                    [ImportRow(line: 2, userID: "user-\(trial)", receiptData: "", transactionID: String(otid))], nowMs: now)
                // Trial 0 is the reference: each once, oldest first. The others: each 1 to 6 times, shuffled.
                var deliveries = notifications
                if trial > 0 {
                    deliveries = notifications.flatMap { notification in
                        Array(repeating: notification, count: Int.random(in: 1...6, using: &generator))
                    }
                    deliveries.shuffle(using: &generator)
                }
                let processor = try world.notificationProcessor()
                for notification in deliveries {
                    let result = await processor.receive(body: notification.bodyBytes, source: .receiver)
                    guard case .stored = result else {
                        Issue.record("trial \(trial): \(result)")
                        return
                    }
                }
                let final = try #require(try await world.store.subscriptions(ofUser: "user-\(trial)").first)
                #expect(final.lastVerifiedAt == notifications.map(\.signedDateMs).max(), "trial \(trial)")
                if let expected {
                    #expect(final.status == expected.status && final.expiresDateMs == expected.expiresDateMs
                            && final.autoRenewStatus == expected.autoRenewStatus && final.productID == expected.productID
                            && final.isInBillingRetry == expected.isInBillingRetry
                            && final.gracePeriodExpiresDateMs == expected.gracePeriodExpiresDateMs,
                            "trial \(trial): \(final) vs \(expected)")
                    let periods = try await world.count(
                        "SELECT COUNT(*) FROM renewals WHERE user_id = 'user-\(trial)'")
                    let reference = try await world.count("SELECT COUNT(*) FROM renewals WHERE user_id = 'user-0'")
                    #expect(periods == reference, "trial \(trial): every period recorded, once")
                } else {
                    expected = final
                    #expect(final.status == .active)
                }
                let rows = try await world.count(
                    "SELECT COUNT(*) FROM notifications WHERE user_id = 'user-\(trial)'")
                #expect(rows == notifications.count)
            }
        }
    }
}
