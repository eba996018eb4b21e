@testable import AppStoreSimulator
import Foundation
import Testing

@Suite struct ServerAPIHistoryTests {
    let now: Int64 = 1_716_192_930_417

    struct Page {
        var revision: String
        var hasMore: Bool
        var transactions: [[String: Any]]
        var body: [String: Any]
    }

    func page(_ simulator: AppStoreSimulator, _ id: Int64, _ environment: SimulatedEnvironment = .production, revision: String? = nil) async throws -> Page {
        let answer = try await apiGet(simulator.historyURL(id, environment, revision: revision))
        #expect(answer.status == 200)
        let body = try jsonObject(answer.body)
        let signed = try #require(body["signedTransactions"] as? [String])
        let decoded = try signed.map { try DecodedJWS($0) }
        for jws in decoded {
            #expect(jws.isSigned(by: simulator.leafPublicKey))
            #expect(jws.x5c.count == 3)
        }
        return Page(
            revision: try #require(body["revision"] as? String), hasMore: try #require(body["hasMore"] as? Bool),
            transactions: decoded.map(\.payload), body: body)
    }

    func ids(_ transactions: [[String: Any]]) -> [String] {
        transactions.compactMap { $0["transactionId"] as? String }
    }

    @Test func pagesThenOnlyWhatIsNewAfterTheClockMoves() async throws {
        let clock = SimulatedClock(nowMs: now)
        var options = SimulatorOptions(clock: clock.millisecondsClock)
        options.historyPageSize = 3
        try await withSimulator(options) { simulator in
            let account = SimulatedScenario.active.subscriber(id: 7, nowMs: now)
            simulator.register(account)
            // A renewal's id works as well as the original's.
            let asked = SimulatedIdentifiers.transactionID(subscriberID: 7, slot: 0, index: 2)

            let first = try await page(simulator, asked)
            #expect(first.transactions.count == 3)
            #expect(first.hasMore)
            #expect(first.body["bundleId"] as? String == SimulatedProducts.bundleID)
            #expect(first.body["environment"] as? String == "Production")
            #expect(first.body["appAppleId"] as? Int64 == SimulatorOptions.defaultAppAppleID)
            let second = try await page(simulator, asked, revision: first.revision)
            #expect(second.transactions.count == 2, "bought 123 days ago: original + 4 renewals")
            #expect(!second.hasMore)
            let all = first.transactions + second.transactions
            let expected = (0..<5).map { String(SimulatedIdentifiers.transactionID(subscriberID: 7, slot: 0, index: Int64($0))) }
            #expect(ids(all) == expected)
            let purchases = all.compactMap { ($0["purchaseDate"] as? NSNumber)?.int64Value }
            #expect(purchases == purchases.sorted(), "ascending")
            #expect(all.map { $0["transactionReason"] as? String } == ["PURCHASE", "RENEWAL", "RENEWAL", "RENEWAL", "RENEWAL"])

            // Caught up: nothing new, the same position.
            let idle = try await page(simulator, asked, revision: second.revision)
            #expect(idle.transactions.isEmpty)
            #expect(!idle.hasMore)
            #expect(idle.revision == second.revision)

            // Several renewals between two checks: 27 days to the next one, then 30 more.
            clock.advance(byMs: 60 * SimulatedProducts.dayMs)
            let later = try await page(simulator, asked, revision: second.revision)
            #expect(ids(later.transactions) == (5..<7).map {
                String(SimulatedIdentifiers.transactionID(subscriberID: 7, slot: 0, index: Int64($0)))
            })
            #expect(!later.hasMore)
            #expect(simulator.statistics().transactionHistoryRequests == 4)
        }
    }

    @Test func everySubscriptionOfTheAccountAndSandboxHasNoAppAppleID() async throws {
        try await withSimulator(SimulatorOptions(clock: SimulatedClock(nowMs: now).millisecondsClock)) { simulator in
            let two = SimulatedScenario.twoGroups.subscriber(id: 8, nowMs: now)
            let sandbox = SimulatedScenario.sandboxActive.subscriber(id: 9, nowMs: now)
            simulator.register([two, sandbox])
            let all = try await page(simulator, originalID(8, slot: 1))
            let products = Set(all.transactions.compactMap { $0["productId"] as? String })
            #expect(products == [SimulatedProducts.proMonthly, SimulatedProducts.newsMonthly])
            #expect(all.transactions.count == 5 + 2, "pro: 5 transactions; news: bought 100 days ago, cancelled at 50: 2")

            let inSandbox = try await page(simulator, originalID(9), .sandbox)
            #expect(inSandbox.body["appAppleId"] == nil)
            #expect(inSandbox.transactions.count == 3, "12 minutes of 5-minute months")
            #expect(try await apiGet(simulator.historyURL(originalID(9))).status == 404, "not in production")

            let refused = try await apiGet(simulator.historyURL(originalID(8), revision: "garbage!"))
            #expect(refused.status == 400)
            #expect(try jsonObject(refused.body)["errorCode"] as? Int == 4_000_005)
        }
    }

    @Test func aRefundAfterAReadShowsTheTransactionAgain() async throws {
        let clock = SimulatedClock(nowMs: now)
        try await withSimulator(SimulatorOptions(clock: clock.millisecondsClock)) { simulator in
            var account = SimulatedScenario.active.subscriber(id: 10, nowMs: now)
            account.subscriptions[0].refundAtMs = now + SimulatedProducts.dayMs
            simulator.register(account)
            let before = try await page(simulator, originalID(10))
            #expect(before.transactions.count == 5)
            clock.advance(byMs: 2 * SimulatedProducts.dayMs)
            let after = try await page(simulator, originalID(10), revision: before.revision)
            #expect(ids(after.transactions) == [ids(before.transactions).last!], "the current period, now refunded")
            #expect(after.transactions.first?["revocationDate"] != nil)
        }
    }
}
