import AppStoreSimulator
import Foundation
import Testing

@Suite struct SimulatedReceiptTests {
    let now: Int64 = 1_716_192_930_417

    @Test func roundTripKeepsEveryField() throws {
        let subscriber = SimulatedSubscriber(
            id: 987_654_321,
            environment: .sandbox,
            ownership: .familyShared,
            receiptCreatedMs: now - 1_000,
            subscriptions: [
                SimulatedSubscription(
                    productID: SimulatedProducts.proMonthly, periodMs: SimulatedProducts.monthMs, firstPurchaseMs: now - 5,
                    trialPeriodMs: 7, cancelAtMs: 1, billingFailureAtMs: 2, graceDays: 16, recoverAtMs: 3, refundAtMs: 4,
                    upgradeAtMs: 5, upgradeProductID: SimulatedProducts.premiumMonthly, upgradePeriodMs: 6,
                    downgradeAtMs: 8, downgradeProductID: SimulatedProducts.proYearly, downgradePeriodMs: 9),
                SimulatedSubscription(productID: SimulatedProducts.newsMonthly, periodMs: 10, firstPurchaseMs: 11),
            ],
            fixedStatus: 21003,
            paddingBytes: 1234,
            revision: 7)
        let encoded = SimulatedReceipt.encode(subscriber)
        #expect(SimulatedReceipt.decode(encoded) == subscriber)
    }

    @Test func isStandardPaddedBase64OfRealisticSize() throws {
        let encoded = SimulatedReceipt.encode(SimulatedScenario.active.subscriber(id: 1, nowMs: now))
        #expect(encoded.count % 4 == 0)
        #expect(Data(base64Encoded: encoded) != nil)
        #expect(encoded.allSatisfy { $0.isLetter || $0.isNumber || $0 == "+" || $0 == "/" || $0 == "=" })
        #expect((4_000...6_000).contains(encoded.count), "receipt is \(encoded.count) chars")
    }

    @Test func encodingIsDeterministicAndPerSubscriber() {
        let a = SimulatedScenario.active.subscriber(id: 1, nowMs: now)
        let b = SimulatedScenario.active.subscriber(id: 2, nowMs: now)
        #expect(SimulatedReceipt.encode(a) == SimulatedReceipt.encode(a))
        #expect(SimulatedReceipt.encode(a) != SimulatedReceipt.encode(b))
    }

    @Test func rejectsWhatIsNotASimulatorReceipt() {
        #expect(SimulatedReceipt.decode("") == nil)
        #expect(SimulatedReceipt.decode("not base64 at all!") == nil)
        #expect(SimulatedReceipt.decode(Data("MIIUUQYJKoZIhvcNAQcCoIIUQjCC".utf8).base64EncodedString()) == nil)
        #expect(SimulatedReceipt.decode(Data("SUBRECON-SIMULATED-RECEIPT/1\n{broken\n".utf8).base64EncodedString()) == nil)
        var encoded = SimulatedReceipt.encode(SimulatedScenario.active.subscriber(id: 1, nowMs: now))
        encoded.removeFirst(4)
        #expect(SimulatedReceipt.decode(encoded) == nil)
    }

    @Test func everyScenarioRoundTrips() {
        for (index, scenario) in SimulatedScenario.allCases.enumerated() {
            let subscriber = scenario.subscriber(id: Int64(index), nowMs: now)
            #expect(SimulatedReceipt.decode(SimulatedReceipt.encode(subscriber)) == subscriber, "\(scenario)")
        }
    }
}
