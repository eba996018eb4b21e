import Crypto
import Synchronization

/// Makes the bearer token (an ES256 JWT) for the App Store Server API (an In-App Purchase key) or
/// the App Store Connect API (a team key), and reuses it until shortly before it expires.
/// Thread-safe; one instance serves all concurrent requests of a run.
///
/// Header `{"alg":"ES256","kid":keyID,"typ":"JWT"}`; claims `iss`, `iat` (Unix seconds, back-dated
/// ``backdateSeconds`` for clock skew), `exp` (`iat` + lifetime, at most 60 minutes for the Server
/// API and 20 for App Store Connect, as Apple requires), `aud` `appstoreconnect-v1`, and `bid` for
/// the Server API only (a team key's token names no app). The signature is raw `R || S`.
public final class BearerTokenProvider: Sendable {
    /// Apple refuses tokens whose `exp` is more than 60 minutes after `iat`.
    public static let maximumLifetimeSeconds: Int64 = 60 * 60
    /// App Store Connect refuses team-key tokens whose `exp` is more than 20 minutes after `iat`.
    public static let maximumTeamLifetimeSeconds: Int64 = 20 * 60
    public static let defaultLifetimeSeconds: Int64 = 30 * 60
    /// `iat` is set this far in the past: a token "issued in the future" gets intermittent 401s.
    public static let backdateSeconds: Int64 = 60
    /// A token with less than this left before `exp` is replaced.
    public static let renewalMarginSeconds: Int64 = 2 * 60
    public static let audience = "appstoreconnect-v1"

    private struct Token {
        let text: String
        let issuedAtSeconds: Int64
        let expiresAtSeconds: Int64
    }

    private struct State {
        var token: Token?
        var signedCount = 0
    }

    private let keyID: String
    private let issuerID: String
    /// The `bid` claim; nil for a team key.
    private let bundleID: String?
    private let privateKey: SharedKey<P256.Signing.PrivateKey>
    private let lifetimeSeconds: Int64
    private let clock: @Sendable () -> Int64
    private let state = Mutex(State())

    /// - Parameters:
    ///   - lifetimeSeconds: `exp − iat`, clamped to 5…60 minutes.
    ///   - clock: now, in Unix milliseconds.
    public init(
        key: AppStoreAPIKey,
        lifetimeSeconds: Int64 = BearerTokenProvider.defaultLifetimeSeconds,
        clock: @escaping @Sendable () -> Int64 = WallClock.unixMilliseconds
    ) {
        keyID = key.keyID
        issuerID = key.issuerID
        bundleID = key.bundleID
        privateKey = SharedKey(key.privateKey)
        self.lifetimeSeconds = min(max(lifetimeSeconds, 5 * 60), Self.maximumLifetimeSeconds)
        self.clock = clock
    }

    /// Tokens for the App Store Connect API (sales reports): no `bid`, at most 20 minutes.
    /// - Parameter lifetimeSeconds: `exp − iat`, clamped to 5…20 minutes.
    public init(
        teamKey key: AppStoreConnectKey,
        lifetimeSeconds: Int64 = BearerTokenProvider.maximumTeamLifetimeSeconds,
        clock: @escaping @Sendable () -> Int64 = WallClock.unixMilliseconds
    ) {
        keyID = key.keyID
        issuerID = key.issuerID
        bundleID = nil
        privateKey = SharedKey(key.privateKey)
        self.lifetimeSeconds = min(max(lifetimeSeconds, 5 * 60), Self.maximumTeamLifetimeSeconds)
        self.clock = clock
    }

    /// The token to send as `Authorization: Bearer <token>`: the current one while it has more
    /// than ``renewalMarginSeconds`` left, else a newly signed one.
    public func token() throws(APIKeyError) -> String {
        let nowSeconds = Self.floorDivide(clock(), by: 1000)
        return try state.withLock { (state: inout State) throws(APIKeyError) -> String in
            // Reuse unless it is about to expire, or the clock went back before its iat.
            if let token = state.token,
                token.issuedAtSeconds <= nowSeconds,
                token.expiresAtSeconds - nowSeconds > Self.renewalMarginSeconds
            {
                return token.text
            }
            let token = try sign(nowSeconds: nowSeconds)
            state.token = token
            state.signedCount += 1
            return token.text
        }
    }

    /// How many tokens this provider has signed (reuse makes it far smaller than the requests).
    public var signedTokenCount: Int {
        state.withLock { $0.signedCount }
    }

    private func sign(nowSeconds: Int64) throws(APIKeyError) -> Token {
        let issuedAt = nowSeconds - Self.backdateSeconds
        let expiresAt = issuedAt + lifetimeSeconds
        let header = "{\"alg\":\"\(ES256.name)\",\"kid\":\(JSONText.quoted(keyID)),\"typ\":\"JWT\"}"
        let claims =
            "{\"iss\":\(JSONText.quoted(issuerID)),\"iat\":\(issuedAt),\"exp\":\(expiresAt),"
            + "\"aud\":\(JSONText.quoted(Self.audience))" + (bundleID.map { ",\"bid\":\(JSONText.quoted($0))" } ?? "") + "}"
        do {
            let text = try JWSSigner.sign(header: Array(header.utf8), payload: Array(claims.utf8), privateKey: privateKey.key)
            return Token(text: text, issuedAtSeconds: issuedAt, expiresAtSeconds: expiresAt)
        } catch {
            throw .signingFailed
        }
    }

    /// Division rounding towards minus infinity (a clock before 1970 still gives whole seconds
    /// in the past).
    private static func floorDivide(_ value: Int64, by divisor: Int64) -> Int64 {
        let quotient = value / divisor
        return value % divisor < 0 ? quotient - 1 : quotient
    }
}
