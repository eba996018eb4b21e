import SubReconStore

/// What the outbox holds for operators: per app, events pending and dead and when the oldest
/// pending one was created, and whether this configuration sends that app's events at all; and
/// the webhook attempts ever made. `status` shows it; the metrics file and `/metrics` expose it
/// (`EventBacklog+Metrics`). Read from the snapshot of the caller, so its numbers agree with the
/// rest of the screen.
public struct EventBacklog: Sendable, Equatable {
    /// Which apps' events this configuration sends, and what an event naming no app is called.
    public struct Destinations: Sendable, Equatable {
        /// nil: every app (one endpoint in a single-app deployment); else the apps with an endpoint.
        public var apps: Set<String>?
        /// The bundle ID an event naming no app stands for (the deployment's one app), when known.
        public var defaultBundleID: String?

        /// No endpoint at all: events are recorded and never sent.
        public static let none = Destinations(apps: [], defaultBundleID: nil)

        public init(apps: Set<String>?, defaultBundleID: String?) {
            self.apps = apps
            self.defaultBundleID = defaultBundleID
        }

        /// Whether the deliverer sends the events stored under `app` ('' names none): the same
        /// rule as `report events`' delivery state.
        public func sends(_ app: String) -> Bool {
            apps.map { $0.contains(app) } ?? true
        }

        /// The name an event stored under `app` is shown under: the deployment's one app for an
        /// event naming none, unless that would put events that are sent and events that are not
        /// on one line.
        func name(_ app: String) -> String {
            guard app.isEmpty, let defaultBundleID, sends(app) == sends(defaultBundleID) else { return app }
            return defaultBundleID
        }
    }

    /// One app's line.
    public struct App: Sendable, Equatable {
        /// The bundle ID; '' for events naming no app in a deployment that does not name its one app.
        public var app: String
        /// Events not yet delivered, dead or skipped (for an app without an endpoint: waiting for one).
        public var pending: Int64
        public var dead: Int64
        /// When the oldest pending event was created (Unix ms); nil when none is pending.
        public var oldestPendingCreatedAtMs: Int64?
        /// Whether this configuration has an endpoint for the app; without one its events are
        /// recorded and never sent (a URL configured later receives them unless `webhooks skip`).
        public var webhookConfigured: Bool

        public init(app: String, pending: Int64, dead: Int64, oldestPendingCreatedAtMs: Int64?, webhookConfigured: Bool) {
            self.app = app
            self.pending = pending
            self.dead = dead
            self.oldestPendingCreatedAtMs = oldestPendingCreatedAtMs
            self.webhookConfigured = webhookConfigured
        }

        /// How old the oldest pending event is at `nowMs`; nil when none is pending.
        public func oldestPendingAgeMs(nowMs: Int64) -> Int64? {
            oldestPendingCreatedAtMs.map { max(0, nowMs - $0) }
        }
    }

    /// By name: every app with a pending or dead event, and every app with an endpoint (zeros
    /// when it has none), so a monitored series never disappears while all is well.
    public var apps: [App]
    /// Webhook attempts ever made, by result: never lowered, retention leaves them.
    public var attemptsDelivered: Int64
    public var attemptsFailed: Int64

    public init(apps: [App], attemptsDelivered: Int64 = 0, attemptsFailed: Int64 = 0) {
        self.apps = apps
        self.attemptsDelivered = attemptsDelivered
        self.attemptsFailed = attemptsFailed
    }

    /// Reads it from `db` (the partial indexes of pending and dead events: delivered ones, the
    /// bulk of a large table, are never scanned).
    public static func read(_ db: any SnapshotQuerying, destinations: Destinations) async throws -> EventBacklog {
        let totals = try await db.webhookAttemptTotals()
        return EventBacklog(
            counts: try await db.eventCountsByApp(), destinations: destinations,
            attemptsDelivered: totals["delivered"] ?? 0, attemptsFailed: totals["failed"] ?? 0)
    }

    /// From the store's counts (app '' = events naming no app), named and marked for `destinations`.
    public init(counts: [EventCountsByApp], destinations: Destinations, attemptsDelivered: Int64 = 0, attemptsFailed: Int64 = 0) {
        var byName: [String: App] = [:]
        for count in counts {
            let name = destinations.name(count.app)
            var app = byName[name]
                ?? App(app: name, pending: 0, dead: 0, oldestPendingCreatedAtMs: nil, webhookConfigured: destinations.sends(count.app))
            app.pending += count.pending
            app.dead += count.dead
            if let oldest = count.oldestPendingCreatedAtMs {
                app.oldestPendingCreatedAtMs = min(app.oldestPendingCreatedAtMs ?? oldest, oldest)
            }
            byName[name] = app
        }
        for app in destinations.apps ?? Set(destinations.defaultBundleID.map { [$0] } ?? []) where byName[app] == nil {
            byName[app] = App(app: app, pending: 0, dead: 0, oldestPendingCreatedAtMs: nil, webhookConfigured: true)
        }
        self.init(
            apps: byName.values.sorted { $0.app < $1.app }, attemptsDelivered: attemptsDelivered, attemptsFailed: attemptsFailed)
    }
}
