import AppStoreSimulator
import Foundation
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@testable import SubReconStore

/// The money reports, byte for byte, from the simulator's money scenarios through a real
/// server-api run and the notifications Apple sends afterwards, on both stores against ONE set of
/// golden files: the same data gives the same bytes on SQLite and PostgreSQL.
/// `SUBRECON_UPDATE_GOLDEN=1 swift test --filter MoneyGoldenTests` rewrites them (review the diff).
@Suite struct MoneyGoldenTests {
    @Test(arguments: StoreKind.allCases) func theLedgerAndItsReportsMatchTheirGoldenFiles(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            try await LedgerScenarioRunTests.importLedgerScenarios(world)
            let run = try await world.runServerAPI()
            #expect(run.exitCode == 0)

            let now = world.clock.nowMs
            let reports: [(file: String, kind: ReportKind, options: ReportOptions)] = [
                ("ledger-renewals", .renewals, .init(nowMs: now)),
                ("ledger-revenue", .revenue, try .parse(kind: .revenue, runID: nil, since: nil, until: nil, within: nil, nowMs: now)),
                ("ledger-revenue-by-day", .revenue, try .parse(
                    kind: .revenue, runID: nil, since: "2026-09-01", until: "2026-11-01", within: nil, by: "day", nowMs: now)),
                ("ledger-metrics", .metrics, try .parse(kind: .metrics, runID: nil, since: nil, until: nil, within: nil, nowMs: now)),
                ("ledger-revenue-sandbox", .revenue, try .parse(
                    kind: .revenue, runID: nil, since: nil, until: nil, within: nil, by: "day", environment: "Sandbox", nowMs: now)),
            ]
            let golden = ReportGoldenTests()
            for report in reports {
                let box = DataBox()
                try await ReportExporter(store: world.store).export(report.kind, options: report.options) { box.append($0) }
                try golden.compareWithGolden(box.text, name: report.file)
            }

            // What finance would check by hand: the prorated refund (89,990 × 42.5 %, half to even)
            // in GBP, JPY in whole yen, family sharing nowhere in revenue.
            let revenue = try await world.report(.revenue)
            #expect(revenue.contains { $0["currency"] == "GBP" && $0["refunded_milliunits"] == "38246" && $0["refunded"] == "38.25" })
            #expect(revenue.filter { $0["currency"] == "JPY" }.allSatisfy { !($0["gross"] ?? "").contains(".") })
            let familyPeriods = try await world.count(
                "SELECT COUNT(*) FROM renewals WHERE ownership_type = 'FAMILY_SHARED' AND price_milliunits > 0")
            #expect(familyPeriods > 0)
            let paid = revenue.reduce(0) { $0 + (Int($1["paid_periods"] ?? "") ?? 0) }
            let payerPaid = try await world.count(
                """
                SELECT COUNT(*) FROM renewals WHERE price_milliunits > 0 AND environment = 'Production'
                  AND ownership_type = 'PURCHASED'
                """)
            #expect(paid == payerPaid)
        }
    }

    /// Issue 34 (item 10): the month a currency's only paying subscriber churned, its MRR is zero,
    /// written `0.00` as `mrr_milliunits` says, not left empty like an unknown price.
    @Test(arguments: StoreKind.allCases) func aCurrencyWhoseSubscribersAllChurnedShowsAZeroMRR(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            let churned = SimulatedLedgerScenario.monthlyEURChurned.subscriber(id: 2_000, nowMs: world.clock.nowMs)
            world.simulator.register(churned)
            _ = try await world.store.importReceipts(
                [ImportRow(line: 2, userID: "ledger-churned", receiptData: SimulatedReceipt.encode(churned))], nowMs: world.clock.nowMs)
            #expect(try await world.runServerAPI().exitCode == 0)

            let rows = try await world.report(.metrics)
            let churnMonth = try #require(rows.first { $0["churned"] == "1" })
            #expect(churnMonth["currency"] == "EUR")
            #expect(churnMonth["active_paid"] == "0")
            #expect(churnMonth["mrr_milliunits"] == "0")
            #expect(churnMonth["mrr"] == "0.00")
            #expect(rows.allSatisfy { $0["mrr"] != "" })
        }
    }

    /// The walk's edge cases are the same bytes on both stores: a period with no purchase date
    /// (SQLite returns it first, PostgreSQL last) and a period recorded under two users (counted once).
    @Test func unknownPurchaseDatesAndSharedPeriodsGiveTheSameBytesOnBothStores() async throws {
        var outputs: [StoreKind: [String]] = [:]
        for store in StoreKind.allCases {
            try await TestWorld.make(store: store).closing { world in
                try await LedgerScenarioRunTests.importLedgerScenarios(world)
                #expect(try await world.runServerAPI().exitCode == 0)
                let otid = try #require(
                    try await world.report(.renewals).first { $0["user_id"] == "ledger-monthlyUSD" }?["original_transaction_id"])
                // A period whose purchase date Apple never gave, and every period of that subscription
                // again under a second user (a receipt two users share).
                try await world.execute(
                    """
                    INSERT INTO renewals (user_id, period_key, transaction_id, original_transaction_id, product_id, purchase_date_ms,
                        expires_date_ms, is_trial_period, is_in_intro_offer_period, first_seen_at, price_milliunits, currency,
                        transaction_reason, ownership_type, environment, refund_milliunits, is_upgraded)
                    VALUES ('ledger-monthlyUSD', 'txn:no-date', 'no-date', '\(otid)', 'com.example.pro.monthly', NULL,
                        \(world.clock.nowMs - 400 * 86_400_000), 0, 0, 0, 4990, 'USD', 'RENEWAL', 'PURCHASED', 'Production', 0, 0)
                    """)
                try await world.execute(
                    """
                    INSERT INTO renewals (user_id, period_key, transaction_id, original_transaction_id, web_order_line_item_id,
                        product_id, purchase_date_ms, expires_date_ms, cancellation_date_ms, is_trial_period,
                        is_in_intro_offer_period, first_seen_at, price_milliunits, currency, transaction_reason, ownership_type,
                        environment, refund_milliunits, is_upgraded)
                    SELECT 'second-device', period_key, transaction_id, original_transaction_id, web_order_line_item_id,
                        product_id, purchase_date_ms, expires_date_ms, cancellation_date_ms, is_trial_period,
                        is_in_intro_offer_period, first_seen_at, price_milliunits, currency, transaction_reason, ownership_type,
                        environment, refund_milliunits, is_upgraded
                    FROM renewals WHERE original_transaction_id = '\(otid)'
                    """)
                var texts: [String] = []
                for kind in [ReportKind.revenue, .metrics] {
                    let box = DataBox()
                    try await ReportExporter(store: world.store).export(kind, options: .init(nowMs: world.clock.nowMs)) { box.append($0) }
                    texts.append(box.text)
                }
                outputs[store] = texts
                // Counted once: the shared periods add nothing; the undated one is unbucketed.
                let before = try await world.report(.renewals).filter { $0["user_id"] == "ledger-monthlyUSD" }.count
                #expect(before == 15)
            }
        }
        #expect(outputs[.sqlite] == outputs[.postgres])
        let golden = try #require(FileManager.default.contents(
            atPath: ReportGoldenTests.goldenFolder.appendingPathComponent("ledger-revenue.csv").path))
        #expect(outputs[.sqlite]?.first == String(decoding: golden, as: UTF8.self), "shared periods counted once, the undated one nowhere")
    }
}
