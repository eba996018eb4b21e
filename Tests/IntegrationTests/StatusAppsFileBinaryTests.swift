import Foundation
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconStore

/// `status --apps-file` reads the apps file as every other command does.
@Suite struct StatusAppsFileBinaryTests {
    /// Issue 34 (item 9): a broken apps file is refused by status too (exit 2, naming app and problem).
    @Test(arguments: StoreKind.allCases) func statusRefusesABrokenAppsFileAsReportsDo(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            let broken = world.folder + "/apps.json"
            try #"{"apps": [{"bundle_id": "com.example.news", "apple_api": "carrier-pigeon"}]}"#
                .write(toFile: broken, atomically: true, encoding: .utf8)
            let secret = world.folder + "/secret"
            _ = FileManager.default.createFile(atPath: secret, contents: Data("s1\n".utf8), attributes: [.posixPermissions: 0o600])
            let good = world.folder + "/good.json"
            try """
                {"apps": [{"bundle_id": "com.example.news", "shared_secret_file": "\(secret)"},
                          {"bundle_id": "com.example.games", "shared_secret_file": "\(secret)"}]}
                """.write(toFile: good, atomically: true, encoding: .utf8)

            let status = try await SubreconBinary.run(["status", "--apps-file", broken], environment: world.storeEnvironment)
            let report = try await SubreconBinary.run(["report", "subscriptions", "--apps-file", broken], environment: world.storeEnvironment)
            let fine = try await SubreconBinary.run(["status", "--apps-file", good], environment: world.storeEnvironment)

            #expect(report.exitCode == 2, "\(report.stderr)")
            #expect(status.exitCode == 2, "\(status.stdout)\(status.stderr)")
            #expect(status.stderr == report.stderr)
            #expect(status.stderr.contains("com.example.news") && status.stderr.contains("carrier-pigeon"), "\(status.stderr)")
            #expect(status.stdout.isEmpty)
            #expect(fine.exitCode == 0, "\(fine.stderr)")
        }
    }
}
