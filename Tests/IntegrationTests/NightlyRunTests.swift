import AppStoreSimulator
import Foundation
import GRDB
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@testable import SubReconStore

/// import → run → report, with a real SQLite file and real HTTP to the simulator over loopback.
@Suite struct NightlyRunTests {
    @Test(arguments: StoreKind.allCases) func nightlyRunDerivesEveryScenarioFromTheSimulator(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            try await world.importScenarios(SimulatedScenario.allCases)

            let summary = try await world.run()

            #expect(summary.receiptsTotal == SimulatedScenario.allCases.count)
            #expect(summary.exitCode == 0)
            #expect(summary.count(.failed) == 0)
            #expect(summary.count(.invalid) == 1)
            #expect(summary.count(.accountGone) == 1)
            let rows = try await world.report(.subscriptions)
            for scenario in SimulatedScenario.allCases {
                let user = "user-\(scenario.rawValue)"
                let mine = rows.filter { $0["user_id"] == user }
                guard let expected = scenario.expectedStatus else {
                    #expect(mine.isEmpty, "\(scenario) should have no subscription row")
                    continue
                }
                let headline = try #require(
                    mine.first { $0["product_id"].map(SimulatedProducts.groupAProductIDs.contains) == true }, "\(scenario)")
                #expect(headline["status"] == expected, "\(scenario)")
                #expect(headline["product_id"] == scenario.expectedProductID, "\(scenario)")
                #expect(headline["entitled"] == (["active", "grace_period"].contains(expected) ? "true" : "false"), "\(scenario)")
                #expect(headline["environment"] == (scenario == .sandboxActive ? "Sandbox" : "Production"), "\(scenario)")
            }
            let twoGroups = rows.filter { $0["user_id"] == "user-twoGroups" }.map { $0["status"] ?? "" }.sorted()
            #expect(twoGroups == ["active", "expired"])
        }
    }

    @Test func runRecordsRenewalsOnceAndReplacesTheReceiptWithLatestReceipt() async throws {
        try await TestWorld.make().closing { world in
            try await world.importScenarios([.active, .upgraded, .refunded])
            let importedData = try await world.database.writer.read { db in
                try String.fetchAll(db, sql: "SELECT receipt_data FROM receipts ORDER BY id")
            }

            let first = try await world.run()
            let renewalsAfterFirst = try await world.count("SELECT COUNT(*) FROM renewals")
            let second = try await world.run(.all)

            #expect(first.count(.updated) == 3)
            #expect(renewalsAfterFirst > 0)
            #expect(try await world.count("SELECT COUNT(*) FROM renewals") == renewalsAfterFirst)
            #expect(second.count(.unchanged) == 3)
            #expect(second.count(.updated) == 0)
            let storedData = try await world.database.writer.read { db in
                try String.fetchAll(db, sql: "SELECT receipt_data FROM receipts ORDER BY id")
            }
            #expect(storedData != importedData, "Apple's latest_receipt replaces the stored receipt")
            let renewals = try await world.report(.renewals)
            #expect(renewals.count == renewalsAfterFirst)
            #expect(Set(renewals.compactMap { $0["web_order_line_item_id"] }).count == renewals.count)
            #expect(renewals.allSatisfy { $0["first_seen_run_id"] == String(first.runID!) })
            let refunded = try #require(renewals.first { $0["user_id"] == "user-refunded" && $0["cancellation_date_ms"] != "" })
            #expect(refunded["cancellation_date_ms"]?.isEmpty == false)
        }
    }

    @Test(arguments: StoreKind.allCases) func aRenewalAtAppleIsFoundTheNightAfterExpiry(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            try await world.importScenarios([.trialActive, .downgradePending])
            _ = try await world.run()
            let before = try await world.subscriptions()
            let trial = try #require(before.first { $0.userID == "user-trialActive" })
            // The yearly's weekly re-check comes at its receipt's own moment of the spread cycle.
            func yearlyDue() async throws -> Int64 {
                Int64(try await world.count("SELECT next_due_at FROM receipts WHERE user_id = 'user-downgradePending'"))
            }
            let firstRunMs = world.clock.nowMs
            let yearlyFirstDue = try await yearlyDue()
            #expect(yearlyFirstDue > firstRunMs && yearlyFirstDue <= firstRunMs + 7 * DuePolicy.day - 3 * DuePolicy.hour)

            // The trial is not due the next night (it ends in 5 days); the yearly (265) only if its re-check has come.
            world.clock.advance(byMs: DuePolicy.day)
            let quiet = try await world.run()
            #expect(quiet.receiptsTotal == (yearlyFirstDue <= world.clock.nowMs ? 1 : 0))

            // The night after the trial's end, Apple has renewed it: the run finds the new period
            // (and checks the yearly too if its re-check has come).
            let yearlyNextDue = try await yearlyDue()
            world.clock.set(nowMs: trial.expiresDateMs + DuePolicy.hour + 1)
            let renewed = try await world.run()
            #expect(renewed.receiptsTotal == (yearlyNextDue <= world.clock.nowMs ? 2 : 1))
            #expect(renewed.count(.updated) == 1)
            let after = try #require(try await world.subscriptions().first { $0.userID == "user-trialActive" })
            #expect(after.status == .active)
            #expect(after.expiresDateMs > trial.expiresDateMs)
            let periods = try await world.count("SELECT COUNT(*) FROM renewals WHERE user_id = 'user-trialActive'")
            #expect(periods == 2)
        }
    }

    @Test func aSandboxReceiptIsResentToSandboxOnceAndItsEnvironmentRemembered() async throws {
        try await TestWorld.make().closing { world in
            try await world.importScenarios([.sandboxActive])

            _ = try await world.run()
            let first = world.simulator.statistics()
            #expect(first.productionRequests == 1)
            #expect(first.sandboxRequests == 1)
            #expect(first.answers(withAppleStatus: 21007) == 1)
            let environment = try await world.database.writer.read { db in
                try String.fetchOne(db, sql: "SELECT environment FROM receipts")
            }
            #expect(environment == "Sandbox")

            _ = try await world.run(.all)
            let second = world.simulator.statistics()
            #expect(second.productionRequests == 1, "the remembered environment is asked first")
            #expect(second.sandboxRequests == 2)
        }
    }

    @Test(arguments: StoreKind.allCases) func userRunReverifiesOneUserWhateverTheDuePolicyAndIsRecordedAsUser(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            try await world.importScenarios([.active, .expired])
            _ = try await world.run()
            let callsBefore = world.simulator.statistics().totalRequests

            let summary = try await world.run(.user("user-active"), kind: .user)

            #expect(summary.receiptsTotal == 1)
            #expect(world.simulator.statistics().totalRequests == callsBefore + 1)
            let runs = try await world.report(.runs)
            #expect(runs.map { $0["kind"] } == ["nightly", "user"])
            #expect(runs.last?["status"] == "completed")
            // Without --run, run-items shows the latest nightly run (issue 34): the lookup by its id.
            let items = try await world.report(.runItems, runID: summary.runID)
            #expect(items.map { $0["user_id"] } == ["user-active"])
        }
    }

    @Test(arguments: StoreKind.allCases) func aWrongSharedSecretStopsTheRunWithExit2AndChangesNothing(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            try await world.importScenarios([.active, .expired, .refunded, .gracePeriod])

            let summary = try await world.run(secret: "not-the-secret", concurrency: 1)

            #expect(summary.stoppedBy == .sharedSecretMismatch)
            #expect(summary.exitCode == 2)
            #expect(summary.status == .aborted)
            #expect(try await world.count("SELECT COUNT(*) FROM subscriptions") == 0)
            #expect(try await world.count("SELECT COUNT(*) FROM renewals") == 0)
            #expect(try await world.count("SELECT COUNT(*) FROM receipts WHERE next_due_at <= \(world.clock.nowMs)") == 4)
            #expect(world.simulator.statistics().totalRequests == 1, "no request after the first 21004 at concurrency 1")
            let run = try #require(try await world.report(.runs).last)
            #expect(run["status"] == "aborted")
            #expect(run["exit_code"] == "2")
        }
    }

    @Test(arguments: StoreKind.allCases) func aDryRunVerifiesButWritesNothing(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            try await world.importScenarios([.active, .refunded])

            let summary = try await world.run(dryRun: true)

            #expect(summary.runID == nil)
            #expect(summary.count(.updated) == 2)
            #expect(world.simulator.statistics().totalRequests == 2)
            #expect(try await world.count("SELECT COUNT(*) FROM subscriptions") == 0)
            #expect(try await world.count("SELECT COUNT(*) FROM renewals") == 0)
            #expect(try await world.count("SELECT COUNT(*) FROM runs") == 0)
            #expect(try await world.count("SELECT COUNT(*) FROM receipts WHERE next_due_at = 0") == 2)
        }
    }

    @Test func anInvalidReceiptIsMarkedAndNotAskedAgainTheNextNight() async throws {
        try await TestWorld.make().closing { world in
            try await world.importScenarios([.invalidReceipt, .accountGone])

            _ = try await world.run()
            world.clock.advance(byMs: DuePolicy.day)
            let next = try await world.run()

            let states = try await world.database.writer.read { db in
                try String.fetchAll(db, sql: "SELECT verification_state FROM receipts ORDER BY id")
            }
            #expect(states == ["invalid", "account_gone"])
            #expect(next.receiptsTotal == 0)
        }
    }

    @Test func theDatabaseFileIsCreatedReadableByItsOwnerOnly() async throws {
        try await TestWorld.make().closing { world in
            let attributes = try FileManager.default.attributesOfItem(atPath: world.databasePath)
            let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
            #expect(mode & 0o077 == 0)
        }
    }
}
