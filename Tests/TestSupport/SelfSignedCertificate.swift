import Crypto
import Foundation
import SwiftASN1
import X509

/// A self-signed P-256 server certificate for 127.0.0.1 and localhost, made in memory and shaped
/// as `openssl req -x509` makes one (a critical CA:true, so OpenSSL takes it as its own trust
/// anchor when a client is told to trust it).
/// Immutable once built; `@unchecked` only because swift-crypto 3 keys are not marked Sendable.
public struct SelfSignedCertificate: @unchecked Sendable {
    public let certificate: Certificate
    public let privateKey: P256.Signing.PrivateKey

    public init(validFor seconds: TimeInterval = 2 * 86_400) throws {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName("localhost") }
        let now = Date()
        certificate = try Certificate(
            version: .v3,
            serialNumber: .init(),
            publicKey: .init(key.publicKey),
            notValidBefore: now - 60,
            notValidAfter: now + seconds,
            issuer: name,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                SubjectKeyIdentifier(hash: .init(key.publicKey))
                SubjectAlternativeNames([.dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))])
            },
            issuerPrivateKey: .init(key)
        )
        privateKey = key
    }

    /// Writes the certificate and its key as PEM files, the key readable by the owner only.
    public func write(certificateTo certificatePath: String, keyTo keyPath: String) throws {
        try Data(certificate.serializeAsPEM().pemString.utf8).write(to: URL(fileURLWithPath: certificatePath))
        guard FileManager.default.createFile(
            atPath: keyPath, contents: Data(privateKey.pemRepresentation.utf8), attributes: [.posixPermissions: 0o600])
        else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: keyPath]) }
    }
}
