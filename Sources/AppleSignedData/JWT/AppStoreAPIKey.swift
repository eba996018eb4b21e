import Crypto
import SwiftASN1

/// The App Store Server API credentials: an In-App Purchase key (`.p8`, PKCS#8 EC P-256) with
/// its key ID, the team's issuer ID and the app's bundle ID. Printing it never shows the key.
public struct AppStoreAPIKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// Goes in the JWT header `kid`.
    public let keyID: String
    /// Goes in the `iss` claim.
    public let issuerID: String
    /// Goes in the `bid` claim (case-sensitive).
    public let bundleID: String
    var privateKey: P256.Signing.PrivateKey {
        sharedKey.key
    }
    private let sharedKey: SharedKey<P256.Signing.PrivateKey>

    /// - Parameter privateKeyPEM: the `.p8` file's text.
    public init(privateKeyPEM: String, keyID: String, issuerID: String, bundleID: String) throws(APIKeyError) {
        for (name, value) in [("keyID", keyID), ("issuerID", issuerID), ("bundleID", bundleID)] {
            guard !value.isEmpty, !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            else { throw .invalidField(name) }
        }
        sharedKey = SharedKey(try Self.privateKey(pem: privateKeyPEM))
        self.keyID = keyID
        self.issuerID = issuerID
        self.bundleID = bundleID
    }

    /// Credentials around an existing key (tests and the simulator).
    public init(privateKey: P256.Signing.PrivateKey, keyID: String, issuerID: String, bundleID: String) {
        sharedKey = SharedKey(privateKey)
        self.keyID = keyID
        self.issuerID = issuerID
        self.bundleID = bundleID
    }

    /// The key's public half: what Apple (or the simulator) verifies our tokens with.
    public var publicKey: P256.Signing.PublicKey {
        privateKey.publicKey
    }

    public var description: String {
        "AppStoreAPIKey(keyID: \(keyID), issuerID: \(issuerID), bundleID: \(bundleID), privateKey: <redacted>)"
    }

    public var debugDescription: String {
        description
    }

    /// The P-256 private key of a `.p8` file's text (PKCS#8). Shared by the In-App Purchase key
    /// and the App Store Connect team key: Apple issues both in the same form.
    static func privateKey(pem: String) throws(APIKeyError) -> P256.Signing.PrivateKey {
        // Read the label first so the error can say what was given instead, without echoing it.
        let document: PEMDocument
        do {
            document = try PEMDocument(pemString: pem)
        } catch {
            throw .notPEM
        }
        guard document.discriminator == "PRIVATE KEY" else {
            throw .unexpectedPEMLabel(Self.printableLabel(document.discriminator))
        }
        do {
            return try P256.Signing.PrivateKey(derRepresentation: document.derBytes)
        } catch {
            throw .notP256PrivateKey
        }
    }

    /// A PEM label is short uppercase text; anything else is cut so an error never carries
    /// arbitrary input.
    private static func printableLabel(_ label: String) -> String {
        let allowed = label.unicodeScalars.allSatisfy { ("A"..."Z").contains($0) || $0 == " " }
        return allowed && label.count <= 40 ? label : "unrecognised"
    }
}
