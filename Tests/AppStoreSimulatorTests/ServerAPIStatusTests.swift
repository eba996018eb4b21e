@testable import AppStoreSimulator
import Crypto
import Foundation
import Testing
@_spi(FixedExpiryValidationTime) import X509

@Suite struct ServerAPIStatusTests {
    let now: Int64 = 1_716_192_930_417
    /// One chain for the pure-core tests (making one costs a few P-384 operations).
    static let authority = try! SimulatedSigningAuthority(nowMs: 1_716_192_930_417)

    func options(_ clock: SimulatedClock? = nil) -> SimulatorOptions {
        SimulatorOptions(sharedSecret: "secret", clock: (clock ?? SimulatedClock(nowMs: now)).millisecondsClock)
    }

    /// Scenario `index` gets subscriber id `index + 1`.
    func subscriber(_ scenario: SimulatedScenario) -> SimulatedSubscriber {
        let id = Int64(SimulatedScenario.allCases.firstIndex(of: scenario)!) + 1
        return scenario.subscriber(id: id, nowMs: now)
    }

    @Test func everyScenarioAnswersSignedStatuses() async throws {
        try await withSimulator(options()) { simulator in
            let root = simulator.signingAuthority.rootCertificateDER
            for scenario in SimulatedScenario.allCases {
                let account = subscriber(scenario)
                simulator.register(account)
                let environment = scenario.environment
                let askedID = scenario == .noSubscriptions
                    ? originalID(account.id, slot: SimulatedIdentifiers.consumableSlot) : originalID(account.id)
                let answer = try await apiGet(simulator.statusesURL(askedID, environment))

                switch scenario {
                case .invalidReceipt:
                    #expect(answer.status == 404)
                    #expect(try jsonObject(answer.body)["errorCode"] as? Int == 4_040_010)
                    let sandbox = try await apiGet(simulator.statusesURL(askedID, .sandbox))
                    #expect(try jsonObject(sandbox.body)["errorCode"] as? Int == 4_040_010, "found in neither environment")
                    continue
                case .accountGone:
                    #expect(answer.status == 404)
                    #expect(try jsonObject(answer.body)["errorCode"] as? Int == 4_040_001)
                    continue
                default:
                    break
                }
                #expect(answer.status == 200, "\(scenario)")
                #expect(answer.header("Content-Type") == "application/json")
                let body = try jsonObject(answer.body)
                #expect(body["environment"] as? String == environment.rawValue)
                #expect(body["bundleId"] as? String == SimulatedProducts.bundleID)
                if environment == .production {
                    #expect(body["appAppleId"] as? Int64 == SimulatorOptions.defaultAppAppleID)
                } else {
                    #expect(body["appAppleId"] == nil, "no appAppleId in the sandbox")
                }
                let items = try lastTransactions(body)
                #expect(items.count == account.subscriptions.count, "\(scenario)")
                var statusByGroup: [String: String] = [:]
                for (group, item) in items {
                    let transaction = try DecodedJWS(try #require(item["signedTransactionInfo"] as? String))
                    let renewal = try DecodedJWS(try #require(item["signedRenewalInfo"] as? String))
                    for jws in [transaction, renewal] {
                        #expect(jws.header["alg"] as? String == "ES256")
                        #expect(jws.x5c.count == 3)
                        #expect(jws.x5c[2] == root)
                        #expect(jws.signature.count == 64)
                        #expect(jws.isSigned(by: simulator.leafPublicKey), "\(scenario)")
                    }
                    let payload = transaction.payload
                    #expect(payload["originalTransactionId"] as? String == item["originalTransactionId"] as? String)
                    #expect(renewal.payload["originalTransactionId"] as? String == item["originalTransactionId"] as? String)
                    #expect(payload["subscriptionGroupIdentifier"] as? String == group)
                    #expect(payload["bundleId"] as? String == SimulatedProducts.bundleID)
                    #expect(payload["environment"] as? String == environment.rawValue)
                    #expect(renewal.payload["environment"] as? String == environment.rawValue)
                    #expect(payload["signedDate"] as? Int64 == now)
                    #expect(payload["type"] as? String == "Auto-Renewable Subscription")
                    #expect(payload["quantity"] as? Int == 1)
                    #expect(payload["expiresDate"] is NSNumber)
                    #expect(payload["storefront"] as? String == "USA")
                    #expect(payload["appAccountToken"] as? String == ServerAPIIdentifiers.appAccountToken(subscriberID: account.id))
                    #expect(UUID(uuidString: try #require(payload["appAccountToken"] as? String)) != nil)
                    if group == SimulatedProducts.groupA {
                        #expect(payload["productId"] as? String == scenario.expectedProductID, "\(scenario)")
                    }
                    let code = try #require(item["status"] as? Int)
                    statusByGroup[group] = ["", "active", "expired", "billing_retry", "grace_period", "refunded"][code]
                }
                #expect(statusByGroup == scenario.expectedStatusByGroup, "\(scenario)")
            }
            #expect(simulator.statistics().subscriptionStatusesRequests == SimulatedScenario.allCases.count + 1)
        }
    }

    @Test func trialAndRefundAndUpgradeFields() async throws {
        try await withSimulator(options()) { simulator in
            func newest(_ scenario: SimulatedScenario) async throws -> [String: Any] {
                let account = subscriber(scenario)
                simulator.register(account)
                let body = try jsonObject(try await apiGet(simulator.statusesURL(originalID(account.id))).body)
                let item = try #require(try lastTransactions(body).first?.item)
                return try DecodedJWS(try #require(item["signedTransactionInfo"] as? String)).payload
            }
            let trial = try await newest(.trialActive)
            #expect(trial["offerType"] as? Int == 1)
            #expect(trial["offerDiscountType"] as? String == "FREE_TRIAL")
            #expect(trial["price"] as? Int == 0)
            #expect(trial["transactionReason"] as? String == "PURCHASE")

            let refunded = try await newest(.refunded)
            #expect(refunded["revocationDate"] as? Int64 == now / 1000 * 1000 - 5 * SimulatedProducts.dayMs, "scenarios use whole seconds")
            #expect(refunded["revocationReason"] as? Int == 1)
            #expect(refunded["transactionReason"] as? String == "RENEWAL")

            let upgraded = try await newest(.upgraded)
            #expect(upgraded["productId"] as? String == SimulatedProducts.premiumMonthly)
            #expect(upgraded["transactionReason"] as? String == "PURCHASE", "an upgrade is a purchase")
            #expect(upgraded["isUpgraded"] == nil, "the newest is the new product's transaction")
            #expect(upgraded["revocationDate"] == nil)
        }
    }

    /// The point of the simulator's design: one timeline, two APIs, the same facts. For every
    /// scenario and several "now"s, the Server API's latest transaction per subscription is
    /// verifyReceipt's newest `latest_receipt_info` entry, and its renewal info is
    /// `pending_renewal_info`'s.
    @Test(arguments: SimulatedScenario.allCases)
    func statusesAgreeWithVerifyReceipt(scenario: SimulatedScenario) throws {
        guard scenario.expectedAppleStatus == 0 else { return }
        let account = subscriber(scenario)
        let registry = SimulatedAccountRegistry()
        registry.register(account)
        let responder = ServerAPIResponder(
            authority: LazySigningAuthority(Self.authority), registry: registry,
            bundleID: SimulatedProducts.bundleID, appAppleID: 1, historyPageSize: 20)
        let endpoint: SimulatorEndpoint = scenario.environment == .production ? .production : .sandbox
        let askedID = scenario == .noSubscriptions
            ? originalID(account.id, slot: SimulatedIdentifiers.consumableSlot) : originalID(account.id)
        let route = try #require(ServerAPIRoute(
            path: Substring(ServerAPIEndpoint.subscriptionStatuses.pathPrefix(in: scenario.environment) + "\(askedID)")))
        let day = SimulatedProducts.dayMs
        let later: [Int64] = scenario == .sandboxActive ? [0, 60_000, 7 * 60_000, 3_600_000] : [0, 3 * day, 17 * day, 40 * day, 400 * day]
        for offset in later {
            let at = now + offset
            let receiptAnswer = try DecodedAnswer(VerifyReceiptResponder(sharedSecret: nil).respond(
                to: requestBody(SimulatedReceipt.encode(account), excludeOld: false), endpoint: endpoint, nowMs: at))
            #expect(receiptAnswer.status == 0)
            let apiAnswer = responder.respond(to: route, query: nil, nowMs: at)
            #expect(apiAnswer.httpStatus == 200)
            let items = try lastTransactions(try jsonObject(apiAnswer.body))
            let originalIDs = Set((receiptAnswer.latestReceiptInfo ?? []).compactMap { $0["original_transaction_id"] })
            #expect(Set(items.compactMap { $0.item["originalTransactionId"] as? String }) == originalIDs)
            #expect(items.count == (receiptAnswer.pendingRenewalInfo ?? []).count)

            for (group, item) in items {
                let id = try #require(item["originalTransactionId"] as? String)
                let context = "\(scenario) +\(offset / 60_000) min, \(id)"
                let newest = try #require(
                    receiptAnswer.transactions(originalTransactionID: id).max { ms($0["expires_date_ms"]) < ms($1["expires_date_ms"]) })
                let transaction = try DecodedJWS(try #require(item["signedTransactionInfo"] as? String)).payload
                func text(_ key: String) -> String? { (transaction[key] as? NSNumber).map { "\($0.int64Value)" } ?? transaction[key] as? String }
                #expect(text("transactionId") == newest["transaction_id"], "\(context)")
                #expect(text("productId") == newest["product_id"], "\(context)")
                #expect(text("purchaseDate") == newest["purchase_date_ms"], "\(context)")
                #expect(text("originalPurchaseDate") == newest["original_purchase_date_ms"], "\(context)")
                #expect(text("expiresDate") == newest["expires_date_ms"], "\(context)")
                #expect(text("webOrderLineItemId") == newest["web_order_line_item_id"], "\(context)")
                #expect(text("revocationDate") == newest["cancellation_date_ms"], "\(context)")
                #expect(text("revocationReason") == newest["cancellation_reason"], "\(context)")
                #expect((transaction["isUpgraded"] as? Bool == true) == (newest["is_upgraded"] == "true"), "\(context)")
                #expect(text("inAppOwnershipType") == newest["in_app_ownership_type"], "\(context)")
                #expect(text("subscriptionGroupIdentifier") == newest["subscription_group_identifier"], "\(context)")
                #expect(group == newest["subscription_group_identifier"], "\(context)")
                let isTrial = transaction["offerType"] as? Int == 1 && transaction["offerDiscountType"] as? String == "FREE_TRIAL"
                #expect(isTrial == (newest["is_trial_period"] == "true"), "\(context)")

                let pending = try #require(receiptAnswer.renewal(originalTransactionID: id))
                let renewal = try DecodedJWS(try #require(item["signedRenewalInfo"] as? String)).payload
                func renewalText(_ key: String) -> String? { (renewal[key] as? NSNumber).map { "\($0.int64Value)" } ?? renewal[key] as? String }
                #expect(renewalText("productId") == pending["product_id"], "\(context)")
                #expect(renewalText("autoRenewProductId") == pending["auto_renew_product_id"], "\(context)")
                #expect(renewalText("autoRenewStatus") == pending["auto_renew_status"], "\(context)")
                #expect(renewalText("expirationIntent") == pending["expiration_intent"], "\(context)")
                #expect((renewal["isInBillingRetryPeriod"] as? Bool).map { $0 ? "1" : "0" } == pending["is_in_billing_retry_period"], "\(context)")
                #expect(renewalText("gracePeriodExpiresDate") == pending["grace_period_expires_date_ms"], "\(context)")
            }
            if offset == 0 {
                let codes = Dictionary(uniqueKeysWithValues: items.map { ($0.group, $0.item["status"] as? Int ?? 0) })
                #expect(codes == scenario.expectedStatusByGroup.mapValues(appleStatusCode), "\(scenario)")
            }
        }
    }

    @Test func productionAndSandboxRouting() async throws {
        let clock = SimulatedClock(nowMs: now)
        try await withSimulator(options(clock)) { simulator in
            let production = subscriber(.active)
            let sandbox = subscriber(.sandboxActive)
            simulator.register([production, sandbox])
            #expect(simulator.registeredAccountCount == 2)
            func code(_ result: HTTPResult) throws -> Int? { try jsonObject(result.body)["errorCode"] as? Int }

            // A Sandbox account: production says "not found", the sandbox answers.
            let atProduction = try await apiGet(simulator.statusesURL(originalID(sandbox.id)))
            #expect(atProduction.status == 404)
            #expect(try code(atProduction) == 4_040_010)
            let atSandbox = try await apiGet(simulator.statusesURL(originalID(sandbox.id), .sandbox))
            #expect(atSandbox.status == 200)
            #expect(try jsonObject(atSandbox.body)["environment"] as? String == "Sandbox")
            // And the other way round.
            #expect(try code(try await apiGet(simulator.statusesURL(originalID(production.id), .sandbox))) == 4_040_010)

            // Any transaction id of the account finds it: a renewal's, not only the original.
            let renewalID = SimulatedIdentifiers.transactionID(subscriberID: production.id, slot: 0, index: 4)
            #expect(try await apiGet(simulator.statusesURL(renewalID)).status == 200)
            // A renewal that has not happened yet does not exist...
            let futureID = SimulatedIdentifiers.transactionID(subscriberID: production.id, slot: 0, index: 5)
            #expect(try code(try await apiGet(simulator.statusesURL(futureID))) == 4_040_010)
            // ...until the clock gets there.
            clock.advance(byMs: 28 * SimulatedProducts.dayMs)
            #expect(try await apiGet(simulator.statusesURL(futureID)).status == 200)

            // Unknown and malformed ids.
            #expect(try code(try await apiGet(simulator.statusesURL(originalID(999)))) == 4_040_010)
            let malformed = try await apiGet(simulator.serverAPIProductionBaseURL + "/inApps/v1/subscriptions/12ab")
            #expect(malformed.status == 400)
            #expect(try code(malformed) == 4_000_006)
            #expect(try await apiGet(simulator.serverAPIProductionBaseURL + "/inApps/v1/nothing/1").status == 404)

            let statistics = simulator.statistics()
            #expect(statistics.subscriptionStatusesRequests == 8)
            #expect(statistics.serverAPIRequestsByEnvironment[.sandbox] == 2)
            #expect(statistics.unknownPathRequests == 1)
        }
    }

    @Test func accountsComeFromThePostEndpointAndFromVerifyReceipt() async throws {
        try await withSimulator(options()) { simulator in
            let first = SimulatedScenario.active.subscriber(id: 41, nowMs: now)
            let second = SimulatedScenario.expired.subscriber(id: 42, nowMs: now)
            #expect(try await apiGet(simulator.statusesURL(originalID(41))).status == 404)

            let bad = Array("\(SimulatedReceipt.encode(first))\nnot-a-receipt\n".utf8)
            let refused = try await send(simulator.accountsURL, body: bad)
            #expect(refused.status == 400)
            #expect(try jsonObject(refused.body)["badLines"] as? [Int] == [2])
            #expect(simulator.registeredAccountCount == 0, "all or nothing")

            let good = Array("\(SimulatedReceipt.encode(first))\r\n\n\(SimulatedReceipt.encode(second))\n".utf8)
            let accepted = try await send(simulator.accountsURL, body: good)
            #expect(accepted.status == 200)
            #expect(try jsonObject(accepted.body)["registered"] as? Int == 2)
            #expect(try await apiGet(simulator.statusesURL(originalID(41))).status == 200)
            #expect(try await apiGet(simulator.statusesURL(originalID(42))).status == 200)
            #expect(simulator.statistics().accountsRegisteredByPOST == 2)

            // A receipt verified once is known to the Server API from then on.
            let third = SimulatedScenario.gracePeriod.subscriber(id: 43, nowMs: now)
            #expect(try await apiGet(simulator.statusesURL(originalID(43))).status == 404)
            _ = try await send(simulator.productionURL, body: requestBody(SimulatedReceipt.encode(third)))
            #expect(try await apiGet(simulator.statusesURL(originalID(43))).status == 200)
        }
    }

    @Test func receiptRegistrationCanBeTurnedOff() async throws {
        var options = options()
        options.registersVerifiedReceipts = false
        try await withSimulator(options) { simulator in
            let account = SimulatedScenario.active.subscriber(id: 44, nowMs: now)
            _ = try await send(simulator.productionURL, body: requestBody(SimulatedReceipt.encode(account)))
            #expect(simulator.registeredAccountCount == 0)
        }
    }

    @Test func theChainValidatesToTheSimulatorsRootOnly() async throws {
        let simulator = AppStoreSimulator(options: options())
        let authority = simulator.signingAuthority
        #expect(simulator.rootCertificatePEM.hasPrefix("-----BEGIN CERTIFICATE-----"))
        let root = try Certificate(pemEncoded: simulator.rootCertificatePEM)
        #expect(Array(try root.serializeAsPEM().derBytes) == authority.rootCertificateDER)
        let chain = try authority.validChainDER.map { try Certificate(derEncoded: $0) }
        #expect(chain[0].extensions[oid: SimulatedSigningAuthority.leafMarkerOID] != nil)
        #expect(chain[1].extensions[oid: SimulatedSigningAuthority.intermediateMarkerOID] != nil)
        #expect(chain[0].extensions[oid: SimulatedSigningAuthority.leafMarkerOID]?.critical == false)
        for validationTime in [Date(timeIntervalSince1970: Double(now) / 1000), Date(timeIntervalSince1970: Double(now) / 1000 - 200 * 86_400)] {
            var verifier = Verifier(rootCertificates: CertificateStore([root])) { RFC5280Policy(fixedExpiryValidationTime: validationTime) }
            let result = await verifier.validate(leaf: chain[0], intermediates: CertificateStore([chain[1]]))
            guard case .validCertificate = result else {
                Issue.record("chain does not validate at \(validationTime): \(result)")
                return
            }
        }
        #expect(P256.Signing.PublicKey(chain[0].publicKey)?.x963Representation == Data(authority.leafPublicKeyX963))
    }
}
