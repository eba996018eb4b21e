import AppStoreSimulator
import Foundation
import GRDB
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@testable import SubReconStore

/// Transient failures are retried within the run; an outage opens the circuit breaker; one
/// nightly run per database at a time.
@Suite struct RetryAndLockTests {
    @Test(arguments: StoreKind.allCases) func aTransientStatusIsRetriedAndThenApplied(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            try await world.importScenarios([.active, .expired])
            world.simulator.setGlobalFaults(FaultPlan.appleStatuses([21005, 21104, 0], isRetryable: true))

            let summary = try await world.run()

            #expect(summary.exitCode == 0)
            #expect(summary.count(.updated) == 2)
            let stats = world.simulator.statistics()
            #expect(stats.answers(withAppleStatus: 21005) == 2)
            #expect(stats.answers(withAppleStatus: 21104) == 2)
            #expect(try await world.count("SELECT COUNT(*) FROM subscriptions") == 2)
        }
    }

    @Test(arguments: StoreKind.allCases) func retryAfterIsHonouredBeforeTheNextAttempt(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            try await world.importScenarios([.active])
            world.simulator.setGlobalFaults(FaultPlan(steps: [.httpError(503, retryAfterSeconds: 1), .answer]))

            let started = ContinuousClock.now
            let summary = try await world.run()

            #expect(summary.count(.updated) == 1)
            // Not a speed assertion: Apple asked for 1 s, so the retry cannot have come sooner.
            #expect(ContinuousClock.now - started >= .seconds(1))
        }
    }

    @Test func whatStillFailsAfterItsAttemptsStaysDueAndTheRunExits1() async throws {
        try await TestWorld.make().closing { world in
            try await world.importScenarios([.active, .gracePeriod])
            _ = try await world.run()
            let before = try await world.subscriptions()
            world.simulator.setFaults(FaultPlan.always(.appleStatus(21009, isRetryable: nil)), forSubscriberID: 1)

            let summary = try await world.run(.all)

            #expect(summary.exitCode == 1)
            #expect(summary.count(.failed) == 1)
            #expect(summary.count(.unchanged) == 1)
            #expect(world.simulator.statistics().answers(withAppleStatus: 21009) == TestWorld.fastRetries.maxAttempts)
            #expect(try await world.subscriptions() == before)
            let due = try await world.database.writer.read { db in
                try String.fetchAll(db, sql: "SELECT user_id FROM receipts WHERE next_due_at <= ?", arguments: [world.clock.nowMs])
            }
            #expect(due == ["user-active"])
            let item = try #require(try await world.report(.runItems).first { $0["user_id"] == "user-active" })
            #expect(item["outcome"] == "failed")
            #expect(item["apple_status"] == "21009")
        }
    }

    @Test(arguments: StoreKind.allCases) func anUndocumentedStatusIsNotRetriedWithinTheRun(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            try await world.importScenarios([.active])
            world.simulator.setGlobalFaults(FaultPlan.always(.appleStatus(21077, isRetryable: nil)))

            let summary = try await world.run()

            #expect(summary.count(.failed) == 1)
            #expect(world.simulator.statistics().totalRequests == 1)
        }
    }

    @Test(arguments: StoreKind.allCases) func anOutageOpensTheCircuitBreakerAndLeavesTheRestDue(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            let scenarios = Array(repeating: SimulatedScenario.active, count: 40)
            let rows = scenarios.indices.map { i in
                ImportRow(line: i + 2, userID: "u\(i)", receiptData: world.receipt(.active, id: Int64(i + 1)))
            }
            try await world.store.importReceipts(rows, nowMs: world.clock.nowMs)
            world.simulator.setGlobalFaults(FaultPlan.always(.httpError(503)))

            let summary = try await world.run(
                concurrency: 1, retryPolicy: RetryPolicy(maxAttempts: 1),
                circuitBreaker: CircuitBreaker(window: 10, minimumSamples: 5, failureRatio: 0.8))

            #expect(summary.exitCode == 1)
            #expect(summary.endedEarly != nil)
            #expect(summary.status == .aborted)
            #expect(summary.count(.failed) == 5)
            #expect(summary.notReached == 35)
            #expect(world.simulator.statistics().totalRequests == 5)
            #expect(try await world.count("SELECT COUNT(*) FROM receipts WHERE next_due_at <= \(world.clock.nowMs)") == 40)
        }
    }

    @Test func aSecondNightlyRunIsRefusedWhileTheFirstHoldsTheLock() async throws {
        try await TestWorld.make(latency: .milliseconds(300)).closing { world in
            try await world.importScenarios([.active, .expired, .refunded])

            async let first = world.run(concurrency: 1)
            // Wait until the first run holds the lock, then try a second one.
            while try await world.count("SELECT COUNT(*) FROM run_lock") == 0 { try await Task.sleep(for: .milliseconds(10)) }
            await #expect {
                _ = try await world.run()
            } throws: { error in
                guard case RunFailure.locked = error else { return false }
                return (error as? RunFailure)?.exitCode == 75
            }
            let userRun = try await world.run(.user("user-active"), kind: .user)
            let summary = try await first

            #expect(summary.exitCode == 0)
            #expect(userRun.exitCode == 0, "a user run does not need the lock")
            #expect(try await world.count("SELECT COUNT(*) FROM run_lock") == 0, "released at the end")
            #expect(try await world.count("SELECT COUNT(*) FROM runs") == 2)
        }
    }

    @Test func aLockLeftByADeadProcessIsTakenOverAndItsRunMarkedInterrupted() async throws {
        try await TestWorld.make().closing { world in
            try await world.importScenarios([.active])
            let deadPID: Int32 = 999_999  // above Linux's default pid_max: no such process
            try await world.database.writer.write { db in
                try db.execute(
                    sql: "INSERT INTO runs (id, kind, started_at, status, pid, host, heartbeat_at) VALUES (7, 'nightly', ?, 'running', ?, ?, ?)",
                    arguments: [world.clock.nowMs, Int(deadPID), ProcessInfo.processInfo.hostName, world.clock.nowMs])
                try db.execute(
                    sql: "INSERT INTO run_lock (id, token, run_id, pid, host, acquired_at, lease_expires_at) VALUES (1, 'old', 7, ?, ?, ?, ?)",
                    arguments: [Int(deadPID), ProcessInfo.processInfo.hostName, world.clock.nowMs, world.clock.nowMs + 3_600_000])
            }

            let summary = try await world.run()

            #expect(summary.exitCode == 0)
            let statuses = try await world.report(.runs).map { $0["status"] ?? "" }
            #expect(statuses == ["interrupted", "completed"])
        }
    }

    @Test func aLockHeldByALiveProcessWithAFreshLeaseIsRespected() async throws {
        try await TestWorld.make().closing { world in
            try await world.importScenarios([.active])
            try await world.database.writer.write { db in
                try db.execute(
                    sql: "INSERT INTO run_lock (id, token, run_id, pid, host, acquired_at, lease_expires_at) VALUES (1, 'other', NULL, ?, 'another-host', ?, ?)",
                    arguments: [1, world.clock.nowMs, world.clock.nowMs + 3_600_000])
            }
            await #expect(throws: RunFailure.self) { _ = try await world.run() }
            #expect(world.simulator.statistics().totalRequests == 0)

            // Once that lease has expired (the other host died), the lock is taken over.
            world.clock.advance(byMs: 3_600_001)
            let summary = try await world.run()
            #expect(summary.exitCode == 0)
        }
    }

    @Test(arguments: StoreKind.allCases) func aStopRequestEndsTheRunGracefullyAsInterrupted(store: StoreKind) async throws {
        try await TestWorld.make(latency: .milliseconds(100), store: store).closing { world in
            let rows = (0..<30).map { i in
                ImportRow(line: i + 2, userID: "u\(i)", receiptData: world.receipt(.active, id: Int64(i + 1)))
            }
            try await world.store.importReceipts(rows, nowMs: world.clock.nowMs)
            let stop = StopSignal()

            async let run = world.run(concurrency: 2, stopSignal: stop)
            while try await world.count("SELECT COUNT(*) FROM run_items") < 4 { try await Task.sleep(for: .milliseconds(10)) }
            stop.raise("SIGTERM")
            let summary = try await run

            #expect(summary.status == .interrupted)
            #expect(summary.exitCode == 143, "128 + SIGTERM (issue 34; was 1)")
            #expect(summary.notReached > 0)
            let items = try await world.count("SELECT COUNT(*) FROM run_items")
            let due = try await world.count("SELECT COUNT(*) FROM receipts WHERE next_due_at <= \(world.clock.nowMs)")
            #expect(items + due == 30, "every receipt is either recorded or still due")
            #expect(try await world.report(.runs).last?["status"] == "interrupted")
        }
    }
}
