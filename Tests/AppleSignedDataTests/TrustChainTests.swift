import AppleSignedData
import Crypto
import Foundation
import SubReconTestSupport
import Testing
import X509

/// Check 5: leaf → intermediate → configured root, valid at signedDate, with Apple's markers.
@Suite struct TrustChainTests {
    let chain = TestChains.standard

    @Test func refusesALeafWithoutTheReceiptSigningMarker() async throws {
        let unmarked = try TestChain(leafMarker: false)
        await #expect(throws: SignedDataError.leafMissingAppleMarker) {
            try await unmarked.verifier().verify(try unmarked.jws())
        }
    }

    @Test func refusesAnIntermediateWithoutTheWWDRMarker() async throws {
        let unmarked = try TestChain(intermediateMarker: false)
        await #expect(throws: SignedDataError.intermediateMissingAppleMarker) {
            try await unmarked.verifier().verify(try unmarked.jws())
        }
    }

    /// Strict verifiers (OpenSSL's X509_STRICT, so Apple's libraries) refuse a chain without the
    /// Authority Key Identifier; subrecon does too, unless told not to, as Apple's libraries can be.
    @Test func refusesAChainWithoutAuthorityKeyIdentifiers() async throws {
        let bare = try TestChain(authorityKeyIdentifiers: false)
        await #expect(throws: SignedDataError.missingAuthorityKeyIdentifier(.leaf)) {
            try await bare.verifier().verify(try bare.jws())
        }
        let lenient = SignedDataVerifier(rootCertificates: [bare.root], clock: { TestChain.now }, requiresKeyIdentifiers: false)
        _ = try await lenient.verify(try bare.jws())
    }

    @Test func refusesAChainWithoutSubjectKeyIdentifiers() async throws {
        let bare = try TestChain(subjectKeyIdentifiers: false)
        await #expect(throws: SignedDataError.missingSubjectKeyIdentifier(.intermediate)) {
            try await bare.verifier().verify(try bare.jws())
        }
    }

    /// An AKI naming another key than the issuer's SKI: OpenSSL finds no issuer for such a leaf.
    @Test func refusesALeafWhoseAuthorityKeyIdentifierNamesAnotherKey() async throws {
        let other = SubjectKeyIdentifier(hash: .init(P256.Signing.PrivateKey().publicKey)).keyIdentifier
        let mismatched = try TestChain(leafAuthorityKeyIdentifier: other)
        await #expect(throws: SignedDataError.authorityKeyIdentifierMismatch(.leaf)) {
            try await mismatched.verifier().verify(try mismatched.jws())
        }
    }

    /// A complete, valid chain to a root we do not trust, that root sitting in x5c[2].
    @Test func refusesAChainToAForeignRootEvenWhenX5CCarriesIt() async throws {
        let foreign = try TestChain(rootName: "Foreign Root CA")
        #expect(try foreign.x5c()[2] == derBytes(foreign.root))
        // It is a good chain for a verifier that does trust that root…
        _ = try await foreign.verifier().verify(try foreign.jws())
        // …but not for ours.
        await #expect(throws: SignedDataError.untrustedChain) {
            try await chain.verifier().verify(try foreign.jws())
        }
    }

    /// A forged root with the trusted root's exact name but another key.
    @Test func refusesAChainToARootImpersonatingTheTrustedOne() async throws {
        let impostor = try TestChain(rootName: "Test Root CA")
        #expect(impostor.root.subject == chain.root.subject)
        await #expect(throws: SignedDataError.untrustedChain) {
            try await chain.verifier().verify(try impostor.jws())
        }
    }

    /// x5c[2] is neither trusted nor needed: any certificate there changes nothing.
    @Test func ignoresWhateverX5CTwoHolds() async throws {
        let foreign = try TestChain(rootName: "Foreign Root CA")
        var x5c = try chain.x5c()
        x5c[2] = try derBytes(foreign.root)
        let jws = try JWSSigner(privateKey: chain.leafKey, certificateChain: x5c).sign(payload: payload())
        let verified = try await chain.verifier().verify(jws)
        #expect(verified.signedDateMs == TestChain.signedDate)
    }

    /// An intermediate with the right name under the right root, but not the leaf's signer.
    @Test func refusesAnIntermediateThatIsNotTheLeafsIssuer() async throws {
        let other = try TestChain(root: (chain.root, chain.rootKey))
        var x5c = try chain.x5c()
        x5c[1] = try derBytes(other.intermediate)
        let jws = try JWSSigner(privateKey: chain.leafKey, certificateChain: x5c).sign(payload: payload())
        await #expect(throws: SignedDataError.untrustedChain) { try await chain.verifier().verify(jws) }
    }

    @Test func refusesDataSignedAfterTheLeafExpired() async throws {
        let expiry = TestChain.leafValidity.upperBound
        let signed = expiry + 1
        await #expect(
            throws: SignedDataError.certificateNotValidAtSignedDate(
                .leaf, notBeforeMs: TestChain.leafValidity.lowerBound, notAfterMs: expiry, signedDateMs: signed)
        ) {
            try await chain.verifier(now: signed).verify(try chain.jws(signedDateMs: signed))
        }
        // The last valid millisecond is accepted.
        _ = try await chain.verifier(now: expiry).verify(try chain.jws(signedDateMs: expiry))
    }

    @Test func refusesDataSignedBeforeTheLeafWasIssued() async throws {
        let signed = TestChain.leafValidity.lowerBound - 1
        await #expect(
            throws: SignedDataError.certificateNotValidAtSignedDate(
                .leaf, notBeforeMs: TestChain.leafValidity.lowerBound, notAfterMs: TestChain.leafValidity.upperBound,
                signedDateMs: signed)
        ) {
            try await chain.verifier().verify(try chain.jws(signedDateMs: signed))
        }
    }

    /// Old data stays verifiable after its leaf expired: validation uses signedDate, not now.
    @Test func validatesAtSignedDateNotNow() async throws {
        let muchLater = unixMs(2030, 1, 1)
        let verified = try await chain.verifier(now: muchLater).verify(try chain.jws())
        #expect(verified.signedDateMs == TestChain.signedDate)
    }

    @Test func rootPEMInitAcceptsSeveralCertificatesAndRefusesJunk() async throws {
        let foreign = try TestChain(rootName: "Foreign Root CA")
        let pem = try [foreign.root, chain.root].map { try $0.serializeAsPEM().pemString }.joined(separator: "\n")
        let verifier = try SignedDataVerifier(rootPEM: pem, clock: { TestChain.now })
        _ = try await verifier.verify(try chain.jws())
        _ = try await verifier.verify(try foreign.jws())

        #expect(throws: RootCertificateError.notPEM) { try SignedDataVerifier(rootPEM: "not a pem") }
        let key = P256.Signing.PrivateKey().pemRepresentation
        #expect(throws: RootCertificateError.notACertificate(index: 1)) {
            try SignedDataVerifier(rootPEM: try chain.root.serializeAsPEM().pemString + "\n" + key)
        }
    }

    /// Other tools wrap base64 at 76 characters (as GNU `base64` does by default); still accepted.
    @Test func rootPEMInitAcceptsAnyLineLength() async throws {
        let lines = AppleRootCertificates.appleRootCAG3.split(separator: "\n")
        let body = lines.filter { !$0.hasPrefix("-----") }.joined()
        var rewrapped = "subject=CN = Apple Root CA - G3\r\n-----BEGIN CERTIFICATE-----\r\n"
        var rest = Substring(body)
        while !rest.isEmpty {
            rewrapped += rest.prefix(76) + "\r\n"
            rest = rest.dropFirst(76)
        }
        rewrapped += "-----END CERTIFICATE-----\r\n"
        let verifier = try SignedDataVerifier(rootPEM: rewrapped)
        _ = try await verifier.verify(try SignedDataFixtures.text("apple-sandbox-transaction.jws"))
        #expect(throws: RootCertificateError.notPEM) {
            try SignedDataVerifier(rootPEM: "-----BEGIN CERTIFICATE-----\n" + body)
        }
        #expect(throws: RootCertificateError.notACertificate(index: 0)) {
            try SignedDataVerifier(rootPEM: "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----")
        }
    }

    @Test func theBuiltInAppleRootIsAppleRootCAG3() throws {
        let root = try Certificate(pemEncoded: AppleRootCertificates.appleRootCAG3)
        let fingerprint = SHA256.hash(data: try derBytes(root)).map { String(format: "%02X", $0) }.joined(separator: ":")
        #expect(fingerprint == "63:34:3A:BF:B8:9A:6A:03:EB:B5:7E:9B:3F:5F:A7:BE:7C:4F:5C:75:6F:30:17:B3:A8:C4:88:C3:65:3E:91:79")
        #expect(root.subject.description.contains("Apple Root CA - G3"))
    }
}
