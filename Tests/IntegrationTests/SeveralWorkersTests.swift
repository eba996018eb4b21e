import AppStoreSimulator
import Foundation
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@_spi(RawSQL) @testable import SubReconStore

/// Several `subrecon run` processes against one PostgreSQL database and one App Store: they split
/// the due receipts by claiming them, none is verified twice, and a killed worker's receipts are
/// verified by the next run once its claims run out. Real processes, real PostgreSQL, real HTTP.
@Suite struct SeveralWorkersTests {
    func environment(_ world: TestWorld, _ extra: [String: String] = [:]) -> [String: String] {
        world.storeEnvironment.merging([
            "SUBRECON_PRODUCTION_URL": world.simulator.productionURL,
            "SUBRECON_SANDBOX_URL": world.simulator.sandboxURL,
            "SUBRECON_SHARED_SECRET": TestWorld.secret,
            "SUBRECON_CONCURRENCY": "4",
        ].merging(extra) { $1 }) { $1 }
    }

    /// `count` active receipts, one user each.
    func importActive(_ world: TestWorld, count: Int) async throws {
        let rows = (0..<count).map { i in
            ImportRow(line: i + 2, userID: "worker-user-\(i)", receiptData: world.receipt(.active, id: Int64(i + 1)))
        }
        let summary = try await world.store.importReceipts(rows, nowMs: world.clock.nowMs)
        #expect(summary.imported == count)
    }

    @Test func threeWorkersSplitTheRunAndNoReceiptIsVerifiedTwice() async throws {
        try await TestWorld.make(latency: .milliseconds(30), store: .postgres).closing { world in
            try await importActive(world, count: 300)

            async let first = SubreconBinary.run(["run"], environment: environment(world))
            async let second = SubreconBinary.run(["run"], environment: environment(world))
            async let third = SubreconBinary.run(["run"], environment: environment(world))
            let results = try await [first, second, third]

            for result in results { #expect(result.exitCode == 0, "\(result.stderr)") }
            // One Apple call per receipt, all workers together: none verified twice.
            #expect(world.simulator.statistics().totalRequests == 300)
            #expect(try await world.count("SELECT COUNT(*) FROM run_items") == 300)
            #expect(try await world.count("SELECT COUNT(DISTINCT receipt_id) FROM run_items") == 300)
            #expect(try await world.count("SELECT COUNT(*) FROM subscriptions") == 300)
            #expect(try await world.count("SELECT COUNT(*) FROM receipts WHERE claimed_by IS NOT NULL") == 0)
            // Three runs, each recorded by its own worker with its own share, and the shares add up.
            let runs = try await world.report(.runs)
            #expect(runs.count == 3)
            #expect(Set(runs.compactMap { $0["worker"] }).count == 3)
            #expect(runs.allSatisfy { $0["status"] == "completed" && $0["exit_code"] == "0" })
            #expect(runs.compactMap { Int($0["receipts_total"] ?? "") }.reduce(0, +) == 300)
            #expect(runs.filter { Int($0["verified"] ?? "") ?? 0 > 0 }.count >= 2, "the run was split: \(runs)")
        }
    }

    @Test func aKilledWorkersReceiptsAreVerifiedAfterItsClaimsRunOutAndNothingIsLostOrDuplicated() async throws {
        try await TestWorld.make(latency: .milliseconds(100), store: .postgres).closing { world in
            // 600 receipts: the doomed worker (one request at a time) would take a minute, so the test
            // catches it mid-run even when parallel suites starve this task for many seconds.
            let receipts = 600
            try await importActive(world, count: receipts)
            // The live workers run wide, so each finishes well within the dead worker's claim timeout.
            let env = environment(world, ["SUBRECON_CONCURRENCY": "64"])

            // One request at a time (60 s for all 600 at 100 ms), so a busy test machine still
            // catches it mid-run.
            let doomed = try SubreconBinary.start(
                ["run", "--claim-timeout", "5"], environment: environment(world, ["SUBRECON_CONCURRENCY": "1"]),
                folder: world.folder)
            // Killed mid-run: some receipts written, others claimed and in flight.
            for _ in 0..<1200 where try await world.count("SELECT COUNT(*) FROM run_items") < 10 {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(try await world.count("SELECT COUNT(*) FROM run_items") < receipts, "the worker finished before the kill")
            #expect(try await world.count("SELECT COUNT(*) FROM receipts WHERE claimed_by IS NOT NULL") > 0)
            kill(doomed.processIdentifier, SIGKILL)
            _ = await SubreconBinary.wait(doomed)
            let stranded = try await world.count("SELECT COUNT(*) FROM receipts WHERE claimed_by IS NOT NULL")
            #expect(stranded > 0)

            // A worker starting at once leaves the dead worker's claims alone while they last…
            let during = try await SubreconBinary.run(["run", "--claim-timeout", "5"], environment: env)
            #expect(during.exitCode == 0, "\(during.stderr)")
            #expect(try await world.count("SELECT COUNT(*) FROM receipts WHERE claimed_by IS NOT NULL") == stranded)
            // …and once they have run out, the next run verifies those receipts.
            try await Task.sleep(for: .milliseconds(5500))
            let after = try await SubreconBinary.run(["run", "--claim-timeout", "5"], environment: env)
            #expect(after.exitCode == 0, "\(after.stderr)")

            #expect(try await world.count("SELECT COUNT(*) FROM receipts WHERE claimed_by IS NOT NULL") == 0)
            #expect(try await world.count("SELECT COUNT(*) FROM receipts WHERE last_verified_at IS NULL") == 0)
            #expect(try await world.count("SELECT COUNT(*) FROM subscriptions") == receipts)
            // One renewal record per period, whoever wrote it.
            let renewals = try await world.count("SELECT COUNT(*) FROM renewals")
            #expect(renewals == receipts)
            // Every receipt the dead worker did not write was verified once by a live worker; its run
            // is recorded as interrupted.
            let writtenByTheDead = try await world.count("SELECT COUNT(*) FROM run_items WHERE run_id = 1")
            let byTheLive = try await world.count("SELECT COUNT(*) FROM run_items WHERE run_id <> 1")
            let twice = try await world.count(
                "SELECT COUNT(*) FROM (SELECT receipt_id FROM run_items GROUP BY receipt_id HAVING COUNT(*) > 1) AS t")
            let runIDs = try await world.count("SELECT COUNT(DISTINCT run_id) FROM run_items")
            #expect(
                byTheLive == receipts - writtenByTheDead,
                "dead worker \(writtenByTheDead), live workers \(byTheLive), receipts with several items \(twice), runs with items \(runIDs)")
            let runs = try await world.report(.runs)
            #expect(runs.first?["status"] == "interrupted", "\(runs)")
            #expect(runs.dropFirst().allSatisfy { $0["status"] == "completed" })
        }
    }

    @Test func theDueAndUnclaimedQueryWalksThePartialIndex() async throws {
        try await TestWorld.make(store: .postgres).closing { world in
            try await importActive(world, count: 50)
            let plan = try await world.store.withReadSnapshot { db in
                // Without statistics a tiny table is read sequentially whatever the indexes; the plan
                // that matters is the one for a large table, which this setting stands in for.
                try await db.forEachRow("SET LOCAL enable_seqscan = off", []) { _ in }
                return try await db.all(
                    """
                    EXPLAIN SELECT id FROM receipts
                    WHERE next_due_at <= 9000000000000 AND claimed_by IS NULL AND (last_attempt_at IS NULL OR last_attempt_at < 9000000000000)
                    ORDER BY next_due_at, id LIMIT 32 FOR UPDATE SKIP LOCKED
                    """
                ) { try $0.requiredText("QUERY PLAN") }
            }
            #expect(plan.joined(separator: "\n").contains("receipts_due_unclaimed"), "\(plan)")
        }
    }

    /// Lapsed claims are released once per quarter of a claim's life, and whenever a claim comes
    /// back short: a worker never runs out of work while another's lapsed claims wait.
    @Test func lapsedClaimsAreReleasedWhenAClaimComesBackShort() async throws {
        try await TestWorld.make(store: .postgres).closing { world in
            try await importActive(world, count: 6)
            let postgres = try #require(world.store as? PostgresStore)
            let dead = postgres.asWorker("dead:1")
            let survivor = postgres.asWorker("survivor:2")
            let nowMs = world.clock.nowMs + 1

            // The survivor's first claim releases lapsed claims (none yet) and takes two receipts.
            let first = try await survivor.claimDue(limit: 2, dueBy: nowMs, columns: ReceiptToVerify.verifyReceiptColumns)
            #expect(first.count == 2)
            // A worker claims the other four and dies; its claims lapse.
            let lost = try await dead.claimDue(limit: 10, dueBy: nowMs, columns: ReceiptToVerify.verifyReceiptColumns)
            #expect(lost.count == 4)
            try await world.execute("UPDATE receipts SET claimed_until = 0 WHERE claimed_by = 'dead:1'")

            // Within the interval nothing is unclaimed, so the claim comes back short: the lapsed
            // claims are released and taken in the same transaction.
            let rescued = try await survivor.claimDue(limit: 10, dueBy: nowMs, columns: ReceiptToVerify.verifyReceiptColumns)
            #expect(Set(rescued.map(\.id)) == Set(lost.map(\.id)))
            #expect(try await world.count("SELECT COUNT(*) FROM receipts WHERE claimed_by = 'dead:1'") == 0)
        }
    }
}
