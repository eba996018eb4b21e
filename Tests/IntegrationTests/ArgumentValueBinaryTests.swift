import AppleSignedData
import Foundation
import Testing

@testable import SubRecon
@testable import SubReconModel

/// Values a user may mistype, through the built binary: a negative number or duration reaches the
/// option's own check (the parser used to take `-1` for a flag and say "Missing value"), and
/// `--environment` takes Apple's spelling in any case on every command that has it.
@Suite struct ArgumentValueBinaryTests {
    /// Each command with its negative value and the sentence its own check gives.
    static let negatives: [([String], String)] = [
        (["run", "--limit", "-1"], "--limit must be at least 1, not -1"),
        (["parity", "--limit", "-1"], "--limit must be at least 1, not -1"),
        (["report", "expiring", "--within", "-5d"], "--within must be a whole number followed by d (days)"),
        (["report", "apple-parity", "--tolerance-days", "-1"], "--tolerance-days must be a whole number of days from 0 to 31"),
        (["report", "changes", "--run", "-1"], "--run must be a run id (1 or more), not -1"),
        (["run", "--concurrency", "-3"], "--concurrency must be a whole number from 1 to 1024, not -3"),
        (["run", "--claim-timeout", "-1"], "--claim-timeout must be at least 1 second, not -1"),
        (["notifications", "serve", "--port", "-1"], "--port must be from 0 to 65535, not -1"),
        (["simulator", "--latency-ms", "-1"], "--latency-ms must be 0 or more"),
    ]

    @Test(arguments: negatives) func aNegativeValueGetsItsOwnCheck(arguments: [String], message: String) async throws {
        try await TestWorld.make().closing { world in
            try await world.importScenarios([.active])
            let result = try await SubreconBinary.run(arguments, environment: world.storeEnvironment)
            #expect(result.exitCode == 2, "\(result.stderr)")
            #expect(result.stderr.contains(message), "\(result.stderr)")
            #expect(!result.stderr.contains("Missing value"))
        }
    }

    @Test(arguments: StoreKind.allCases) func reportEnvironmentTakesEitherCase(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            try await world.importScenarios([.active, .sandboxActive])
            _ = try await world.run()
            var outputs: [String] = []
            for spelling in ["Sandbox", "sandbox", "SANDBOX"] {
                let result = try await SubreconBinary.run(
                    ["report", "metrics", "--environment", spelling], environment: world.storeEnvironment)
                #expect(result.exitCode == 0, "\(spelling): \(result.stderr)")
                outputs.append(result.stdout)
            }
            #expect(Set(outputs).count == 1)
            let bad = try await SubreconBinary.run(
                ["report", "revenue", "--environment", "staging"], environment: world.storeEnvironment)
            #expect(bad.exitCode == 2)
            #expect(bad.stderr.contains(#"--environment must be Production (the default) or Sandbox, in either case; not "staging""#))
        }
    }

    @Test func backfillEnvironmentTakesEitherCaseAndSaysTheSameWhenWrong() async throws {
        try await TestWorld.make().closing { world in
            try await world.importScenarios([.active])
            world.clock.set(nowMs: WallClock.unixMilliseconds())
            let environment = try ServerAPIBinaryTests().setUp(world).environment
            let since = ISO8601.string(fromMilliseconds: WallClock.unixMilliseconds() - 86_400_000)
            for spelling in ["Sandbox", "SANDBOX", "production"] {
                let result = try await SubreconBinary.run(
                    ["notifications", "backfill", "--since", since, "--environment", spelling], environment: environment)
                #expect(result.exitCode == 0, "\(spelling): \(result.stderr)")
            }
            let bad = try await SubreconBinary.run(
                ["notifications", "backfill", "--since", since, "--environment", "staging"], environment: environment)
            #expect(bad.exitCode == 2)
            #expect(bad.stderr.contains(#"--environment must be Production (the default) or Sandbox, in either case; not "staging""#))
        }
    }
}
