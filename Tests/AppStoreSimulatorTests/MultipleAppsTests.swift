@testable import AppStoreSimulator
import Crypto
import Foundation
import Testing

/// Two apps in one simulator, over loopback: each with its own key, shared secret, Apple id and
/// rate limit, and accounts that belong to one of them.
@Suite struct MultipleAppsTests {
    let now: Int64 = 1_716_192_930_417
    static let alpha = "com.example.alpha"
    static let beta = "com.example.beta"

    /// The keys of the two apps' In-App Purchase keys, and their bearer tokens.
    struct Keys {
        let alpha = P256.Signing.PrivateKey()
        let beta = P256.Signing.PrivateKey()

        func alphaBearer() throws -> String { try makeBearer(key: alpha, bundleID: MultipleAppsTests.alpha) }
        func betaBearer() throws -> String { try makeBearer(key: beta, bundleID: MultipleAppsTests.beta) }
    }

    func options(_ keys: Keys, alphaRate: Double? = nil, betaRate: Double? = nil) -> SimulatorOptions {
        SimulatorOptions(
            clock: SimulatedClock(nowMs: now).millisecondsClock,
            apps: [
                SimulatedApp(
                    bundleID: Self.alpha, appAppleID: 1_111, sharedSecret: "alpha-secret", apiPublicKey: keys.alpha.publicKey,
                    apiRateLimit: alphaRate),
                SimulatedApp(
                    bundleID: Self.beta, appAppleID: 2_222, sharedSecret: "beta-secret", apiPublicKey: keys.beta.publicKey,
                    apiRateLimit: betaRate),
            ])
    }

    /// An active account of `bundleID` (nil: the first app's).
    func account(_ id: Int64, _ bundleID: String?) -> SimulatedSubscriber {
        var account = SimulatedScenario.active.subscriber(id: id, nowMs: now)
        account.bundleID = bundleID
        return account
    }

    @Test func eachAppReadsOnlyItsOwnAccountsWithItsOwnKey() async throws {
        let keys = Keys()
        try await withSimulator(options(keys)) { simulator in
            let alphaAccount = account(11, nil)
            let betaAccount = account(12, Self.beta)
            simulator.register([alphaAccount, betaAccount])
            let alphaBearer = try keys.alphaBearer()
            let betaBearer = try keys.betaBearer()

            for (account, bearer, bundleID, appAppleID) in [
                (alphaAccount, alphaBearer, Self.alpha, 1_111), (betaAccount, betaBearer, Self.beta, 2_222),
            ] {
                let answer = try await apiGet(simulator.statusesURL(originalID(account.id)), bearer: bearer)
                #expect(answer.status == 200)
                let body = try jsonObject(answer.body)
                #expect(body["bundleId"] as? String == bundleID)
                #expect(body["appAppleId"] as? Int == appAppleID)
                for (_, item) in try lastTransactions(body) {
                    let transaction = try DecodedJWS(try #require(item["signedTransactionInfo"] as? String))
                    #expect(transaction.payload["bundleId"] as? String == bundleID)
                }
                let history = try jsonObject(try await apiGet(simulator.historyURL(originalID(account.id)), bearer: bearer).body)
                #expect(history["bundleId"] as? String == bundleID)
                for signed in try #require(history["signedTransactions"] as? [String]) {
                    #expect(try DecodedJWS(signed).payload["bundleId"] as? String == bundleID)
                }
            }

            // The other app's transaction is one Apple does not know for this app.
            let betaID = originalID(betaAccount.id)
            for url in [simulator.statusesURL(betaID), simulator.historyURL(betaID), simulator.transactionInfoURL(betaID)] {
                let answer = try await apiGet(url, bearer: alphaBearer)
                #expect(answer.status == 404 && appleErrorCode(answer) == 4_040_010, "\(url)")
            }
            let lookup = try jsonObject(try await apiGet(simulator.orderLookupURL(betaAccount.orderID()), bearer: alphaBearer).body)
            #expect(lookup["status"] as? Int == 1)
            #expect(try await apiGet(simulator.statusesURL(originalID(alphaAccount.id)), bearer: betaBearer).status == 404)

            // Tokens no app accepts: an app's bid with the other app's key, an app not served, none.
            let alphaURL = simulator.statusesURL(originalID(alphaAccount.id))
            let refused: [(String?, Comment)] = [
                (try makeBearer(key: keys.beta, bundleID: Self.alpha), "alpha's bid, beta's key"),
                (try makeBearer(key: keys.alpha, bundleID: Self.beta), "beta's bid, alpha's key"),
                (try makeBearer(key: keys.alpha, bundleID: "com.example.gamma"), "an app not served"),
                (nil, "no token"),
            ]
            for (bearer, comment) in refused {
                let answer = try await apiGet(alphaURL, bearer: bearer)
                #expect(answer.status == 401, comment)
            }
            let statistics = simulator.statistics()
            #expect(statistics.serverAPIUnauthorized == refused.count)
            #expect(statistics.serverAPIRequestsByApp == [Self.alpha: 6, Self.beta: 3])
        }
    }

    @Test func verifyReceiptWantsTheSecretOfTheReceiptsApp() async throws {
        try await withSimulator(options(Keys())) { simulator in
            let alphaReceipt = SimulatedReceipt.encode(account(21, nil))
            let betaReceipt = SimulatedReceipt.encode(account(22, Self.beta))
            for (receipt, secret, otherSecret, bundleID, adamID) in [
                (alphaReceipt, "alpha-secret", "beta-secret", Self.alpha, 1_111),
                (betaReceipt, "beta-secret", "alpha-secret", Self.beta, 2_222),
            ] {
                let answer = try DecodedAnswer(try await send(simulator.productionURL, body: requestBody(receipt, password: secret)).body)
                #expect(answer.status == 0)
                #expect(answer.receipt?["bundle_id"] as? String == bundleID)
                #expect(answer.receipt?["adam_id"] as? Int == adamID)
                let refused = try await send(simulator.productionURL, body: requestBody(receipt, password: otherSecret))
                #expect(refused.appleStatus == 21_004)
                #expect(try await send(simulator.productionURL, body: requestBody(receipt, password: nil)).appleStatus == 21_004)
            }
            // Verified receipts register their accounts: each then found by its own app only.
            #expect(simulator.registeredAccountCount == 2)
        }
    }

    @Test func oneAppOverItsRateLimitLeavesTheOtherAlone() async throws {
        let keys = Keys()
        try await withSimulator(options(keys, alphaRate: 5, betaRate: 5)) { simulator in
            simulator.register([account(31, nil), account(32, Self.beta)])
            let alphaURL = simulator.statusesURL(originalID(31))
            let alphaBearer = try keys.alphaBearer()
            let burst = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<20 {
                    group.addTask { try await apiGet(alphaURL, bearer: alphaBearer).status }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(burst.contains(429))
            // Beta, at a few requests, while alpha's bucket is empty.
            let betaBearer = try keys.betaBearer()
            for _ in 0..<3 {
                #expect(try await apiGet(simulator.statusesURL(originalID(32)), bearer: betaBearer).status == 200)
            }
            let statistics = simulator.statistics()
            let limited = burst.filter { $0 == 429 }.count
            #expect(statistics.serverAPIRateLimitedByApp == [Self.alpha: limited])
            #expect(statistics.serverAPIRateLimited == limited)
            #expect(statistics.serverAPIRequestsByApp == [Self.alpha: 20, Self.beta: 3])

            // The same counters over HTTP, for a simulator running as its own process.
            let base = String(simulator.serverAPIProductionBaseURL)
            let answer = try await apiGet(base + "/simulator/statistics")
            #expect(answer.status == 200)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])
            #expect(json["serverAPIRequests"] as? Int == 23)
            #expect(json["verifyReceiptRequests"] as? Int == statistics.productionRequests + statistics.sandboxRequests)
            #expect(json["rateLimited"] as? Int == limited)
            let apps = try #require(json["apps"] as? [[String: Any]])
            #expect(apps.map { $0["bundleId"] as? String } == [Self.alpha, Self.beta])
            #expect(apps.map { $0["requests"] as? Int } == [20, 3])
            #expect(apps.map { $0["rateLimited"] as? Int } == [limited, 0])
            let betaSpan = try #require(statistics.serverAPIRequestSpanByApp[Self.beta])
            #expect(apps[1]["firstRequestMs"] as? Int == Int(betaSpan.lowerBound))
            #expect(apps[1]["lastRequestMs"] as? Int == Int(betaSpan.upperBound))
            #expect(try await apiRequest(base + "/simulator/statistics", method: "POST").status == 405)
        }
    }

    @Test func anAppsRateIsItsRequestsAfterTheFirstOverItsSpan() {
        var statistics = SimulatorStatistics()
        statistics.serverAPIRequestsByApp = [Self.alpha: 401, Self.beta: 1]
        statistics.serverAPIRequestSpanByApp = [Self.alpha: 10_000...12_000, Self.beta: 10_000...10_000]
        #expect(statistics.serverAPIRate(ofApp: Self.alpha) == 200)
        #expect(statistics.serverAPIRate(ofApp: Self.beta) == nil)
        #expect(statistics.serverAPIRate(ofApp: "com.example.none") == nil)
    }

    @Test func notificationsCarryTheirAppAndEachAppGetsItsOwnHistory() async throws {
        let keys = Keys()
        try await withSimulator(options(keys)) { simulator in
            let alphaAccount = account(41, nil)
            let betaAccount = account(42, Self.beta)
            let span = (from: now - 150 * SimulatedProducts.dayMs, to: now)
            let alphaNotifications = simulator.notifications(for: alphaAccount, afterMs: span.from, throughMs: span.to)
            let betaNotifications = simulator.notifications(for: betaAccount, afterMs: span.from, throughMs: span.to)
            #expect(!alphaNotifications.isEmpty && !betaNotifications.isEmpty)
            for (notifications, bundleID, appAppleID) in [
                (alphaNotifications, Self.alpha, 1_111), (betaNotifications, Self.beta, 2_222),
            ] {
                for notification in notifications {
                    #expect(notification.bundleID == bundleID)
                    let decoded = try DecodedNotification(notification.signedPayload)
                    #expect(decoded.data["bundleId"] as? String == bundleID)
                    #expect(decoded.data["appAppleId"] as? Int == appAppleID)
                    #expect(decoded.transaction?.payload["bundleId"] as? String == bundleID)
                }
            }
            let test = simulator.makeTestNotification(bundleID: Self.beta)
            #expect(try DecodedNotification(test.signedPayload).data["bundleId"] as? String == Self.beta)

            let request: [String: Any] = ["startDate": span.from, "endDate": now + 1]
            for (bearer, expected) in [
                (try keys.alphaBearer(), alphaNotifications), (try keys.betaBearer(), betaNotifications + [test]),
            ] {
                let page = try jsonObject(try await apiPost(simulator.notificationHistoryURL(), json: request, bearer: bearer).body)
                let items = try #require(page["notificationHistory"] as? [[String: Any]])
                let uuids = try items.map { try DecodedNotification(try #require($0["signedPayload"] as? String)).uuid }
                #expect(Set(uuids.compactMap { $0 }) == Set(expected.map(\.notificationUUID)))
            }
        }
    }

    @Test func aPurchaseWithoutATokenHasNoTokenFieldAndAChosenOneIsCarried() async throws {
        let keys = Keys()
        try await withSimulator(options(keys)) { simulator in
            var without = account(51, Self.beta)
            without.appAccountToken = nil
            var chosen = account(52, nil)
            chosen.appAccountToken = "0C2D6A4E-9B1F-4E3A-8D5C-7F6E5D4C3B2A"
            simulator.register([without, chosen])
            for (account, bearer, secret, token) in [
                (without, try keys.betaBearer(), "beta-secret", String?.none),
                (chosen, try keys.alphaBearer(), "alpha-secret", "0c2d6a4e-9b1f-4e3a-8d5c-7f6e5d4c3b2a"),
            ] {
                let history = try jsonObject(try await apiGet(simulator.historyURL(originalID(account.id)), bearer: bearer).body)
                let signed = try #require(history["signedTransactions"] as? [String])
                #expect(!signed.isEmpty)
                for item in signed {
                    #expect(try DecodedJWS(item).payload["appAccountToken"] as? String == token)
                }
                let info = try jsonObject(try await apiGet(simulator.transactionInfoURL(originalID(account.id)), bearer: bearer).body)
                let transaction = try DecodedJWS(try #require(info["signedTransactionInfo"] as? String))
                #expect(transaction.payload["appAccountToken"] as? String == token)

                let receipt = SimulatedReceipt.encode(account)
                let answer = try DecodedAnswer(try await send(simulator.productionURL, body: requestBody(receipt, password: secret)).body)
                #expect(answer.status == 0)
                #expect(answer.latestReceiptInfo?.isEmpty == false)
                for entry in answer.latestReceiptInfo ?? [] {
                    #expect(entry["app_account_token"] == token)
                }
            }
            let notification = try #require(
                simulator.notifications(for: without, afterMs: now - 200 * SimulatedProducts.dayMs, throughMs: now).first)
            #expect(try DecodedNotification(notification.signedPayload).transaction?.payload.keys.contains("appAccountToken") == false)
        }
    }

    /// With `apps` empty the single-app fields describe the one app, exactly as before.
    @Test func theSingleAppFieldsAreTheOneServedApp() {
        let key = P256.Signing.PrivateKey()
        let options = SimulatorOptions(
            sharedSecret: "s", bundleID: "com.example.one", apiPublicKey: key.publicKey, appAppleID: 7, apiRateLimit: 3)
        #expect(options.servedApps == [SimulatedApp(
            bundleID: "com.example.one", appAppleID: 7, sharedSecret: "s", apiPublicKey: key.publicKey, apiRateLimit: 3)])
        var several = options
        several.apps = [SimulatedApp(bundleID: Self.alpha), SimulatedApp(bundleID: Self.beta)]
        #expect(several.servedApps.map(\.bundleID) == [Self.alpha, Self.beta])
    }
}
