/// Checks `Authorization: Bearer <JWT>` the way the App Store Connect API does for a *team* key
/// (what Sales and Trends reports need): besides `BearerTokenVerifier`'s ES256 signature, a `kid`
/// in the header, claims `iss` non-empty, `aud` "appstoreconnect-v1", no `bid` (that claim makes
/// it an In-App Purchase key's Server API token), `exp` in the future and `exp - iat` at most
/// 20 minutes (the longer lifetimes Apple allows are for scoped GETs other than reports).
struct AppStoreConnectBearerVerifier: Sendable {
    /// Apple refuses report tokens living longer than this.
    static let maxLifetimeSeconds: Int64 = 1200

    private let token: BearerTokenVerifier

    init(publicKeyX963: [UInt8]) {
        token = BearerTokenVerifier(publicKeyX963: publicKeyX963)
    }

    func accepts(authorization: String?, nowMs: Int64 = SimulatedClock.wallNowMs()) -> Bool {
        token.accepts(authorization: authorization, nowMs: nowMs) { token, nowMs in
            guard let kid = token.header["kid"] as? String, !kid.isEmpty,
                  let issuer = token.claims["iss"] as? String, !issuer.isEmpty,
                  token.claims["bid"] == nil,
                  BearerTokenVerifier.hasAppStoreConnectAudience(token.claims)
            else { return nil }
            return BearerTokenVerifier.expiry(of: token.claims, nowMs: nowMs, maxLifetimeSeconds: Self.maxLifetimeSeconds)
        }
    }
}
