/// How a deliverer works: its endpoints, how many requests it keeps in flight, how long one may
/// take, the retry schedule and how long it leases an event it is sending.
public struct WebhookDeliveryOptions: Sendable {
    /// Endpoints by bundle ID; `everyApp` serves every event (a single-app deployment).
    public var targets: [String: WebhookTarget]
    public var everyApp: WebhookTarget?
    /// Requests in flight at most (one per subscription at a time).
    public var concurrency: Int
    public var timeout: Duration
    /// Seconds before each attempt: entry 0 from the event's creation or replay, entry i between
    /// attempts i and i+1; its length is the number of attempts.
    public var scheduleSeconds: [Int64]
    /// An event in flight stays leased this long at most (SUBRECON_CLAIM_TIMEOUT).
    public var leaseMs: Int64
    public var userAgent: String
    /// How often an idle deliverer looks for new events (continuous delivery).
    public var idlePoll: Duration

    public init(
        targets: [String: WebhookTarget] = [:], everyApp: WebhookTarget? = nil, concurrency: Int = 16,
        timeout: Duration = .seconds(10), scheduleSeconds: [Int64] = [0, 5, 300, 1800, 7200, 18000, 36000, 36000],
        leaseMs: Int64 = 300_000, userAgent: String = "subrecon", idlePoll: Duration = .milliseconds(200)
    ) {
        self.targets = targets
        self.everyApp = everyApp
        self.concurrency = max(1, concurrency)
        self.timeout = timeout
        self.scheduleSeconds = scheduleSeconds.isEmpty ? [0] : scheduleSeconds
        self.leaseMs = max(1000, leaseMs)
        self.userAgent = userAgent
        self.idlePoll = idlePoll
    }

    /// The endpoint for an event of `app` ('' when it names none).
    public func target(for app: String) -> WebhookTarget? { everyApp ?? targets[app] }

    /// Whether any event is delivered at all.
    public var hasEndpoints: Bool { everyApp != nil || !targets.isEmpty }

    /// What happens after a failed attempt that was the event's `attempt`-th (1-based), ending at
    /// `endedAtMs`: the next attempt's time, or nil when the schedule has no attempt left (dead).
    public func retryTime(afterAttempt attempt: Int, endedAtMs: Int64) -> Int64? {
        guard attempt < scheduleSeconds.count else { return nil }
        return endedAtMs + scheduleSeconds[attempt] * 1000
    }
}
