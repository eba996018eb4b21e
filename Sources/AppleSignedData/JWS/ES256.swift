import Crypto

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// ES256 as JOSE uses it (RFC 7518 §3.4): ECDSA on P-256 with SHA-256, the signature being the
/// 64-byte concatenation `R || S`, never the ASN.1 DER form most crypto APIs return.
enum ES256 {
    static let name = "ES256"
    static let signatureByteCount = 64

    /// The raw `R || S` signature of `input`.
    static func sign(_ input: some DataProtocol, with key: P256.Signing.PrivateKey) throws(ES256SigningError) -> [UInt8] {
        do {
            return Array(try key.signature(for: input).rawRepresentation)
        } catch {
            throw ES256SigningError()
        }
    }

    /// Whether `signature` is a 64-byte `R || S` ES256 signature of `input` by `key`.
    static func isValid(signature: [UInt8], for input: some DataProtocol, by key: P256.Signing.PublicKey) -> Bool {
        guard signature.count == signatureByteCount,
            let decoded = try? P256.Signing.ECDSASignature(rawRepresentation: signature)
        else { return false }
        return key.isValidSignature(decoded, for: input)
    }
}

/// The platform's ECDSA implementation refused to sign (it does not say why; no key material is
/// involved in this error).
public struct ES256SigningError: Error, Equatable, Sendable, CustomStringConvertible {
    public var description: String { "ES256 signing failed in the crypto library" }
}

/// An EC key shared across threads. swift-crypto 3.x does not mark its key structs `Sendable`
/// (4.x does); they wrap a BoringSSL key that is never mutated after creation, and BoringSSL
/// allows concurrent signing and verifying with one key, so sharing is safe.
struct SharedKey<Key>: @unchecked Sendable {
    let key: Key

    init(_ key: Key) {
        self.key = key
    }
}
