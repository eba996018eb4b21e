@testable import AppStoreSimulator
import AppleSignedData
import Crypto
import Foundation
import Testing

/// Get Transaction Info, the `status` filter of Get All Subscription Statuses, and Look Up
/// Order ID, over loopback.
@Suite struct ServerAPITransactionInfoTests {
    let now: Int64 = 1_716_192_930_417

    func options(key: P256.Signing.PrivateKey? = nil) -> SimulatorOptions {
        SimulatorOptions(sharedSecret: "secret", clock: SimulatedClock(nowMs: now).millisecondsClock, apiPublicKey: key?.publicKey)
    }

    /// The signed transactions of the account's history (first page), keyed by transaction id.
    func historyPayloads(_ simulator: AppStoreSimulator, _ id: Int64) async throws -> [String: [String: Any]] {
        let body = try jsonObject(try await apiGet(simulator.historyURL(id)).body)
        var payloads: [String: [String: Any]] = [:]
        for signed in try #require(body["signedTransactions"] as? [String]) {
            let payload = try DecodedJWS(signed).payload
            payloads[try #require(payload["transactionId"] as? String)] = payload
        }
        return payloads
    }

    @Test func transactionInfoSignsAnyTransactionOfTheAccountAsTheHistoryDoes() async throws {
        try await withSimulator(options()) { simulator in
            let account = SimulatedScenario.active.subscriber(id: 1, nowMs: now)
            simulator.register(account)
            let history = try await historyPayloads(simulator, originalID(1))
            #expect(history.count >= 5)
            let verifier = try SignedDataVerifier(rootPEM: simulator.rootCertificatePEM)
            for index: Int64 in [0, 4] {
                let id = SimulatedIdentifiers.transactionID(subscriberID: 1, slot: 0, index: index)
                let answer = try await apiGet(simulator.transactionInfoURL(id))
                #expect(answer.status == 200)
                #expect(answer.header("Content-Type") == "application/json")
                let body = try jsonObject(answer.body)
                #expect(Array(body.keys) == ["signedTransactionInfo"])
                let signed = try #require(body["signedTransactionInfo"] as? String)
                let jws = try DecodedJWS(signed)
                #expect(jws.isSigned(by: simulator.leafPublicKey))
                #expect(jws.x5c[2] == simulator.signingAuthority.rootCertificateDER)
                _ = try await verifier.verify(signed)
                #expect(jws.payload["transactionId"] as? String == String(id))
                #expect(jws.payload["originalTransactionId"] as? String == String(originalID(1)))
                #expect(jws.payload["environment"] as? String == "Production")
                #expect(jws.payload["signedDate"] as? Int64 == now)
                // The very payload the history serves for that id.
                #expect(try canonicalJSON(jws.payload) == canonicalJSON(try #require(history[String(id)])), "index \(index)")
            }
            #expect(simulator.statistics().transactionInfoRequests == 2)
        }
    }

    @Test func transactionInfoServesTheConsumableAndSandboxAccounts() async throws {
        try await withSimulator(options()) { simulator in
            let consumableOnly = SimulatedScenario.noSubscriptions.subscriber(id: 2, nowMs: now)
            let sandbox = SimulatedScenario.sandboxActive.subscriber(id: 3, nowMs: now)
            simulator.register([consumableOnly, sandbox])
            let coinsID = originalID(2, slot: SimulatedIdentifiers.consumableSlot)
            let coins = try DecodedJWS(try #require(
                try jsonObject(try await apiGet(simulator.transactionInfoURL(coinsID)).body)["signedTransactionInfo"] as? String))
            #expect(coins.payload["type"] as? String == "Consumable")
            #expect(coins.payload["productId"] as? String == SimulatedProducts.coins100)
            #expect(coins.payload["expiresDate"] == nil)
            #expect(coins.payload["price"] as? Int == 990)

            #expect(appleErrorCode(try await apiGet(simulator.transactionInfoURL(originalID(3)))) == 4_040_010, "a Sandbox id at production")
            let atSandbox = try await apiGet(simulator.transactionInfoURL(originalID(3), .sandbox))
            #expect(atSandbox.status == 200)
            let payload = try DecodedJWS(try #require(try jsonObject(atSandbox.body)["signedTransactionInfo"] as? String)).payload
            #expect(payload["environment"] as? String == "Sandbox")
        }
    }

    @Test func transactionInfoAnswersApplesErrors() async throws {
        try await withSimulator(options()) { simulator in
            simulator.register(SimulatedScenario.active.subscriber(id: 4, nowMs: now))
            simulator.register(SimulatedScenario.accountGone.subscriber(id: 5, nowMs: now))
            let unknown = try await apiGet(simulator.transactionInfoURL(originalID(999)))
            #expect(unknown.status == 404)
            #expect(appleErrorCode(unknown) == 4_040_010)
            let notYet = SimulatedIdentifiers.transactionID(subscriberID: 4, slot: 0, index: 5)
            #expect(appleErrorCode(try await apiGet(simulator.transactionInfoURL(notYet))) == 4_040_010, "a renewal still to come")
            let malformed = try await apiGet(simulator.serverAPIURL("/inApps/v1/transactions/12ab"))
            #expect(malformed.status == 400)
            #expect(appleErrorCode(malformed) == 4_000_006)
            #expect(appleErrorCode(try await apiGet(simulator.serverAPIURL("/inApps/v1/transactions/0"))) == 4_000_006)
            #expect(appleErrorCode(try await apiGet(simulator.transactionInfoURL(originalID(5)))) == 4_040_001)
            let post = try await apiRequest(simulator.transactionInfoURL(originalID(4)), method: "POST", body: [])
            #expect(post.status == 405)
            #expect(try await apiGet(simulator.serverAPIURL("/inApps/v1/transactions/")).status == 404)
        }
    }

    @Test func theStatusFilterKeepsTheSubscriptionsInTheAskedStatuses() async throws {
        try await withSimulator(options()) { simulator in
            // Group A active (1), group B expired (2).
            let account = SimulatedScenario.twoGroups.subscriber(id: 6, nowMs: now)
            simulator.register(account)
            func groups(_ query: String) async throws -> [String: [Int]] {
                let answer = try await apiGet(simulator.statusesURL(originalID(6)) + query)
                try #require(answer.status == 200, "\(query)")
                var groups: [String: [Int]] = [:]
                for (group, item) in try lastTransactions(try jsonObject(answer.body)) {
                    groups[group, default: []].append(try #require(item["status"] as? Int))
                }
                return groups
            }
            let both = [SimulatedProducts.groupA: [1], SimulatedProducts.groupB: [2]]
            #expect(try await groups("") == both)
            #expect(try await groups("?status=1") == [SimulatedProducts.groupA: [1]])
            #expect(try await groups("?status=2") == [SimulatedProducts.groupB: [2]])
            #expect(try await groups("?status=1&status=2") == both)
            #expect(try await groups("?status=2&status=4&status=2") == [SimulatedProducts.groupB: [2]])
            #expect(try await groups("?status=5").isEmpty, "no group keeps a subscription: empty data")
            for bad in ["0", "6", "x", "", "1.0", "01"] {
                let answer = try await apiGet(simulator.statusesURL(originalID(6)) + "?status=1&status=" + bad)
                #expect(answer.status == 400, "status=\(bad)")
                #expect(appleErrorCode(answer) == 4_000_031, "status=\(bad)")
            }
        }
    }

    @Test func orderIDsNameOneTransactionOfAProductionAccount() async throws {
        #expect(SimulatedOrderID.orderID(subscriberID: 1, slot: 0, index: 0) == "0000005YC1SD", "the example docs/simulator.md gives")
        try await withSimulator(options()) { simulator in
            let account = SimulatedScenario.active.subscriber(id: 7, nowMs: now)
            let sandbox = SimulatedScenario.sandboxActive.subscriber(id: 8, nowMs: now)
            simulator.register([account, sandbox])
            let verifier = try SignedDataVerifier(rootPEM: simulator.rootCertificatePEM)
            for index: Int64 in [0, 3] {
                let order = SimulatedOrderID.orderID(subscriberID: 7, slot: 0, index: index)
                #expect(order.utf8.count == 12)
                #expect(SimulatedOrderID.transactionID(orderID: Substring(order)) == SimulatedIdentifiers.transactionID(subscriberID: 7, slot: 0, index: index))
                let answer = try await apiGet(simulator.orderLookupURL(order))
                #expect(answer.status == 200)
                let body = try jsonObject(answer.body)
                #expect(body["status"] as? Int == 0)
                let signed = try #require(body["signedTransactions"] as? [String])
                #expect(signed.count == 1)
                _ = try await verifier.verify(signed[0])
                let payload = try DecodedJWS(signed[0]).payload
                #expect(payload["transactionId"] as? String == String(SimulatedIdentifiers.transactionID(subscriberID: 7, slot: 0, index: index)))
            }
            func isInvalid(_ order: String) async throws -> Bool {
                let answer = try await apiGet(simulator.orderLookupURL(order))
                let body = try jsonObject(answer.body)
                return answer.status == 200 && body["status"] as? Int == 1 && body["signedTransactions"] == nil
            }
            let known = SimulatedOrderID.orderID(subscriberID: 7, slot: 0, index: 0)
            #expect(try await isInvalid(String(known.dropLast()) + (known.last == "A" ? "B" : "A")), "wrong check character")
            #expect(try await isInvalid("MK5TTTVWJH"), "Apple's shape, not ours")
            #expect(try await isInvalid(SimulatedOrderID.orderID(subscriberID: 7, slot: 0, index: 5)), "a renewal still to come")
            #expect(try await isInvalid(SimulatedOrderID.orderID(subscriberID: 999, slot: 0, index: 0)), "an unknown customer")
            #expect(try await isInvalid(SimulatedOrderID.orderID(subscriberID: 8, slot: 0, index: 0)), "the sandbox has no orders")
            let atSandbox = try await apiGet(simulator.orderLookupURL(known, .sandbox))
            #expect(atSandbox.status == 404, "Look Up Order ID is production only")
            #expect(try await apiRequest(simulator.orderLookupURL(known), method: "POST", body: []).status == 405)
            #expect(simulator.statistics().orderLookupRequests == 8)
        }
    }

    @Test func theNewEndpointsNeedTheBearer() async throws {
        let key = P256.Signing.PrivateKey()
        try await withSimulator(options(key: key)) { simulator in
            simulator.register(SimulatedScenario.active.subscriber(id: 9, nowMs: now))
            let good = try makeBearer(key: key)
            let urls = [
                simulator.transactionInfoURL(originalID(9)),
                simulator.orderLookupURL(SimulatedOrderID.orderID(subscriberID: 9, slot: 0, index: 0)),
                simulator.statusesURL(originalID(9)) + "?status=1",
                simulator.testNotificationStatusURL("00000000-0000-4000-8000-000000000000_1"),
            ]
            for url in urls {
                #expect(try await apiGet(url).status == 401, "\(url)")
                #expect(try await apiGet(url, bearer: good).status != 401, "\(url)")
            }
            #expect(try await apiRequest(simulator.testNotificationURL(), method: "POST").status == 401)
            #expect(try await apiRequest(simulator.testNotificationURL(), method: "POST", bearer: good).status == 404, "no URL: 4040007")
            #expect(simulator.statistics().serverAPIUnauthorized == urls.count + 1)
        }
    }
}
