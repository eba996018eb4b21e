@testable import AppStoreSimulator
import AppleSignedData
import Foundation
import NIOHTTP1
import Testing

/// Request a Test Notification and Get Test Notification Status, with the `TEST` notification
/// POSTed to a listener on loopback.
@Suite struct TestNotificationTests {
    let now: Int64 = 1_716_192_930_417

    func options(notificationURL: String?) -> SimulatorOptions {
        SimulatorOptions(
            sharedSecret: "secret", clock: SimulatedClock(nowMs: now).millisecondsClock,
            notificationURL: notificationURL, notificationTimeout: .seconds(5))
    }

    /// Requests a test notification and returns its token.
    func requestTest(_ simulator: AppStoreSimulator, _ environment: SimulatedEnvironment = .production) async throws -> String {
        let answer = try await apiRequest(simulator.testNotificationURL(environment), method: "POST")
        try #require(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
        #expect(answer.header("Content-Type") == "application/json")
        let body = try jsonObject(answer.body)
        #expect(body.count == 1)
        return try #require(body["testNotificationToken"] as? String)
    }

    /// Get Test Notification Status, asked until the attempt is recorded (404 `4040008` before).
    func attemptedStatus(_ simulator: AppStoreSimulator, _ token: String, _ environment: SimulatedEnvironment = .production) async throws -> [String: Any] {
        for _ in 0..<200 {
            let answer = try await apiGet(simulator.testNotificationStatusURL(token, environment))
            if answer.status == 200 { return try jsonObject(answer.body) }
            try #require(answer.status == 404 && appleErrorCode(answer) == 4_040_008, "\(String(decoding: answer.body, as: UTF8.self))")
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("no send attempt was recorded for \(token)")
        return [:]
    }

    /// The one attempt of a status answer.
    func onlyAttempt(_ status: [String: Any]) throws -> [String: Any] {
        let attempts = try #require(status["sendAttempts"] as? [[String: Any]])
        try #require(attempts.count == 1)
        return attempts[0]
    }

    @Test func theTestNotificationArrivesSignedAndItsStatusSaysSuccess() async throws {
        try await withNotificationListener { listener in
            try await withSimulator(options(notificationURL: listener.url)) { simulator in
                let token = try await requestTest(simulator)
                let parts = token.split(separator: "_")
                #expect(parts.count == 2 && UUID(uuidString: String(parts[0])) != nil && parts[1] == "\(now)", "\(token)")

                let status = try await attemptedStatus(simulator, token)
                #expect(Set(status.keys) == ["signedPayload", "sendAttempts"], "Apple's CheckTestNotificationResponse")
                let attempt = try onlyAttempt(status)
                #expect(attempt["sendAttemptResult"] as? String == "SUCCESS")
                #expect(attempt["attemptDate"] as? Int64 == now)

                // What arrived: Apple's body, a TEST notification signed to the simulator's root.
                let bodies = listener.bodies
                try #require(bodies.count == 1)
                let received = try jsonObject(bodies[0])
                #expect(received.count == 1)
                let signedPayload = try #require(received["signedPayload"] as? String)
                #expect(signedPayload == status["signedPayload"] as? String)
                let verifier = try SignedDataVerifier(rootPEM: simulator.rootCertificatePEM)
                _ = try await verifier.verify(signedPayload)
                let notification = try DecodedNotification(signedPayload)
                #expect(notification.type == "TEST")
                #expect(notification.subtype == nil)
                #expect(notification.uuid == String(parts[0]))
                #expect(notification.signedDateMs == now)
                #expect(notification.data["environment"] as? String == "Production")
                #expect(notification.data["bundleId"] as? String == SimulatedProducts.bundleID)
                #expect(notification.data["appAppleId"] as? Int64 == SimulatorOptions.defaultAppAppleID)
                #expect(notification.transaction == nil)

                // The sandbox's own, not found through production; and the history lists both.
                let sandboxToken = try await requestTest(simulator, .sandbox)
                let sandboxStatus = try await attemptedStatus(simulator, sandboxToken, .sandbox)
                #expect(try DecodedNotification(try #require(sandboxStatus["signedPayload"] as? String)).data["environment"] as? String == "Sandbox")
                let elsewhere = try await apiGet(simulator.testNotificationStatusURL(sandboxToken))
                #expect(elsewhere.status == 404)
                #expect(appleErrorCode(elsewhere) == 4_040_008)
                #expect(listener.bodies.count == 2)
                #expect(simulator.notificationHistory.filter { $0.notification.type == .test }.count == 2)
                let statistics = simulator.statistics()
                #expect(statistics.testNotificationRequests == 2)
                #expect(statistics.testNotificationStatusRequests >= 3)
            }
        }
    }

    @Test func failedAttemptsAreRecordedWithApplesResults() async throws {
        // A receiver that answers 500.
        try await withNotificationListener(answerStatus: .internalServerError) { failing in
            try await withSimulator(options(notificationURL: failing.url)) { simulator in
                let token = try await requestTest(simulator)
                #expect(try onlyAttempt(try await attemptedStatus(simulator, token))["sendAttemptResult"] as? String == "UNSUCCESSFUL_HTTP_RESPONSE_CODE")
                #expect(failing.bodies.count == 1)
            }
        }
        // A port that refuses connections (a listener that stopped).
        let gone = try await NotificationListener()
        let refusedURL = gone.url
        await gone.stop()
        try await withSimulator(options(notificationURL: refusedURL)) { simulator in
            let token = try await requestTest(simulator)
            let status = try await attemptedStatus(simulator, token)
            #expect(try onlyAttempt(status)["sendAttemptResult"] as? String == "NO_RESPONSE")
            #expect(status["signedPayload"] is String, "what Apple tried to send")
        }
    }

    @Test func withoutANotificationURLAndForBadTokensTheAnswersAreApples() async throws {
        try await withSimulator(options(notificationURL: nil)) { simulator in
            let noURL = try await apiRequest(simulator.testNotificationURL(), method: "POST")
            #expect(noURL.status == 404)
            #expect(appleErrorCode(noURL) == 4_040_007)
            #expect(simulator.notificationHistory.isEmpty, "nothing made, nothing logged")

            for malformed in ["abc", "00000000-0000-4000-8000-000000000000", "00000000-0000-4000-8000-000000000000_", "00000000-0000-4000-8000-00000000000Z_1"] {
                let answer = try await apiGet(simulator.testNotificationStatusURL(malformed))
                #expect(answer.status == 400, "\(malformed)")
                #expect(appleErrorCode(answer) == 4_000_020, "\(malformed)")
            }
            let unknown = try await apiGet(simulator.testNotificationStatusURL("00000000-0000-4000-8000-000000000000_\(now)"))
            #expect(unknown.status == 404)
            #expect(appleErrorCode(unknown) == 4_040_008)
            // A TEST made without the endpoint (no attempt yet) is not reported either.
            let made = simulator.makeTestNotification(sendAttempt: nil)
            #expect(appleErrorCode(try await apiGet(simulator.testNotificationStatusURL("\(made.notificationUUID)_\(now)"))) == 4_040_008)

            #expect(try await apiGet(simulator.testNotificationURL()).status == 405, "Request a Test Notification is a POST")
            #expect(try await apiRequest(simulator.testNotificationStatusURL("\(made.notificationUUID)_\(now)"), method: "POST").status == 405)
        }
    }
}
