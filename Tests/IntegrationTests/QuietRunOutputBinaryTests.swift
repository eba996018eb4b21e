import AppStoreSimulator
import Foundation
import Testing

@testable import SubRecon

/// Issue 34, item 17: what a person reads says each thing once. The run's summary is on stdout
/// only (not again as a log line on stderr), 21004's explanation shows once, and `jobs/nightly.sh`
/// leaves nothing in `nightly.err` on a night without warnings.
@Suite struct QuietRunOutputBinaryTests {
    static let jobs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("jobs").path

    func environment(_ world: TestWorld, secret: String = TestWorld.secret) -> [String: String] {
        world.storeEnvironment.merging([
            "SUBRECON_SHARED_SECRET": secret, "SUBRECON_PRODUCTION_URL": world.simulator.productionURL,
            "SUBRECON_SANDBOX_URL": world.simulator.sandboxURL,
        ]) { $1 }
    }

    static func occurrences(of text: String, in output: String) -> Int { output.components(separatedBy: text).count - 1 }

    @Test(arguments: StoreKind.allCases) func theSummaryIsOnStdoutOnceAndNotLoggedAgain(store: StoreKind) async throws {
        let world = try await TestWorld.make(store: store)
        defer { Task { await world.close() } }
        world.clock.set(nowMs: LiveWiring.wallClockMs())
        _ = try await world.importScenarios([.active, .expired])

        let run = try await SubreconBinary.run(["run"], environment: environment(world))

        #expect(run.exitCode == 0, "\(run.stderr)")
        #expect(Self.occurrences(of: "nightly run 1 completed: 2 receipts", in: run.stdout) == 1, "\(run.stdout)")
        #expect(run.stderr.isEmpty, "\(run.stderr)")
    }

    @Test(arguments: StoreKind.allCases) func appleStoppingTheRunIsExplainedOnce(store: StoreKind) async throws {
        let world = try await TestWorld.make(store: store)
        defer { Task { await world.close() } }
        world.clock.set(nowMs: LiveWiring.wallClockMs())
        _ = try await world.importScenarios([.active, .expired])

        let run = try await SubreconBinary.run(["run"], environment: environment(world, secret: "not-the-secret"))

        #expect(run.exitCode == 2, "\(run.stderr)")
        #expect(Self.occurrences(of: "Apple answered 21004: the shared secret does not match", in: run.stderr) == 1, "\(run.stderr)")
        #expect(Self.occurrences(of: "nightly run 1 aborted", in: run.stdout + run.stderr) == 1, "\(run.stdout)\n\(run.stderr)")
    }

    @Test func aQuietNightLeavesTheJobsErrorFileEmpty() async throws {
        let world = try await TestWorld.make()
        defer { Task { await world.close() } }
        world.clock.set(nowMs: LiveWiring.wallClockMs())
        _ = try await world.importScenarios([.active, .expired])
        let log = world.folder + "/log/nightly.log"
        var environment = environment(world)
        environment["SUBRECON_ENV_FILE"] = world.folder + "/none.env"
        environment["SUBRECON_BIN"] = SubreconBinary.path
        environment["SUBRECON_LOG_FILE"] = log

        let job = try await ShellScript.run(Self.jobs + "/nightly.sh", environment: environment)

        #expect(job.exitCode == 0, "\(job.stderr)")
        #expect(job.stdout.isEmpty && job.stderr.isEmpty, "cron mails any output: \(job.stdout)\(job.stderr)")
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains("exit=0 nightly run 1 completed: 2 receipts"), "\(lines)")
        let errors = (try? String(contentsOfFile: world.folder + "/log/nightly.err", encoding: .utf8)) ?? ""
        #expect(errors.isEmpty, "\(errors)")
    }
}
