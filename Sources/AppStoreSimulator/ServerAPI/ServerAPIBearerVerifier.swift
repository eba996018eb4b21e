import Crypto
import Foundation
import Synchronization

/// Checks `Authorization: Bearer <JWT>` the way Apple does for the Server API: a compact JWS with
/// `alg` ES256 whose raw `R || S` signature verifies with the configured public key, and claims
/// `aud` "appstoreconnect-v1", `bid` equal to the app's bundle id, `exp` in the future and at most
/// 3600 s after `iat`. Times are the wall clock's: the client signs with its real clock.
struct ServerAPIBearerVerifier: Sendable {
    /// X9.63 bytes of the accepted P-256 public key (kept as bytes: swift-crypto keys are not `Sendable`).
    let publicKeyX963: [UInt8]
    let bundleID: String
    /// Authorization values already accepted, with their `exp`. A client reuses one token for up
    /// to an hour, and checking it afresh was a third of the simulator's CPU at zero latency (the
    /// JSON, base64url and the ES256 verification), CPU that Apple's servers spend, not ours.
    private let accepted = AcceptedTokens()

    init(publicKeyX963: [UInt8], bundleID: String) {
        self.publicKeyX963 = publicKeyX963
        self.bundleID = bundleID
    }

    func accepts(authorization: String?, nowMs: Int64 = SimulatedClock.wallNowMs()) -> Bool {
        guard let authorization else { return false }
        // The exact value that passed every check before: only its expiry can have changed.
        if let exp = accepted.expiry(of: authorization) { return exp * 1000 > nowMs }
        guard let exp = check(authorization, nowMs: nowMs) else { return false }
        accepted.remember(authorization, expiry: exp)
        return true
    }

    /// Every check on a value not seen before; its `exp` if it passes.
    private func check(_ authorization: String, nowMs: Int64) -> Int64? {
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3,
              let headerBytes = Base64URL.decode(segments[0]),
              let claimsBytes = Base64URL.decode(segments[1]),
              let signatureBytes = Base64URL.decode(segments[2]),
              let header = try? JSONSerialization.jsonObject(with: Data(headerBytes)) as? [String: Any],
              let claims = try? JSONSerialization.jsonObject(with: Data(claimsBytes)) as? [String: Any],
              header["alg"] as? String == "ES256"
        else { return nil }

        guard Self.audience(claims["aud"]), claims["bid"] as? String == bundleID,
              let exp = Self.seconds(claims["exp"]), let iat = Self.seconds(claims["iat"]),
              exp * 1000 > nowMs, exp - iat <= 3600, exp > iat
        else { return nil }

        guard signatureBytes.count == 64,
              let key = try? P256.Signing.PublicKey(x963Representation: publicKeyX963),
              let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureBytes)
        else { return nil }
        let signingInput = Array(token.utf8.prefix(segments[0].utf8.count + 1 + segments[1].utf8.count))
        return key.isValidSignature(signature, for: signingInput) ? exp : nil
    }

    /// A few accepted values (a run uses one token; a test a handful), emptied when full. Keyed
    /// by their bytes: String equality is canonical equivalence, under which a non-ASCII value can
    /// equal an accepted ASCII one.
    private final class AcceptedTokens: Sendable {
        private let tokens = Mutex<[[UInt8]: Int64]>([:])

        func expiry(of authorization: String) -> Int64? {
            let bytes = Array(authorization.utf8)
            return tokens.withLock { $0[bytes] }
        }

        func remember(_ authorization: String, expiry: Int64) {
            let bytes = Array(authorization.utf8)
            tokens.withLock { tokens in
                if tokens.count >= 32 { tokens.removeAll() }
                tokens[bytes] = expiry
            }
        }
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
