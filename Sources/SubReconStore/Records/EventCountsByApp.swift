/// One app's events waiting or given up (`status`, the metrics): '' is events naming no app.
public struct EventCountsByApp: Sendable, Equatable {
    public var app: String
    public var pending: Int64
    public var dead: Int64
    /// When the oldest pending event was created; nil when none is pending.
    public var oldestPendingCreatedAtMs: Int64?

    public init(app: String, pending: Int64 = 0, dead: Int64 = 0, oldestPendingCreatedAtMs: Int64? = nil) {
        self.app = app
        self.pending = pending
        self.dead = dead
        self.oldestPendingCreatedAtMs = oldestPendingCreatedAtMs
    }
}
