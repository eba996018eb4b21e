/// How one delivery attempt ended, as the deliverer records it.
public struct WebhookAttemptResult: Sendable, Equatable {
    public enum Settlement: Sendable, Equatable {
        case delivered
        /// Failed; tried again at this time (ms).
        case retry(atMs: Int64)
        /// Failed, and it was the last attempt the schedule allows.
        case dead
    }

    public var position: Int64
    public var attemptedAtMs: Int64
    /// The HTTP status; nil when no HTTP answer came.
    public var status: Int?
    public var settlement: Settlement

    public init(position: Int64, attemptedAtMs: Int64, status: Int?, settlement: Settlement) {
        self.position = position
        self.attemptedAtMs = attemptedAtMs
        self.status = status
        self.settlement = settlement
    }

    /// The `events.state` it leaves.
    public var state: String {
        switch settlement {
        case .delivered: "delivered"
        case .retry: "pending"
        case .dead: "dead"
        }
    }
}
