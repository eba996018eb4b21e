import AppStoreSimulator
import Foundation
import Testing

@testable import SubRecon
@testable import SubReconModel
@_spi(RawSQL) @testable import SubReconStore

/// `subrecon link USER_ID TRANSACTION_ID` through the binary against the simulator's Set App
/// Account Token: the user's token goes to Apple, the purchase becomes theirs and is reconciled;
/// an unknown user and Apple's refusal change nothing.
@Suite struct LinkBinaryTests {
    static let token = "3c1f6a0e-9b2d-4c7e-8f41-5a6b7c8d9e0f"

    /// A purchase made without a token, and its original transaction id.
    func purchaseWithoutToken(_ world: TestWorld, scenario: SimulatedScenario, id: Int64) throws -> (SimulatedSubscriber, String) {
        var subscriber = scenario.subscriber(id: id, nowMs: world.clock.nowMs, paddingBytes: 200)
        subscriber.appAccountToken = nil
        world.simulator.register(subscriber)
        let otid = try #require(
            world.simulator.notifications(for: subscriber, afterMs: 0, throughMs: world.clock.nowMs).first?.originalTransactionID)
        world.simulator.removeAllNotifications()
        return (subscriber, String(otid))
    }

    @Test func linkSetsTheUsersTokenAtAppleAndReconcilesThePurchaseAsTheirs() async throws {
        try await TestWorld.make().closing { world in
            let setup = try ServerAPIBinaryTests().setUp(world)
            let (_, otid) = try purchaseWithoutToken(world, scenario: .active, id: 31)
            // The app server registered the user's token before the purchase; the app could not attach it.
            _ = try await world.store.importReceipts(
                [ImportRow(line: 2, userID: "user-link", receiptData: "", appAccountToken: Self.token)], nowMs: world.clock.nowMs)
            await world.store.close()

            let unknown = try await SubreconBinary.run(["link", "nobody", otid], environment: setup.environment)
            #expect(unknown.exitCode == 2, "\(unknown.stderr)")
            #expect(unknown.stderr.contains("no receipts are stored for user \"nobody\""))
            #expect(world.simulator.appAccountTokenSets().isEmpty, "Apple was asked for an unknown user")

            let linked = try await SubreconBinary.run(["link", "user-link", otid], environment: setup.environment)
            #expect(linked.exitCode == 0, "\(linked.stderr)")
            #expect(linked.stdout.contains("linked original transaction \(otid)"), "\(linked.stdout)")
            #expect(linked.stdout.contains("with their app account token \(Self.token)"), "\(linked.stdout)")
            let sets = world.simulator.appAccountTokenSets()
            #expect(sets.map(\.appAccountToken) == [Self.token])
            #expect(sets.map { String($0.originalTransactionID) } == [otid])

            // The purchase is the user's, reconciled, and carries the token Apple now sends.
            let report = try await SubreconBinary.run(["report", "subscriptions"], environment: setup.environment)
            let rows = CSVTable.parse(report.stdout).filter { $0["user_id"] == "user-link" }
            #expect(rows.count == 1)
            #expect(rows.first?["original_transaction_id"] == otid)
            #expect(rows.first?["status"] == "active")
            #expect(rows.first?["app_account_token"] == Self.token)

            // Linking again is harmless: the same token, nothing new stored.
            let again = try await SubreconBinary.run(["link", "user-link", otid], environment: setup.environment)
            #expect(again.exitCode == 0, "\(again.stderr)")
            let reportAgain = try await SubreconBinary.run(["report", "subscriptions"], environment: setup.environment)
            #expect(CSVTable.parse(reportAgain.stdout).filter { $0["user_id"] == "user-link" }.count == 1)
        }
    }

    @Test func applesRefusalIsShownAsApplesErrorAndChangesNothing() async throws {
        try await TestWorld.make().closing { world in
            let setup = try ServerAPIBinaryTests().setUp(world)
            let (_, otid) = try purchaseWithoutToken(world, scenario: .familyShared, id: 32)
            _ = try await world.store.importReceipts(
                [ImportRow(line: 2, userID: "user-family", receiptData: "", appAccountToken: Self.token)], nowMs: world.clock.nowMs)
            let before = try await ForgetUserTests.cells(holding: otid, in: world.store)
            await world.store.close()

            let refused = try await SubreconBinary.run(["link", "user-family", otid], environment: setup.environment)

            #expect(refused.exitCode == 1, "\(refused.stderr)")
            #expect(refused.stderr.contains("4000185 (FamilyTransactionNotSupportedError); nothing was changed"), "\(refused.stderr)")
            let reopened = try AppDatabase.open(path: world.databasePath)
            #expect(try await ForgetUserTests.cells(holding: otid, in: reopened) == before)
            #expect(world.simulator.appAccountTokenSets().isEmpty)
        }
    }

    /// A Family Sharing purchase subrecon has stored: Apple would refuse (4000185), so `link`
    /// says so at once and does not ask.
    @Test func aStoredFamilySharedPurchaseIsRefusedWithoutAskingApple() async throws {
        try await TestWorld.make().closing { world in
            let setup = try ServerAPIBinaryTests().setUp(world)
            let subscriber = SimulatedScenario.familyShared.subscriber(id: 33, nowMs: world.clock.nowMs, paddingBytes: 200)
            world.simulator.register(subscriber)
            _ = try await world.store.importReceipts(
                [ImportRow(line: 2, userID: "user-family", receiptData: SimulatedReceipt.encode(subscriber))], nowMs: world.clock.nowMs)
            #expect(try await world.runServerAPI().exitCode == 0)
            let stored = try #require(try await world.subscriptions().first)
            #expect(stored.ownershipType == "FAMILY_SHARED")
            await world.store.close()

            let refused = try await SubreconBinary.run(
                ["link", "user-family", stored.originalTransactionID], environment: setup.environment)

            #expect(refused.exitCode == 1, "\(refused.stderr)")
            #expect(refused.stderr.contains("(4000185, FamilyTransactionNotSupportedError); Apple was not asked"), "\(refused.stderr)")
            #expect(world.simulator.statistics().setAppAccountTokenRequests == 0)
        }
    }

    /// Item 1 of issue 34: a purchase another user holds is refused, naming them, with nothing
    /// changed and Apple not asked; `--move` takes it (their row goes, recorded as a change) and
    /// the ledger still holds each transaction once. Both stores, through the binary.
    @Test(arguments: StoreKind.allCases) func aPurchaseAnotherUserHoldsIsRefusedUnlessMoved(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            let setup = try ServerAPIBinaryTests().setUp(world)
            let environment = setup.environment.merging(world.storeEnvironment) { $1 }
            let (_, otid) = try purchaseWithoutToken(world, scenario: .active, id: 34)
            _ = try await world.store.importReceipts(
                [
                    ImportRow(line: 2, userID: "user-holder", receiptData: "", transactionID: otid),
                    ImportRow(line: 3, userID: "user-link", receiptData: "", appAccountToken: Self.token),
                ], nowMs: world.clock.nowMs)
            #expect(try await world.runServerAPI().exitCode == 0)
            let before = try await ForgetUserTests.cells(holding: otid, in: world.store)
            let ledger = try await world.report(.renewals)
            #expect(ledger.count >= 2 && ledger.allSatisfy { $0["user_id"] == "user-holder" })

            let refused = try await SubreconBinary.run(["link", "user-link", otid], environment: environment)

            #expect(refused.exitCode == 2, "\(refused.stderr)")
            #expect(refused.stderr.contains("is held by user \"user-holder\"; nothing was changed and Apple was not asked"), "\(refused.stderr)")
            #expect(try await ForgetUserTests.cells(holding: otid, in: world.store) == before)
            #expect(world.simulator.statistics().setAppAccountTokenRequests == 0)

            let moved = try await SubreconBinary.run(["link", "user-link", otid, "--move"], environment: environment)

            #expect(moved.exitCode == 0, "\(moved.stderr)")
            #expect(moved.stdout.contains("took original transaction \(otid)"), "\(moved.stdout)")
            #expect(moved.stdout.contains("from user(s) \"user-holder\""), "\(moved.stdout)")
            #expect(world.simulator.appAccountTokenSets().map(\.appAccountToken) == [Self.token])
            let subscriptions = try await SubreconBinary.run(["report", "subscriptions"], environment: environment)
            #expect(CSVTable.parse(subscriptions.stdout).filter { $0["original_transaction_id"] == otid }.map { $0["user_id"] } == ["user-link"])
            let renewals = CSVTable.parse(try await SubreconBinary.run(["report", "renewals"], environment: environment).stdout)
            #expect(renewals.count == ledger.count)
            #expect(renewals.allSatisfy { $0["user_id"] == "user-link" })
            let changes = try await world.store.withReadSnapshot { db in
                try await db.all("SELECT new_status FROM subscription_changes WHERE user_id = 'user-holder' AND original_transaction_id = ?", [.text(otid)]) {
                    try $0.text("new_status")
                }
            }
            #expect(changes.contains("moved"))
            // Events: the holder's (no row after, source link) and the user's new subscription (link).
            let events = try await world.store.withReadSnapshot { db in
                try await db.all(
                    "SELECT user_id, type, source, body FROM events WHERE original_transaction_id = ? ORDER BY position", [.text(otid)]
                ) { (try $0.requiredText("user_id"), try $0.requiredText("type"), try $0.requiredText("source"), try $0.requiredText("body")) }
            }
            let holderLeft = try #require(events.last { $0.0 == "user-holder" })
            #expect(holderLeft.1 == "subscription.other" && holderLeft.2 == "link")
            #expect(holderLeft.3.contains(#""after":null"#) && holderLeft.3.contains(#""before":{"user_id":"user-holder""#))
            #expect(events.contains { $0.0 == "user-link" && $0.1 == "subscription.new" && $0.2 == "link" })
            #expect(try await world.count("SELECT COUNT(*) FROM events") == world.count("SELECT COUNT(*) FROM subscription_changes"))
            // The next nightly run does not give the purchase back.
            let nightly = try await SubreconBinary.run(["run", "--all"], environment: environment)
            #expect(nightly.exitCode == 0, "\(nightly.stderr)")
            #expect(try await world.store.subscriptions(ofUser: "user-holder").isEmpty)
        }
    }

    /// Item 2 of issue 34: a purchase whose signed data already carries a token keeps it; `link`
    /// registers that token for the user and does not ask Apple to set another. A token another
    /// user registered is refused like a held purchase.
    @Test(arguments: StoreKind.allCases) func aTokenAppleAlreadyHasIsRegisteredNotReplaced(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            let setup = try ServerAPIBinaryTests().setUp(world)
            let environment = setup.environment.merging(world.storeEnvironment) { $1 }
            let subscriber = SimulatedScenario.active.subscriber(id: 35, nowMs: world.clock.nowMs, paddingBytes: 200)
            world.simulator.register(subscriber)
            let applesToken = try #require(subscriber.appAccountToken).lowercased()
            let otid = try #require(
                world.simulator.notifications(for: subscriber, afterMs: 0, throughMs: world.clock.nowMs).first?.originalTransactionID)
            world.simulator.removeAllNotifications()
            _ = try await world.store.importReceipts(
                [
                    ImportRow(line: 2, userID: "user-link", receiptData: "", appAccountToken: Self.token),
                    ImportRow(line: 3, userID: "user-other", receiptData: "", appAccountToken: "0b8e3a52-1f0e-4c55-9d1a-7d2c3b4a5e6f"),
                ], nowMs: world.clock.nowMs)

            let linked = try await SubreconBinary.run(["link", "user-link", String(otid)], environment: environment)

            #expect(linked.exitCode == 0, "\(linked.stderr)")
            #expect(linked.stdout.contains("already carries app account token \(applesToken) at Apple"), "\(linked.stdout)")
            #expect(world.simulator.statistics().setAppAccountTokenRequests == 0, "Apple was asked to replace its token")
            let owner = try await world.store.withReadSnapshot { db in
                try await db.all("SELECT user_id FROM app_account_tokens WHERE app_account_token = ?", [.text(applesToken)]) {
                    try $0.text("user_id")
                }
            }
            #expect(owner == ["user-link"])
            #expect(try await world.store.subscriptions(ofUser: "user-link").map(\.originalTransactionID) == [String(otid)])

            // Another user asking for it now: the token (and the purchase) are user-link's.
            let refused = try await SubreconBinary.run(["link", "user-other", String(otid)], environment: environment)
            #expect(refused.exitCode == 2, "\(refused.stderr)")
            #expect(refused.stderr.contains("user \"user-link\""), "\(refused.stderr)")
            #expect(world.simulator.statistics().setAppAccountTokenRequests == 0)
        }
    }
}
