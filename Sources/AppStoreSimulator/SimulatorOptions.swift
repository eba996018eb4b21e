import Crypto

/// Configuration of an `AppStoreSimulator`.
///
/// The apps it serves are `apps`; when that is empty, the single-app fields (`bundleID`,
/// `appAppleID`, `sharedSecret`, `apiPublicKey`, `apiKeyID`, `apiIssuerID`, `apiRateLimit`)
/// describe the one app, and are ignored otherwise.
public struct SimulatorOptions: Sendable {
    /// The apps served, the first being the one of accounts that name none
    /// (`SimulatedSubscriber.bundleID` nil). Bundle ids must differ (the first of a repeated one
    /// counts). Empty: the one app of the single-app fields.
    public var apps: [SimulatedApp]
    /// The app's shared secret; requests with another (or no) `password` answer 21004. Nil accepts any.
    public var sharedSecret: String?
    /// Delay added to every answer (Apple's round trip), applied with a timer on the event loop so
    /// it does not hold up other requests.
    public var latency: Duration
    /// Where "now" comes from: the wall clock for `subrecon simulator`, a `SimulatedClock` in tests.
    public var clock: MillisecondsClock
    /// `receipt.bundle_id` in answers.
    public var bundleID: String
    /// Longest a request may take (latency, extra latency and `stall` faults included): one whose
    /// delays add up to more is answered HTTP 500 at this time instead, as a server giving up
    /// would. Keep it above the client's timeout when injecting stalls.
    public var requestTimeout: Duration
    /// Threads serving connections (SwiftNIO event loops). One by default: the simulator shares
    /// the machine with the worker it serves (the benchmark runs both on 2 cores), so a second
    /// thread would mostly take CPU from the worker, and fewer requests per wake-up cost more
    /// each. One thread's ceiling is 1 ÷ (CPU per request); raise it if that is the limit (the
    /// simulator's CPU per request: docs/performance.md, "Earlier figures behind the code's choices"
    /// and the tables after it).
    public var eventLoopThreads: Int

    // MARK: App Store Server API

    /// The public key of the In-App Purchase key the client signs its bearer JWTs with. When set,
    /// every `/inApps` request needs `Authorization: Bearer <JWT>` (ES256 by this key, a `kid`, a
    /// non-empty `iss`, `aud` "appstoreconnect-v1", `bid` = `bundleID`, `exp` in the future and
    /// at most 3600 s after `iat`, or from now when there is no `iat`, as Apple's own library
    /// sends); anything else gets 401 with a plain-text body, as from Apple. Nil accepts any request.
    public var apiPublicKey: P256.Signing.PublicKey? {
        get { apiPublicKeyX963.flatMap { try? P256.Signing.PublicKey(x963Representation: $0) } }
        set { apiPublicKeyX963 = newValue.map { Array($0.x963Representation) } }
    }
    /// `apiPublicKey` as X9.63 bytes (swift-crypto keys are not `Sendable`).
    public var apiPublicKeyX963: [UInt8]?
    /// The key id a bearer token's `kid` must be (with `apiPublicKey`); nil accepts any non-empty one.
    public var apiKeyID: String?
    /// The issuer id a bearer token's `iss` must be (with `apiPublicKey`); nil accepts any non-empty one.
    public var apiIssuerID: String?
    /// `appAppleId` of production Server API answers (the sandbox has none).
    public var appAppleID: Int64
    /// Signed transactions per Get Transaction History page (Apple: 20).
    public var historyPageSize: Int
    /// Notifications per Get Notification History page (Apple: 20).
    public var notificationHistoryPageSize: Int
    /// Server API requests per second above which the simulator answers 429 (a token bucket
    /// holding one second's worth), with `Retry-After` in epoch milliseconds. Nil = no limit.
    public var apiRateLimit: Double?
    /// Register the account of every receipt verifyReceipt decodes, so the Server API then finds
    /// it by transaction id (`AppStoreSimulator.register` does it explicitly). Costs one small
    /// entry per distinct account: turn it off for verifyReceipt-only runs at very large scale.
    public var registersVerifiedReceipts: Bool

    /// The app's App Store Server Notifications URL (one for both environments): Request a Test
    /// Notification POSTs its `TEST` notification there, and `AppStoreSimulator.deliver` sends
    /// any notification there. Nil: Request a Test Notification answers 404 `4040007`, as Apple
    /// does for an app with no URL configured.
    public var notificationURL: String?
    /// Longest a notification POST waits for the receiver (then `TIMED_OUT`).
    public var notificationTimeout: Duration
    /// Told of every notification POST once it ended: what was sent, Apple's name for the result,
    /// and what happened in a few words (`HTTP 200`, the transport's error), so the standalone
    /// simulator can log each attempt as it happens.
    public var notificationAttemptObserver: (@Sendable (SimulatedNotification, NotificationSendAttemptResult, String) -> Void)?

    // MARK: App Store Connect API

    /// `GET /v1/salesReports`: vendor number, team key, accepted version, hourly limit, faults.
    public var salesReports: SalesReportOptions

    public init(
        sharedSecret: String? = nil,
        latency: Duration = .zero,
        clock: @escaping MillisecondsClock = SimulatedClock.wall(),
        bundleID: String = SimulatedProducts.bundleID,
        requestTimeout: Duration = .seconds(30),
        eventLoopThreads: Int = 1,
        apiPublicKey: P256.Signing.PublicKey? = nil,
        appAppleID: Int64 = SimulatorOptions.defaultAppAppleID,
        historyPageSize: Int = 20,
        apiRateLimit: Double? = nil,
        registersVerifiedReceipts: Bool = true,
        notificationHistoryPageSize: Int = 20,
        salesReports: SalesReportOptions = SalesReportOptions(),
        notificationURL: String? = nil,
        notificationTimeout: Duration = .seconds(30),
        apps: [SimulatedApp] = []
    ) {
        self.apps = apps
        self.sharedSecret = sharedSecret
        self.latency = latency
        self.clock = clock
        self.bundleID = bundleID
        self.requestTimeout = requestTimeout
        self.eventLoopThreads = eventLoopThreads
        self.apiPublicKeyX963 = apiPublicKey.map { Array($0.x963Representation) }
        self.appAppleID = appAppleID
        self.historyPageSize = historyPageSize
        self.apiRateLimit = apiRateLimit
        self.registersVerifiedReceipts = registersVerifiedReceipts
        self.notificationHistoryPageSize = notificationHistoryPageSize
        self.salesReports = salesReports
        self.notificationURL = notificationURL
        self.notificationTimeout = notificationTimeout
    }

    /// The simulated app's App Store id (also `receipt.adam_id` of production receipts).
    public static let defaultAppAppleID: Int64 = 1_480_000_017

    /// The apps the simulator serves: `apps`, or the one the single-app fields describe.
    public var servedApps: [SimulatedApp] {
        guard apps.isEmpty else { return apps }
        var app = SimulatedApp(
            bundleID: bundleID, appAppleID: appAppleID, sharedSecret: sharedSecret, apiKeyID: apiKeyID,
            apiIssuerID: apiIssuerID, apiRateLimit: apiRateLimit)
        app.apiPublicKeyX963 = apiPublicKeyX963
        return [app]
    }
}
