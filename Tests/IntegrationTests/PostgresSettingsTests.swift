import Foundation
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@testable import SubReconStore

/// The PostgreSQL password through the binary: from the password file or in the URL, it never
/// shows in any output, error or report; a password the server refuses is a configuration error.
@Suite struct PostgresSettingsTests {
    @Test func thePasswordNeverShowsAndARefusedOneIsAConfigurationError() async throws {
        try await TestWorld.make(store: .postgres).closing { world in
            let postgres = try #require(world.postgres)
            let password = try #require(postgres.location.password)
            #expect(password.count >= 8)
            try await world.importScenarios([.active, .refunded])
            let apple = [
                "SUBRECON_PRODUCTION_URL": world.simulator.productionURL, "SUBRECON_SANDBOX_URL": world.simulator.sandboxURL,
                "SUBRECON_SHARED_SECRET": TestWorld.secret, "SUBRECON_LOG_LEVEL": "debug",
            ]
            var outputs: [SubreconBinary.Result] = []

            // From the password file (the way the README recommends).
            let fromFile = world.storeEnvironment.merging(apple) { $1 }
            outputs.append(try await SubreconBinary.run(["run"], environment: fromFile))
            #expect(outputs.last?.exitCode == 0, "\(outputs.last?.stderr ?? "")")
            outputs.append(try await SubreconBinary.run(["report", "runs"], environment: fromFile))
            outputs.append(try await SubreconBinary.run(["status", "--json"], environment: fromFile))
            #expect(outputs.last?.exitCode == 0)

            // In the URL (percent-encoded as libpq reads it): shown masked.
            let encoded = password.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? password
            let inURL = postgres.url.replacingOccurrences(of: "://\(postgres.location.user)@", with: "://\(postgres.location.user):\(encoded)@")
            let withURL = apple.merging(["SUBRECON_DB": inURL]) { $1 }
            outputs.append(try await SubreconBinary.run(["user", "user-active"], environment: withURL))
            #expect(outputs.last?.exitCode == 0, "\(outputs.last?.stderr ?? "")")
            // Both a URL password and the file: refused, as for the shared secret.
            let both = try await SubreconBinary.run(["status"], environment: withURL.merging(postgres.environment) { $1 })
            #expect(both.exitCode == 2)
            #expect(both.stderr.contains("***"), "\(both.stderr)")
            outputs.append(both)

            // A password the server refuses: exit 2, the URL masked.
            let wrongFile = world.folder + "/wrong-password"
            try "not-the-password\n".write(toFile: wrongFile, atomically: true, encoding: .utf8)
            let refused = try await SubreconBinary.run(
                ["run"], environment: fromFile.merging(["SUBRECON_DB_PASSWORD_FILE": wrongFile]) { $1 })
            #expect(refused.exitCode == 2, "\(refused.stderr)")
            #expect(refused.stderr.contains("refused the user or password"), "\(refused.stderr)")
            outputs.append(refused)

            for output in outputs {
                #expect(!output.stdout.contains(password) && !output.stderr.contains(password))
                #expect(!output.stdout.contains(encoded) && !output.stderr.contains(encoded))
            }
            // Nor in the database (runs record host and pid, messages come from Apple).
            let stored = try await world.count(
                "SELECT COUNT(*) FROM runs WHERE COALESCE(host, '') LIKE '%\(password)%' OR COALESCE(target_user_id, '') LIKE '%\(password)%'")
            #expect(stored == 0)
        }
    }
}
