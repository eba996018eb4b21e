import AppleSignedData
import Crypto
import Foundation
import SwiftASN1
import X509

/// Unix milliseconds of a UTC calendar day (tests speak in dates, the verifier in ms).
func unixMs(_ year: Int, _ month: Int, _ day: Int) -> Int64 {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    let date = calendar.date(from: DateComponents(year: year, month: month, day: day))!
    return Int64(date.timeIntervalSince1970 * 1000)
}

func date(_ unixMs: Int64) -> Date {
    Date(timeIntervalSince1970: Double(unixMs) / 1000)
}

func derBytes(_ certificate: Certificate) throws -> [UInt8] {
    var serializer = DER.Serializer()
    try serializer.serialize(certificate)
    return serializer.serializedBytes
}

/// A three-certificate chain shaped like Apple's (root → intermediate with the WWDR marker →
/// leaf with the receipt-signing marker; Subject Key Identifiers on all, Authority Key
/// Identifiers below the root), all P-256, built in memory with swift-certificates.
/// Immutable once built; `@unchecked` only because swift-crypto 3 keys are not marked Sendable.
struct TestChain: @unchecked Sendable {
    static let intermediateMarker: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 2, 1]
    static let leafMarker: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 11, 1]
    /// ASN.1 NULL, the value of both markers in Apple's certificates.
    static let markerValue: [UInt8] = [0x05, 0x00]

    /// Leaf validity unless told otherwise; signed dates in tests fall inside it.
    static let leafValidity = unixMs(2025, 1, 1)...unixMs(2026, 1, 1)
    /// A signedDate inside every default window, and a "now" one minute later.
    static let signedDate = unixMs(2025, 6, 1)
    static let now = signedDate + 60_000

    let rootKey: P256.Signing.PrivateKey
    let intermediateKey: P256.Signing.PrivateKey
    let leafKey: P256.Signing.PrivateKey
    let root: Certificate
    let intermediate: Certificate
    let leaf: Certificate

    /// - Parameters:
    ///   - root: reuse this root (and its key) instead of making one.
    ///   - rootName: the common name of a new root.
    ///   - subjectKeyIdentifiers: false leaves the SKI out of every certificate made here.
    ///   - authorityKeyIdentifiers: false leaves the AKI out of the intermediate and the leaf.
    ///   - leafAuthorityKeyIdentifier: the leaf's AKI instead of the intermediate's SKI.
    init(
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
    func x5c() throws -> [[UInt8]] {
        try [leaf, intermediate, root].map(derBytes)
    }

    func signer() throws -> JWSSigner {
        JWSSigner(privateKey: leafKey, certificateChain: try x5c())
    }

    /// A verifier trusting only this chain's root, with the test clock.
    func verifier(now: Int64 = TestChain.now) -> SignedDataVerifier {
        SignedDataVerifier(rootCertificates: [root], clock: { now })
    }

    /// A JWS of a small transaction-like payload signed at `signedDateMs`.
    func jws(signedDateMs: Int64 = TestChain.signedDate, bundleID: String = "com.example") throws -> String {
        try signer().sign(payload: payload(signedDateMs: signedDateMs, bundleID: bundleID))
    }
}

func payload(signedDateMs: Int64 = TestChain.signedDate, bundleID: String = "com.example") -> [UInt8] {
    Array(#"{"bundleId":"\#(bundleID)","environment":"Sandbox","signedDate":\#(signedDateMs)}"#.utf8)
}

/// Signs arbitrary header JSON text with `key` (to forge headers the signer would never write).
func forgedJWS(header: String, payload: [UInt8] = payload(), key: P256.Signing.PrivateKey) throws -> String {
    try JWSSigner.sign(header: Array(header.utf8), payload: payload, privateKey: key)
}

/// The `x5c` JSON array text for these DER certificates.
func x5cJSON(_ certificates: [[UInt8]]) -> String {
    "[" + certificates.map { "\"\(Base64.encode($0))\"" }.joined(separator: ",") + "]"
}

/// Every shared test chain; building certificates (key generation and signing) is slow next to a
/// test's own checks, so tests reuse these.
enum TestChains {
    static let standard = try! TestChain()
}
