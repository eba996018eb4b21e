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

    public init(
        sharedSecret: String? = nil,
        latency: Duration = .zero,
        clock: @escaping MillisecondsClock = SimulatedClock.wall(),
        bundleID: String = SimulatedProducts.bundleID
    ) {
        self.sharedSecret = sharedSecret
        self.latency = latency
        self.clock = clock
        self.bundleID = bundleID
    }
}
