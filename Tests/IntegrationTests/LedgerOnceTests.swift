import AppStoreSimulator
import Foundation
import Testing

@testable import SubRecon
@testable import SubReconModel
@_spi(RawSQL) @testable import SubReconStore

/// The ledger holds each billed transaction once, whoever claims it (issue 34, items 1 and 3): a
/// purchase two users hold is listed in `report renewals` under the first claimant only, `forget`
/// of either leaves one copy with every column but `user_id` as it was, `link --move` takes the
/// purchase and its periods over, and revenue and metrics count it once throughout.
@Suite struct LedgerOnceTests {
    /// Two users who imported the same purchase (by its transaction id), the second a second
    /// later, both reconciled: the purchase's original transaction id.
    static func sharedPurchase(_ world: TestWorld, id: Int64, bundleID: String? = nil) async throws -> String {
        let subscriber = try await NotificationProcessingTests.importedActiveSubscriber(world, id: id, user: "user-first")
        let otid = try #require(try await world.store.withReadSnapshot { db in
            try await db.all("SELECT transaction_id FROM receipts WHERE user_id = 'user-first'") { try $0.text("transaction_id") }
        }.first ?? nil)
        if let bundleID { try await world.execute("UPDATE receipts SET bundle_id = '\(bundleID)'") }
        #expect(try await world.runServerAPI().exitCode == 0)
        _ = subscriber
        world.clock.advance(byMs: 1_000)
        _ = try await world.store.importReceipts(
            [ImportRow(line: 2, userID: "user-second", receiptData: "", transactionID: otid, bundleID: bundleID)],
            nowMs: world.clock.nowMs)
        #expect(try await world.runServerAPI().exitCode == 0)
        #expect(Set(try await world.store.users(holdingOriginalTransactionID: otid)) == ["user-first", "user-second"])
        return otid
    }

    static func csv(_ world: TestWorld, _ kind: ReportKind) async throws -> String {
        let box = DataBox()
        try await ReportExporter(store: world.store).export(kind, runID: nil) { box.append($0) }
        return box.text
    }

    /// The dashboard's money: MRR now, metrics and revenue by month, unpriced periods.
    static func dashboardMoney(_ world: TestWorld) async throws -> String {
        let options = try ReportOptions.parse(
            kind: .dashboard, runID: nil, since: nil, until: nil, within: nil, nowMs: world.clock.nowMs)
        let data = try await world.store.withReadSnapshot { db in
            try await DashboardReader.data(db, options: options, databaseLabel: "test")
        }
        return "\(data.currentMRR) \(data.metrics) \(data.revenue) \(data.unpricedPeriods)"
    }

    /// Every row with its user ID taken out, by transaction id.
    static func withoutUser(_ rows: [[String: String]], alsoWithout other: [String] = []) -> [String: [String: String]] {
        Dictionary(uniqueKeysWithValues: rows.map { row in
            var row = row
            row["user_id"] = nil
            for column in other { row[column] = nil }
            return (row["transaction_id"] ?? "", row)
        })
    }

    @Test(arguments: StoreKind.allCases) func aPurchaseTwoUsersHoldIsListedOnceUnderItsFirstClaimant(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            let subscriber = try await NotificationProcessingTests.importedActiveSubscriber(world, id: 41, user: "user-first")
            _ = subscriber
            #expect(try await world.runServerAPI().exitCode == 0)
            let alone = (
                renewals: try await world.report(.renewals), revenue: try await Self.csv(world, .revenue),
                metrics: try await Self.csv(world, .metrics), dashboard: try await Self.dashboardMoney(world))
            #expect(alone.renewals.count >= 2, "the purchase has a billed history")
            #expect(alone.dashboard.contains("9990"), "the dashboard shows the purchase's money")
            let otid = try #require(alone.renewals.first?["original_transaction_id"])

            world.clock.advance(byMs: 1_000)
            _ = try await world.store.importReceipts(
                [ImportRow(line: 2, userID: "user-second", receiptData: "", transactionID: otid)], nowMs: world.clock.nowMs)
            #expect(try await world.runServerAPI().exitCode == 0)
            // Both users hold it (both are entitled, as Apple's answers say), so the table has the
            // periods under each of them...
            #expect(try await world.store.subscriptions(ofUser: "user-second").count == 1)
            #expect(try await world.count("SELECT COUNT(*) FROM renewals WHERE user_id = 'user-second'") == alone.renewals.count)

            // ...but the ledger lists each transaction once, under the first claimant, as before.
            let renewals = try await world.report(.renewals)
            let transactionIDs = renewals.compactMap { $0["transaction_id"] }
            #expect(transactionIDs.count == Set(transactionIDs).count, "report renewals repeats a transaction_id")
            #expect(renewals == alone.renewals)
            #expect(renewals.allSatisfy { $0["user_id"] == "user-first" })
            // `report shared` names the other claimant; revenue and metrics count the money once.
            let shared = try await world.report(.shared)
            #expect(Set(shared.compactMap { $0["user_id"] }) == ["user-first", "user-second"])
            #expect(try await Self.csv(world, .revenue) == alone.revenue)
            #expect(try await Self.csv(world, .metrics) == alone.metrics)
            #expect(try await Self.dashboardMoney(world) == alone.dashboard)
        }
    }

    @Test(arguments: StoreKind.allCases) func forgettingTheFirstClaimantLeavesOneCopyUnderTheOther(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            let otid = try await Self.sharedPurchase(world, id: 42)
            let before = try await world.report(.renewals)
            let revenue = try await Self.csv(world, .revenue)

            let summary = try await world.store.forgetUser("user-first", pseudonym: CommandContext.pseudonym())

            #expect(summary.ledgerPeriodsHeldByOthers == before.count)
            #expect(summary.ledgerPeriods == 0)
            let after = try await world.report(.renewals)
            #expect(after.count == before.count)
            #expect(after.allSatisfy { $0["user_id"] == "user-second" && $0["original_transaction_id"] == otid })
            // The copy that stays is the second claimant's, first seen by the run that reconciled them.
            #expect(Self.withoutUser(after, alsoWithout: ["first_seen_run_id"]) == Self.withoutUser(before, alsoWithout: ["first_seen_run_id"]))
            #expect(try await world.count("SELECT COUNT(*) FROM renewals") == before.count)
            #expect(try await Self.csv(world, .revenue) == revenue)
        }
    }

    /// Item 3: with several apps, a forgotten user's billed periods keep their app in `report
    /// renewals` (every column but `user_id` as it was).
    @Test(arguments: StoreKind.allCases) func forgetKeepsTheAppOfEveryBilledPeriod(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            _ = try await NotificationProcessingTests.importedActiveSubscriber(world, id: 43, user: "user-gone")
            try await world.execute("UPDATE receipts SET bundle_id = '\(SimulatedProducts.bundleID)'")
            #expect(try await world.runServerAPI().exitCode == 0)
            let before = try await world.report(.renewals)
            #expect(!before.isEmpty && before.allSatisfy { $0["bundle_id"] == SimulatedProducts.bundleID })

            let summary = try await world.store.forgetUser("user-gone", pseudonym: CommandContext.pseudonym())

            #expect(summary.ledgerPeriods == before.count)
            let after = try await world.report(.renewals)
            #expect(after.allSatisfy { $0["user_id"]?.hasPrefix("forgotten-") == true })
            #expect(Self.withoutUser(after) == Self.withoutUser(before))
        }
    }

    /// `forget --dry-run`: the same counts as the real thing, and nothing changes.
    @Test(arguments: StoreKind.allCases) func aDryRunOfForgetSaysWhatWouldGoAndChangesNothing(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            _ = try await Self.sharedPurchase(world, id: 44)
            let cells = try await ForgetUserTests.cells(holding: "user-first", in: world.store)
            let renewals = try await Self.csv(world, .renewals)
            #expect(!cells.isEmpty)

            let preview = try await world.store.forgetUser("user-first", pseudonym: CommandContext.pseudonym(), dryRun: true)

            #expect(!preview.foundNothing)
            #expect(try await ForgetUserTests.cells(holding: "user-first", in: world.store) == cells)
            #expect(try await Self.csv(world, .renewals) == renewals)
            let done = try await world.store.forgetUser("user-first", pseudonym: CommandContext.pseudonym())
            #expect(done == preview)
            #expect(try await ForgetUserTests.cells(holding: "user-first", in: world.store).isEmpty)
        }
    }

    /// `link --move`'s store half: the holder's subscription row and transaction-id receipt go
    /// (the change recorded under a `user` run), the billed periods become the new user's, once,
    /// and the next run does not give the purchase back.
    @Test(arguments: StoreKind.allCases) func movingAPurchaseTakesItAndItsPeriodsFromTheHolder(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            let subscriber = try await NotificationProcessingTests.importedActiveSubscriber(world, id: 45, user: "user-first")
            _ = subscriber
            #expect(try await world.runServerAPI().exitCode == 0)
            let before = try await world.report(.renewals)
            let otid = try #require(before.first?["original_transaction_id"])
            let revenue = try await Self.csv(world, .revenue)
            _ = try await world.store.importReceipts(
                [ImportRow(line: 2, userID: "user-new", receiptData: "", appAccountToken: LinkBinaryTests.token)],
                nowMs: world.clock.nowMs)

            let changes = try await world.store.movePurchase(
                otid, from: ["user-first"], to: "user-new", token: nil, nowMs: world.clock.nowMs)

            #expect(changes == 1)
            #expect(try await world.store.subscriptions(ofUser: "user-first").isEmpty)
            #expect(try await world.count("SELECT COUNT(*) FROM receipts WHERE user_id = 'user-first'") == 0)
            let recorded = try await world.store.withReadSnapshot { db in
                try await db.all(
                    "SELECT c.change, c.old_status, c.new_status, r.kind, r.target_user_id FROM subscription_changes c JOIN runs r ON r.id = c.run_id WHERE c.user_id = 'user-first' AND c.new_status = 'moved'"
                ) { row in [try row.text("change"), try row.text("old_status"), try row.text("kind"), try row.text("target_user_id")] }
            }
            #expect(recorded == [["other", "active", "user", "user-new"]])
            let moved = try await world.report(.renewals)
            #expect(moved.count == before.count)
            #expect(moved.allSatisfy { $0["user_id"] == "user-new" })
            #expect(Self.withoutUser(moved) == Self.withoutUser(before))
            #expect(try await Self.csv(world, .revenue) == revenue)

            // The new user's receipt (as `link` records it) reconciles; the holder gets nothing back.
            _ = try await world.store.importReceipts(
                [ImportRow(line: 2, userID: "user-new", receiptData: "", transactionID: otid)], nowMs: world.clock.nowMs)
            #expect(try await world.runServerAPI(.all).exitCode == 0)
            #expect(try await world.store.subscriptions(ofUser: "user-first").isEmpty)
            #expect(try await world.store.subscriptions(ofUser: "user-new").map(\.originalTransactionID) == [otid])
            let again = try await world.report(.renewals)
            #expect(again.count == before.count)
            #expect(try await world.count("SELECT COUNT(*) FROM renewals") == before.count)
        }
    }
}
