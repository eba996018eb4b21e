import AppStoreSimulator
import AppleSignedData
import Foundation
import Testing

/// Simulated receipts are real PKCS#7 app receipts: the App Store Server API mode reads the same
/// transaction ids from them that verifyReceipt reports.
@Suite struct SimulatedAppReceiptTests {
    let now: Int64 = 1_716_192_930_417
    let responder = VerifyReceiptResponder(sharedSecret: "secret")

    @Test(arguments: SimulatedScenario.allCases)
    func inAppRecordsMatchTheVerifyReceiptAnswer(scenario: SimulatedScenario) throws {
        let subscriber = scenario.subscriber(id: 42, nowMs: now)
        let receipt = SimulatedReceipt.encode(subscriber)
        let contents = try AppReceiptReader.purchases(base64: receipt)
        #expect(contents.bundleID == SimulatedProducts.bundleID)
        #expect(contents.purchases.count == subscriber.subscriptions.count + 1)

        let endpoint: SimulatorEndpoint = subscriber.environment == .sandbox ? .sandbox : .production
        let answer = try DecodedAnswer(responder.respond(to: requestBody(receipt), endpoint: endpoint, nowMs: now))
        guard answer.status == 0 else { return }  // fixed statuses have no in_app to compare with
        // verifyReceipt's receipt.in_app: each subscription's original purchase, then the consumable.
        #expect(answer.inApp.count == contents.purchases.count)
        for (record, entry) in zip(contents.purchases, answer.inApp) {
            #expect(record.originalTransactionID == entry["original_transaction_id"])
            #expect(record.transactionID == entry["original_transaction_id"])
            #expect(record.productID == entry["product_id"])
            // Receipt dates have whole seconds.
            #expect(record.expiresDate.map(rfc3339Ms) == entry["expires_date_ms"].map { Int64($0)! / 1000 * 1000 })
            #expect(record.webOrderLineItemID.map(String.init) == entry["web_order_line_item_id"])
        }
    }

    @Test func idToAskIsTheFirstOwnSubscription() throws {
        let subscriber = SimulatedScenario.twoGroups.subscriber(id: 7, nowMs: now)
        let contents = try AppReceiptReader.purchases(base64: SimulatedReceipt.encode(subscriber))
        let subscriptions = contents.purchases.filter(\.isSubscription)
        #expect(subscriptions.count == 2)
        let groupB = Set(SimulatedProducts.groupBProductIDs)
        let newsRecord = try #require(subscriptions.first { groupB.contains($0.productID ?? "") })
        #expect(contents.transactionIDToAsk(products: groupB) == newsRecord.originalTransactionID)
        #expect(contents.transactionIDToAsk(products: Set(SimulatedProducts.groupAProductIDs)) == subscriptions[0].originalTransactionID)
    }

    @Test func noSubscriptionLeavesOnlyTheConsumable() throws {
        let subscriber = SimulatedScenario.noSubscriptions.subscriber(id: 9, nowMs: now)
        let contents = try AppReceiptReader.purchases(base64: SimulatedReceipt.encode(subscriber))
        #expect(contents.purchases.count == 1)
        #expect(contents.purchases[0].productID == SimulatedProducts.coins100)
        #expect(!contents.purchases[0].isSubscription)
        #expect(contents.purchases[0].expiresDate == nil)
    }

    @Test func trialEndsTheFirstPeriod() throws {
        let start: Int64 = 1_700_000_000_000
        let subscriber = SimulatedSubscriber(id: 3, subscriptions: [SimulatedSubscription(
            productID: SimulatedProducts.proMonthly, periodMs: SimulatedProducts.monthMs, firstPurchaseMs: start,
            trialPeriodMs: 7 * SimulatedProducts.dayMs)])
        let contents = try AppReceiptReader.purchases(base64: SimulatedReceipt.encode(subscriber))
        #expect(contents.purchases[0].expiresDate == "2023-11-21T22:13:20Z")
    }

    @Test func extremeTimesDoNotTrap() throws {
        let subscriber = SimulatedSubscriber(id: 4, subscriptions: [
            SimulatedSubscription(productID: "a", periodMs: .max, firstPurchaseMs: .max),
            SimulatedSubscription(productID: "b", periodMs: .min, firstPurchaseMs: .min, trialPeriodMs: .min),
        ])
        let receipt = SimulatedReceipt.encode(subscriber)
        #expect(SimulatedReceipt.decode(receipt) == subscriber)
        #expect(try AppReceiptReader.purchases(base64: receipt).purchases.count == 3)
    }

    /// Milliseconds of `yyyy-MM-ddTHH:mm:ssZ`.
    private func rfc3339Ms(_ text: String) -> Int64 {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        guard let date = formatter.date(from: text) else { return -1 }
        return Int64(date.timeIntervalSince1970 * 1000)
    }
}
