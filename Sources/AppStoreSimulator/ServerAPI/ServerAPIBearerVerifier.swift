/// Checks `Authorization: Bearer <JWT>` the way Apple does for the Server API (an In-App
/// Purchase key's token): besides `BearerTokenVerifier`'s ES256 signature, a `kid` in the header
/// (the key's id when one is configured), claims `iss` non-empty (the issuer id when configured),
/// `aud` "appstoreconnect-v1", `bid` equal to the app's bundle id, and `exp` in the future at most
/// 3600 s after `iat`. `iat` may be absent, `exp` then at most 3600 s from now: Apple's own App
/// Store Server Library sends none and Apple's servers accept its tokens.
struct ServerAPIBearerVerifier: Sendable {
    static let maxLifetimeSeconds: Int64 = 3600

    let bundleID: String
    /// The key's id `kid` must equal; nil accepts any non-empty one.
    let keyID: String?
    /// The issuer id `iss` must equal; nil accepts any non-empty one.
    let issuerID: String?
    private let token: BearerTokenVerifier

    init(publicKeyX963: [UInt8], bundleID: String, keyID: String? = nil, issuerID: String? = nil) {
        self.bundleID = bundleID
        self.keyID = keyID
        self.issuerID = issuerID
        token = BearerTokenVerifier(publicKeyX963: publicKeyX963)
    }

    func accepts(authorization: String?, nowMs: Int64 = SimulatedClock.wallNowMs()) -> Bool {
        token.accepts(authorization: authorization, nowMs: nowMs) { token, nowMs in
            guard let kid = token.header["kid"] as? String, !kid.isEmpty, keyID.map({ $0 == kid }) ?? true,
                  let issuer = token.claims["iss"] as? String, !issuer.isEmpty, issuerID.map({ $0 == issuer }) ?? true,
                  BearerTokenVerifier.hasAppStoreConnectAudience(token.claims),
                  token.claims["bid"] as? String == bundleID
            else { return nil }
            return BearerTokenVerifier.expiry(
                of: token.claims, nowMs: nowMs, maxLifetimeSeconds: Self.maxLifetimeSeconds, issuedAtIsOptional: true)
        }
    }
}
