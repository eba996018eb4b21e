import AppStoreSimulator
import Foundation
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconStore

/// `subrecon user USER_ID --history` through the built binary, on both stores: what happened to a
/// customer (changes, billed periods, notifications) in time order, read from the database alone.
@Suite struct UserHistoryBinaryTests {
    /// A subscriber verified by a nightly run (Server API: priced periods) whose next two renewals
    /// arrived as notifications.
    static func renewedByNotifications(_ world: TestWorld) async throws {
        let subscriber = try await NotificationProcessingTests.importedActiveSubscriber(world)
        _ = try await world.runServerAPI()
        let start = world.clock.nowMs
        world.clock.advance(byMs: 65 * NotificationProcessingTests.day)
        let processor = try world.notificationProcessor()
        for notification in world.simulator.notifications(for: subscriber, afterMs: start, throughMs: world.clock.nowMs) {
            world.clock.set(nowMs: notification.signedDateMs + 1_000)
            _ = await processor.receive(body: notification.bodyBytes, source: .receiver)
        }
    }

    @Test(arguments: StoreKind.allCases) func historyListsChangesPeriodsAndNotificationsInTimeOrder(store: StoreKind)
        async throws
    {
        try await TestWorld.make(store: store).closing { world in
            try await Self.renewedByNotifications(world)
            let periods = try await world.count("SELECT COUNT(*) FROM renewals WHERE user_id = 'user-a'")
            let refunds = try await world.count(
                "SELECT COUNT(*) FROM renewals WHERE user_id = 'user-a' AND cancellation_date_ms IS NOT NULL")
            let changes = try await world.count("SELECT COUNT(*) FROM subscription_changes WHERE user_id = 'user-a'")
            let notifications = try await world.count("SELECT COUNT(*) FROM notifications WHERE user_id = 'user-a'")
            #expect(periods >= 5 && changes >= 3 && notifications == 2)

            // The database alone: no shared secret, no API key, no Apple URL.
            let result = try await SubreconBinary.run(["user", "user-a", "--history"], environment: world.storeEnvironment)
            #expect(result.exitCode == 0, "\(result.stderr)")
            let lines = result.stdout.split(separator: "\n").map(String.init)
            #expect(lines.first == "user user-a: history as stored (Apple was not asked)")
            let events = lines.dropFirst(2)
            #expect(events.count == periods + refunds + changes + notifications, "\(result.stdout)")
            let times = events.map { String($0.prefix(20)) }
            #expect(times == times.sorted(), "\(result.stdout)")
            #expect(events.filter { $0.contains("  billed ") }.count == periods)
            #expect(events.contains { $0.contains("  change ") && $0.contains("new: active") && $0.contains("run 1") })
            #expect(events.filter { $0.contains("  notification ") && $0.contains("DID_RENEW") }.count == 2)
            #expect(events.contains { $0.contains("  change ") && $0.contains("renewed") && $0.contains("notification ") })
            // Server API periods carry their price.
            #expect(events.contains { $0.contains("  billed ") && $0.contains(" USD") })

            let json = try await SubreconBinary.run(
                ["user", "user-a", "--history", "--json"], environment: world.storeEnvironment)
            #expect(json.exitCode == 0, "\(json.stderr)")
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            #expect(object["user_id"] as? String == "user-a")
            #expect((object["events"] as? [[String: Any]])?.count == events.count)

            // Support often has only Apple's id; --dry-run has no meaning here.
            let otid = try #require(try await world.subscriptions().first?.originalTransactionID)
            let byOTID = try await SubreconBinary.run(
                ["user", "--original-transaction-id", otid, "--history"], environment: world.storeEnvironment)
            #expect(byOTID.stdout == result.stdout, "\(byOTID.stderr)")
            let dryRun = try await SubreconBinary.run(["user", "user-a", "--history", "--dry-run"], environment: world.storeEnvironment)
            #expect(dryRun.exitCode == 2)
            #expect(dryRun.stderr.contains("--history verifies nothing"))
        }
    }

    @Test(arguments: StoreKind.allCases) func historyOfAnUnknownUserExits2(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            try await Self.renewedByNotifications(world)
            let result = try await SubreconBinary.run(["user", "nobody-42", "--history"], environment: world.storeEnvironment)
            #expect(result.exitCode == 2)
            #expect(result.stderr.contains("nobody-42"))
            #expect(result.stdout.isEmpty)
        }
    }

    /// A user imported but not verified yet is known: the history says nothing is recorded yet.
    @Test func historyOfAUserNoRunVerifiedYet() async throws {
        try await TestWorld.make().closing { world in
            try await world.importScenarios([.active])
            let result = try await SubreconBinary.run(["user", "user-active", "--history"], environment: world.storeEnvironment)
            #expect(result.exitCode == 0, "\(result.stderr)")
            #expect(result.stdout.contains("nothing recorded yet"))
        }
    }
}
