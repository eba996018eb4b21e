import AppStoreSimulator
import AppleSignedData
import Foundation
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@testable import SubReconStore

/// The built binary in server-api mode, configured the way an operator configures it: a `.p8`
/// file, key ID, issuer ID, bundle ID, and (here) the simulator's root as the trusted one.
@Suite struct ServerAPIBinaryTests {
    struct Setup {
        var environment: [String: String]
        var keyPath: String
    }

    func setUp(_ world: TestWorld) throws -> Setup {
        let keyPath = world.folder + "/AuthKey_TESTKEY001.p8"
        let rootPath = world.folder + "/simulator-root.pem"
        _ = FileManager.default.createFile(
            atPath: keyPath, contents: Data(world.apiKeyPEM.utf8), attributes: [.posixPermissions: 0o600])
        try world.simulator.rootCertificatePEM.write(toFile: rootPath, atomically: true, encoding: .utf8)
        return Setup(
            environment: [
                "SUBRECON_DB": world.databasePath, "SUBRECON_APPLE_API": "server-api",
                "SUBRECON_API_KEY_FILE": keyPath, "SUBRECON_API_KEY_ID": world.apiKey.keyID,
                "SUBRECON_API_ISSUER_ID": world.apiKey.issuerID, "SUBRECON_BUNDLE_ID": world.apiKey.bundleID,
                "SUBRECON_API_URL": world.simulator.serverAPIProductionBaseURL,
                "SUBRECON_API_SANDBOX_URL": world.simulator.serverAPISandboxBaseURL,
                "SUBRECON_APPLE_ROOT_CA_FILE": rootPath,
                // For `parity`, verifyReceipt's side too.
                "SUBRECON_PRODUCTION_URL": world.simulator.productionURL,
                "SUBRECON_SANDBOX_URL": world.simulator.sandboxURL,
            ],
            keyPath: keyPath)
    }

    @Test func runUserReportAndParityThroughTheBinaryWithTheKeyNowhereInTheOutput() async throws {
        try await TestWorld.make().closing { world in
            world.clock.set(nowMs: WallClock.unixMilliseconds())
            try await world.importScenarios([.active, .sandboxActive, .refunded])
            let setup = try setUp(world)

            let run = try await SubreconBinary.run(["run"], environment: setup.environment)
            #expect(run.exitCode == 0, "\(run.stderr)")
            #expect(run.stdout.contains("3 updated"))
            #expect(run.stdout.contains("Server API:"))

            let user = try await SubreconBinary.run(["user", "user-active", "--dry-run"], environment: setup.environment)
            #expect(user.exitCode == 0, "\(user.stderr)")
            #expect(user.stdout.contains("active"))

            let report = try await SubreconBinary.run(["report", "subscriptions"], environment: setup.environment)
            let rows = CSVTable.parse(report.stdout)
            #expect(rows.map { $0["status"] ?? "" }.sorted() == ["active", "active", "refunded"])
            #expect(rows.allSatisfy { $0["app_account_token"]?.count == 36 })

            var parityEnvironment = setup.environment
            parityEnvironment["SUBRECON_SHARED_SECRET"] = TestWorld.secret
            let dryRun = try await SubreconBinary.run(["run", "--all", "--dry-run"], environment: setup.environment)
            #expect(dryRun.exitCode == 0, "\(dryRun.stderr)")
            // Make every receipt due again, then compare both APIs on them.
            try await world.database.writer.write { db in try db.execute(sql: "UPDATE receipts SET next_due_at = 0") }
            let parity = try await SubreconBinary.run(["parity"], environment: parityEnvironment)
            #expect(parity.exitCode == 0, "\(parity.stdout)\(parity.stderr)")
            #expect(parity.stderr.contains("3 receipts"))
            #expect(CSVTable.header(parity.stdout) == APIParityDifference.csvHeader)

            let keyBody = world.apiKeyPEM.split(separator: "\n").dropFirst().first.map(String.init) ?? "?"
            let database = try Data(contentsOf: URL(fileURLWithPath: world.databasePath))
            for text in [run.stdout, run.stderr, user.stdout, user.stderr, report.stdout, parity.stdout, parity.stderr] {
                #expect(!text.contains(keyBody))
            }
            #expect(database.range(of: Data(keyBody.utf8)) == nil)
        }
    }

    @Test func aMissingKeyIDIsAConfigurationErrorBeforeAnythingHappens() async throws {
        try await TestWorld.make().closing { world in
            try await world.importScenarios([.active])
            var environment = try setUp(world).environment
            environment["SUBRECON_API_KEY_ID"] = nil

            let run = try await SubreconBinary.run(["run"], environment: environment)

            #expect(run.exitCode == 2)
            #expect(run.stderr.contains("SUBRECON_API_KEY_ID"))
            #expect(world.simulator.statistics().serverAPIRequests == 0)
            #expect(try await world.count("SELECT COUNT(*) FROM runs") == 0)
        }
    }

    @Test func aRevokedKeyStopsTheRunWithExit2NamingTheLikelyCauses() async throws {
        try await TestWorld.make().closing { world in
            world.clock.set(nowMs: WallClock.unixMilliseconds())
            try await world.importScenarios([.active, .expired])
            let setup = try setUp(world)
            // Another key than the one the (simulated) App Store knows.
            try SimulatedKeys.otherPEM.write(toFile: setup.keyPath, atomically: true, encoding: .utf8)

            let run = try await SubreconBinary.run(["run"], environment: setup.environment)

            #expect(run.exitCode == 2)
            #expect(run.stderr.contains("401"))
            #expect(run.stderr.contains("revoked"))
            #expect(try await world.count("SELECT COUNT(*) FROM subscriptions") == 0)
        }
    }
}

/// A fixed P-256 key nobody registered (generated once for this test).
enum SimulatedKeys {
    static let otherPEM = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgevZzL1gdAFr88hb2
        OF/2NxApJCzGCEDdfSp6VQO30hyhRANCAAQRWz+jn65BtOMvdyHKcvjBeBSDZH2r
        1RTwjmYSi9R/zpBnuQ4EiMnCqfMPWiZqB4QdbAd0E7oH50VpuZ1P087G
        -----END PRIVATE KEY-----
        """
}
