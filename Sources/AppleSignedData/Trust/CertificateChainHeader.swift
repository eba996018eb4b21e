import Crypto
import X509

/// The `x5c` header decoded (check 3 of ``SignedDataVerifier``): exactly three strings of
/// standard padded base64. Only `x5c[0]` (leaf) and `x5c[1]` (intermediate) are kept; `x5c[2]`
/// must be well-formed but is never used, the root comes from the verifier's configuration.
struct CertificateChainHeader: Sendable {
    static let expectedCount = 3

    let leafDER: [UInt8]
    let intermediateDER: [UInt8]

    var cacheKey: ChainCache.Key {
        ChainCache.Key(leaf: leafDER, intermediate: intermediateDER)
    }

    init(header: [String: JSONValue]) throws(SignedDataError) {
        guard case .array(let entries) = header["x5c"] else { throw .missingCertificateChain }
        guard entries.count == Self.expectedCount else { throw .wrongCertificateCount(entries.count) }
        var decoded: [[UInt8]] = []
        for (index, entry) in entries.enumerated() {
            guard let text = entry.stringValue, let der = Base64.decode(text) else {
                throw .invalidCertificateEncoding(index: index)
            }
            decoded.append(der)
        }
        leafDER = decoded[0]
        intermediateDER = decoded[1]
    }

    /// The leaf and intermediate as certificates, and the leaf's P-256 key.
    struct Parsed {
        let leaf: Certificate
        let intermediate: Certificate
        let leafKey: P256.Signing.PublicKey
    }

    func parse() throws(SignedDataError) -> Parsed {
        guard let leaf = try? Certificate(derEncoded: leafDER) else { throw .invalidCertificate(index: 0) }
        guard let intermediate = try? Certificate(derEncoded: intermediateDER) else {
            throw .invalidCertificate(index: 1)
        }
        guard let leafKey = P256.Signing.PublicKey(leaf.publicKey) else { throw .leafKeyNotP256 }
        return Parsed(leaf: leaf, intermediate: intermediate, leafKey: leafKey)
    }
}
