import Foundation
import SubReconTestSupport
import Testing
import X509

@testable import AppleSignedData

/// Real data: a JWS signed by Apple's production chain, and the certificates of Apple's own
/// app-store-server-library tests (see Fixtures/signed-data/README.md).
@Suite struct SignedDataAppleFixtureTests {
    /// signedDate of the real sandbox transaction.
    static let realSignedDate: Int64 = 1_739_161_772_561
    /// EFFECTIVE_DATE of Apple's SignedDataVerifierTests (April 2023).
    static let effectiveDate: Int64 = 1_681_312_846_000

    static func appleRoot() throws -> Certificate {
        try Certificate(pemEncoded: AppleRootCertificates.appleRootCAG3)
    }

    @Test func verifiesARealAppleSignedTransactionWithTheBuiltInRoot() async throws {
        let jws = try SignedDataFixtures.text("apple-sandbox-transaction.jws")
        let verifier = try SignedDataVerifier(rootPEM: AppleRootCertificates.appleRootCAG3, clock: { Self.realSignedDate + 1000 })
        let verified = try await verifier.verify(jws)
        #expect(verified.signedDateMs == Self.realSignedDate)
        guard case .object(let members) = try StrictJSON.parse(verified.payload) else {
            Issue.record("payload is not an object")
            return
        }
        #expect(members["transactionId"] == .string("2000000847061981"))
        #expect(members["environment"] == .string("Sandbox"))
        // Its leaf expired on 2025-10-11; validating at signedDate keeps it verifiable today.
        _ = try await SignedDataVerifier.apple.verify(jws)
    }

    @Test func refusesTheRealTransactionOnceAltered() async throws {
        let jws = try SignedDataFixtures.text("apple-sandbox-transaction.jws")
        let parts = jws.split(separator: ".").map(String.init)
        var payload = try #require(Base64URL.decode(parts[1]))
        let text = String(decoding: payload, as: UTF8.self).replacingOccurrences(of: "\"quantity\":1", with: "\"quantity\":9")
        payload = Array(text.utf8)
        let altered = [parts[0], Base64URL.encode(payload), parts[2]].joined(separator: ".")
        await #expect(throws: SignedDataError.signatureMismatch) { try await SignedDataVerifier.apple.verify(altered) }
    }

    @Test func refusesTheRealTransactionWhenOurClockIsFarBehind() async throws {
        let jws = try SignedDataFixtures.text("apple-sandbox-transaction.jws")
        let now = Self.realSignedDate - 10 * 60_000
        let verifier = SignedDataVerifier(rootCertificates: [try Self.appleRoot()], clock: { now })
        await #expect(throws: SignedDataError.signedDateInFuture(signedDateMs: Self.realSignedDate, nowMs: now)) {
            try await verifier.verify(jws)
        }
    }

    @Test func refusesTheRealTransactionAgainstAnotherRoot() async throws {
        let jws = try SignedDataFixtures.text("apple-sandbox-transaction.jws")
        let verifier = TestChains.standard.verifier(now: Self.realSignedDate)
        await #expect(throws: SignedDataError.untrustedChain) { try await verifier.verify(jws) }
    }

    // MARK: Apple's library certificates (ChainVerifier tests)

    func validate(
        _ leaf: String, _ intermediate: String, root: Certificate, at time: Int64, strict: Bool = true
    ) async throws -> [Certificate] {
        let validator = ChainValidator(roots: CertificateStore([root]), requiresKeyIdentifiers: strict)
        return try await validator.validate(
            leaf: try SignedDataFixtures.certificate("apple-library/\(leaf)"),
            intermediate: try SignedDataFixtures.certificate("apple-library/\(intermediate)"),
            signedDateMs: time
        )
    }

    @Test func realAppleLeafAndIntermediateChainToTheBuiltInRoot() async throws {
        let root = try Self.appleRoot()
        #expect(try SignedDataFixtures.certificate("apple-library/real-root-g3.b64") == root)
        let chain = try await validate("real-leaf-2021.b64", "real-intermediate-wwdr-g6.b64", root: root, at: Self.effectiveDate)
        #expect(chain.count == 3)
        #expect(chain[2] == root)
    }

    @Test func realAppleChainFailsOutsideTheLeafsValidity() async throws {
        let root = try Self.appleRoot()
        let leaf = try SignedDataFixtures.certificate("apple-library/real-leaf-2021.b64")
        let window = ValidityWindow(leaf, role: .leaf)
        for time in [window.notAfterMs + 1000, window.notBeforeMs - 1000] {
            await #expect(throws: window.error(signedDateMs: time)) {
                try await validate("real-leaf-2021.b64", "real-intermediate-wwdr-g6.b64", root: root, at: time)
            }
        }
    }

    /// Apple's test chain has no key identifiers, so Apple's libraries check it with strict checks
    /// off (Python's `enable_strict_checks=False`); so does this test. Strict, it is refused.
    @Test func applesTestChainAndItsWrongMarkerVariants() async throws {
        let root = try SignedDataFixtures.certificate("apple-library/test-root.b64")
        _ = try await validate("test-leaf.b64", "test-intermediate.b64", root: root, at: Self.effectiveDate, strict: false)
        await #expect(throws: SignedDataError.intermediateMissingAppleMarker) {
            try await validate(
                "test-leaf-under-wrong-oid-intermediate.b64", "test-intermediate-wrong-oid.b64", root: root,
                at: Self.effectiveDate, strict: false)
        }
        await #expect(throws: SignedDataError.leafMissingAppleMarker) {
            try await validate("test-leaf-wrong-oid.b64", "test-intermediate.b64", root: root, at: Self.effectiveDate, strict: false)
        }
        // Apple's test chain does not reach Apple's real root.
        await #expect(throws: SignedDataError.untrustedChain) {
            try await validate("test-leaf.b64", "test-intermediate.b64", root: try Self.appleRoot(), at: Self.effectiveDate, strict: false)
        }
        await #expect(throws: SignedDataError.missingSubjectKeyIdentifier(.intermediate)) {
            try await validate("test-leaf.b64", "test-intermediate.b64", root: root, at: Self.effectiveDate)
        }
    }

    /// A JWS made by Apple's library test signer: our verifier reads it when its root is the
    /// configured one, and refuses it under Apple's real root although x5c[2] holds that test root.
    @Test func applesMockSignedTransaction() async throws {
        let jws = try SignedDataFixtures.text("apple-library/mock-transactionInfo.jws")
        let mockRoot = try SignedDataFixtures.certificate("apple-library/mock-root.b64")
        let signedDate: Int64 = 1_672_956_154_000
        // Apple's mock chain lacks key identifiers, like its test chain: checked with strict checks off.
        let lenient = SignedDataVerifier(rootCertificates: [mockRoot], clock: { signedDate }, requiresKeyIdentifiers: false)
        let verified = try await lenient.verify(jws)
        #expect(verified.signedDateMs == signedDate)
        #expect(verified.type == "JWT")
        #expect(String(decoding: verified.payload, as: UTF8.self).contains("\"bundleId\":\"com.example\""))

        let apple = SignedDataVerifier(rootCertificates: [try Self.appleRoot()], clock: { signedDate })
        await #expect(throws: SignedDataError.untrustedChain) { try await apple.verify(jws) }
        let strict = SignedDataVerifier(rootCertificates: [mockRoot], clock: { signedDate })
        await #expect(throws: SignedDataError.missingSubjectKeyIdentifier(.intermediate)) { try await strict.verify(jws) }
    }
}
