import Crypto
import Foundation

/// Checks `Authorization: Bearer <JWT>` the way Apple does for the Server API: a compact JWS with
/// `alg` ES256 whose raw `R || S` signature verifies with the configured public key, and claims
/// `aud` "appstoreconnect-v1", `bid` equal to the app's bundle id, `exp` in the future and at most
/// 3600 s after `iat`. Times are the wall clock's: the client signs with its real clock.
struct ServerAPIBearerVerifier: Sendable {
    /// X9.63 bytes of the accepted P-256 public key (kept as bytes: swift-crypto keys are not `Sendable`).
    let publicKeyX963: [UInt8]
    let bundleID: String

    func accepts(authorization: String?, nowMs: Int64 = SimulatedClock.wallNowMs()) -> Bool {
        guard let authorization else { return false }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return false }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3,
              let headerBytes = Base64URL.decode(segments[0]),
              let claimsBytes = Base64URL.decode(segments[1]),
              let signatureBytes = Base64URL.decode(segments[2]),
              let header = try? JSONSerialization.jsonObject(with: Data(headerBytes)) as? [String: Any],
              let claims = try? JSONSerialization.jsonObject(with: Data(claimsBytes)) as? [String: Any],
              header["alg"] as? String == "ES256"
        else { return false }

        guard Self.audience(claims["aud"]), claims["bid"] as? String == bundleID,
              let exp = Self.seconds(claims["exp"]), let iat = Self.seconds(claims["iat"]),
              exp * 1000 > nowMs, exp - iat <= 3600, exp > iat
        else { return false }

        guard signatureBytes.count == 64,
              let key = try? P256.Signing.PublicKey(x963Representation: publicKeyX963),
              let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureBytes)
        else { return false }
        let signingInput = Array(token.utf8.prefix(segments[0].utf8.count + 1 + segments[1].utf8.count))
        return key.isValidSignature(signature, for: signingInput)
    }

    private static func audience(_ value: Any?) -> Bool {
        if let single = value as? String { return single == "appstoreconnect-v1" }
        if let list = value as? [String] { return list.contains("appstoreconnect-v1") }
        return false
    }

    /// A NumericDate claim (integer seconds; a fraction is tolerated).
    private static func seconds(_ value: Any?) -> Int64? {
        guard let number = value as? NSNumber, !(value is Bool) else { return nil }
        let double = number.doubleValue
        guard double.isFinite, abs(double) < 1e15 else { return nil }
        return Int64(double.rounded(.down))
    }
}
