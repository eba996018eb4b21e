import Crypto

/// One app the simulator serves (`SimulatorOptions.apps`): what Apple knows of it in App Store
/// Connect. Its accounts (`SimulatedSubscriber.bundleID`) answer with its bundle id and Apple id,
/// verifyReceipt wants its shared secret for them, and the Server API serves them only to bearer
/// tokens of its In-App Purchase key, within its own rate limit.
public struct SimulatedApp: Sendable, Hashable {
    /// `bundleId` of its signed data and `receipt.bundle_id`; also the `bid` its bearer tokens carry.
    public var bundleID: String
    /// `appAppleId` of its production Server API answers and notifications, and `receipt.adam_id`
    /// of its production receipts (the sandbox has none).
    public var appAppleID: Int64
    /// Its shared secret: verifyReceipt answers 21004 to a request for one of its receipts with
    /// another (or no) `password`. Nil accepts any.
    public var sharedSecret: String?
    /// X9.63 bytes of the public key of its In-App Purchase key (swift-crypto keys are not
    /// `Sendable`). When set, its Server API requests need a bearer token signed by this key,
    /// with `bid` = `bundleID` (see `SimulatorOptions.apiPublicKey` for the other claims);
    /// nil accepts any request that names this app (or none, for the first app).
    public var apiPublicKeyX963: [UInt8]?
    /// The key id its bearer tokens' `kid` must be; nil accepts any non-empty one.
    public var apiKeyID: String?
    /// The issuer id its bearer tokens' `iss` must be; nil accepts any non-empty one.
    public var apiIssuerID: String?
    /// Server API requests per second above which its requests are answered 429 (a token bucket
    /// of its own, holding one second's worth), with `Retry-After` in epoch milliseconds. Nil = no limit.
    public var apiRateLimit: Double?

    /// `apiPublicKeyX963` as a key.
    public var apiPublicKey: P256.Signing.PublicKey? {
        get { apiPublicKeyX963.flatMap { try? P256.Signing.PublicKey(x963Representation: $0) } }
        set { apiPublicKeyX963 = newValue.map { Array($0.x963Representation) } }
    }

    public init(
        bundleID: String,
        appAppleID: Int64 = SimulatorOptions.defaultAppAppleID,
        sharedSecret: String? = nil,
        apiPublicKey: P256.Signing.PublicKey? = nil,
        apiKeyID: String? = nil,
        apiIssuerID: String? = nil,
        apiRateLimit: Double? = nil
    ) {
        self.bundleID = bundleID
        self.appAppleID = appAppleID
        self.sharedSecret = sharedSecret
        apiPublicKeyX963 = apiPublicKey.map { Array($0.x963Representation) }
        self.apiKeyID = apiKeyID
        self.apiIssuerID = apiIssuerID
        self.apiRateLimit = apiRateLimit
    }
}
