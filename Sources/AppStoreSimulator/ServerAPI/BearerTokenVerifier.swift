import Crypto
import Foundation
import Synchronization

/// The part of Apple's bearer check that the App Store Server API and the App Store Connect API
/// share: `Authorization: Bearer <JWT>`, a compact JWS with `alg` ES256 whose raw `R || S`
/// signature verifies with the configured public key. What the header and claims must hold is
/// each API's own (`ServerAPIBearerVerifier`, `AppStoreConnectBearerVerifier`), given as `admit`.
struct BearerTokenVerifier: Sendable {
    /// A token's decoded header and claims, not trusted yet.
    struct Token {
        let header: [String: Any]
        let claims: [String: Any]
    }

    /// X9.63 bytes of the accepted P-256 public key (kept as bytes: swift-crypto keys are not `Sendable`).
    let publicKeyX963: [UInt8]
    /// Authorization values already accepted, with their `exp`. A client reuses one token for up
    /// to an hour, and checking it afresh (the JSON, base64url and the ES256 verification) was a
    /// large share of the simulator's CPU at zero latency, CPU that Apple's servers spend, not ours
    /// (docs/performance.md, "App Store Server API mode").
    private let accepted = AcceptedTokens()

    init(publicKeyX963: [UInt8]) {
        self.publicKeyX963 = publicKeyX963
    }

    /// Whether `authorization` is a bearer token signed by the key whose claims `admit` accepts
    /// at `nowMs`; `admit` answers the token's `exp` (seconds) when it does. Times are the wall
    /// clock's: the client signs with its real clock.
    func accepts(
        authorization: String?, nowMs: Int64, admit: (Token, Int64) -> Int64?
    ) -> Bool {
        guard let authorization else { return false }
        // The exact value that passed every check before: only its expiry can have changed.
        if let exp = accepted.expiry(of: authorization) { return exp * 1000 > nowMs }
        guard let exp = check(authorization, nowMs: nowMs, admit: admit) else { return false }
        accepted.remember(authorization, expiry: exp)
        return true
    }

    /// Every check on a value not seen before (the claims before the costlier signature); its
    /// `exp` if it passes.
    private func check(_ authorization: String, nowMs: Int64, admit: (Token, Int64) -> Int64?) -> Int64? {
        guard let token = Self.compactToken(in: authorization) else { return nil }
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3,
              let headerBytes = Base64URL.decode(segments[0]),
              let claimsBytes = Base64URL.decode(segments[1]),
              let signatureBytes = Base64URL.decode(segments[2]),
              let header = try? JSONSerialization.jsonObject(with: Data(headerBytes)) as? [String: Any],
              let claims = try? JSONSerialization.jsonObject(with: Data(claimsBytes)) as? [String: Any],
              header["alg"] as? String == "ES256",
              let exp = admit(Token(header: header, claims: claims), nowMs)
        else { return nil }

        guard signatureBytes.count == 64,
              let key = try? P256.Signing.PublicKey(x963Representation: publicKeyX963),
              let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureBytes)
        else { return nil }
        let signingInput = Array(token.utf8.prefix(segments[0].utf8.count + 1 + segments[1].utf8.count))
        return key.isValidSignature(signature, for: signingInput) ? exp : nil
    }

    /// The JWS of `Bearer <JWS>`, nil for another scheme.
    private static func compactToken(in authorization: String) -> String? {
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return parts[1].trimmingCharacters(in: .whitespaces)
    }

    /// The claims of the bearer token in `authorization`, read without any check (to tell which
    /// app's key must verify it); nil when they are not a base64url JSON object.
    static func unverifiedClaims(of authorization: String) -> [String: Any]? {
        guard let token = compactToken(in: authorization) else { return nil }
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, let bytes = Base64URL.decode(segments[1]) else { return nil }
        return try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
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

    /// Whether an `aud` claim (a string or a list) names `appstoreconnect-v1`, the audience of
    /// both APIs.
    static func hasAppStoreConnectAudience(_ claims: [String: Any]) -> Bool {
        let value = claims["aud"]
        if let single = value as? String { return single == "appstoreconnect-v1" }
        if let list = value as? [String] { return list.contains("appstoreconnect-v1") }
        return false
    }

    /// A NumericDate claim (integer seconds; a fraction is tolerated).
    static func seconds(_ value: Any?) -> Int64? {
        guard let number = value as? NSNumber, !(value is Bool) else { return nil }
        let double = number.doubleValue
        guard double.isFinite, abs(double) < 1e15 else { return nil }
        return Int64(double.rounded(.down))
    }

    /// `exp` when the token is unexpired at `nowMs` and lives at most `maxLifetimeSeconds`: with
    /// `iat`, issued before it expires and `exp - iat` within the limit; without one (allowed only
    /// when `issuedAtIsOptional`), `exp` within the limit from now. The lifetime rule both APIs
    /// apply (with their own limit).
    static func expiry(
        of claims: [String: Any], nowMs: Int64, maxLifetimeSeconds: Int64, issuedAtIsOptional: Bool = false
    ) -> Int64? {
        guard let exp = seconds(claims["exp"]), exp * 1000 > nowMs else { return nil }
        guard let issuedAt = claims["iat"] else {
            return issuedAtIsOptional && exp * 1000 <= nowMs + maxLifetimeSeconds * 1000 ? exp : nil
        }
        guard let iat = seconds(issuedAt), exp - iat <= maxLifetimeSeconds, exp > iat else { return nil }
        return exp
    }
}
