/// Which events a deliverer serves: the apps with an endpoint (nil: every app, a single-app
/// deployment), and the schedule's first delay (from an event's creation or replay).
public struct EventDeliveryScope: Sendable, Equatable {
    public var apps: [String]?
    public var firstDelayMs: Int64

    public init(apps: [String]?, firstDelayMs: Int64) {
        self.apps = apps
        self.firstDelayMs = firstDelayMs
    }

    /// The bundle IDs bound for `EventDeliverySQL.appFilter`.
    package var appArguments: [SQLArgument] { apps?.map(SQLArgument.text) ?? [] }
}
