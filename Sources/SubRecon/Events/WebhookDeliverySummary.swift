import SubReconStore

/// What a deliverer did: attempts by how they ended, and what is still pending when it stopped.
public struct WebhookDeliverySummary: Sendable, Equatable {
    public var delivered = 0
    /// Failed attempts that will be tried again.
    public var retrying = 0
    /// Events whose last attempt failed.
    public var dead = 0
    /// Events still pending in the deliverer's scope when it stopped.
    public var pending: Int64 = 0
    /// The signal that stopped the deliverer early ("SIGTERM", "SIGINT"), or nil.
    public var stoppedBy: String?

    public init() {}

    mutating func count(_ results: [WebhookAttemptResult]) {
        for result in results {
            switch result.settlement {
            case .delivered: delivered += 1
            case .retry: retrying += 1
            case .dead: dead += 1
            }
        }
    }
}
