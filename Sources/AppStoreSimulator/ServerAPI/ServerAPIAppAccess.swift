import Synchronization

/// Which app a Server API request is for, and whether that app lets it in, as Apple decides
/// from the bearer token: the app its `bid` claim names (the first app when it names none
/// served, or there is no token), which must then accept the token with its own key
/// (`ServerAPIBearerVerifier`; an app without a key accepts any), and whose own rate limit
/// (`ServerAPIRateLimiter`) the request counts against. A token naming no app served, or signed
/// by another app's key, is thus refused by the app it falls to when that app has a key.
final class ServerAPIAppAccess: Sendable {
    /// One app's bearer check and rate limit.
    private struct Gate: Sendable {
        let bearer: ServerAPIBearerVerifier?
        let rateLimiter: ServerAPIRateLimiter?
    }

    let apps: SimulatedAppCatalog
    private let gates: [Gate]
    /// The app each authorization value seen names (with several apps), so a client's reused
    /// token costs a lookup rather than decoding its claims again. Keyed by bytes, as
    /// `BearerTokenVerifier` keeps its accepted values; emptied when full.
    private let appByAuthorization = Mutex<[[UInt8]: Int]>([:])

    init(apps: SimulatedAppCatalog) {
        self.apps = apps
        gates = apps.apps.map { app in
            Gate(
                bearer: app.apiPublicKeyX963.map {
                    ServerAPIBearerVerifier(
                        publicKeyX963: $0, bundleID: app.bundleID, keyID: app.apiKeyID, issuerID: app.apiIssuerID)
                },
                rateLimiter: app.apiRateLimit.map { ServerAPIRateLimiter(ratePerSecond: $0) })
        }
    }

    /// The position of the app `authorization` is for, nil when that app refuses it (401).
    func app(for authorization: String?, nowMs: Int64 = SimulatedClock.wallNowMs()) -> Int? {
        let index = gates.count == 1 ? 0 : appNamed(by: authorization)
        if let bearer = gates[index].bearer, !bearer.accepts(authorization: authorization, nowMs: nowMs) {
            return nil
        }
        return index
    }

    /// Nil when app `index` may make one more request now (it is counted), else milliseconds
    /// until it may.
    func admit(app index: Int) -> Int64? {
        gates[index].rateLimiter?.admit()
    }

    private func appNamed(by authorization: String?) -> Int {
        guard let authorization else { return 0 }
        let bytes = Array(authorization.utf8)
        if let known = appByAuthorization.withLock({ $0[bytes] }) { return known }
        let bundleID = BearerTokenVerifier.unverifiedClaims(of: authorization)?["bid"] as? String
        let index = bundleID.flatMap(apps.index(ofBundleID:)) ?? 0
        appByAuthorization.withLock { known in
            if known.count >= 64 { known.removeAll() }
            known[bytes] = index
        }
        return index
    }
}
