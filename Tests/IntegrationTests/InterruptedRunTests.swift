import Foundation
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconStore

/// What the summary of a run that ended early says about the receipts it did not reach.
@Suite struct InterruptedRunTests {
    /// Issue 34 (item 9): `run --all` checks receipts that are not due; those it did not reach are
    /// not "still due".
    @Test(arguments: StoreKind.allCases) func anInterruptedRunAllDoesNotCallTheReceiptsItDidNotReachDue(store: StoreKind) async throws {
        try await TestWorld.make(latency: .milliseconds(100), store: store).closing { world in
            let rows = (0..<30).map { i in
                ImportRow(line: i + 2, userID: "u\(i)", receiptData: world.receipt(.active, id: Int64(i + 1)))
            }
            try await world.store.importReceipts(rows, nowMs: world.clock.nowMs)
            #expect(try await world.run(concurrency: 8).exitCode == 0)
            #expect(try await world.count("SELECT COUNT(*) FROM receipts WHERE next_due_at <= \(world.clock.nowMs)") == 0)
            let stop = StopSignal()

            async let run = world.run(.all, concurrency: 2, stopSignal: stop)
            while try await world.count("SELECT COUNT(*) FROM run_items") < 34 { try await Task.sleep(for: .milliseconds(10)) }
            stop.raise("SIGTERM")
            let summary = try await run

            #expect(summary.status == .interrupted)
            #expect(summary.notReached > 0)
            #expect(!summary.line.contains("still due"), "\(summary.line)")
            #expect(summary.line.contains("\(summary.notReached) not reached: not checked this time"), "\(summary.line)")
            #expect(summary.line.contains("run --all again reaches them all"))
            // Truthfully so: none of them is due.
            #expect(try await world.count("SELECT COUNT(*) FROM receipts WHERE next_due_at <= \(world.clock.nowMs)") == 0)
        }
    }

    @Test func anInterruptedNightlyRunStillSaysTheRestIsStillDue() {
        let summary = RunSummary(
            runID: 1, kind: .nightly, receiptsTotal: 10, counts: [.updated: 4], stoppedBy: nil, status: .interrupted,
            startedAtMs: 0, finishedAtMs: 1_000, endedEarly: "received SIGTERM", notReached: 6)
        #expect(summary.line.contains("(ended early: received SIGTERM; 6 not reached, still due)"))
    }
}
