import AppStoreSimulator
import Foundation
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@testable import SubReconStore

/// `subrecon notifications import` and `report notifications` as an operator runs them, on both stores.
@Suite struct NotificationsImportBinaryTests {
    @Test(arguments: StoreKind.allCases) func aFileIsImportedOnlyWhenEveryLineIsGood(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            let subscriber = try await NotificationProcessingTests.importedActiveSubscriber(world)
            let start = world.clock.nowMs - 40 * NotificationProcessingTests.day
            let notifications = world.simulator.notifications(for: subscriber, afterMs: start, throughMs: world.clock.nowMs)
            #expect(notifications.count >= 1)
            let rootFile = world.folder + "/root.pem"
            try world.simulator.rootCertificatePEM.write(toFile: rootFile, atomically: true, encoding: .utf8)
            let environment = world.storeEnvironment.merging(
                ["SUBRECON_BUNDLE_ID": SimulatedProducts.bundleID, "SUBRECON_APPLE_ROOT_CA_FILE": rootFile]) { $1 }
            let good = notifications.map(\.body).joined(separator: "\n") + "\n"

            // One forged line among good ones: named with its line number, nothing imported.
            let forged = world.simulator.makeNotification(.didRenew, for: subscriber, signing: .otherApp)
            let mixed = world.folder + "/mixed.jsonl"
            try (good + "\n" + forged.body + "\n").write(toFile: mixed, atomically: true, encoding: .utf8)
            let refused = try await SubreconBinary.run(["notifications", "import", mixed], environment: environment)
            #expect(refused.exitCode == 65, "\(refused.stderr)")
            #expect(refused.stderr.contains("\(mixed):\(notifications.count + 2): "), "\(refused.stderr)")
            #expect(refused.stderr.contains("bundle"))
            #expect(try await world.count("SELECT COUNT(*) FROM notifications") == 0)

            let missing = try await SubreconBinary.run(
                ["notifications", "import", world.folder + "/nope.jsonl"], environment: environment)
            #expect(missing.exitCode == 66)

            let file = world.folder + "/good.jsonl"
            try good.write(toFile: file, atomically: true, encoding: .utf8)
            let imported = try await SubreconBinary.run(["notifications", "import", file], environment: environment)
            #expect(imported.exitCode == 0, "\(imported.stderr)")
            #expect(imported.stdout.contains("stored \(notifications.count) notification(s)"), "\(imported.stdout)")
            // From standard input, the same again: already stored.
            let again = try await SubreconBinary.run(
                ["notifications", "import", "-"], environment: environment, stdin: Data(good.utf8))
            #expect(again.stdout.contains("stored 0 notification(s)"), "\(again.stdout)")
            #expect(again.stdout.contains("\(notifications.count) already stored"))

            let report = try await SubreconBinary.run(["report", "notifications"], environment: environment)
            let rows = CSVTable.parse(report.stdout)
            #expect(rows.count == notifications.count)
            #expect(rows.allSatisfy { $0["deliveries"] == "2" && $0["user_id"] == "user-a" })
            #expect(!report.stdout.contains(notifications[0].signedPayload.prefix(40)), "reports never hold payloads")

            // Without the bundle id it is a configuration error, before anything is read.
            var unconfigured = environment
            unconfigured["SUBRECON_BUNDLE_ID"] = nil
            let noBundle = try await SubreconBinary.run(["notifications", "import", file], environment: unconfigured)
            #expect(noBundle.exitCode == 2)
            #expect(noBundle.stderr.contains("SUBRECON_BUNDLE_ID"))
        }
    }
}
