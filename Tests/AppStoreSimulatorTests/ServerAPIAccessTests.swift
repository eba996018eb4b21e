@testable import AppStoreSimulator
import Crypto
import Foundation
import Testing
@_spi(FixedExpiryValidationTime) import X509

@Suite struct ServerAPIAccessTests {
    let now: Int64 = 1_716_192_930_417

    func options(key: P256.Signing.PrivateKey? = nil) -> SimulatorOptions {
        SimulatorOptions(
            sharedSecret: "secret", clock: SimulatedClock(nowMs: now).millisecondsClock, apiPublicKey: key?.publicKey)
    }

    @Test func bearerTokensAreCheckedLikeApple() async throws {
        let key = P256.Signing.PrivateKey()
        try await withSimulator(options(key: key)) { simulator in
            let account = SimulatedScenario.active.subscriber(id: 3, nowMs: now)
            simulator.register(account)
            let url = simulator.statusesURL(originalID(3))
            let wallNow = Int64(Date().timeIntervalSince1970)

            func expectRefused(_ bearer: String?, _ comment: Comment) async throws {
                let answer = try await apiGet(url, bearer: bearer)
                #expect(answer.status == 401, comment)
                #expect((try? JSONSerialization.jsonObject(with: Data(answer.body))) == nil, "401 is not JSON")
            }
            try await expectRefused(nil, "missing")
            try await expectRefused("not.a.jwt", "garbage")
            try await expectRefused(try makeBearer(key: P256.Signing.PrivateKey()), "another key")
            try await expectRefused(try makeBearer(key: key, issuedAt: wallNow - 4000, lifetime: 3600), "expired")
            try await expectRefused(try makeBearer(key: key, lifetime: 3601), "lives over an hour")
            try await expectRefused(try makeBearer(key: key, bundleID: "com.example.other"), "another app")
            try await expectRefused(try makeBearer(key: key, audience: "appstoreconnect-v2"), "wrong audience")
            // A DER signature instead of raw R||S, the classic mistake.
            let good = try makeBearer(key: key)
            let input = good.split(separator: ".").prefix(2).joined(separator: ".")
            let der = base64URLEncode(try key.signature(for: Array(input.utf8)).derRepresentation)
            try await expectRefused(input + "." + der, "DER signature")

            #expect(try await apiGet(url, bearer: good).status == 200)
            #expect(try await apiGet(simulator.historyURL(originalID(3)), bearer: good).status == 200)
            #expect(simulator.statistics().serverAPIUnauthorized == 8)
            // verifyReceipt does not need the token.
            #expect(try await send(simulator.productionURL, body: requestBody(SimulatedReceipt.encode(account))).appleStatus == 0)
        }
    }

    /// Apple's own App Store Server Library signs no `iat`, and Apple's servers accept its tokens;
    /// everything else is still checked, and `kid`/`iss` against the configured ids.
    @Test func bearerTokensWithoutIssuedAtAreAcceptedAsApplesServersDo() async throws {
        let key = P256.Signing.PrivateKey()
        var options = options(key: key)
        options.apiKeyID = "2X9R4HXF34"
        options.apiIssuerID = "57246542-96fe-1a63-e053-0824d011072a"
        try await withSimulator(options) { simulator in
            simulator.register(SimulatedScenario.active.subscriber(id: 7, nowMs: now))
            let url = simulator.statusesURL(originalID(7))
            let wallNow = Int64(Date().timeIntervalSince1970)

            #expect(try await apiGet(url, bearer: try makeBearer(key: key)).status == 200, "with iat")
            // As Apple's library makes it: exp 5 minutes from now, no iat.
            let applesShape = try makeBearer(key: key, issuedAt: wallNow, lifetime: 300, withIssuedAt: false)
            #expect(try await apiGet(url, bearer: applesShape).status == 200, "without iat")
            #expect(try await apiGet(simulator.historyURL(originalID(7)), bearer: applesShape).status == 200)

            let refused: [(String, Comment)] = [
                (try makeBearer(key: P256.Signing.PrivateKey(), withIssuedAt: false), "another key"),
                (try makeBearer(key: key, bundleID: "com.example.other", withIssuedAt: false), "another app"),
                (try makeBearer(key: key, issuedAt: wallNow - 400, lifetime: 300, withIssuedAt: false), "expired"),
                (try makeBearer(key: key, issuedAt: wallNow, lifetime: 3700, withIssuedAt: false), "over an hour from now"),
                (try makeBearer(key: key, lifetime: 3601), "over an hour after iat"),
                (try makeBearer(key: key, keyID: nil), "no kid"),
                (try makeBearer(key: key, keyID: "OTHERKEY01"), "another key id"),
                (try makeBearer(key: key, issuer: nil), "no iss"),
                (try makeBearer(key: key, issuer: ""), "empty iss"),
                (try makeBearer(key: key, issuer: "69a6de7e-0000-47e3-e053-5b8c7c11a4d1"), "another issuer"),
            ]
            for (bearer, comment) in refused {
                #expect(try await apiGet(url, bearer: bearer).status == 401, comment)
            }
            #expect(simulator.statistics().serverAPIUnauthorized == refused.count)
        }
    }

    /// The lifetime limits to the second, on the verifier itself (the wall clock would blur them).
    @Test func tokenLifetimeIsAtMostAnHourFromIssuedAtOrFromNow() throws {
        let key = P256.Signing.PrivateKey()
        let verifier = ServerAPIBearerVerifier(
            publicKeyX963: Array(key.publicKey.x963Representation), bundleID: SimulatedProducts.bundleID)
        let issuedAt = Int64(Date().timeIntervalSince1970)
        let nowMs = issuedAt * 1000
        func accepts(_ token: String) -> Bool { verifier.accepts(authorization: "Bearer " + token, nowMs: nowMs) }
        #expect(accepts(try makeBearer(key: key, issuedAt: issuedAt, lifetime: 3600, withIssuedAt: false)))
        #expect(!accepts(try makeBearer(key: key, issuedAt: issuedAt, lifetime: 3601, withIssuedAt: false)))
        #expect(accepts(try makeBearer(key: key, issuedAt: issuedAt - 100, lifetime: 3600)))
        #expect(!accepts(try makeBearer(key: key, issuedAt: issuedAt - 100, lifetime: 3601)), "iat rules when present")
        #expect(!accepts(try makeBearer(key: key, issuedAt: issuedAt - 1, lifetime: 1, withIssuedAt: false)), "exp now")
        // Without a configured key id or issuer, any non-empty one passes; absent ones never do.
        #expect(accepts(try makeBearer(key: key, issuedAt: issuedAt, keyID: "ANYKEY0001", issuer: "any-issuer")))
        #expect(!accepts(try makeBearer(key: key, issuedAt: issuedAt, keyID: "")))
        #expect(!accepts(try makeBearer(key: key, issuedAt: issuedAt, issuer: nil)))
    }

    @Test func anAcceptedTokenIsRememberedOnlyByItsExactBytesAndOnlyUntilItExpires() throws {
        let key = P256.Signing.PrivateKey()
        let verifier = ServerAPIBearerVerifier(
            publicKeyX963: Array(key.publicKey.x963Representation), bundleID: SimulatedProducts.bundleID)
        let issuedAt = Int64(Date().timeIntervalSince1970) - 60
        let token = try makeBearer(key: key, issuedAt: issuedAt, lifetime: 1800)
        let nowMs = issuedAt * 1000 + 60_000
        #expect(verifier.accepts(authorization: "Bearer " + token, nowMs: nowMs))
        #expect(verifier.accepts(authorization: "Bearer " + token, nowMs: nowMs + 1000), "again, from the cache")

        // Expiry is still checked for a remembered value.
        let expMs = (issuedAt + 1800) * 1000
        #expect(verifier.accepts(authorization: "Bearer " + token, nowMs: expMs - 1))
        #expect(!verifier.accepts(authorization: "Bearer " + token, nowMs: expMs), "expired")

        // Near misses of a remembered value go through every check, and fail them.
        var tampered = Array(token.utf8)
        tampered[tampered.count - 2] = tampered[tampered.count - 2] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(!verifier.accepts(authorization: "Bearer " + String(decoding: tampered, as: UTF8.self), nowMs: nowMs))
        // U+212A KELVIN SIGN is canonically equivalent to "K", so the two Strings compare equal.
        // The header always encodes to "...JKV1Q..." ("JWT"), so there is a "K" to swap.
        let kelvin = "Bearer " + token.replacingOccurrences(of: "K", with: "\u{212A}")
        #expect(kelvin == "Bearer " + token && Array(kelvin.utf8) != Array(("Bearer " + token).utf8))
        #expect(!verifier.accepts(authorization: kelvin, nowMs: nowMs), "not the accepted bytes")
        #expect(verifier.accepts(authorization: "Bearer " + token, nowMs: nowMs), "the good one still passes")
    }

    @Test func rateLimitAnswers429WithRetryAfterInEpochMilliseconds() async throws {
        var options = options()
        options.apiRateLimit = 5
        try await withSimulator(options) { simulator in
            simulator.register(SimulatedScenario.active.subscriber(id: 4, nowMs: now))
            let url = simulator.statusesURL(originalID(4))
            let burstStartMs = Int64(Date().timeIntervalSince1970 * 1000)
            let results = try await withThrowingTaskGroup(of: HTTPResult.self) { group in
                for _ in 0..<20 {
                    group.addTask { try await apiGet(url) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let limited = results.filter { $0.status == 429 }
            #expect(results.filter { $0.status == 200 }.count >= 5)
            #expect(!limited.isEmpty)
            let burstEndMs = Int64(Date().timeIntervalSince1970 * 1000)
            for answer in limited {
                let header = try #require(answer.header("Retry-After"))
                let retryAfter = try #require(Int64(header))
                // Epoch ms after the answer was made (each token comes 200 ms after the last).
                #expect(retryAfter > burstStartMs && retryAfter <= burstEndMs + 1_000, "epoch ms, soon")
                #expect(try jsonObject(answer.body)["errorCode"] as? Int == 4_290_000)
            }
            #expect(simulator.statistics().serverAPIRateLimited == limited.count)
            #expect(simulator.statistics().answersByHTTPStatus[429] == limited.count)
        }
    }

    @Test func transportFaultsApplyToTheServerAPI() async throws {
        try await withSimulator(options()) { simulator in
            simulator.register(SimulatedScenario.active.subscriber(id: 5, nowMs: now))
            let url = simulator.statusesURL(originalID(5))
            simulator.setFaults(
                FaultPlan(steps: [.httpError(429, retryAfterSeconds: 2), .httpError(503), .nonJSONBody, .appleStatus(21010), .answer]),
                forSubscriberID: 5)
            let beforeMs = Int64(Date().timeIntervalSince1970 * 1000)
            let limited = try await apiGet(url)
            let afterMs = Int64(Date().timeIntervalSince1970 * 1000)
            #expect(limited.status == 429)
            let header = try #require(limited.header("Retry-After"))
            let retryAfter = try #require(Int64(header))
            #expect(retryAfter >= beforeMs + 2_000 && retryAfter <= afterMs + 2_000, "now + 2 s, in epoch ms")
            #expect(try jsonObject(limited.body)["errorCode"] as? Int == 4_290_000)
            #expect(try await apiGet(url).status == 503)
            let html = try await apiGet(url)
            #expect(html.status == 200)
            #expect((try? JSONSerialization.jsonObject(with: Data(html.body))) == nil)
            #expect(try jsonObject(try await apiGet(url).body)["errorCode"] as? Int == 4_040_001)
            #expect(try await apiGet(url).status == 200)
            #expect(simulator.statistics().faultsInjected["httpError.429"] == 1)
        }
    }

    /// Each trust-failure step gives the answer exactly its defect, in every signed item.
    @Test(arguments: [
        FaultStep.badSignature, .leafWithoutMarker, .intermediateWithoutMarker, .foreignRoot, .expiredLeaf,
        .otherBundleID, .wrongEnvironment,
    ])
    func trustFailures(step: FaultStep) async throws {
        try await withSimulator(options()) { simulator in
            let account = SimulatedScenario.twoGroups.subscriber(id: 6, nowMs: now)
            simulator.register(account)
            simulator.setFaults(.always(step), forSubscriberID: 6)
            let root = simulator.signingAuthority.rootCertificateDER
            let good = simulator.signingAuthority.validChainDER

            let statuses = try jsonObject(try await apiGet(simulator.statusesURL(originalID(6))).body)
            var signed: [String] = []
            for (_, item) in try lastTransactions(statuses) {
                signed.append(try #require(item["signedTransactionInfo"] as? String))
                signed.append(try #require(item["signedRenewalInfo"] as? String))
            }
            let history = try jsonObject(try await apiGet(simulator.historyURL(originalID(6))).body)
            let historyItems = try #require(history["signedTransactions"] as? [String])
            #expect(historyItems.count == 7)
            #expect(statuses["environment"] as? String == "Production", "only the signed data is falsified")
            let transactionCount = 2 + historyItems.count
            signed += historyItems

            for (position, token) in signed.enumerated() {
                let jws = try DecodedJWS(token)
                let isTransaction = position >= 4 || position % 2 == 0
                let chainIsGood = try await jws.chainsTo(root: root)
                switch step {
                case .badSignature:
                    #expect(jws.x5c == good)
                    #expect(chainIsGood)
                    #expect(!jws.isSignedByLeaf)
                case .leafWithoutMarker:
                    #expect(try jws.certificate(0).extensions[oid: SimulatedSigningAuthority.leafMarkerOID] == nil)
                    #expect(try jws.certificate(1).extensions[oid: SimulatedSigningAuthority.intermediateMarkerOID] != nil)
                    #expect(jws.isSignedByLeaf)
                    #expect(chainIsGood, "only the marker is missing")
                case .intermediateWithoutMarker:
                    #expect(try jws.certificate(0).extensions[oid: SimulatedSigningAuthority.leafMarkerOID] != nil)
                    #expect(try jws.certificate(1).extensions[oid: SimulatedSigningAuthority.intermediateMarkerOID] == nil)
                    #expect(jws.isSignedByLeaf)
                    #expect(chainIsGood, "only the marker is missing")
                case .foreignRoot:
                    #expect(jws.x5c[2] != root)
                    #expect(jws.isSignedByLeaf)
                    #expect(!chainIsGood)
                    let foreign = try await jws.chainsTo(root: jws.x5c[2])
                    #expect(foreign, "a complete chain, just not to our root")
                case .expiredLeaf:
                    #expect(try jws.certificate(0).notValidAfter < jws.signedDate)
                    #expect(jws.isSignedByLeaf)
                    #expect(!chainIsGood)
                case .otherBundleID:
                    #expect(jws.x5c == good && jws.isSignedByLeaf)
                    if isTransaction {
                        #expect(jws.payload["bundleId"] as? String == SignedDataVariant.otherAppBundleID)
                    }
                case .wrongEnvironment:
                    #expect(jws.x5c == good && jws.isSignedByLeaf)
                    #expect(jws.payload["environment"] as? String == "Sandbox")
                default:
                    Issue.record("not a trust failure")
                }
            }
            #expect(transactionCount == 9)
            #expect(simulator.statistics().faultsInjected[step.name] == 2)
            // verifyReceipt has no signed data: the step answers normally there.
            let receipt = requestBody(SimulatedReceipt.encode(account))
            #expect(try await send(simulator.productionURL, body: receipt).appleStatus == 0)
        }
    }
}
