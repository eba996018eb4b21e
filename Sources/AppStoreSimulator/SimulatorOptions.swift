/// Configuration of an `AppStoreSimulator`.
public struct SimulatorOptions: Sendable {
    /// The app's shared secret; requests with another (or no) `password` answer 21004. Nil accepts any.
    public var sharedSecret: String?
    /// Delay added to every answer (Apple's round trip), applied with `Task.sleep` so it does not
    /// hold up other requests.
    public var latency: Duration
    /// Where "now" comes from: the wall clock for `subrecon simulator`, a `SimulatedClock` in tests.
    public var clock: MillisecondsClock
    /// `receipt.bundle_id` in answers.
    public var bundleID: String
    /// Longest a request may take (latency, extra latency and `stall` faults included) before
    /// FlyingFox gives up on it and answers HTTP 500. Keep it above the client's timeout when
    /// injecting stalls. Not "the longer the safer": FlyingFox arms a timer of this length per
    /// request, and each cancelled timer holds ~1 KB until it would have fired, so memory in
    /// use is about request rate × this × 1 KB (20 MB at 640 requests/s with the default).
    public var requestTimeout: Duration

    public init(
        sharedSecret: String? = nil,
        latency: Duration = .zero,
        clock: @escaping MillisecondsClock = SimulatedClock.wall(),
        bundleID: String = SimulatedProducts.bundleID,
        requestTimeout: Duration = .seconds(30)
    ) {
        self.sharedSecret = sharedSecret
        self.latency = latency
        self.clock = clock
        self.bundleID = bundleID
        self.requestTimeout = requestTimeout
    }
}
