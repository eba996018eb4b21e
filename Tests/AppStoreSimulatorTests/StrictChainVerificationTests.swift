@testable import AppStoreSimulator
import AppleSignedData
import Crypto
import Foundation
import SwiftASN1
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

        let bare = try ChainWithoutKeyIdentifiers()
        let atSeconds = Int64(Date().timeIntervalSince1970)
        let strict = try OpenSSLVerify.verify(leaf: bare.leaf, intermediate: bare.intermediate, root: bare.root, atSeconds: atSeconds)
        #expect(!strict.accepted)
        #expect(strict.output.contains("Authority Key Identifier") || strict.output.contains("Subject Key Identifier"), "\(strict)")
        let lenient = try OpenSSLVerify.verify(
            leaf: bare.leaf, intermediate: bare.intermediate, root: bare.root, atSeconds: atSeconds, strict: false)
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

/// A chain shaped like the simulator's before it carried key identifiers: what strict
/// verification must refuse, made here so the refusal is the test's own.
private struct ChainWithoutKeyIdentifiers {
    let leaf: [UInt8]
    let intermediate: [UInt8]
    let root: [UInt8]

    init() throws {
        let rootKey = P384.Signing.PrivateKey()
        let intermediateKey = P384.Signing.PrivateKey()
        let rootName = try DistinguishedName { CommonName("Bare Root CA") }
        let intermediateName = try DistinguishedName { CommonName("Bare Intermediate CA") }
        let now = Date()
        let authority = try Certificate.Extensions {
            Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
            Critical(KeyUsage(keyCertSign: true, cRLSign: true))
        }
        func serialized(_ certificate: Certificate) throws -> [UInt8] {
            var serializer = DER.Serializer()
            try serializer.serialize(certificate)
            return serializer.serializedBytes
        }
        root = try serialized(
            Certificate(
                version: .v3, serialNumber: .init(), publicKey: .init(rootKey.publicKey),
                notValidBefore: now - 86_400, notValidAfter: now + 86_400, issuer: rootName, subject: rootName,
                signatureAlgorithm: .ecdsaWithSHA384, extensions: authority, issuerPrivateKey: .init(rootKey)))
        intermediate = try serialized(
            Certificate(
                version: .v3, serialNumber: .init(), publicKey: .init(intermediateKey.publicKey),
                notValidBefore: now - 86_400, notValidAfter: now + 86_400, issuer: rootName, subject: intermediateName,
                signatureAlgorithm: .ecdsaWithSHA384, extensions: authority, issuerPrivateKey: .init(rootKey)))
        leaf = try serialized(
            Certificate(
                version: .v3, serialNumber: .init(), publicKey: .init(P256.Signing.PrivateKey().publicKey),
                notValidBefore: now - 86_400, notValidAfter: now + 86_400, issuer: intermediateName,
                subject: try DistinguishedName { CommonName("Bare Leaf") }, signatureAlgorithm: .ecdsaWithSHA384,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.notCertificateAuthority)
                    Critical(KeyUsage(digitalSignature: true))
                },
                issuerPrivateKey: .init(intermediateKey)))
    }
}
