import AppStoreSimulator
import Foundation
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconStore

/// Who a purchase belongs to: a token the app server registered for a user (an import row with
/// only `app_account_token`) makes a notification about a transaction no receipt knows yet that
/// user's: it is linked and applied, not left unmatched.
@Suite struct AppAccountTokenTests {
    static let token = "7e3fb20b-4cdb-47cc-936d-99d65f608138"

    @Test(arguments: StoreKind.allCases) func aNotificationBeforeAnyReceiptIsLinkedByItsToken(store: StoreKind) async throws {
        let world = try await TestWorld.make(store: store)
        defer { Task { await world.close() } }
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

    /// `appTransactionId` (the app download a purchase belongs to) is recorded in `subscriptions`
    /// where Apple sends it: the Server API's signed transactions carry it, verifyReceipt does not.
    @Test(arguments: StoreKind.allCases) func theAppTransactionIDIsRecordedFromSignedTransactions(store: StoreKind) async throws {
        let world = try await TestWorld.make(store: store)
        defer { Task { await world.close() } }
        let subscriber = try await NotificationProcessingTests.importedActiveSubscriber(world)
        #expect(try await world.runServerAPI().exitCode == 0)
        let stored = try await world.store.withReadSnapshot { db in
            try await db.all("SELECT app_transaction_id FROM subscriptions") { try $0.text("app_transaction_id") }
        }
        #expect(stored == [ServerAPIIdentifiers.appTransactionID(subscriberID: subscriber.id)])
        #expect(try await world.subscriptions().first?.appTransactionID == ServerAPIIdentifiers.appTransactionID(subscriberID: subscriber.id))
    }
}
