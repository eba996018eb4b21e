import AppStoreSimulator
import AppleSignedData
import Foundation
import Logging
import Testing

@testable import SubRecon
@testable import SubReconAppStore
@testable import SubReconModel
@_spi(RawSQL) @testable import SubReconStore

/// One receiver for several apps: the verified payload's bundle ID selects the app (its products
/// apply), the notification records it, and an app the deployment does not list is refused.
@Suite struct SeveralAppsNotificationTests {
    static let first = SimulatedProducts.bundleID
    static let second = FaultStep.otherAppBundleID

    func processor(_ world: TestWorld, apps: [NotificationSettings.App]) throws -> NotificationProcessor {
        NotificationProcessor(
            store: world.store,
            settings: NotificationSettings(
                apps: apps,
                verifier: try SignedDataVerifier(rootPEM: world.simulator.rootCertificatePEM, clock: world.clock.millisecondsClock)),
            reconciler: ReceiptReconciler(duePolicy: .notified), clock: world.clock.millisecondsClock,
            logger: Logger(label: "test"))
    }

    @Test(arguments: StoreKind.allCases) func twoAppsAreTakenAndAThirdIsRefused(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            let subscriber = try await NotificationProcessingTests.importedActiveSubscriber(world)
            let other = SimulatedScenario.active.subscriber(id: 2, nowMs: world.clock.nowMs, paddingBytes: 200)
            world.simulator.register(other)
            // The second app applies only a product it does not sell: its notification is `ignored`.
            let processor = try processor(
                world, apps: [.init(bundleID: Self.first), .init(bundleID: Self.second, products: ["com.example.other.monthly"])])

            let mine = world.simulator.makeNotification(.didRenew, for: subscriber)
            let theirs = world.simulator.makeNotification(
                .didRenew, for: other, signing: NotificationSigning(bundleID: Self.second))
            let unknown = world.simulator.makeNotification(
                .didRenew, for: other, signing: NotificationSigning(bundleID: "com.example.games"))

            #expect(NotificationProcessingTests.stored(await processor.receive(body: mine.bodyBytes, source: .receiver))?.outcome == .applied)
            #expect(NotificationProcessingTests.stored(await processor.receive(body: theirs.bodyBytes, source: .receiver))?.outcome == .ignored)
            let refused = await processor.receive(body: unknown.bodyBytes, source: .receiver)
            guard case .refused(let reason, let message) = refused else {
                Issue.record("a third app's notification was taken: \(refused)")
                return
            }
            #expect(reason == .bundle)
            #expect(message.contains("com.example.games") && message.contains("one of \(Self.first), \(Self.second)"))

            let stored = try await world.store.withReadSnapshot { db in
                try await db.all("SELECT notification_uuid, bundle_id FROM notifications ORDER BY bundle_id") { row in
                    [try row.requiredText("notification_uuid"): try row.requiredText("bundle_id")]
                }
            }
            #expect(stored.count == 2, "the refused one is not stored")
            #expect(Set(stored.flatMap(\.values)) == [Self.first, Self.second])
        }
    }

    @Test func withOneAppAnotherAppsNotificationIsRefusedAsBefore() async throws {
        try await TestWorld.make().closing { world in
            let subscriber = try await NotificationProcessingTests.importedActiveSubscriber(world)
            let processor = try processor(world, apps: [.init(bundleID: Self.first)])
            let theirs = world.simulator.makeNotification(.didRenew, for: subscriber, signing: .otherApp)
            guard case .refused(.bundle, let message) = await processor.receive(body: theirs.bodyBytes, source: .receiver) else {
                Issue.record("another app's notification was taken")
                return
            }
            #expect(message == "the notification is for bundle \"\(Self.second)\", not \(Self.first)")
        }
    }
}
