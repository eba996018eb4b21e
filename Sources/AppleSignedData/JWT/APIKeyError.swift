/// Why App Store Server API credentials were refused. No case carries key material: the
/// descriptions name what is wrong, never the PEM text or the key.
public enum APIKeyError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The text has no PEM block (`-----BEGIN PRIVATE KEY-----` … `-----END PRIVATE KEY-----`).
    case notPEM
    /// A PEM block with another label, e.g. `CERTIFICATE` or `PUBLIC KEY`.
    case unexpectedPEMLabel(String)
    /// A `PRIVATE KEY` block that is not a PKCS#8 EC key on P-256.
    case notP256PrivateKey
    /// `keyID`, `issuerID` or `bundleID` is empty or contains control characters.
    case invalidField(String)
    /// The crypto library refused to sign.
    case signingFailed

    public var description: String {
        switch self {
        case .notPEM:
            "App Store Server API key: not a PEM private key (expected a .p8 file starting -----BEGIN PRIVATE KEY-----)"
        case .unexpectedPEMLabel(let label):
            "App Store Server API key: a PEM \(label) block instead of a PRIVATE KEY (.p8)"
        case .notP256PrivateKey:
            "App Store Server API key: the PRIVATE KEY block is not a PKCS#8 EC P-256 key"
        case .invalidField(let name):
            "App Store Server API key: \(name) is empty or contains control characters"
        case .signingFailed:
            "App Store Server API key: ES256 signing of the bearer token failed"
        }
    }
}
