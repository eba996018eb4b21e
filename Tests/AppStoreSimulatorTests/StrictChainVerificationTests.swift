@testable import AppStoreSimulator
import AppleSignedData
import Foundation
import SubReconTestSupport
import Testing
import X509

/// The simulator's chain passes the strict X.509 verification Apple's own libraries run (OpenSSL
/// with `-x509_strict`, and subrecon's verifier, which demands the same key identifiers), so a
/// backend using Apple's App Store Server Library can verify what it serves.
@Suite struct StrictChainVerificationTests {
    let now: Int64 = 1_716_192_930_417

    func options() -> SimulatorOptions {
        SimulatorOptions(sharedSecret: "secret", clock: SimulatedClock(nowMs: now).millisecondsClock)
    }

    /// A signed transaction, a renewal info and a notification, as served over loopback.
    func servedSignedItems(_ simulator: AppStoreSimulator, subscriberID: Int64) async throws -> [String] {
        let account = SimulatedScenario.active.subscriber(id: subscriberID, nowMs: now)
        simulator.register(account)
        let statuses = try jsonObject(try await apiGet(simulator.statusesURL(originalID(subscriberID))).body)
        let item = try #require(try lastTransactions(statuses).first?.item)
        simulator.makeNotification(.didRenew, for: account, atMs: now - 60_000)
        let history = try await apiPost(
            simulator.notificationHistoryURL(), json: ["startDate": now - 86_400_000, "endDate": now + 1])
        let notification = try #require(try jsonObject(history.body)["notificationHistory"] as? [[String: Any]]).first
        return [
            try #require(item["signedTransactionInfo"] as? String),
            try #require(item["signedRenewalInfo"] as? String),
            try #require(notification?["signedPayload"] as? String),
        ]
    }

    @Test func servedSignedItemsVerifyWithOpenSSLStrictAndSubreconsVerifier() async throws {
        try await withSimulator(options()) { simulator in
            let root = simulator.signingAuthority.rootCertificateDER
            let verifier = try SignedDataVerifier(rootPEM: simulator.rootCertificatePEM, clock: { now })
            for token in try await servedSignedItems(simulator, subscriberID: 11) {
                let jws = try DecodedJWS(token)
                let atSeconds = Int64(jws.signedDate.timeIntervalSince1970)
                let outcome = try OpenSSLVerify.verify(leaf: jws.x5c[0], intermediate: jws.x5c[1], root: root, atSeconds: atSeconds)
                #expect(outcome.accepted, "\(outcome)")
                _ = try await verifier.verify(token)
            }
        }
    }

    /// The check can fail: the foreign-root fault's chain is refused against the simulator's root
    /// (and accepted against its own, so only the root is wrong), and a chain like the simulator's
    /// before it had key identifiers is refused by strict verification only.
    @Test func strictVerificationRefusesAForeignRootAndAChainWithoutKeyIdentifiers() async throws {
        try await withSimulator(options()) { simulator in
            simulator.setFaults(.always(.foreignRoot), forSubscriberID: 12)
            let root = simulator.signingAuthority.rootCertificateDER
            let token = try #require(try await servedSignedItems(simulator, subscriberID: 12).first)
            let jws = try DecodedJWS(token)
            let atSeconds = Int64(jws.signedDate.timeIntervalSince1970)
            let foreign = try OpenSSLVerify.verify(leaf: jws.x5c[0], intermediate: jws.x5c[1], root: root, atSeconds: atSeconds)
            #expect(!foreign.accepted, "\(foreign)")
            let ownRoot = try OpenSSLVerify.verify(
                leaf: jws.x5c[0], intermediate: jws.x5c[1], root: jws.x5c[2], atSeconds: atSeconds)
            #expect(ownRoot.accepted, "\(ownRoot)")
        }

        // A chain shaped like the simulator's before it carried key identifiers, made here (from the
        // shared test PKI) so the refusal is the test's own.
        let wallMs = Int64(Date().timeIntervalSince1970 * 1000)
        let bare = try TestChain(
            rootName: "Bare Root CA", intermediateMarker: false, leafMarker: false,
            leafValidity: (wallMs - 86_400_000)...(wallMs + 86_400_000),
            subjectKeyIdentifiers: false, authorityKeyIdentifiers: false)
        let (leaf, intermediate, root) = (try derBytes(bare.leaf), try derBytes(bare.intermediate), try derBytes(bare.root))
        let atSeconds = wallMs / 1000
        let strict = try OpenSSLVerify.verify(leaf: leaf, intermediate: intermediate, root: root, atSeconds: atSeconds)
        #expect(!strict.accepted)
        #expect(strict.output.contains("Authority Key Identifier") || strict.output.contains("Subject Key Identifier"), "\(strict)")
        let lenient = try OpenSSLVerify.verify(
            leaf: leaf, intermediate: intermediate, root: root, atSeconds: atSeconds, strict: false)
        #expect(lenient.accepted, "only the identifiers are missing: \(lenient)")
    }

    /// Each broken chain keeps exactly its one defect: OpenSSL (which knows nothing of Apple's
    /// markers) accepts all but the expired leaf's and the foreign root's.
    @Test(arguments: SimulatedSigningAuthority.ChainKind.allCases)
    func brokenChainsKeepOneDefectUnderStrictVerification(kind: SimulatedSigningAuthority.ChainKind) throws {
        let authority = try SimulatedSigningAuthority(nowMs: now)
        let chain = authority.chain(kind).certificatesDER
        let outcome = try OpenSSLVerify.verify(
            leaf: chain[0], intermediate: chain[1], root: authority.rootCertificateDER, atSeconds: now / 1000)
        switch kind {
        case .valid, .badSignature, .leafWithoutMarker, .intermediateWithoutMarker:
            #expect(outcome.accepted, "\(outcome)")
        case .expiredLeaf:
            #expect(!outcome.accepted && outcome.output.contains("expired"), "\(outcome)")
        case .foreignRoot:
            #expect(!outcome.accepted, "\(outcome)")
            let own = try OpenSSLVerify.verify(leaf: chain[0], intermediate: chain[1], root: chain[2], atSeconds: now / 1000)
            #expect(own.accepted, "\(own)")
        }
    }

    /// The shape of Apple's chain: identifiers linking each certificate to its issuer, names within
    /// RFC 5280's 64 characters, nested validity windows, Apple's constraints and key usages.
    @Test(arguments: SimulatedSigningAuthority.ChainKind.allCases)
    func everyChainIsShapedLikeApples(kind: SimulatedSigningAuthority.ChainKind) throws {
        let authority = try SimulatedSigningAuthority(nowMs: now)
        let chain = try authority.chain(kind).certificatesDER.map { try Certificate(derEncoded: $0) }
        let (leaf, intermediate, root) = (chain[0], chain[1], chain[2])
        for certificate in chain {
            for attribute in certificate.subject.flatMap({ $0 }) {
                let text = try #require(String(attribute.value))
                #expect(text.count <= 64, "RFC 5280's upper bound: \(attribute)")
            }
            #expect(try certificate.extensions.subjectKeyIdentifier != nil)
        }
        #expect(try root.extensions.authorityKeyIdentifier == nil, "a root has none, as Apple Root CA - G3")
        #expect(
            try intermediate.extensions.authorityKeyIdentifier?.keyIdentifier == root.extensions.subjectKeyIdentifier?.keyIdentifier)
        #expect(try leaf.extensions.authorityKeyIdentifier?.keyIdentifier == intermediate.extensions.subjectKeyIdentifier?.keyIdentifier)

        #expect(root.notValidBefore <= intermediate.notValidBefore && intermediate.notValidAfter <= root.notValidAfter)
        #expect(intermediate.notValidBefore <= leaf.notValidBefore && leaf.notValidAfter <= intermediate.notValidAfter)

        #expect(try root.extensions.basicConstraints == .isCertificateAuthority(maxPathLength: nil))
        #expect(try intermediate.extensions.basicConstraints == .isCertificateAuthority(maxPathLength: 0))
        #expect(try leaf.extensions.basicConstraints == .notCertificateAuthority)
        #expect(try leaf.extensions.keyUsage == KeyUsage(digitalSignature: true))
        #expect(try intermediate.extensions.keyUsage == KeyUsage(keyCertSign: true, cRLSign: true))
        for certificate in chain {
            #expect(certificate.extensions[oid: .X509ExtensionID.basicConstraints]?.critical == true)
            #expect(certificate.extensions[oid: .X509ExtensionID.keyUsage]?.critical == true)
        }
    }
}
