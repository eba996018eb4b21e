/// Checks `Authorization: Bearer <JWT>` the way Apple does for the Server API (an In-App
/// Purchase key's token): besides `BearerTokenVerifier`'s ES256 signature, claims `aud`
/// "appstoreconnect-v1", `bid` equal to the app's bundle id, `exp` in the future and at most
/// 3600 s after `iat`.
struct ServerAPIBearerVerifier: Sendable {
    let bundleID: String
    private let token: BearerTokenVerifier

    init(publicKeyX963: [UInt8], bundleID: String) {
        self.bundleID = bundleID
        token = BearerTokenVerifier(publicKeyX963: publicKeyX963)
    }

    func accepts(authorization: String?, nowMs: Int64 = SimulatedClock.wallNowMs()) -> Bool {
        token.accepts(authorization: authorization, nowMs: nowMs) { token, nowMs in
            guard BearerTokenVerifier.hasAppStoreConnectAudience(token.claims),
                  token.claims["bid"] as? String == bundleID
            else { return nil }
            return BearerTokenVerifier.expiry(of: token.claims, nowMs: nowMs, maxLifetimeSeconds: 3600)
        }
    }
}
