import Crypto
import Foundation
import SwiftASN1
import X509

/// Unix milliseconds of a UTC calendar day (tests speak in dates, the verifier in ms).
public func unixMs(_ year: Int, _ month: Int, _ day: Int) -> Int64 {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    let date = calendar.date(from: DateComponents(year: year, month: month, day: day))!
    return Int64(date.timeIntervalSince1970 * 1000)
}

private func date(_ unixMs: Int64) -> Date {
    Date(timeIntervalSince1970: Double(unixMs) / 1000)
}

/// A certificate's DER encoding.
public func derBytes(_ certificate: Certificate) throws -> [UInt8] {
    var serializer = DER.Serializer()
    try serializer.serialize(certificate)
    return serializer.serializedBytes
}

/// A three-certificate chain shaped like Apple's (root → intermediate with the WWDR marker →
/// leaf with the receipt-signing marker; Subject Key Identifiers on all, Authority Key
/// Identifiers below the root), all P-256, built in memory with swift-certificates.
/// Immutable once built; `@unchecked` only because swift-crypto 3 keys are not marked Sendable.
public struct TestChain: @unchecked Sendable {
    public static let intermediateMarker: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 2, 1]
    public static let leafMarker: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 11, 1]
    /// ASN.1 NULL, the value of both markers in Apple's certificates.
    public static let markerValue: [UInt8] = [0x05, 0x00]

    /// Leaf validity unless told otherwise; signed dates in tests fall inside it.
    public static let leafValidity = unixMs(2025, 1, 1)...unixMs(2026, 1, 1)
    /// A signedDate inside every default window, and a "now" one minute later.
    public static let signedDate = unixMs(2025, 6, 1)
    public static let now = signedDate + 60_000

    public let rootKey: P256.Signing.PrivateKey
    public let intermediateKey: P256.Signing.PrivateKey
    public let leafKey: P256.Signing.PrivateKey
    public let root: Certificate
    public let intermediate: Certificate
    public let leaf: Certificate

    /// - Parameters:
    ///   - root: reuse this root (and its key) instead of making one.
    ///   - rootName: the common name of a new root.
    ///   - subjectKeyIdentifiers: false leaves the SKI out of every certificate made here.
    ///   - authorityKeyIdentifiers: false leaves the AKI out of the intermediate and the leaf.
    ///   - leafAuthorityKeyIdentifier: the leaf's AKI instead of the intermediate's SKI.
    public init(
        rootName: String = "Test Root CA",
        root existing: (certificate: Certificate, key: P256.Signing.PrivateKey)? = nil,
        intermediateMarker: Bool = true,
        leafMarker: Bool = true,
        leafValidity: ClosedRange<Int64> = TestChain.leafValidity,
        leafPublicKey: Certificate.PublicKey? = nil,
        subjectKeyIdentifiers: Bool = true,
        authorityKeyIdentifiers: Bool = true,
        leafAuthorityKeyIdentifier: ArraySlice<UInt8>? = nil
    ) throws {
        let rootKey = existing?.key ?? P256.Signing.PrivateKey()
        let rootSubject = try DistinguishedName { CommonName(rootName) }
        let root =
            try existing?.certificate
            ?? Certificate(
                version: .v3,
                serialNumber: .init(),
                publicKey: .init(rootKey.publicKey),
                notValidBefore: date(unixMs(2015, 1, 1)),
                notValidAfter: date(unixMs(2040, 1, 1)),
                issuer: rootSubject,
                subject: rootSubject,
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                    KeyUsage(keyCertSign: true)
                    if subjectKeyIdentifiers { SubjectKeyIdentifier(hash: .init(rootKey.publicKey)) }
                },
                issuerPrivateKey: .init(rootKey)
            )

        let intermediateKey = P256.Signing.PrivateKey()
        let intermediateSubject = try DistinguishedName { CommonName("Test WWDR Intermediate") }
        var intermediateExtensions = try Certificate.Extensions {
            Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
            KeyUsage(keyCertSign: true)
            if authorityKeyIdentifiers { AuthorityKeyIdentifier(keyIdentifier: SubjectKeyIdentifier(hash: root.publicKey).keyIdentifier) }
            if subjectKeyIdentifiers { SubjectKeyIdentifier(hash: .init(intermediateKey.publicKey)) }
        }
        if intermediateMarker {
            try intermediateExtensions.append(
                .init(oid: Self.intermediateMarker, critical: false, value: Self.markerValue[...])
            )
        }
        let intermediate = try Certificate(
            version: .v3,
            serialNumber: .init(),
            publicKey: .init(intermediateKey.publicKey),
            notValidBefore: date(unixMs(2020, 1, 1)),
            notValidAfter: date(unixMs(2035, 1, 1)),
            issuer: root.subject,
            subject: intermediateSubject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: intermediateExtensions,
            issuerPrivateKey: .init(rootKey)
        )

        let leafKey = P256.Signing.PrivateKey()
        var leafExtensions = try Certificate.Extensions {
            Critical(BasicConstraints.notCertificateAuthority)
            KeyUsage(digitalSignature: true)
            if authorityKeyIdentifiers {
                AuthorityKeyIdentifier(
                    keyIdentifier: leafAuthorityKeyIdentifier
                        ?? SubjectKeyIdentifier(hash: .init(intermediateKey.publicKey)).keyIdentifier)
            }
            if subjectKeyIdentifiers { SubjectKeyIdentifier(hash: leafPublicKey ?? .init(leafKey.publicKey)) }
        }
        if leafMarker {
            try leafExtensions.append(.init(oid: Self.leafMarker, critical: false, value: Self.markerValue[...]))
        }
        let leaf = try Certificate(
            version: .v3,
            serialNumber: .init(),
            publicKey: leafPublicKey ?? .init(leafKey.publicKey),
            notValidBefore: date(leafValidity.lowerBound),
            notValidAfter: date(leafValidity.upperBound),
            issuer: intermediateSubject,
            subject: try DistinguishedName { CommonName("Test Receipt Signing Leaf") },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: leafExtensions,
            issuerPrivateKey: .init(intermediateKey)
        )

        self.rootKey = rootKey
        self.intermediateKey = intermediateKey
        self.leafKey = leafKey
        self.root = root
        self.intermediate = intermediate
        self.leaf = leaf
    }

    /// `x5c` as Apple sends it: leaf, intermediate, root.
    public func x5c() throws -> [[UInt8]] {
        try [leaf, intermediate, root].map(derBytes)
    }
}
