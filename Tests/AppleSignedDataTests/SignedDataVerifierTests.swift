import AppleSignedData
import Crypto
import Foundation
import SubReconTestSupport
import Testing
import X509

/// The verifier's checks 1–4 and 6 on chains built in memory (chain rules: TrustChainTests).
@Suite struct SignedDataVerifierTests {
    let chain = TestChains.standard

    /// Replaces one dot-separated part of a compact JWS.
    func replacing(part index: Int, of jws: String, with text: String) -> String {
        var parts = jws.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        parts[index] = text
        return parts.joined(separator: ".")
    }

    func expectError(_ expected: SignedDataError, verifying jws: String, now: Int64 = TestChain.now) async {
        await #expect(throws: expected) { try await chain.verifier(now: now).verify(jws) }
    }

    @Test func acceptsAppleShapedJWSAndReturnsThePayload() async throws {
        let verified = try await chain.verifier().verify(try chain.jws())
        #expect(verified.payload == payload())
        #expect(verified.signedDateMs == TestChain.signedDate)
        #expect(verified.type == nil)
    }

    @Test func acceptsASignedDateUpToFiveMinutesAhead() async throws {
        let jws = try chain.jws(signedDateMs: TestChain.signedDate + 5 * 60_000)
        let verified = try await chain.verifier(now: TestChain.signedDate).verify(jws)
        #expect(verified.signedDateMs == TestChain.signedDate + 5 * 60_000)
    }

    // MARK: 1. Format

    @Test(arguments: ["", "abc", "a.b", "a.b.c.d", "....", "a..b.c"])
    func refusesAnythingButThreeParts(text: String) async {
        let dots = text.filter { $0 == "." }.count
        await expectError(.wrongPartCount(dots + 1), verifying: text)
    }

    @Test func refusesOversizedInputBeforeDecoding() async {
        let huge = String(repeating: "A", count: 64 * 1024) + ".e30.AA"
        await expectError(.tooLarge(byteCount: huge.utf8.count, limit: 64 * 1024), verifying: huge)
    }

    @Test func refusesAnOversizedHeader() async throws {
        let header = "{\"alg\":\"ES256\",\"pad\":\"\(String(repeating: "x", count: 17 * 1024))\"}"
        let jws = try forgedJWS(header: header, key: chain.leafKey)
        await #expect {
            try await chain.verifier().verify(jws)
        } throws: { error in
            guard case .headerTooLarge(_, 16 * 1024) = error as? SignedDataError else { return false }
            return true
        }
    }

    @Test func refusesPaddedOrStandardBase64InAnyPart() async throws {
        let jws = try chain.jws()
        let parts = jws.split(separator: ".").map(String.init)
        await expectError(.invalidBase64URL(.header), verifying: replacing(part: 0, of: jws, with: parts[0] + "=="))
        await expectError(.invalidBase64URL(.payload), verifying: replacing(part: 1, of: jws, with: parts[1] + "="))
        await expectError(.invalidBase64URL(.payload), verifying: replacing(part: 1, of: jws, with: "+/" + parts[1]))
        await expectError(.invalidBase64URL(.signature), verifying: replacing(part: 2, of: jws, with: " " + parts[2]))
        await expectError(.invalidBase64URL(.signature), verifying: jws + "\n")
    }

    @Test(arguments: ["[]", "\"ES256\"", "{", "{\"alg\":\"ES256\"} x", "null"])
    func refusesAHeaderThatIsNotAJSONObject(header: String) async throws {
        await expectError(.headerNotJSONObject, verifying: try forgedJWS(header: header, key: chain.leafKey))
    }

    @Test func refusesDuplicateHeaderMembers() async throws {
        let header = "{\"alg\":\"ES256\",\"x5c\":\(x5cJSON(try chain.x5c())),\"alg\":\"none\"}"
        await expectError(.duplicateHeaderMember("alg"), verifying: try forgedJWS(header: header, key: chain.leafKey))
    }

    @Test func refusesACritHeader() async throws {
        let header = "{\"alg\":\"ES256\",\"crit\":[\"b64\"],\"b64\":false,\"x5c\":\(x5cJSON(try chain.x5c()))}"
        await expectError(.criticalHeaderPresent, verifying: try forgedJWS(header: header, key: chain.leafKey))
    }

    // MARK: 2. Algorithm

    @Test(arguments: [
        ("\"none\"", Optional("none")), ("\"HS256\"", "HS256"), ("\"es256\"", "es256"), ("\"ES384\"", "ES384"),
        ("256", "<non-string>"), ("null", "<non-string>"),
    ])
    func refusesAnyAlgorithmButES256(alg: String, reported: String?) async throws {
        let header = "{\"alg\":\(alg),\"x5c\":\(x5cJSON(try chain.x5c()))}"
        await expectError(.algorithmNotES256(reported), verifying: try forgedJWS(header: header, key: chain.leafKey))
    }

    @Test func refusesAMissingAlgorithm() async throws {
        let header = "{\"x5c\":\(x5cJSON(try chain.x5c()))}"
        await expectError(.algorithmNotES256(nil), verifying: try forgedJWS(header: header, key: chain.leafKey))
    }

    @Test func refusesAnUnsignedAlgNoneToken() async throws {
        let header = Base64URL.encode(Array("{\"alg\":\"none\",\"x5c\":\(x5cJSON(try chain.x5c()))}".utf8))
        await expectError(.algorithmNotES256("none"), verifying: header + "." + Base64URL.encode(payload()) + ".")
    }

    // MARK: 3. Certificates

    @Test func refusesAMissingOrMalformedX5C() async throws {
        await expectError(.missingCertificateChain, verifying: try forgedJWS(header: "{\"alg\":\"ES256\"}", key: chain.leafKey))
        let notArray = "{\"alg\":\"ES256\",\"x5c\":\"\(Base64.encode(try derBytes(chain.leaf)))\"}"
        await expectError(.missingCertificateChain, verifying: try forgedJWS(header: notArray, key: chain.leafKey))
    }

    @Test(arguments: [0, 1, 2, 4, 10])
    func refusesAnythingButThreeCertificates(count: Int) async throws {
        let certificates = Array(repeating: try chain.x5c(), count: 4).flatMap { $0 }.prefix(count)
        let header = "{\"alg\":\"ES256\",\"x5c\":\(x5cJSON(Array(certificates)))}"
        await expectError(.wrongCertificateCount(count), verifying: try forgedJWS(header: header, key: chain.leafKey))
    }

    @Test func refusesNonStringCertificates() async throws {
        let x5c = try chain.x5c().map { "\"\(Base64.encode($0))\"" }
        for (index, replacement) in [(0, "42"), (1, "null"), (2, "[\"A\"]"), (1, "{}")] {
            var entries = x5c
            entries[index] = replacement
            let header = "{\"alg\":\"ES256\",\"x5c\":[\(entries.joined(separator: ","))]}"
            await expectError(.invalidCertificateEncoding(index: index), verifying: try forgedJWS(header: header, key: chain.leafKey))
        }
    }

    /// Decision: x5c is standard base64 with padding (RFC 7515 §4.1.6); base64url there is a
    /// format error, not silently accepted.
    @Test func refusesBase64URLCertificates() async throws {
        let x5c = try chain.x5c()
        let standard = Base64.encode(x5c[0])
        let urlStyle = Base64URL.encode(x5c[0])
        try #require(standard != urlStyle, "the leaf's base64 must contain +, / or = for this test to mean anything")
        let header = "{\"alg\":\"ES256\",\"x5c\":[\"\(urlStyle)\",\"\(Base64.encode(x5c[1]))\",\"\(Base64.encode(x5c[2]))\"]}"
        await expectError(.invalidCertificateEncoding(index: 0), verifying: try forgedJWS(header: header, key: chain.leafKey))
    }

    @Test func refusesCertificatesThatAreNotDER() async throws {
        var x5c = try chain.x5c()
        x5c[0] = Array("not a certificate".utf8)
        await expectError(.invalidCertificate(index: 0), verifying: try JWSSigner(privateKey: chain.leafKey, certificateChain: x5c).sign(payload: payload()))
        x5c = try chain.x5c()
        x5c[1] = Array(x5c[1].dropLast())
        await expectError(.invalidCertificate(index: 1), verifying: try JWSSigner(privateKey: chain.leafKey, certificateChain: x5c).sign(payload: payload()))
    }

    @Test func refusesALeafWhoseKeyIsNotP256() async throws {
        let p384 = try TestChain(leafPublicKey: .init(P384.Signing.PrivateKey().publicKey))
        let jws = try JWSSigner(privateKey: p384.leafKey, certificateChain: try p384.x5c()).sign(payload: payload())
        await #expect(throws: SignedDataError.leafKeyNotP256) { try await p384.verifier().verify(jws) }
    }

    // MARK: 4. Payload

    @Test(arguments: ["[]", "\"x\"", "", "{\"signedDate\":1}x", "{\"signedDate\":"])
    func refusesAPayloadThatIsNotAJSONObject(text: String) async throws {
        let jws = try chain.signer().sign(payload: Array(text.utf8))
        await expectError(.payloadNotJSONObject, verifying: jws)
    }

    @Test(arguments: [
        "{}", "{\"signedDate\":\"1748736000000\"}", "{\"signedDate\":1748736000000.0}",
        "{\"signedDate\":1.748736e12}", "{\"signedDate\":-1}", "{\"signedDate\":99999999999999999999}",
        "{\"signedDate\":null}",
    ])
    func refusesAMissingOrNonIntegerSignedDate(text: String) async throws {
        let jws = try chain.signer().sign(payload: Array(text.utf8))
        await expectError(.missingSignedDate, verifying: jws)
    }

    @Test func refusesDuplicatePayloadMembers() async throws {
        let text = "{\"signedDate\":\(TestChain.signedDate),\"bundleId\":\"a\",\"bundleId\":\"b\"}"
        await expectError(.duplicatePayloadMember("bundleId"), verifying: try chain.signer().sign(payload: Array(text.utf8)))
    }

    @Test func refusesASignedDateMoreThanFiveMinutesAhead() async throws {
        let signed = TestChain.signedDate + 5 * 60_000 + 1
        await expectError(
            .signedDateInFuture(signedDateMs: signed, nowMs: TestChain.signedDate),
            verifying: try chain.jws(signedDateMs: signed),
            now: TestChain.signedDate
        )
    }

    // MARK: 6. Signature

    @Test func refusesAnAlteredPayload() async throws {
        let jws = try chain.jws()
        let other = Base64URL.encode(payload(bundleID: "com.example.other"))
        await expectError(.signatureMismatch, verifying: replacing(part: 1, of: jws, with: other))
    }

    @Test func refusesASignatureByAnotherKey() async throws {
        let jws = try JWSSigner(privateKey: P256.Signing.PrivateKey(), certificateChain: try chain.x5c()).sign(payload: payload())
        await expectError(.signatureMismatch, verifying: jws)
    }

    @Test func refusesADEREncodedSignature() async throws {
        let jws = try chain.jws()
        let raw = try #require(Base64URL.decode(jws.split(separator: ".")[2]))
        let der = Array(try P256.Signing.ECDSASignature(rawRepresentation: raw).derRepresentation)
        // The DER form verifies with swift-crypto's DER API, so only its encoding is wrong here.
        #expect(chain.leafKey.publicKey.isValidSignature(
            try P256.Signing.ECDSASignature(derRepresentation: der),
            for: Array(jws.split(separator: ".")[0...1].joined(separator: ".").utf8)))
        await expectError(.signatureNotRaw(byteCount: der.count), verifying: replacing(part: 2, of: jws, with: Base64URL.encode(der)))
    }

    @Test func refusesAnEmptyOrTruncatedSignature() async throws {
        let jws = try chain.jws()
        let raw = try #require(Base64URL.decode(jws.split(separator: ".")[2]))
        await expectError(.signatureNotRaw(byteCount: 0), verifying: replacing(part: 2, of: jws, with: ""))
        await expectError(.signatureNotRaw(byteCount: 63), verifying: replacing(part: 2, of: jws, with: Base64URL.encode(raw.dropLast())))
    }

    @Test func refusesAZeroSignature() async throws {
        let jws = try chain.jws()
        await expectError(.signatureMismatch, verifying: replacing(part: 2, of: jws, with: Base64URL.encode([UInt8](repeating: 0, count: 64))))
    }

    // MARK: Descriptions

    @Test func everyErrorDescriptionNamesItsCheck() {
        let cases: [(SignedDataError, String)] = [
            (.tooLarge(byteCount: 70000, limit: 65536), "JWS format"),
            (.wrongPartCount(2), "JWS format"),
            (.headerTooLarge(byteCount: 20000, limit: 16384), "JWS format"),
            (.invalidBase64URL(.payload), "JWS format"),
            (.headerNotJSONObject, "JWS format"),
            (.duplicateHeaderMember("alg"), "JWS format"),
            (.criticalHeaderPresent, "JWS format"),
            (.algorithmNotES256(nil), "JWS algorithm"),
            (.missingCertificateChain, "JWS certificates"),
            (.wrongCertificateCount(2), "JWS certificates"),
            (.invalidCertificateEncoding(index: 0), "JWS certificates"),
            (.invalidCertificate(index: 1), "JWS certificates"),
            (.leafKeyNotP256, "JWS certificates"),
            (.payloadNotJSONObject, "JWS payload"),
            (.duplicatePayloadMember("signedDate"), "JWS payload"),
            (.missingSignedDate, "JWS payload"),
            (.signedDateInFuture(signedDateMs: 2, nowMs: 1), "JWS payload"),
            (.untrustedChain, "certificate chain"),
            (.certificateNotValidAtSignedDate(.leaf, notBeforeMs: 0, notAfterMs: 1, signedDateMs: 2), "certificate chain"),
            (.chainLengthNot3(2), "certificate chain"),
            (.intermediateMissingAppleMarker, "certificate chain"),
            (.leafMissingAppleMarker, "certificate chain"),
            (.missingAuthorityKeyIdentifier(.leaf), "certificate chain"),
            (.missingSubjectKeyIdentifier(.root), "certificate chain"),
            (.authorityKeyIdentifierMismatch(.intermediate), "certificate chain"),
            (.chainRejected(reason: "x"), "certificate chain"),
            (.signatureNotRaw(byteCount: 71), "JWS signature"),
            (.signatureMismatch, "JWS signature"),
        ]
        for (error, check) in cases {
            #expect(error.description.hasPrefix(check + ":"), "\(error)")
        }
        #expect(Set(cases.map(\.0.description)).count == cases.count)
        #expect(SignedDataError.algorithmNotES256("none").description.contains("\"none\""))
    }
}
