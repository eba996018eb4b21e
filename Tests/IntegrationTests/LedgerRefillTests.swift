import AppStoreSimulator
import Foundation
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@testable import SubReconStore

/// `run --refill-ledger`: a database whose periods hold no money (reconciled before the ledger
/// existed) reads every receipt's whole history again and gets its prices; killed half-way, the
/// same command continues with the receipts it had not reached; nothing is duplicated.
@Suite struct LedgerRefillTests {
    static let forgetMoney = """
        UPDATE renewals SET price_milliunits = NULL, currency = NULL, storefront = NULL, transaction_reason = NULL,
            refund_milliunits = NULL, ledger_signed_date = NULL
        """

    @Test(arguments: StoreKind.allCases) func aRefillFillsEveryPeriodsMoneyAndResumesAfterAnInterruption(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            _ = try await world.importScenarios([.active, .refunded, .twoGroups, .upgraded])
            _ = try await world.runServerAPI()
            let periods = try await world.count("SELECT COUNT(*) FROM renewals")
            #expect(try await world.count("SELECT COUNT(*) FROM renewals WHERE price_milliunits IS NULL") == 0)

            // As a database reconciled before v9 holds them: the periods, no money, the history read.
            try await world.execute(Self.forgetMoney)
            _ = try await world.runServerAPI(.all)
            let stillUnpriced = try await world.count("SELECT COUNT(*) FROM renewals WHERE price_milliunits IS NULL")
            #expect(stillUnpriced > 0, "a plain check reads only the statuses: older periods stay unpriced")
            let historyBefore = world.simulator.statistics().transactionHistoryRequests

            // The refill starts (later: PostgreSQL's workers never claim a receipt twice in a run's
            // instant), and is killed after one receipt.
            world.clock.advance(byMs: 60_000)
            let start = try await world.store.startLedgerRefill(nowMs: world.clock.nowMs)
            #expect(start == LedgerRefillStart(resumed: false, receiptsMarked: 4))
            let job = LiveWiring(
                settings: try world.serverAPISettings(), store: world.store, clock: world.clock.millisecondsClock,
                logger: .init(label: "test"))
            let partial = try await job.run(.init(kind: .nightly, selection: .due, limit: 1))
            #expect(partial.count(.updated) == 1)

            // Run again: the refill under way continues with the three receipts left, marking nothing anew.
            let again = try await world.store.startLedgerRefill(nowMs: world.clock.nowMs)
            #expect(again == LedgerRefillStart(resumed: true, receiptsMarked: 4))
            let rest = try await job.run(.init(kind: .nightly, selection: .due))
            #expect(rest.exitCode == 0)
            #expect(rest.counts.values.reduce(0, +) == 3)
            try await world.store.finishLedgerRefill(nowMs: world.clock.nowMs)

            #expect(try await world.count("SELECT COUNT(*) FROM renewals WHERE price_milliunits IS NULL") == 0)
            #expect(try await world.count("SELECT COUNT(*) FROM renewals") == periods)
            #expect(world.simulator.statistics().transactionHistoryRequests >= historyBefore + 4)
            #expect(try await world.count("SELECT COUNT(*) FROM ledger_refills WHERE finished_at IS NOT NULL") == 1)
            // A refund's amount is back too.
            #expect(try await world.count("SELECT COUNT(*) FROM renewals WHERE refund_milliunits > 0") >= 1)
            // A refill after that one starts afresh.
            let next = try await world.store.startLedgerRefill(nowMs: world.clock.nowMs)
            #expect(next.resumed == false)
        }
    }

    @Test func theBinaryRefusesARefillInVerifyReceiptMode() async throws {
        try await TestWorld.make().closing { world in
            let result = try await SubreconBinary.run(
                ["run", "--refill-ledger"],
                environment: world.storeEnvironment.merging(["SUBRECON_SHARED_SECRET": TestWorld.secret]) { $1 })
            #expect(result.exitCode == 2)
            #expect(result.stderr.contains("needs the App Store Server API"))
            let combined = try await SubreconBinary.run(["run", "--refill-ledger", "--all"], environment: world.storeEnvironment)
            #expect(combined.exitCode != 0)
            #expect(combined.stderr.contains("--refill-ledger reaches every receipt"))
        }
    }
}
