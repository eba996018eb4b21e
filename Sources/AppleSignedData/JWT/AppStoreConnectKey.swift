import Crypto

/// A *team* App Store Connect API key (`.p8`, PKCS#8 EC P-256) with its key ID and the team's
/// issuer ID: what downloads Sales and Trends reports. Unlike the In-App Purchase key
/// (`AppStoreAPIKey`) its tokens name no app (no `bid`). Printing it never shows the key.
public struct AppStoreConnectKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// Goes in the JWT header `kid`.
    public let keyID: String
    /// Goes in the `iss` claim.
    public let issuerID: String
    var privateKey: P256.Signing.PrivateKey {
        sharedKey.key
    }
    private let sharedKey: SharedKey<P256.Signing.PrivateKey>

    /// - Parameter privateKeyPEM: the `.p8` file's text.
    public init(privateKeyPEM: String, keyID: String, issuerID: String) throws(APIKeyError) {
        for (name, value) in [("keyID", keyID), ("issuerID", issuerID)] {
            guard !value.isEmpty, !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            else { throw .invalidField(name) }
        }
        sharedKey = SharedKey(try AppStoreAPIKey.privateKey(pem: privateKeyPEM))
        self.keyID = keyID
        self.issuerID = issuerID
    }

    /// Credentials around an existing key (tests and the simulator).
    public init(privateKey: P256.Signing.PrivateKey, keyID: String, issuerID: String) {
        sharedKey = SharedKey(privateKey)
        self.keyID = keyID
        self.issuerID = issuerID
    }

    /// The key's public half: what Apple (or the simulator) verifies our tokens with.
    public var publicKey: P256.Signing.PublicKey {
        privateKey.publicKey
    }

    public var description: String {
        "AppStoreConnectKey(keyID: \(keyID), issuerID: \(issuerID), privateKey: <redacted>)"
    }

    public var debugDescription: String {
        description
    }
}
