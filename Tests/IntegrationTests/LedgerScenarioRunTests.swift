import AppStoreSimulator
import Foundation
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@testable import SubReconStore

/// The simulator's money scenarios through the real nightly run: in server-api mode every period
/// lands in the ledger with Apple's price, currency and refund, and both Apple APIs agree on the
/// subscriptions.
@Suite struct LedgerScenarioRunTests {
    /// Imports one user per ledger scenario (`ledger-<scenario>`), registered with the simulator.
    static func importLedgerScenarios(_ world: TestWorld) async throws {
        let samples = SimulatedLedgerScenario.subscribers(firstID: 2_000, nowMs: world.clock.nowMs)
        world.simulator.register(samples.map(\.subscriber))
        let rows = samples.enumerated().map { index, sample in
            ImportRow(
                line: index + 2, userID: "ledger-\(sample.scenario.rawValue)",
                receiptData: SimulatedReceipt.encode(sample.subscriber))
        }
        _ = try await world.store.importReceipts(rows, nowMs: world.clock.nowMs)
    }

    /// What the ledger must give back per scenario, in milliunits of its currency.
    static func expectedRefund(_ scenario: SimulatedLedgerScenario) -> Int64 {
        switch scenario {
        case .fullRefundUSD: 9_990
        case .proratedRefundGBP: 38_246  // 89,990 × 42.5% = 38,245.75, to the nearest milliunit
        default: 0
        }
    }

    @Test func everyLedgerScenarioLandsInTheLedgerWithItsMoney() async throws {
        let viaReceipts = try await TestWorld.make()
        let viaServerAPI = try await TestWorld.make()
        defer {
            Task {
                await viaReceipts.close()
                await viaServerAPI.close()
            }
        }
        try await Self.importLedgerScenarios(viaReceipts)
        try await Self.importLedgerScenarios(viaServerAPI)
        let old = try await viaReceipts.run()
        let new = try await viaServerAPI.runServerAPI()
        #expect(old.exitCode == 0)
        #expect(new.exitCode == 0)
        let subscriptions = try await viaServerAPI.report(.subscriptions)
        #expect(subscriptions == (try await viaReceipts.report(.subscriptions)), "both APIs, the same subscriptions")

        let renewals = try await viaServerAPI.report(.renewals)
        for scenario in SimulatedLedgerScenario.allCases {
            let user = "ledger-\(scenario.rawValue)"
            #expect(subscriptions.first { $0["user_id"] == user }?["status"] == scenario.expectedStatus, "\(scenario)")
            let rows = renewals.filter { $0["user_id"] == user }
            #expect(rows.count == scenario.expectedTransactionCount, "\(scenario)")
            #expect(rows.allSatisfy { $0["currency"] == scenario.storefront.currency }, "\(scenario)")
            #expect(rows.allSatisfy { $0["storefront"] == scenario.storefront.rawValue }, "\(scenario)")
            #expect(rows.allSatisfy { $0["environment"] == scenario.environment.rawValue }, "\(scenario)")
            #expect(rows.allSatisfy { !($0["price_milliunits"] ?? "").isEmpty }, "\(scenario): every price known")
            let refunded = rows.reduce(Int64(0)) { $0 + (Int64($1["refund_milliunits"] ?? "") ?? 0) }
            #expect(refunded == Self.expectedRefund(scenario), "\(scenario)")
        }
        let family = renewals.filter { $0["user_id"] == "ledger-familySharedEUR" }
        #expect(family.allSatisfy { $0["ownership_type"] == "FAMILY_SHARED" })
        let intro = renewals.filter { $0["user_id"] == "ledger-introPayUpFrontUSD" && $0["offer_discount_type"] == "PAY_UP_FRONT" }
        #expect(intro.map { $0["price_milliunits"] } == ["14990"])
        #expect(intro.map { $0["offer_period"] } == ["P3M"])
        #expect(intro.map { $0["is_in_intro_offer_period"] } == ["true"])
        let prorated = renewals.filter { $0["user_id"] == "ledger-proratedRefundGBP" }
        #expect(prorated.map { $0["revocation_type"] } == ["REFUND_PRORATED"])
        #expect(prorated.map { $0["revocation_percentage"] } == ["42500"])
        let yen = renewals.filter { $0["currency"] == "JPY" }.compactMap { Int64($0["price_milliunits"] ?? "") }
        #expect(yen == [15_000_000, 15_000_000])
    }
}
