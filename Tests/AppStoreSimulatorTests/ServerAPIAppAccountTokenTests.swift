@testable import AppStoreSimulator
import Crypto
import Foundation
import Testing

/// Set App Account Token, `PUT /inApps/v1/transactions/{originalTransactionId}/appAccountToken`,
/// over loopback: Apple's answers, and the token in everything signed afterwards.
@Suite struct ServerAPIAppAccountTokenTests {
    let now: Int64 = 1_716_192_930_417
    static let token = "7389A31A-FB6D-4569-A2A6-DB7D85D84813"

    func options(key: P256.Signing.PrivateKey, rateLimit: Double? = nil) -> SimulatorOptions {
        SimulatorOptions(
            sharedSecret: "secret", clock: SimulatedClock(nowMs: now).millisecondsClock, apiPublicKey: key.publicKey,
            apiRateLimit: rateLimit)
    }

    func body(_ token: String) -> [UInt8] {
        Array(#"{"appAccountToken":"\#(token)"}"#.utf8)
    }

    func put(
        _ simulator: AppStoreSimulator, _ id: some CustomStringConvertible, body: [UInt8], bearer: String,
        _ environment: SimulatedEnvironment = .production
    ) async throws -> HTTPResult {
        try await apiRequest(simulator.appAccountTokenURL(id, environment), method: "PUT", body: body, bearer: bearer)
    }

    @Test func aSetTokenIsInEverythingSignedAfterwards() async throws {
        let key = P256.Signing.PrivateKey()
        try await withSimulator(options(key: key)) { simulator in
            var account = SimulatedScenario.active.subscriber(id: 61, nowMs: now)
            account.appAccountToken = nil  // bought outside the app, e.g. with an offer code
            simulator.register(account)
            let bearer = try makeBearer(key: key)
            let lowercase = Self.token.lowercased()

            let answer = try await put(simulator, originalID(61), body: body(Self.token), bearer: bearer)
            #expect(answer.status == 200)
            #expect(answer.body.isEmpty)

            let history = try jsonObject(try await apiGet(simulator.historyURL(originalID(61)), bearer: bearer).body)
            let signed = try #require(history["signedTransactions"] as? [String])
            #expect(signed.count > 1)
            for item in signed {
                #expect(try DecodedJWS(item).payload["appAccountToken"] as? String == lowercase)
            }
            let statuses = try jsonObject(try await apiGet(simulator.statusesURL(originalID(61)), bearer: bearer).body)
            for (_, item) in try lastTransactions(statuses) {
                let transaction = try DecodedJWS(try #require(item["signedTransactionInfo"] as? String))
                #expect(transaction.payload["appAccountToken"] as? String == lowercase)
            }
            let info = try jsonObject(try await apiGet(simulator.transactionInfoURL(originalID(61)), bearer: bearer).body)
            let transaction = try DecodedJWS(try #require(info["signedTransactionInfo"] as? String))
            #expect(transaction.payload["appAccountToken"] as? String == lowercase)
            // verifyReceipt of the receipt the app still holds, bought without a token.
            let receipt = try DecodedAnswer(try await send(
                simulator.productionURL, body: requestBody(SimulatedReceipt.encode(account))).body)
            #expect(receipt.latestReceiptInfo?.allSatisfy { $0["app_account_token"] == lowercase } == true)
            // Registered again (as a later state would be): the set token stays, in notifications too.
            simulator.register(account)
            #expect(try DecodedJWS(try #require(jsonObject(try await apiGet(
                simulator.transactionInfoURL(originalID(61)), bearer: bearer).body)["signedTransactionInfo"] as? String))
                .payload["appAccountToken"] as? String == lowercase)
            let notification = simulator.makeNotification(.didRenew, for: account)
            #expect(try DecodedNotification(notification.signedPayload).transaction?.payload["appAccountToken"] as? String == lowercase)

            #expect(simulator.appAccountTokenSets() == [AppAccountTokenSet(
                bundleID: SimulatedProducts.bundleID, environment: .production, originalTransactionID: originalID(61),
                subscriberID: 61, appAccountToken: lowercase, atMs: now)])
            #expect(simulator.statistics().setAppAccountTokenRequests == 1)
        }
    }

    @Test func refusalsAreApples() async throws {
        let key = P256.Signing.PrivateKey()
        let other = P256.Signing.PrivateKey()
        var options = options(key: key)
        options.apps = [
            SimulatedApp(bundleID: SimulatedProducts.bundleID, apiPublicKey: key.publicKey),
            SimulatedApp(bundleID: "com.example.beta", apiPublicKey: other.publicKey),
        ]
        try await withSimulator(options) { simulator in
            let active = SimulatedScenario.active.subscriber(id: 71, nowMs: now)
            let family = SimulatedScenario.familyShared.subscriber(id: 72, nowMs: now)
            let sandbox = SimulatedScenario.sandboxActive.subscriber(id: 73, nowMs: now)
            var betaAccount = SimulatedScenario.active.subscriber(id: 74, nowMs: now)
            betaAccount.bundleID = "com.example.beta"
            simulator.register([active, family, sandbox, betaAccount])
            let bearer = try makeBearer(key: key)
            let good = body(Self.token)

            let cases: [(id: String, body: [UInt8], status: Int, code: Int?, Comment)] = [
                ("\(originalID(71))", Array("not json".utf8), 400, 4_000_183, "body not JSON"),
                ("\(originalID(71))", Array("{}".utf8), 400, 4_000_183, "no token"),
                ("\(originalID(71))", body("not-a-uuid"), 400, 4_000_183, "not a UUID"),
                ("\(originalID(71))", body(""), 400, 4_000_183, "empty"),
                ("\(originalID(71))", Array(#"{"appAccountToken":42}"#.utf8), 400, 4_000_183, "not a string"),
                ("abc", good, 400, 4_000_006, "not a transaction id"),
                ("\(active.transactionID(index: 1))", good, 400, 4_000_187, "a renewal's id"),
                ("\(originalID(79))", good, 404, 4_040_005, "unknown"),
                ("\(originalID(74))", good, 404, 4_040_005, "another app's"),
                ("\(originalID(73))", good, 404, 4_040_005, "a sandbox purchase asked in production"),
                ("\(originalID(72))", good, 400, 4_000_185, "family shared"),
            ]
            for (id, body, status, code, comment) in cases {
                let answer = try await put(simulator, id, body: body, bearer: bearer)
                #expect(answer.status == status, comment)
                #expect(appleErrorCode(answer) == code, comment)
            }
            // The sandbox purchase, at the sandbox; the other app's, with that app's key.
            #expect(try await put(simulator, originalID(73), body: good, bearer: bearer, .sandbox).status == 200)
            let betaBearer = try makeBearer(key: other, bundleID: "com.example.beta")
            #expect(try await put(simulator, originalID(74), body: good, bearer: betaBearer).status == 200)
            #expect(try await put(simulator, originalID(71), body: good, bearer: try makeBearer(key: other)).status == 401)

            // Other methods on the path, and PUT on Get Transaction Info's.
            let url = simulator.appAccountTokenURL(originalID(71))
            #expect(try await apiRequest(url, method: "GET", bearer: bearer).status == 405)
            #expect(try await apiRequest(url, method: "POST", body: good, bearer: bearer).status == 405)
            let infoPUT = try await apiRequest(simulator.transactionInfoURL(originalID(71)), method: "PUT", body: good, bearer: bearer)
            #expect(infoPUT.status == 405)
            #expect(try await apiRequest(url + "/more", method: "PUT", body: good, bearer: bearer).status == 404)

            #expect(simulator.appAccountTokenSets().map(\.subscriberID) == [73, 74])
            #expect(simulator.appAccountTokenSets().map(\.bundleID) == [SimulatedProducts.bundleID, "com.example.beta"])
        }
    }

    @Test func setsCountAgainstTheAppsRateLimit() async throws {
        let key = P256.Signing.PrivateKey()
        try await withSimulator(options(key: key, rateLimit: 3)) { simulator in
            simulator.register(SimulatedScenario.active.subscriber(id: 81, nowMs: now))
            let bearer = try makeBearer(key: key)
            let url = simulator.appAccountTokenURL(originalID(81))
            let good = body(Self.token)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<12 {
                    group.addTask { try await apiRequest(url, method: "PUT", body: good, bearer: bearer).status }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let limited = statuses.filter { $0 == 429 }.count
            #expect(limited > 0)
            #expect(statuses.filter { $0 == 200 }.count == 12 - limited)
            #expect(simulator.appAccountTokenSets().count == 12 - limited)
            #expect(simulator.statistics().serverAPIRateLimited == limited)
            #expect(simulator.statistics().setAppAccountTokenRequests == 12)
        }
    }
}

extension AppStoreSimulator {
    func appAccountTokenURL(_ id: some CustomStringConvertible, _ environment: SimulatedEnvironment = .production) -> String {
        serverAPIURL("/inApps/v1/transactions/\(id)/appAccountToken", environment)
    }
}
