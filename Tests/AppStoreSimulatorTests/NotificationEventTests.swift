@testable import AppStoreSimulator
import Foundation
import Testing

@Suite struct NotificationEventTests {
    let now: Int64 = 1_716_192_930_417
    let day = SimulatedProducts.dayMs
    static let simulator = AppStoreSimulator(options: SimulatorOptions(clock: { 1_716_192_930_417 }))

    /// What each scenario's whole timeline announces, slot by slot in time order.
    static let expected: [SimulatedScenario: [String]] = [
        .active: ["SUBSCRIBED/INITIAL_BUY"] + Array(repeating: "DID_RENEW", count: 4),
        .activeAutoRenewOff: ["SUBSCRIBED/INITIAL_BUY", "DID_RENEW", "DID_RENEW", "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED"],
        .trialActive: ["SUBSCRIBED/INITIAL_BUY"],
        .gracePeriod: ["SUBSCRIBED/INITIAL_BUY", "DID_RENEW", "DID_FAIL_TO_RENEW/GRACE_PERIOD"],
        .billingRetry: ["SUBSCRIBED/INITIAL_BUY", "DID_RENEW", "DID_FAIL_TO_RENEW/GRACE_PERIOD", "GRACE_PERIOD_EXPIRED"],
        .billingRecovered: [
            "SUBSCRIBED/INITIAL_BUY", "DID_RENEW", "DID_FAIL_TO_RENEW/GRACE_PERIOD", "GRACE_PERIOD_EXPIRED",
            "DID_RENEW/BILLING_RECOVERY",
        ],
        .billingExpired: ["SUBSCRIBED/INITIAL_BUY", "DID_RENEW", "DID_RENEW", "DID_FAIL_TO_RENEW", "EXPIRED/BILLING_RETRY"],
        .expired: [
            "SUBSCRIBED/INITIAL_BUY", "DID_RENEW", "DID_RENEW", "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED",
            "EXPIRED/VOLUNTARY",
        ],
        .refunded: ["SUBSCRIBED/INITIAL_BUY", "DID_RENEW", "REFUND"],
        .upgraded: ["SUBSCRIBED/INITIAL_BUY", "DID_RENEW", "DID_RENEW", "DID_CHANGE_RENEWAL_PREF/UPGRADE"],
        .downgradePending: ["SUBSCRIBED/INITIAL_BUY", "DID_CHANGE_RENEWAL_PREF/DOWNGRADE"],
        .familyShared: ["SUBSCRIBED/INITIAL_BUY"] + Array(repeating: "DID_RENEW", count: 4),
        .sandboxActive: ["SUBSCRIBED/INITIAL_BUY", "DID_RENEW", "DID_RENEW"],
        .twoGroups: [
            "SUBSCRIBED/INITIAL_BUY", "DID_RENEW", "DID_RENEW", "DID_RENEW", "DID_RENEW",
            "SUBSCRIBED/INITIAL_BUY", "DID_RENEW", "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED", "EXPIRED/VOLUNTARY",
        ],
        .invalidReceipt: [],
        .accountGone: [],
        .noSubscriptions: [],
    ]

    @Test(arguments: SimulatedScenario.allCases)
    func everyScenarioAnnouncesWhatItsTimelineImplies(scenario: SimulatedScenario) throws {
        let id = 500 + Int64(SimulatedScenario.allCases.firstIndex(of: scenario)!)
        let account = scenario.subscriber(id: id, nowMs: now)
        let notifications = Self.simulator.notifications(for: account, afterMs: 0, throughMs: now)
        let bySlot = Dictionary(grouping: notifications) { $0.originalTransactionID ?? 0 }
        let names = bySlot.keys.sorted().flatMap { bySlot[$0]!.map(eventName) }
        #expect(names == Self.expected[scenario], "\(scenario)")
        #expect(notifications.map(\.signedDateMs) == notifications.map(\.signedDateMs).sorted(), "oldest first")
        #expect(notifications.allSatisfy { $0.environment == scenario.environment && $0.subscriberID == id })

        // The newest notification's status is the scenario's state now (group A's for twoGroups).
        if let last = bySlot[originalID(id)]?.last, let state = scenario.expectedStatus {
            let status = try #require(try DecodedNotification(last.signedPayload).status)
            #expect(status == appleStatusCode(state), "\(scenario)")
        }
    }

    @Test func eventsHappenWhenTheScriptSaysAndCarryTheStateThen() throws {
        let account = SimulatedScenario.billingRecovered.subscriber(id: 520, nowMs: now)
        let s = account.subscriptions[0]
        let notifications = Self.simulator.notifications(for: account, afterMs: 0, throughMs: now)
        let failedAt = s.firstPurchaseMs + 2 * SimulatedProducts.monthMs
        #expect(notifications.map(\.signedDateMs) == [
            s.firstPurchaseMs, s.firstPurchaseMs + SimulatedProducts.monthMs, failedAt, failedAt + 3 * day,
            try #require(s.recoverAtMs),
        ])
        let decoded = try notifications.map { try DecodedNotification($0.signedPayload) }
        #expect(decoded.map(\.status) == [1, 1, 4, 3, 1])
        // Each renewal's transaction is the new period, bought at the event.
        for (notification, payload) in zip(notifications, decoded) where notification.type != .didFailToRenew
            && notification.type != .gracePeriodExpired {
            #expect((payload.transaction?.payload["purchaseDate"] as? NSNumber)?.int64Value == notification.signedDateMs)
        }
        let renewal = try #require(decoded[2].renewal?.payload)
        #expect(renewal["isInBillingRetryPeriod"] as? Bool == true)
        #expect((renewal["gracePeriodExpiresDate"] as? NSNumber)?.int64Value == failedAt + 3 * day)
    }

    @Test func windowsSelectByEventTime() {
        let account = SimulatedScenario.active.subscriber(id: 521, nowMs: now)
        let all = Self.simulator.notifications(for: account, afterMs: 0, throughMs: now)
        let third = all[2].signedDateMs
        let window = Self.simulator.notifications(for: account, afterMs: third - 1, throughMs: third)
        #expect(window.map(\.notificationUUID) == [all[2].notificationUUID], "(from, to]: the end is in")
        #expect(Self.simulator.notifications(for: account, afterMs: third, throughMs: third + 1).isEmpty, "the start is out")
        #expect(Self.simulator.notifications(for: account, afterMs: now, throughMs: now - 1).isEmpty)
    }

    @Test func aFamilyMemberIsToldOfARefundAsRevoke() throws {
        var account = SimulatedScenario.familyShared.subscriber(id: 522, nowMs: now)
        account.subscriptions[0].refundAtMs = now - 2 * day
        // The renewal of the day before is outside the window.
        let notifications = Self.simulator.notifications(for: account, afterMs: now - 2 * day - 1, throughMs: now)
        #expect(notifications.map(eventName) == ["REVOKE"])
        let decoded = try DecodedNotification(notifications[0].signedPayload)
        #expect(decoded.status == 5)
        #expect(decoded.transaction?.payload["inAppOwnershipType"] as? String == "FAMILY_SHARED")
        #expect((decoded.transaction?.payload["revocationDate"] as? NSNumber)?.int64Value == now - 2 * day)
    }

    @Test func turningAutoRenewOffDuringBillingRetryEndsIt() {
        var account = SimulatedScenario.billingRetry.subscriber(id: 523, nowMs: now)
        let cancelAt = now - 5 * day
        account.subscriptions[0].cancelAtMs = cancelAt
        let notifications = Self.simulator.notifications(for: account, afterMs: now - 30 * day, throughMs: now)
        #expect(notifications.map(eventName) == [
            "DID_FAIL_TO_RENEW/GRACE_PERIOD", "GRACE_PERIOD_EXPIRED", "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED",
            "EXPIRED/VOLUNTARY",
        ])
        #expect(notifications.suffix(2).allSatisfy { $0.signedDateMs == cancelAt })
        #expect(Set(notifications.map(\.notificationUUID)).count == 4, "same time, still two notifications")
    }

    @Test func severalSubscribersComeOutInSignedDateOrder() {
        let accounts = [SimulatedScenario.active, .expired, .refunded].enumerated().map { index, scenario in
            scenario.subscriber(id: 530 + Int64(index), nowMs: now)
        }
        let merged = Self.simulator.notifications(for: accounts, afterMs: 0, throughMs: now)
        let separate = accounts.map { Self.simulator.notifications(for: $0, afterMs: 0, throughMs: now).count }
        #expect(merged.count == separate.reduce(0, +))
        #expect(merged.map(\.signedDateMs) == merged.map(\.signedDateMs).sorted())
        #expect(Set(merged.compactMap(\.subscriberID)) == Set(accounts.map(\.id)))
    }
}
