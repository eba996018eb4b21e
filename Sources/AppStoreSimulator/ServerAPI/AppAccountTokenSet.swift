/// One successful Set App Account Token (`AppStoreSimulator.appAccountTokenSets()`), so a test
/// can see what a client linked without decoding answers.
public struct AppAccountTokenSet: Sendable, Hashable {
    /// The app whose bearer token made the request.
    public var bundleID: String
    /// The environment asked (`/inApps` or `/sandbox/inApps`).
    public var environment: SimulatedEnvironment
    /// The path's `originalTransactionId`.
    public var originalTransactionID: Int64
    /// The account it belongs to.
    public var subscriberID: Int64
    /// The token set, lowercase.
    public var appAccountToken: String
    /// The simulator's clock when it was set.
    public var atMs: Int64

    public init(
        bundleID: String, environment: SimulatedEnvironment, originalTransactionID: Int64, subscriberID: Int64,
        appAccountToken: String, atMs: Int64
    ) {
        self.bundleID = bundleID
        self.environment = environment
        self.originalTransactionID = originalTransactionID
        self.subscriberID = subscriberID
        self.appAccountToken = appAccountToken
        self.atMs = atMs
    }
}
