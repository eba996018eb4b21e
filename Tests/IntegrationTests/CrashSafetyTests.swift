import AppStoreSimulator
import AppleSignedData
import Foundation
import GRDB
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@testable import SubReconStore

/// kill -9 at any moment, then run again: nothing lost, nothing duplicated. SIGTERM stops gracefully.
@Suite(.serialized) struct CrashSafetyTests {
    static let receipts = 120

    func prepare(_ world: TestWorld) async throws -> [String: String] {
        world.clock.set(nowMs: WallClock.unixMilliseconds())
        let scenarios = SimulatedScenario.allCases
        let rows = (0..<Self.receipts).map { i in
            ImportRow(
                line: i + 2, userID: "u\(i)", receiptData: world.receipt(scenarios[i % scenarios.count], id: Int64(i + 1)))
        }
        try await world.store.importReceipts(rows, nowMs: world.clock.nowMs)
        return [
            "SUBRECON_DB": world.databasePath, "SUBRECON_SHARED_SECRET": TestWorld.secret,
            "SUBRECON_PRODUCTION_URL": world.simulator.productionURL,
            "SUBRECON_SANDBOX_URL": world.simulator.sandboxURL, "SUBRECON_CONCURRENCY": "4",
        ]
    }

    func waitForItems(_ world: TestWorld, atLeast count: Int) async throws {
        while try await world.count("SELECT COUNT(*) FROM run_items") < count {
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    @Test func killedMidRunThenRunAgainEndsWithEveryReceiptVerifiedOnce() async throws {
        // 250 ms an answer: the run lasts ~8 s, so the kill lands mid-run even on a loaded host
        // (at 100 ms a busy host's polling once saw the run finish first).
        try await TestWorld.make(latency: .milliseconds(250)).closing { world in
            let env = try await prepare(world)

            let victim = try SubreconBinary.start(["run"], environment: env, folder: world.folder)
            try await waitForItems(world, atLeast: 12)
            kill(victim.processIdentifier, SIGKILL)
            _ = await SubreconBinary.wait(victim)
            let doneBeforeKill = try await world.count("SELECT COUNT(*) FROM run_items")
            #expect(doneBeforeKill < Self.receipts, "the kill landed mid-run")

            let again = try await SubreconBinary.run(["run"], environment: env)

            #expect(again.exitCode == 0, "\(again.stderr)")
            #expect(try await world.count("SELECT COUNT(*) FROM receipts WHERE verification_state IN ('pending', 'failed')") == 0)
            #expect(try await world.count("SELECT COUNT(*) FROM receipts WHERE next_due_at <= \(world.clock.nowMs)") == 0)
            let runs = try await world.report(.runs)
            #expect(runs.map { $0["status"] } == ["interrupted", "completed"])
            // Every receipt recorded exactly once across the two runs.
            #expect(try await world.count("SELECT COUNT(*) FROM run_items") == Self.receipts)
            // Every change has exactly its one event (same transaction): none lost, none twice.
            #expect(try await world.count("SELECT COUNT(*) FROM events") == world.count("SELECT COUNT(*) FROM subscription_changes"))
            #expect(try await world.count("SELECT COUNT(*) FROM events") > 0)
            #expect(try await world.count("SELECT COUNT(DISTINCT receipt_id) FROM run_items") == Self.receipts)
            // No period twice, and exactly the periods a run without a crash records.
            #expect(try await world.count("SELECT COUNT(*) FROM (SELECT 1 FROM renewals GROUP BY user_id, transaction_id HAVING COUNT(*) > 1)") == 0)
            let reference = try AppDatabase.open(path: world.folder + "/reference.sqlite")
            let original = (0..<Self.receipts).map { i in
                ImportRow(line: i + 2, userID: "u\(i)", receiptData: world.receipt(SimulatedScenario.allCases[i % SimulatedScenario.allCases.count], id: Int64(i + 1)))
            }
            try await reference.importReceipts(original, nowMs: world.clock.nowMs)
            let job = LiveWiring(
                settings: world.settings(), store: reference, clock: world.clock.millisecondsClock,
                logger: .init(label: "reference"))
            _ = try await job.run(.init(kind: .nightly, selection: .due, concurrency: 16))
            let expected = try await reference.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM renewals")! }
            #expect(try await world.count("SELECT COUNT(*) FROM renewals") == expected)
            let integrity = try await world.database.writer.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") }
            #expect(integrity == "ok")
        }
    }

    /// SIGTERM (a supervisor) or SIGINT (Ctrl-C), on either store.
    @Test(arguments: [(SIGTERM, StoreKind.sqlite), (SIGINT, .postgres), (SIGTERM, .postgres), (SIGINT, .sqlite)])
    func aSignalStopsGracefullyAndRecordsTheRunAsInterrupted(signal: Int32, store: StoreKind) async throws {
        try await TestWorld.make(latency: .milliseconds(100), store: store).closing { world in
            let env = try await prepare(world).merging(world.storeEnvironment) { $1 }

            let process = try SubreconBinary.start(["run"], environment: env, folder: world.folder)
            try await waitForItems(world, atLeast: 8)
            kill(process.processIdentifier, signal)
            let status = await SubreconBinary.wait(process)

            // Issue 34: 128 + the signal (130, 143), so cron tells an interruption from Apple's
            // failures (it was 1), in the runs table too.
            #expect(status == 128 + signal)
            #expect(try await world.report(.runs).last?["status"] == "interrupted")
            #expect(try await world.report(.runs).last?["exit_code"] == "\(128 + signal)")
            let items = try await world.count("SELECT COUNT(*) FROM run_items")
            let due = try await world.count("SELECT COUNT(*) FROM receipts WHERE next_due_at <= \(world.clock.nowMs)")
            #expect(items < Self.receipts)
            #expect(items + due == Self.receipts, "every receipt is recorded or still due")
            #expect(try await world.count("SELECT COUNT(*) FROM run_lock") == 0, "the lock is released")
            let stderr = try String(contentsOfFile: world.folder + "/child.err", encoding: .utf8)
            #expect(stderr.contains(signal == SIGTERM ? "SIGTERM" : "SIGINT"))
        }
    }
}
