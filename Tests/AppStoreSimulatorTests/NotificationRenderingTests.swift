@testable import AppStoreSimulator
import AppleSignedData
import Foundation
import Testing

@Suite struct NotificationRenderingTests {
    let now: Int64 = 1_716_192_930_417
    let day = SimulatedProducts.dayMs

    func options(_ clock: SimulatedClock) -> SimulatorOptions {
        SimulatorOptions(sharedSecret: "secret", clock: clock.millisecondsClock)
    }

    func verifier(_ simulator: AppStoreSimulator) throws -> SignedDataVerifier {
        try SignedDataVerifier(rootPEM: simulator.rootCertificatePEM)
    }

    @Test func scenarioNotificationsVerifyAndCarryWhatTheStatusEndpointSaidThen() async throws {
        let clock = SimulatedClock(nowMs: now)
        try await withSimulator(options(clock)) { simulator in
            let account = SimulatedScenario.billingRecovered.subscriber(id: 41, nowMs: now)
            simulator.register(account)
            let verifier = try verifier(simulator)
            let notifications = simulator.notifications(for: account, afterMs: 0, throughMs: now)
            #expect(notifications.count == 5)
            for notification in notifications {
                let verified = try await verifier.verify(notification.signedPayload)
                #expect(verified.signedDateMs == notification.signedDateMs)
                let decoded = try DecodedNotification(body: notification.body)
                let payload = decoded.outer.payload
                #expect(payload["version"] as? String == "2.0")
                #expect(decoded.type == notification.type.rawValue)
                #expect(decoded.subtype == notification.subtype?.rawValue)
                #expect(decoded.uuid == notification.notificationUUID)
                #expect(UUID(uuidString: notification.notificationUUID) != nil, "a UUID")
                #expect(decoded.data["appAppleId"] as? Int64 == SimulatorOptions.defaultAppAppleID)
                #expect(decoded.data["bundleId"] as? String == SimulatedProducts.bundleID)
                #expect((decoded.data["bundleVersion"] as? String)?.isEmpty == false)
                #expect(decoded.data["environment"] as? String == "Production")
                #expect(notification.originalTransactionID == originalID(41))

                // The nested JWSs verify on their own and are signed at the event's time.
                let transaction = try #require(decoded.transaction)
                let renewal = try #require(decoded.renewal)
                for nested in [decoded.data["signedTransactionInfo"], decoded.data["signedRenewalInfo"]] {
                    let jws = try #require(nested as? String)
                    #expect(try await verifier.verify(jws).signedDateMs == notification.signedDateMs)
                }

                // What Get All Subscription Statuses answered at that moment, field for field.
                clock.set(nowMs: notification.signedDateMs)
                let answer = try await apiGet(simulator.statusesURL(originalID(41)))
                let item = try #require(try lastTransactions(try jsonObject(answer.body)).first?.item)
                let statusTransaction = try DecodedJWS(try #require(item["signedTransactionInfo"] as? String))
                let statusRenewal = try DecodedJWS(try #require(item["signedRenewalInfo"] as? String))
                #expect(try canonicalJSON(transaction.payload) == canonicalJSON(statusTransaction.payload), "\(notification.type)")
                #expect(try canonicalJSON(renewal.payload) == canonicalJSON(statusRenewal.payload), "\(notification.type)")
                #expect(decoded.status == item["status"] as? Int)
            }
        }
    }

    @Test func eachForgedChainFailsTheCheckForItsDefectInsideAndOut() async throws {
        let simulator = AppStoreSimulator(options: options(SimulatedClock(nowMs: now)))
        let verifier = try verifier(simulator)
        let account = SimulatedScenario.active.subscriber(id: 42, nowMs: now)
        for chain in NotificationSigning.Chain.allCases {
            let notification = simulator.makeNotification(
                .didRenew, for: account, signing: NotificationSigning(chain: chain))
            let decoded = try DecodedNotification(notification.signedPayload)
            let nestedTransaction = try #require(decoded.data["signedTransactionInfo"] as? String)
            for jws in [notification.signedPayload, nestedTransaction] {
                do {
                    _ = try await verifier.verify(jws)
                    #expect(chain == .valid, "\(chain) verified")
                } catch {
                    switch (chain, error) {
                    case (.badSignature, .signatureMismatch), (.leafWithoutMarker, .leafMissingAppleMarker),
                         (.intermediateWithoutMarker, .intermediateMissingAppleMarker),
                         (.foreignRoot, .untrustedChain), (.expiredLeaf, .certificateNotValidAtSignedDate(.leaf, _, _, _)):
                        break
                    default:
                        Issue.record("\(chain) refused as \(error)")
                    }
                }
            }
        }
    }

    @Test func anotherAppsNotificationVerifiesButNamesThatApp() async throws {
        let simulator = AppStoreSimulator(options: options(SimulatedClock(nowMs: now)))
        let account = SimulatedScenario.active.subscriber(id: 43, nowMs: now)
        let notification = simulator.makeNotification(.didRenew, for: account, signing: .otherApp)
        _ = try await verifier(simulator).verify(notification.signedPayload)
        let decoded = try DecodedNotification(notification.signedPayload)
        #expect(decoded.data["bundleId"] as? String == FaultStep.otherAppBundleID)
        #expect(decoded.transaction?.payload["bundleId"] as? String == FaultStep.otherAppBundleID)
        let ours = try DecodedNotification(simulator.makeNotification(.didRenew, for: account).signedPayload)
        #expect(ours.data["bundleId"] as? String == SimulatedProducts.bundleID)
    }

    @Test func testNotificationsCarryOnlyTheAppsIdentity() async throws {
        let simulator = AppStoreSimulator(options: options(SimulatedClock(nowMs: now)))
        let verifier = try verifier(simulator)
        let sandboxAccount = SimulatedScenario.sandboxActive.subscriber(id: 44, nowMs: now)
        let made = [
            (simulator.makeTestNotification(), SimulatedEnvironment.production),
            (simulator.makeTestNotification(environment: .sandbox), .sandbox),
            (simulator.makeNotification(.test, for: SimulatedScenario.active.subscriber(id: 45, nowMs: now)), .production),
            (simulator.makeNotification(.test, for: sandboxAccount), .sandbox),
        ]
        for (notification, environment) in made {
            #expect(try await verifier.verify(notification.signedPayload).signedDateMs == now)
            let decoded = try DecodedNotification(notification.signedPayload)
            #expect(decoded.type == "TEST")
            #expect(decoded.outer.payload["subtype"] == nil)
            let expectedKeys: Set<String> = environment == .production
                ? ["appAppleId", "bundleId", "environment"] : ["bundleId", "environment"]
            #expect(Set(decoded.data.keys) == expectedKeys)
            #expect(decoded.data["environment"] as? String == environment.rawValue)
            #expect(notification.environment == environment)
            #expect(notification.originalTransactionID == nil)
        }
    }

    @Test func sandboxNotificationsHaveNoAppAppleID() throws {
        let simulator = AppStoreSimulator(options: options(SimulatedClock(nowMs: now)))
        let account = SimulatedScenario.sandboxActive.subscriber(id: 46, nowMs: now)
        let notifications = simulator.notifications(for: account, afterMs: 0, throughMs: now)
        #expect(!notifications.isEmpty)
        for notification in notifications {
            let decoded = try DecodedNotification(notification.signedPayload)
            #expect(decoded.data["appAppleId"] == nil)
            #expect(decoded.data["environment"] as? String == "Sandbox")
            #expect(decoded.transaction?.payload["environment"] as? String == "Sandbox")
            #expect(notification.environment == .sandbox)
        }
    }

    @Test func uuidsAreUniquePerNotificationAndStableForRedeliveries() throws {
        let simulator = AppStoreSimulator(options: options(SimulatedClock(nowMs: now)))
        let account = SimulatedScenario.twoGroups.subscriber(id: 47, nowMs: now)
        let first = simulator.notifications(for: account, afterMs: 0, throughMs: now)
        #expect(Set(first.map(\.notificationUUID)).count == first.count, "unique")

        let again = simulator.notifications(for: account, afterMs: 0, throughMs: now)
        #expect(again.map(\.notificationUUID) == first.map(\.notificationUUID), "the same notifications again")
        let middle = now - 60 * day
        let split = simulator.notifications(for: account, afterMs: 0, throughMs: middle)
            + simulator.notifications(for: account, afterMs: middle, throughMs: now)
        #expect(split.map(\.notificationUUID) == first.map(\.notificationUUID), "windows add up")

        // Logged once each, every emission a send attempt.
        let log = simulator.notificationHistory
        #expect(log.map(\.notification.notificationUUID) == first.map(\.notificationUUID))
        #expect(log.allSatisfy { $0.sendAttempts.count == 3 && $0.sendAttempts.allSatisfy { $0.result == .success } })
        #expect(log.first?.notification.signedPayload == first.first?.signedPayload, "the first payload is kept")

        let made = (0..<3).map { _ in simulator.makeNotification(.didRenew, for: account) }
        #expect(Set(made.map(\.notificationUUID)).count == 3, "made ones are new each time")
        let resent = simulator.makeNotification(.didRenew, for: account, notificationUUID: made[0].notificationUUID)
        #expect(resent.notificationUUID == made[0].notificationUUID)
        #expect(simulator.notificationHistory.count == log.count + 3)
    }

    @Test func aSubscriptionNotBoughtYetHasNoTransactionData() throws {
        let simulator = AppStoreSimulator(options: options(SimulatedClock(nowMs: now)))
        let account = SimulatedScenario.trialActive.subscriber(id: 48, nowMs: now)
        let early = simulator.makeNotification(.didRenew, for: account, atMs: now - 10 * day)
        let decoded = try DecodedNotification(early.signedPayload)
        #expect(decoded.transaction == nil && decoded.renewal == nil && decoded.status == nil)
        #expect(early.originalTransactionID == nil)
        let later = try DecodedNotification(simulator.makeNotification(.didRenew, for: account).signedPayload)
        #expect(later.status == 1)
        #expect(later.transaction?.payload["offerType"] as? Int == 1, "the trial, as the status endpoint has it")
    }
}
