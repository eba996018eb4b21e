/// Configuration of an `AppStoreSimulator`.
public struct SimulatorOptions: Sendable {
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
    /// each. One thread's ceiling is 1 ÷ (CPU per request): measured here at ~30 µs of HTTP and
    /// ~175 µs per full verifyReceipt answer, i.e. ~5,700 answers/s; raise it if that is the limit.
    public var eventLoopThreads: Int

    public init(
        sharedSecret: String? = nil,
        latency: Duration = .zero,
        clock: @escaping MillisecondsClock = SimulatedClock.wall(),
        bundleID: String = SimulatedProducts.bundleID,
        requestTimeout: Duration = .seconds(30),
        eventLoopThreads: Int = 1
    ) {
        self.sharedSecret = sharedSecret
        self.latency = latency
        self.clock = clock
        self.bundleID = bundleID
        self.requestTimeout = requestTimeout
        self.eventLoopThreads = eventLoopThreads
    }
}
