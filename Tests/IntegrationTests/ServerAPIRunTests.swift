import AppStoreSimulator
import AppleSignedData
import Crypto
import Foundation
import GRDB
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@testable import SubReconStore

/// `SUBRECON_APPLE_API=server-api`: real SQLite, real HTTP to the simulator's App Store Server API
/// over loopback, every signed item verified to the simulator's own root.
@Suite struct ServerAPIRunTests {
    static let day: Int64 = 86_400_000

    /// The point of one model: the same accounts through either API end in the same rows.
    @Test func everyScenarioEndsInTheSameSubscriptionsReportAsVerifyReceipt() async throws {
        let viaReceipts = try await TestWorld.make()
        let viaServerAPI = try await TestWorld.make()
        defer {
            Task {
                await viaReceipts.close()
                await viaServerAPI.close()
            }
        }
        try await viaReceipts.importScenarios(SimulatedScenario.allCases)
        try await viaServerAPI.importScenarios(SimulatedScenario.allCases)

        let old = try await viaReceipts.run()
        let new = try await viaServerAPI.runServerAPI()

        #expect(new.exitCode == 0)
        #expect(new.counts == old.counts)
        let expected = try await viaReceipts.report(.subscriptions)
        let actual = try await viaServerAPI.report(.subscriptions)
        #expect(actual == expected)
        #expect(actual.contains { $0["app_account_token"]?.isEmpty == false })
        // Run items agree on every receipt's outcome and headline.
        let columns = ["user_id", "outcome", "environment", "old_status", "new_status", "new_expires_date_ms"]
        let oldItems = try await viaReceipts.report(.runItems).map { row in columns.map { row[$0] ?? "" } }
        let newItems = try await viaServerAPI.report(.runItems).map { row in columns.map { row[$0] ?? "" } }
        #expect(newItems == oldItems)
        // verifyReceipt (exclude-old-transactions) shows only the newest period; the history shows them all.
        let oldPeriods = Set(try await viaReceipts.report(.renewals).map { $0["web_order_line_item_id"] ?? "" })
        let newPeriods = Set(try await viaServerAPI.report(.renewals).map { $0["web_order_line_item_id"] ?? "" })
        #expect(oldPeriods.isSubset(of: newPeriods))
        #expect(newPeriods.count > oldPeriods.count)
    }

    @Test(arguments: StoreKind.allCases) func theHistoryRecordsEveryPeriodBilledBetweenTwoChecksAndIsNotAskedWhenNothingChanged(store: StoreKind) async throws {
        try await TestWorld.make(historyPageSize: 2, store: store).closing { world in
            try await world.importScenarios([.active])

            _ = try await world.runServerAPI()
            let periodsAfterFirst = try await world.count("SELECT COUNT(*) FROM renewals")
            let historyCalls = world.simulator.statistics().transactionHistoryRequests
            // Bought 123 days ago, monthly: the purchase and four renewals, read over several pages.
            #expect(periodsAfterFirst == 5)
            #expect(historyCalls == 3)

            // Nothing billed since: a status call only.
            let quiet = try await world.runServerAPI(.all)
            #expect(quiet.count(.unchanged) == 1)
            #expect(world.simulator.statistics().transactionHistoryRequests == historyCalls)

            // Two renewals later, the next check reads only what came after the stored revision.
            world.clock.advance(byMs: 65 * Self.day)
            let later = try await world.runServerAPI(.all)
            #expect(later.count(.updated) == 1)
            #expect(try await world.count("SELECT COUNT(*) FROM renewals") == periodsAfterFirst + 2)
            #expect(world.simulator.statistics().transactionHistoryRequests == historyCalls + 1)
            let renewals = try await world.report(.renewals)
            #expect(Set(renewals.map { $0["transaction_id"] ?? "" }).count == renewals.count)
        }
    }

    /// Moving an existing database over: nothing to migrate; the first server-api check reads the
    /// whole history once (periods verifyReceipt never showed), the next ones only the statuses.
    @Test(arguments: StoreKind.allCases) func aDatabaseMovedOverFromVerifyReceiptGetsItsHistoryOnceAndNoMore(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            try await world.importScenarios([.active, .twoGroups])
            _ = try await world.run()
            let periodsFromVerifyReceipt = try await world.count("SELECT COUNT(*) FROM renewals")
            let before = try await world.report(.subscriptions)

            let first = try await world.runServerAPI(.all)
            let historyCalls = world.simulator.statistics().transactionHistoryRequests
            let second = try await world.runServerAPI(.all)

            #expect(first.count(.updated) == 2)  // new periods recorded; the subscriptions themselves as before
            #expect(try await world.report(.subscriptions) == before)
            #expect(try await world.count("SELECT COUNT(*) FROM renewals") > periodsFromVerifyReceipt)
            #expect(historyCalls == 2)
            #expect(second.count(.unchanged) == 2)
            #expect(world.simulator.statistics().transactionHistoryRequests == historyCalls)
        }
    }

    @Test(arguments: StoreKind.allCases) func anImportedTransactionIDIsAskedAboutWithoutAnyReceiptData(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            let subscriber = SimulatedScenario.gracePeriod.subscriber(id: 7, nowMs: world.clock.nowMs)
            world.simulator.register(subscriber)
            let otid = "100000000070000000"
            _ = try await world.store.importReceipts(
                [ImportRow(line: 2, userID: "sk2-user", receiptData: "", transactionID: otid)], nowMs: world.clock.nowMs)

            let summary = try await world.runServerAPI()

            #expect(summary.count(.updated) == 1)
            let row = try #require(try await world.report(.subscriptions).first)
            #expect(row["original_transaction_id"] == otid)
            #expect(row["status"] == "grace_period")
        }
    }

    @Test(arguments: StoreKind.allCases) func aTransactionUnknownInBothEnvironmentsIsInvalidAndAReceiptWithoutAnIDTooWithoutAnyCall(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            // A well-formed receipt whose account the simulated App Store never heard of.
            let stranger = SimulatedReceipt.encode(SimulatedScenario.active.subscriber(id: 99, nowMs: world.clock.nowMs))
            _ = try await world.store.importReceipts(
                [
                    ImportRow(line: 2, userID: "stranger", receiptData: stranger),
                    ImportRow(line: 3, userID: "not-a-receipt", receiptData: "bm90IGEgcmVjZWlwdA=="),
                ], nowMs: world.clock.nowMs)

            let summary = try await world.runServerAPI()

            #expect(summary.count(.invalid) == 2)
            #expect(summary.exitCode == 0)
            let items = Dictionary(uniqueKeysWithValues: try await world.report(.runItems).map { ($0["user_id"] ?? "", $0) })
            #expect(items["stranger"]?["apple_status"] == "4040010")
            #expect(items["not-a-receipt"]?["message"]?.contains("no transaction id") == true)
            // Production, then the sandbox once, for the stranger only.
            #expect(world.simulator.statistics().subscriptionStatusesRequests == 2)
        }
    }

    @Test(arguments: StoreKind.allCases) func a401StopsTheRunWithExit2AndChangesNothing(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            try await world.importScenarios([.active, .expired, .refunded])
            let revoked = AppStoreAPIKey(
                privateKey: P256.Signing.PrivateKey(), keyID: "REVOKED001", issuerID: world.apiKey.issuerID,
                bundleID: world.apiKey.bundleID)

            let summary = try await world.runServerAPI(settings: try world.serverAPISettings(key: revoked))

            #expect(summary.exitCode == 2)
            #expect(summary.stoppedBy == .apiKeyRejected(environment: .production))
            #expect(summary.stoppedBy?.description.contains("key ID") == true)
            #expect(try await world.count("SELECT COUNT(*) FROM subscriptions") == 0)
            #expect(try await world.count("SELECT COUNT(*) FROM receipts WHERE verification_state = 'pending'") == 3)
        }
    }

    @Test(arguments: [
        (FaultStep.badSignature, "signature"), (.leafWithoutMarker, "marker"), (.intermediateWithoutMarker, "marker"),
        (.foreignRoot, "chain"), (.expiredLeaf, "signedDate"), (.otherBundleID, "bundle"), (.wrongEnvironment, "environment"),
    ])
    func signedDataFailingAnyCheckChangesNothingAndStaysDue(fault: FaultStep, reason: String) async throws {
        try await TestWorld.make().closing { world in
            try await world.importScenarios([.active])
            _ = try await world.runServerAPI()
            let before = try await world.subscriptions()
            // A renewal later, Apple's answer would move the expiry: unless it fails a check.
            world.clock.advance(byMs: 31 * Self.day)
            world.simulator.setFaults(.always(fault), forSubscriberID: 1)

            let summary = try await world.runServerAPI(.all)

            #expect(summary.count(.failed) == 1)
            #expect(summary.exitCode == 1)
            #expect(try await world.subscriptions() == before)
            let item = try #require(try await world.report(.runItems).first)
            #expect(item["outcome"] == "failed")
            #expect(item["message"]?.localizedCaseInsensitiveContains(reason) == true, "\(item["message"] ?? "")")
            let due = try await world.count("SELECT COUNT(*) FROM receipts WHERE next_due_at <= \(world.clock.nowMs + Self.day)")
            #expect(due == 1)
        }
    }

    @Test(arguments: StoreKind.allCases) func a429IsWaitedOutAndCountedAndA5xxIsRetried(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            try await world.importScenarios([.active, .expired])
            world.simulator.setFaults(FaultPlan(steps: [.httpError(429, retryAfterSeconds: 0)]), forSubscriberID: 1)
            world.simulator.setFaults(FaultPlan(steps: [.httpError(503)]), forSubscriberID: 2)

            let summary = try await world.runServerAPI()

            #expect(summary.count(.updated) == 2)
            #expect(summary.exitCode == 0)
            #expect(summary.serverAPI?.rateLimited == 1)
            #expect(summary.line.contains("1 answered 429"))
        }
    }

    @Test(arguments: StoreKind.allCases) func anotherAppsAppleIDInAProductionAnswerChangesNothing(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            try await world.importScenarios([.active])
            var settings = try world.serverAPISettings()
            settings.serverAPI?.appAppleID = 42  // the simulator answers as app 1480000017

            let summary = try await world.runServerAPI(settings: settings)

            #expect(summary.count(.failed) == 1)
            #expect(try await world.report(.runItems).first?["message"]?.contains("not 42") == true)
            #expect(try await world.count("SELECT COUNT(*) FROM subscriptions") == 0)
        }
    }

    @Test(arguments: StoreKind.allCases) func theMetricsFileShowsServerAPIRequestsAnd429s(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            try await world.importScenarios([.active])
            world.simulator.setFaults(FaultPlan(steps: [.httpError(429, retryAfterSeconds: 0)]), forSubscriberID: 1)

            let summary = try await world.runServerAPI()
            let metrics = try await world.store.withReadSnapshot { db in try await MetricsFile.render(summary: summary, db) }

            #expect(metrics.contains(#"subrecon_last_run_server_api_requests{kind="nightly"} 3"#))
            #expect(metrics.contains(#"subrecon_last_run_server_api_rate_limited{kind="nightly"} 1"#))
            #expect(metrics.contains("subrecon_last_run_server_api_requests_per_second"))
        }
    }

    @Test func theRateLimitKeepsTheRunUnderTheSimulatorsLimit() async throws {
        // The simulator answers 429 above 30 requests/s; the worker is told 20/s with 16 in flight.
        try await TestWorld.make(apiRateLimit: 30).closing { world in
            let scenarios = Array(repeating: SimulatedScenario.active, count: 12)
            let rows = scenarios.indices.map { index in
                ImportRow(line: index + 2, userID: "u\(index)", receiptData: world.receipt(.active, id: Int64(index + 1)))
            }
            _ = try await world.store.importReceipts(rows, nowMs: world.clock.nowMs)

            let summary = try await world.runServerAPI(settings: try world.serverAPISettings(concurrency: 16, rate: 20))

            #expect(summary.count(.updated) == 12)
            #expect(world.simulator.statistics().serverAPIRateLimited == 0)
            #expect(summary.serverAPI?.rateLimited == 0)
            // Statuses and histories alike went through the limiter.
            #expect(summary.serverAPI?.requests == world.simulator.statistics().serverAPIRequests)
        }
    }

    @Test(arguments: StoreKind.allCases) func parityFindsNoDifferenceOnEveryScenarioAndWritesNothing(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            try await world.importScenarios(SimulatedScenario.allCases)
            var settings = try world.serverAPISettings()
            settings.appleAPI = .verifyReceipt
            let job = LiveWiring(settings: settings, store: world.store, clock: world.clock.millisecondsClock, logger: .init(label: "t"))

            let result = try await job.parity(limit: nil)

            #expect(result.receiptsCompared == SimulatedScenario.allCases.count)
            #expect(result.subscriptionsCompared >= 14)
            #expect(result.differences == [])
            #expect(try await world.count("SELECT COUNT(*) FROM subscriptions") == 0)
            #expect(try await world.count("SELECT COUNT(*) FROM runs") == 0)
        }
    }

    @Test(arguments: StoreKind.allCases) func parityListsAFieldThatDiffers(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            try await world.importScenarios([.active, .expired])
            // The Server API says another app's data for subscriber 2: its outcome differs (failed).
            world.simulator.setFaults(.always(.otherBundleID), forSubscriberID: 2)
            let job = LiveWiring(
                settings: try world.serverAPISettings(), store: world.store, clock: world.clock.millisecondsClock,
                logger: .init(label: "t"))

            let result = try await job.parity(limit: nil)

            #expect(result.differences.map(\.userID).allSatisfy { $0 == "user-expired" })
            #expect(result.differences.contains { $0.field == "outcome" && $0.verifyReceiptValue == "updated" })
        }
    }
}
