import AppStoreSimulator
import Foundation
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@_spi(RawSQL) @testable import SubReconStore

/// PostgreSQL stops answering in the middle of a run (its server stopped as if it crashed): the
/// worker retries for the bounded time, then exits 74 with a clear message; no receipt is
/// half-written; once the server is back, the next run completes. On a cluster of the test's own.
@Suite struct DatabaseOutageTests {
    @Test func aDatabaseStoppedMidRunIsRetriedThenExit74AndTheNextRunCompletes() async throws {
        let cluster = try await OwnPostgresCluster.start()
        let world = try await TestWorld.make(latency: .milliseconds(50))
        let postgres = try await TestPostgres.createDatabase(in: cluster.environment)
        let store = try await postgres.open()
        try await withTeardown {
            let rows = (0..<200).map { i in
                ImportRow(line: i + 2, userID: "outage-\(i)", receiptData: world.receipt(.active, id: Int64(i + 1)))
            }
            _ = try await store.importReceipts(rows, nowMs: world.clock.nowMs)
            let environment = postgres.environment.merging([
                "SUBRECON_DB": postgres.url, "SUBRECON_PRODUCTION_URL": world.simulator.productionURL,
                "SUBRECON_SANDBOX_URL": world.simulator.sandboxURL, "SUBRECON_SHARED_SECRET": TestWorld.secret,
                "SUBRECON_CONCURRENCY": "4", "SUBRECON_DB_RETRY_SECONDS": "10", "SUBRECON_CLAIM_TIMEOUT": "2",
            ]) { $1 }

            let worker = try SubreconBinary.start(["run"], environment: environment, folder: world.folder)
            // Mid-run: some answers written (a batch waits up to 200 ms for company), most not yet.
            func written() async throws -> Int64 {
                try await store.withReadSnapshot { db in try await db.integer("SELECT COUNT(*) AS value FROM run_items") ?? 0 }
            }
            for _ in 0..<1500 {
                if world.simulator.statistics().totalRequests >= 20, try await written() > 0 { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(try await written() > 0, "the worker never got going")
            // The test cluster commits asynchronously (scripts/postgres-test-cluster.sh), so an
            // immediate stop may lose the last 600 ms of commits: let the first ones reach its WAL.
            try await Task.sleep(for: .milliseconds(700))
            try await cluster.server("stop")
            let started = ContinuousClock.now
            let exitCode = await SubreconBinary.wait(worker)
            let waited = ContinuousClock.now - started
            let stderr = try String(contentsOfFile: world.folder + "/child.err", encoding: .utf8)
            #expect(exitCode == 74, "\(stderr)")
            #expect(stderr.contains("database"), "\(stderr)")
            // It kept trying for the bounded time (10 s here: the same window covers the worker's
            // start, which a full suite's load can slow past a few seconds) before giving up; the
            // window may begin while the server is still shutting down, hence the margin.
            #expect(waited >= .seconds(5), "gave up after \(waited)")

            try await cluster.server("start")
            // Nothing half-written: every receipt with a run item has its subscription, every
            // verified receipt too, and the run's counters agree with its run items.
            try await postgres.open().closing { reopened in
                let (items, subscriptionsOfItems, verified, countersOfRun1) = try await reopened.withReadSnapshot { db in
                    (
                        try await db.integer("SELECT COUNT(*) AS value FROM run_items") ?? -1,
                        try await db.integer(
                            "SELECT COUNT(*) AS value FROM run_items i JOIN subscriptions s ON s.receipt_id = i.receipt_id") ?? -1,
                        try await db.integer(
                            """
                            SELECT COUNT(*) AS value FROM receipts r
                            WHERE last_verified_at IS NOT NULL AND NOT EXISTS (SELECT 1 FROM subscriptions s WHERE s.receipt_id = r.id)
                            """) ?? -1,
                        try await db.integer("SELECT verified AS value FROM runs WHERE id = 1") ?? -1
                    )
                }
                #expect(items > 0 && items < 200, "\(items) written before the outage")
                #expect(subscriptionsOfItems == items)
                #expect(verified == 0)
                #expect(countersOfRun1 == items)

                // The stranded claims run out (2 s), and the next run verifies everything left.
                try await Task.sleep(for: .milliseconds(2500))
                let next = try await SubreconBinary.run(["run"], environment: environment)
                #expect(next.exitCode == 0, "\(next.stderr)")
                let (left, subscriptions, run1) = try await reopened.withReadSnapshot { db in
                    (
                        try await db.integer("SELECT COUNT(*) AS value FROM receipts WHERE last_verified_at IS NULL") ?? -1,
                        try await db.integer("SELECT COUNT(*) AS value FROM subscriptions") ?? -1,
                        try await db.all("SELECT status FROM runs WHERE id = 1") { try $0.requiredText("status") }
                    )
                }
                #expect(left == 0)
                #expect(subscriptions == 200)
                #expect(run1 == ["interrupted"] || run1 == ["aborted"], "\(run1)")
            }
        } teardown: {
            await store.close()
            await world.close()
            await cluster.remove()
        }
    }
}
