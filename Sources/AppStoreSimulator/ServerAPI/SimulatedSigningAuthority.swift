import Crypto
import Foundation
import Synchronization
import SwiftASN1
import X509

/// The simulator's stand-in for Apple's PKI: a root CA, an intermediate carrying Apple's WWDR
/// marker extension (OID 1.2.840.113635.100.6.2.1) and a P-256 leaf carrying the App Store
/// receipt-signing marker (OID 1.2.840.113635.100.6.11.1), all made once per simulator, so signed data
/// verifies against `rootCertificatePEM` exactly as Apple's does against Apple Root CA - G3.
///
/// The certificates are shaped like Apple's (see Apple Root CA - G3, WWDR CA G6 and the "Prod
/// ECC Mac App Store and iTunes Store Receipt Signing" leaf): a Subject Key Identifier on each,
/// an Authority Key Identifier (the issuer's SKI) on the intermediate and the leaf, critical
/// BasicConstraints (the intermediate with path length 0) and KeyUsage, and names within RFC
/// 5280's upper bounds (64 characters), because strict X.509 verifiers (OpenSSL's `X509_STRICT`,
/// which Apple's own libraries use) refuse a chain without the identifiers.
///
/// It also holds the broken chains the trust-failure faults sign with (see `SigningChain.Kind`):
/// each differs from the good chain by exactly one defect, so a verifier test can tell which
/// check caught it.
///
/// Validity windows are around the clock's "now" at creation and nest as Apple's do: the root
/// from 10 years before to 20 years after, the intermediate from 5 years before to 15 after, the
/// leaf from 1 year before (so old `signedDate`s verify) to 2 years after; the expired leaf ended
/// 30 days before.
public final class SimulatedSigningAuthority: Sendable {
    /// Apple's marker on the WWDR intermediate (presence is what verifiers check).
    public static let intermediateMarkerOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 2, 1]
    /// Apple's marker on the receipt-signing leaf.
    public static let leafMarkerOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 11, 1]

    /// Which defect, if any, a chain carries (public so tests can forge notifications with one;
    /// see `NotificationSigning`).
    public enum ChainKind: String, CaseIterable, Sendable {
        /// The good chain: leaf, intermediate, the simulator's root.
        case valid
        /// The good chain, but the JWS is signed by a key that is not the leaf's.
        case badSignature
        /// A leaf without the 1.2.840.113635.100.6.11.1 extension (same key, same issuer).
        case leafWithoutMarker
        /// An intermediate without the 1.2.840.113635.100.6.2.1 extension (same name and key,
        /// so the good leaf chains to it).
        case intermediateWithoutMarker
        /// A complete, well-formed chain under another root, which is sent as `x5c[2]`.
        case foreignRoot
        /// A leaf (same key) whose validity ended 30 days before the authority was made.
        case expiredLeaf
    }

    /// One certificate chain (as `x5c` wants it) and the key that signs with it.
    struct SigningChain: Sendable {
        typealias Kind = ChainKind

        /// Standard base64 (padded) DER of leaf, intermediate, root: the JWS header's `x5c`.
        let x5c: [String]
        /// DER of the same three certificates.
        let certificatesDER: [[UInt8]]
        let signingKey: SigningKey
        /// `base64url({"alg":"ES256","x5c":[...]})`, made once.
        let encodedHeader: [UInt8]
    }

    /// A P-256 private key shared by concurrent requests. `@unchecked`: swift-crypto's key is an
    /// immutable wrapper around a BoringSSL key that is only read (signing does not mutate it).
    final class SigningKey: @unchecked Sendable {
        let key: P256.Signing.PrivateKey
        init(_ key: P256.Signing.PrivateKey = P256.Signing.PrivateKey()) { self.key = key }
    }

    private let chains: [SigningChain.Kind: SigningChain]
    /// The root every good signature chains to, as PEM (for `SUBRECON_APPLE_ROOT_CA_FILE`).
    public let rootCertificatePEM: String
    /// The same root as DER.
    public let rootCertificateDER: [UInt8]
    /// DER of the good chain's leaf, intermediate and root, in `x5c` order.
    public var validChainDER: [[UInt8]] { chain(.valid).certificatesDER }
    /// X9.63 bytes of the good leaf's public key (what every good signature verifies with).
    public let leafPublicKeyX963: [UInt8]

    /// Makes every chain; `nowMs` anchors the validity windows.
    public init(nowMs: Int64) throws {
        let now = Date(timeIntervalSince1970: Double(nowMs) / 1000)
        let year: TimeInterval = 365 * 86_400
        let day: TimeInterval = 86_400

        let rootKey = P384.Signing.PrivateKey()
        let intermediateKey = P384.Signing.PrivateKey()
        let leafKey = SigningKey()
        let rootName = try Self.name("Simulated Apple Root CA - G3", unit: "Simulated Apple Certification Authority")
        let intermediateName = try Self.name("Simulated Apple WWDR Certification Authority", unit: "G6")
        let leafName = try Self.name(
            "Simulated Prod ECC Mac App Store and iTunes Receipt Signing",
            unit: "Simulated Apple Worldwide Developer Relations")
        let rootValidity = (from: now - 10 * year, to: now + 20 * year)
        let intermediateValidity = (from: now - 5 * year, to: now + 15 * year)
        let leafValidity = (from: now - year, to: now + 2 * year)

        let root = try Self.certificate(
            .root, publicKey: .init(rootKey.publicKey), subject: rootName, issuer: rootName, issuerKey: rootKey,
            validity: rootValidity)
        let intermediate = try Self.certificate(
            .intermediate, publicKey: .init(intermediateKey.publicKey), subject: intermediateName, issuer: rootName,
            issuerKey: rootKey, validity: intermediateValidity, marker: Self.intermediateMarkerOID)
        let intermediateWithoutMarker = try Self.certificate(
            .intermediate, publicKey: .init(intermediateKey.publicKey), subject: intermediateName, issuer: rootName,
            issuerKey: rootKey, validity: intermediateValidity)
        func leaf(marker: ASN1ObjectIdentifier?, validity: (from: Date, to: Date)) throws -> Certificate {
            try Self.certificate(
                .leaf, publicKey: .init(leafKey.key.publicKey), subject: leafName, issuer: intermediateName,
                issuerKey: intermediateKey, validity: validity, marker: marker)
        }
        let goodLeaf = try leaf(marker: Self.leafMarkerOID, validity: leafValidity)
        let unmarkedLeaf = try leaf(marker: nil, validity: leafValidity)
        let expiredLeaf = try leaf(marker: Self.leafMarkerOID, validity: (from: now - 2 * year, to: now - 30 * day))

        // The foreign chain: same shape, names (but the root's) and markers, another root.
        let foreignRootKey = P384.Signing.PrivateKey()
        let foreignIntermediateKey = P384.Signing.PrivateKey()
        let foreignLeafKey = SigningKey()
        let foreignRootName = try Self.name("Foreign Root CA", organization: "Not Apple")
        let foreignRoot = try Self.certificate(
            .root, publicKey: .init(foreignRootKey.publicKey), subject: foreignRootName, issuer: foreignRootName,
            issuerKey: foreignRootKey, validity: rootValidity)
        let foreignIntermediate = try Self.certificate(
            .intermediate, publicKey: .init(foreignIntermediateKey.publicKey), subject: intermediateName,
            issuer: foreignRootName, issuerKey: foreignRootKey, validity: intermediateValidity,
            marker: Self.intermediateMarkerOID)
        let foreignLeaf = try Self.certificate(
            .leaf, publicKey: .init(foreignLeafKey.key.publicKey), subject: leafName, issuer: intermediateName,
            issuerKey: foreignIntermediateKey, validity: leafValidity, marker: Self.leafMarkerOID)

        var chains: [SigningChain.Kind: SigningChain] = [:]
        for kind in SigningChain.Kind.allCases {
            let certificates: [Certificate]
            var key = leafKey
            switch kind {
            case .valid: certificates = [goodLeaf, intermediate, root]
            case .badSignature:
                certificates = [goodLeaf, intermediate, root]
                key = SigningKey()
            case .leafWithoutMarker: certificates = [unmarkedLeaf, intermediate, root]
            case .intermediateWithoutMarker: certificates = [goodLeaf, intermediateWithoutMarker, root]
            case .foreignRoot:
                certificates = [foreignLeaf, foreignIntermediate, foreignRoot]
                key = foreignLeafKey
            case .expiredLeaf: certificates = [expiredLeaf, intermediate, root]
            }
            let der = try certificates.map(Self.derBytes)
            let x5c = der.map { Data($0).base64EncodedString() }
            chains[kind] = SigningChain(
                x5c: x5c, certificatesDER: der, signingKey: key, encodedHeader: SimulatedJWSSigner.encodedHeader(x5c: x5c))
        }
        self.chains = chains
        rootCertificatePEM = try root.serializeAsPEM().pemString + "\n"
        rootCertificateDER = try Self.derBytes(root)
        leafPublicKeyX963 = Array(leafKey.key.publicKey.x963Representation)
    }

    /// The chain of `kind` (all kinds are made at creation).
    func chain(_ kind: SigningChain.Kind) -> SigningChain {
        chains[kind]!
    }

    private static func name(
        _ commonName: String, organization: String = "subrecon App Store Simulator", unit: String? = nil
    ) throws -> DistinguishedName {
        try DistinguishedName {
            CountryName("US")
            OrganizationName(organization)
            if let unit { OrganizationalUnitName(unit) }
            CommonName(commonName)
        }
    }

    private static func derBytes(_ certificate: Certificate) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes
    }

    /// ASN.1 NULL, the value of the marker extensions (only their presence matters).
    private static func marker(_ oid: ASN1ObjectIdentifier) -> Certificate.Extension {
        Certificate.Extension(oid: oid, critical: false, value: [0x05, 0x00])
    }

    /// Where a certificate stands in the chain, which decides its constraints and identifiers.
    private enum Role {
        case root, intermediate, leaf
    }

    /// A certificate with the extensions Apple's certificate in the same `role` has (but the
    /// marker, given apart): critical BasicConstraints and KeyUsage, the SKI of `publicKey`, and,
    /// below the root, the AKI naming `issuerKey`'s SKI.
    private static func certificate(
        _ role: Role, publicKey: Certificate.PublicKey, subject: DistinguishedName, issuer: DistinguishedName,
        issuerKey: P384.Signing.PrivateKey, validity: (from: Date, to: Date), marker oid: ASN1ObjectIdentifier? = nil
    ) throws -> Certificate {
        let issuerKeyIdentifier = SubjectKeyIdentifier(hash: .init(issuerKey.publicKey)).keyIdentifier
        var extensions = try Certificate.Extensions {
            switch role {
            case .root:
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
            case .intermediate:
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
            case .leaf:
                Critical(BasicConstraints.notCertificateAuthority)
            }
            if role != .root {
                AuthorityKeyIdentifier(keyIdentifier: issuerKeyIdentifier)
            }
            SubjectKeyIdentifier(hash: publicKey)
            if role == .leaf {
                Critical(KeyUsage(digitalSignature: true))
            } else {
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            }
        }
        if let oid { try extensions.append(marker(oid)) }
        return try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: publicKey,
            notValidBefore: validity.from, notValidAfter: validity.to, issuer: issuer, subject: subject,
            signatureAlgorithm: .ecdsaWithSHA384, extensions: extensions,
            issuerPrivateKey: Certificate.PrivateKey(issuerKey))
    }
}

/// A `SimulatedSigningAuthority` made on first use, so a simulator that only serves verifyReceipt
/// never pays for its keys and certificates (tens of milliseconds in a debug build).
final class LazySigningAuthority: Sendable {
    private let clock: MillisecondsClock
    private let cell: Mutex<SimulatedSigningAuthority?>

    /// Made at the first `value`, with validity windows around `clock()` then.
    init(clock: @escaping MillisecondsClock) {
        self.clock = clock
        cell = Mutex(nil)
    }

    /// Wraps one already made.
    init(_ authority: SimulatedSigningAuthority) {
        clock = { 0 }
        cell = Mutex(authority)
    }

    var value: SimulatedSigningAuthority {
        cell.withLock { cell in
            if let authority = cell { return authority }
            do {
                let authority = try SimulatedSigningAuthority(nowMs: clock())
                cell = authority
                return authority
            } catch {
                // Only fixed names, fresh keys and dates near now go in: this cannot fail in practice.
                preconditionFailure("could not make the simulator's certificate chain: \(error)")
            }
        }
    }
}
