import AppStoreSimulator
import AppleSignedData
import Foundation
import Testing

@testable import SubRecon
@testable import SubReconModel
@_spi(RawSQL) @testable import SubReconStore

/// Who a purchase belongs to: a token the app server registered for a user (an import row with
/// only `app_account_token`) makes a notification about a transaction no receipt knows yet that
/// user's: it is linked and applied, not left unmatched.
@Suite struct AppAccountTokenTests {
    static let token = "7e3fb20b-4cdb-47cc-936d-99d65f608138"

    @Test(arguments: StoreKind.allCases) func aNotificationBeforeAnyReceiptIsLinkedByItsToken(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            var subscriber = SimulatedScenario.active.subscriber(id: 7, nowMs: world.clock.nowMs, paddingBytes: 200)
            subscriber.appAccountToken = Self.token.uppercased()
            world.simulator.register(subscriber)
            // The app server created the order first: the token is the user's before any purchase.
            let registered = try await world.store.importReceipts(
                [ImportRow(line: 2, userID: "user-token", receiptData: "", appAccountToken: Self.token)], nowMs: world.clock.nowMs)
            #expect(registered.tokensRegistered == 1)
            #expect(registered.imported == 0, "a token alone stores no receipt")

            let notification = world.simulator.makeNotification(.didRenew, for: subscriber)
            let result = await (try world.notificationProcessor()).receive(body: notification.bodyBytes, source: .receiver)

            #expect(NotificationProcessingTests.stored(result)?.outcome == .applied)
            let subscriptions = try await world.store.subscriptions(ofUser: "user-token")
            #expect(subscriptions.count == 1)
            #expect(subscriptions.first?.appAccountToken == Self.token)
            // A notification for a token nobody registered stays unmatched, as before.
            var stranger = SimulatedScenario.active.subscriber(id: 8, nowMs: world.clock.nowMs, paddingBytes: 200)
            stranger.appAccountToken = "0b7c1a52-55a4-4d1e-9d59-5bd7e1d4c6a3"
            world.simulator.register(stranger)
            let unknown = world.simulator.makeNotification(.didRenew, for: stranger)
            let other = await (try world.notificationProcessor()).receive(body: unknown.bodyBytes, source: .receiver)
            #expect(NotificationProcessingTests.stored(other)?.outcome == .unmatched)

            // Registering the same token again registers nothing new; forgetting the user removes it.
            let again = try await world.store.importReceipts(
                [ImportRow(line: 2, userID: "user-token", receiptData: "", appAccountToken: Self.token)], nowMs: world.clock.nowMs)
            #expect(again.tokensRegistered == 0)
            let forgotten = try await world.store.forgetUser("user-token", pseudonym: CommandContext.pseudonym())
            #expect(forgotten.tokens == 1)
            #expect(try await ForgetUserTests.cells(holding: Self.token, in: world.store).filter { !$0.hasPrefix("notifications.") }.isEmpty)
        }
    }

    /// The token can come after the notification: an unmatched notification keeps its
    /// transaction's token, and once a user registers it, linking applies it to that user. A
    /// forgotten user's token leaves no trace on a notification still waiting.
    @Test(arguments: StoreKind.allCases) func aNotificationBeforeItsTokenIsLinkedWhenTheTokenArrives(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            let later = "3c0a8d61-2a35-4a8b-8a8e-0d1f1d5e9b71"
            let gone = "9a1e4b0c-6f1d-4c3e-bb0e-5d2a7c9e8f10"
            var subscriber = SimulatedScenario.active.subscriber(id: 9, nowMs: world.clock.nowMs, paddingBytes: 200)
            subscriber.appAccountToken = later
            var other = SimulatedScenario.active.subscriber(id: 10, nowMs: world.clock.nowMs, paddingBytes: 200)
            other.appAccountToken = gone
            world.simulator.register([subscriber, other])
            let processor = try world.notificationProcessor()
            for account in [subscriber, other] {
                let result = await processor.receive(body: world.simulator.makeNotification(.didRenew, for: account).bodyBytes, source: .receiver)
                #expect(NotificationProcessingTests.stored(result)?.outcome == .unmatched)
            }
            #expect(try await processor.linkUnmatched() == 0, "no token is registered yet")

            _ = try await world.store.importReceipts(
                [
                    ImportRow(line: 2, userID: "user-later", receiptData: "", appAccountToken: later),
                    ImportRow(line: 3, userID: "user-gone", receiptData: "", appAccountToken: gone),
                ], nowMs: world.clock.nowMs)
            _ = try await world.store.forgetUser("user-gone", pseudonym: CommandContext.pseudonym())
            #expect(try await ForgetUserTests.cells(holding: gone, in: world.store).isEmpty)

            #expect(try await processor.linkUnmatched() == 1)
            let subscriptions = try await world.store.subscriptions(ofUser: "user-later")
            #expect(subscriptions.map(\.originalTransactionID) == [String(subscriber.transactionID())])
            let rows = try await world.report(.notifications)
            #expect(rows.map { $0["outcome"] } .sorted { ($0 ?? "") < ($1 ?? "") } == ["applied", "unmatched"])
            #expect(rows.first { $0["outcome"] == "applied" }?["user_id"] == "user-later")
            // Linked, it keeps the token no more (nor its signed payload).
            #expect(try await ForgetUserTests.cells(holding: later, in: world.store).allSatisfy { !$0.hasPrefix("notifications.") })
        }
    }

    /// Through the binary: `notifications import` leaves the notification unmatched, and the
    /// `import` that registers its token links it, saying so.
    @Test func importingATokenLinksTheNotificationThatWaitedForIt() async throws {
        try await TestWorld.make().closing { world in
            world.clock.set(nowMs: WallClock.unixMilliseconds())
            let token = "5b7e0c2a-1d4f-4e8a-9c3b-7a6d5e4f3a21"
            var subscriber = SimulatedScenario.active.subscriber(id: 11, nowMs: world.clock.nowMs, paddingBytes: 200)
            subscriber.appAccountToken = token
            world.simulator.register(subscriber)
            let environment = try ServerAPIBinaryTests().setUp(world).environment
            let notifications = world.folder + "/notifications.jsonl"
            try (world.simulator.makeNotification(.didRenew, for: subscriber).body + "\n")
                .write(toFile: notifications, atomically: true, encoding: .utf8)
            let stored = try await SubreconBinary.run(["notifications", "import", notifications], environment: environment)
            #expect(stored.exitCode == 0, "\(stored.stderr)")
            #expect(try await world.report(.notifications).first?["outcome"] == "unmatched")

            let tokens = world.folder + "/tokens.csv"
            try "user_id,receipt_data,app_account_token\nuser-later,,\(token)\n".write(toFile: tokens, atomically: true, encoding: .utf8)
            let imported = try await SubreconBinary.run(["import", tokens], environment: environment)

            #expect(imported.exitCode == 0, "\(imported.stdout)\(imported.stderr)")
            #expect(imported.stdout.contains("linked 1 waiting notification(s)"), "\(imported.stdout)")
            #expect(try await world.report(.notifications).first?["user_id"] == "user-later")
            #expect(try await world.store.subscriptions(ofUser: "user-later").count == 1)
        }
    }

    /// A run's answers: a purchase found on one user's receipt whose token another user
    /// registered is stored for that user as well and reconciled at once; `shared` then shows both.
    @Test(arguments: StoreKind.allCases) func aPurchaseARunFindsIsLinkedToTheUserOfItsToken(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            world.clock.set(nowMs: WallClock.unixMilliseconds())
            let token = "1f2e3d4c-5b6a-4798-8a7b-6c5d4e3f2a10"
            var subscriber = SimulatedScenario.active.subscriber(id: 12, nowMs: world.clock.nowMs, paddingBytes: 200)
            subscriber.appAccountToken = token
            world.simulator.register(subscriber)
            _ = try await world.store.importReceipts(
                [
                    ImportRow(line: 2, userID: "user-receipt", receiptData: SimulatedReceipt.encode(subscriber)),
                    ImportRow(line: 3, userID: "user-token", receiptData: "", appAccountToken: token),
                ], nowMs: world.clock.nowMs)
            let environment = try ServerAPIBinaryTests().setUp(world).environment.merging(world.storeEnvironment) { $1 }

            let run = try await SubreconBinary.run(["run"], environment: environment)

            #expect(run.exitCode == 0, "\(run.stdout)\(run.stderr)")
            #expect(run.stderr.contains("linked 1 purchase(s) to 1 user(s) by their app account token"), "\(run.stderr)")
            let otid = String(subscriber.transactionID())
            let theirs = try await world.store.subscriptions(ofUser: "user-token")
            #expect(theirs.map(\.originalTransactionID) == [otid])
            #expect(theirs.first?.status == .active)
            let shared = try await world.report(.shared)
            #expect(Set(shared.compactMap { $0["user_id"] }) == ["user-receipt", "user-token"])
            // The receipt's user's event is the run's; the token's user's is the token linking's.
            let sources = try await world.store.withReadSnapshot { db in
                try await db.all("SELECT user_id, source FROM events WHERE type = 'subscription.new' ORDER BY position") {
                    (try $0.requiredText("user_id"), try $0.requiredText("source"))
                }
            }
            #expect(sources.filter { $0.0 == "user-receipt" }.map(\.1) == ["run"])
            #expect(sources.filter { $0.0 == "user-token" }.map(\.1) == ["token_link"])
            // Once linked, the next run links nothing again.
            let again = try await SubreconBinary.run(["run", "--all"], environment: environment)
            #expect(again.exitCode == 0)
            #expect(!again.stderr.contains("linked"), "\(again.stderr)")
        }
    }

    /// `appTransactionId` (the app download a purchase belongs to) is recorded in `subscriptions`
    /// where Apple sends it: the Server API's signed transactions carry it, verifyReceipt does not.
    @Test(arguments: StoreKind.allCases) func theAppTransactionIDIsRecordedFromSignedTransactions(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            let subscriber = try await NotificationProcessingTests.importedActiveSubscriber(world)
            #expect(try await world.runServerAPI().exitCode == 0)
            let stored = try await world.store.withReadSnapshot { db in
                try await db.all("SELECT app_transaction_id FROM subscriptions") { try $0.text("app_transaction_id") }
            }
            #expect(stored == [ServerAPIIdentifiers.appTransactionID(subscriberID: subscriber.id)])
            #expect(try await world.subscriptions().first?.appTransactionID == ServerAPIIdentifiers.appTransactionID(subscriberID: subscriber.id))
        }
    }
}
