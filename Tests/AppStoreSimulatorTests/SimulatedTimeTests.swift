import AppStoreSimulator
import Foundation
import Testing

/// How answers evolve as the clock moves: renewals appear, states change at their scripted times.
@Suite struct SimulatedTimeTests {
    let start: Int64 = 1_716_192_930_417
    let day = SimulatedProducts.dayMs
    let responder = VerifyReceiptResponder(sharedSecret: nil)

    func answer(_ subscriber: SimulatedSubscriber, at nowMs: Int64, excludeOld: Bool = false) throws -> DecodedAnswer {
        try DecodedAnswer(responder.respond(
            to: requestBody(SimulatedReceipt.encode(subscriber), password: nil, excludeOld: excludeOld),
            endpoint: subscriber.environment == .sandbox ? .sandbox : .production,
            nowMs: nowMs))
    }

    func status(_ subscriber: SimulatedSubscriber, at nowMs: Int64) throws -> ReferenceStateDeriver.Derived? {
        ReferenceStateDeriver.bestStatus(
            try answer(subscriber, at: nowMs), nowMs: nowMs, productIDs: SimulatedProducts.groupAProductIDs)
    }

    @Test func advancingOnePeriodAddsExactlyOneRenewal() throws {
        let clock = SimulatedClock(nowMs: start)
        let subscriber = SimulatedScenario.active.subscriber(id: 5, nowMs: clock.nowMs)
        let before = try answer(subscriber, at: clock.nowMs)
        clock.advance(byMs: SimulatedProducts.monthMs)
        let after = try answer(subscriber, at: clock.nowMs)
        let beforeIDs = Set((before.latestReceiptInfo ?? []).map { $0["transaction_id"]! })
        let afterIDs = Set((after.latestReceiptInfo ?? []).map { $0["transaction_id"]! })
        #expect(afterIDs.count == beforeIDs.count + 1)
        #expect(beforeIDs.isSubset(of: afterIDs), "earlier transactions keep their ids")
        let added = try #require((after.latestReceiptInfo ?? []).first { !beforeIDs.contains($0["transaction_id"]!) })
        #expect(ms(added["purchase_date_ms"]) == ms(before.newestFirst[0]["expires_date_ms"]))
        #expect(ms(added["expires_date_ms"]) > clock.nowMs)
        #expect(before.latestReceipt != after.latestReceipt, "latest_receipt rotates after a renewal")
        // Within the same period nothing changes.
        #expect(try answer(subscriber, at: clock.nowMs + day).latestReceipt == after.latestReceipt)
    }

    @Test func autoRenewOffExpiresAtThePeriodEnd() throws {
        let subscriber = SimulatedScenario.activeAutoRenewOff.subscriber(id: 1, nowMs: start)
        #expect(try status(subscriber, at: start + 19 * day)?.status == "active")
        let later = try status(subscriber, at: start + 21 * day)
        #expect(later == .init(status: "expired", productID: SimulatedProducts.proMonthly, expirationIntent: "1"))
    }

    @Test func graceThenBillingRetryThenExpired() throws {
        let subscriber = SimulatedScenario.gracePeriod.subscriber(id: 1, nowMs: start)
        #expect(try status(subscriber, at: start)?.status == "grace_period")
        #expect(try status(subscriber, at: start + 15 * day)?.status == "billing_retry")
        // Scenario times are whole seconds.
        let retryEnds = start - start % 1000 - 2 * day + 60 * day
        #expect(try status(subscriber, at: retryEnds - 1)?.status == "billing_retry")
        #expect(try status(subscriber, at: retryEnds)?.expirationIntent == "2")
        #expect(try status(subscriber, at: retryEnds + 100 * day)?.status == "expired")
    }

    @Test func recoveryDuringRetryReactivates() throws {
        var subscriber = SimulatedScenario.billingRetry.subscriber(id: 1, nowMs: start)
        subscriber.subscriptions[0].recoverAtMs = start + 10 * day
        #expect(try status(subscriber, at: start + 9 * day)?.status == "billing_retry")
        let recovered = try answer(subscriber, at: start + 11 * day)
        #expect(ms(recovered.newestFirst[0]["purchase_date_ms"]) == start + 10 * day)
        #expect(recovered.pendingRenewalInfo?.first?["is_in_billing_retry_period"] == nil)
        #expect(try status(subscriber, at: start + 11 * day)?.status == "active")
        #expect(try status(subscriber, at: start + 45 * day)?.status == "active", "renews normally after recovery")
    }

    @Test func trialConvertsToAPaidPeriod() throws {
        let subscriber = SimulatedScenario.trialActive.subscriber(id: 1, nowMs: start)
        let decoded = try answer(subscriber, at: start + 6 * day)
        #expect(decoded.latestReceiptInfo?.count == 2)
        let paid = decoded.newestFirst[0]
        #expect(paid["is_trial_period"] == "false")
        #expect(ms(paid["expires_date_ms"]) - ms(paid["purchase_date_ms"]) == SimulatedProducts.monthMs)
    }

    @Test func scheduledDowngradeTakesEffectAtRenewal() throws {
        let subscriber = SimulatedScenario.downgradePending.subscriber(id: 1, nowMs: start)
        let decoded = try answer(subscriber, at: start + 266 * day)
        let newest = decoded.newestFirst[0]
        #expect(newest["product_id"] == SimulatedProducts.proMonthly)
        #expect(ms(newest["expires_date_ms"]) - ms(newest["purchase_date_ms"]) == SimulatedProducts.monthMs)
        #expect(decoded.newestFirst[1]["product_id"] == SimulatedProducts.proYearly)
        let renewal = try #require(decoded.pendingRenewalInfo?.first)
        #expect(renewal["product_id"] == SimulatedProducts.proMonthly)
        #expect(renewal["auto_renew_product_id"] == SimulatedProducts.proMonthly)
    }

    @Test func scriptedEventsOnlyHappenAtTheirTime() throws {
        var subscriber = SimulatedScenario.active.subscriber(id: 3, nowMs: start)
        subscriber.subscriptions[0].refundAtMs = start + 10 * day
        #expect(try status(subscriber, at: start + 9 * day)?.status == "active")
        #expect(try status(subscriber, at: start + 10 * day)?.status == "refunded")
        #expect(try answer(subscriber, at: start + 100 * day).latestReceiptInfo?.count == 5, "no renewals after a refund")

        var upgrading = SimulatedScenario.active.subscriber(id: 4, nowMs: start)
        upgrading.subscriptions[0].upgradeAtMs = start + 5 * day
        upgrading.subscriptions[0].upgradeProductID = SimulatedProducts.premiumMonthly
        #expect(try status(upgrading, at: start + 4 * day)?.productID == SimulatedProducts.proMonthly)
        #expect(try status(upgrading, at: start + 5 * day)?.productID == SimulatedProducts.premiumMonthly)
    }

    @Test func beforeTheFirstPurchaseThereIsNoSubscription() throws {
        let subscriber = SimulatedScenario.active.subscriber(id: 1, nowMs: start)
        let decoded = try answer(subscriber, at: start - 200 * day)
        #expect(decoded.status == 0)
        #expect(decoded.object["latest_receipt_info"] == nil)
    }

    @Test func shortPeriodsOverLongSpansStayCheapAndCapped() throws {
        let subscriber = SimulatedScenario.sandboxActive.subscriber(id: 1, nowMs: start)
        let later = start + 365 * day
        do {
            let decoded = try answer(subscriber, at: later)
            #expect(decoded.latestReceiptInfo?.count == 100, "Apple returns at most 100 transactions")
            let newest = decoded.newestFirst[0]
            #expect(ms(newest["purchase_date_ms"]) <= later && ms(newest["expires_date_ms"]) > later)
            // Ids keep counting past the materialised window: 12 minutes + a year of 5-minute periods.
            let index = Int64(newest["transaction_id"]!)! % 1_000_000
            #expect(index == (later - (start - start % 1000 - 12 * 60_000)) / SimulatedProducts.sandboxMonthMs)
        }
    }

    @Test func clockIsThreadSafe() async {
        let clock = SimulatedClock(nowMs: 0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { for _ in 0..<1_000 { clock.advance(byMs: 1) } }
            }
        }
        #expect(clock.nowMs == 8_000)
        clock.set(nowMs: 5)
        #expect(clock.millisecondsClock() == 5)
        let wall = SimulatedClock.wall()()
        #expect(abs(wall - Int64(Date().timeIntervalSince1970 * 1000)) < 1_000)
    }
}
