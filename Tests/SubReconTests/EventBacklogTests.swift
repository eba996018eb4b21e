@testable import SubRecon
import SubReconStore
import Testing

/// What status and the metrics show of the outbox, from the store's counts alone: how apps are
/// named, which are sent, and the Prometheus text.
@Suite struct EventBacklogTests {
    static let nowMs: Int64 = 1_795_329_964_000

    @Test func anEventNamingNoAppIsTheDeploymentsOneAppWhenBothAreSentAlike() {
        let counts = [
            EventCountsByApp(app: "", pending: 2, dead: 1, oldestPendingCreatedAtMs: Self.nowMs - 5_000),
            EventCountsByApp(app: "com.example.app", pending: 3, dead: 0, oldestPendingCreatedAtMs: Self.nowMs - 9_000),
        ]
        // One endpoint for every app: merged under the bundle ID, the older of the two oldest.
        let single = EventBacklog(counts: counts, destinations: .init(apps: nil, defaultBundleID: "com.example.app"))
        #expect(single.apps == [
            .init(app: "com.example.app", pending: 5, dead: 1, oldestPendingCreatedAtMs: Self.nowMs - 9_000, webhookConfigured: true)
        ])
        // An apps file whose one app has an endpoint: an event naming no app is not sent, so it
        // stays on a line of its own rather than hiding among the sent ones.
        let file = EventBacklog(counts: counts, destinations: .init(apps: ["com.example.app"], defaultBundleID: "com.example.app"))
        #expect(file.apps.map(\.app) == ["", "com.example.app"])
        #expect(file.apps.map(\.webhookConfigured) == [false, true])
        // Nothing configured and no bundle ID known: two lines, neither sent.
        let none = EventBacklog(counts: counts, destinations: .none)
        #expect(none.apps.map(\.app) == ["", "com.example.app"])
        #expect(none.apps.allSatisfy { !$0.webhookConfigured })
    }

    @Test func everyAppWithAnEndpointHasALineSoItsSeriesNeverDisappears() {
        let backlog = EventBacklog(
            counts: [EventCountsByApp(app: "com.b", pending: 1, dead: 0, oldestPendingCreatedAtMs: Self.nowMs - 1)],
            destinations: .init(apps: ["com.a", "com.b"], defaultBundleID: nil))
        #expect(backlog.apps.map(\.app) == ["com.a", "com.b"])
        #expect(backlog.apps[0] == .init(app: "com.a", pending: 0, dead: 0, oldestPendingCreatedAtMs: nil, webhookConfigured: true))
        // A single endpoint with the bundle ID known: that app's line, zeros.
        let single = EventBacklog(counts: [], destinations: .init(apps: nil, defaultBundleID: "com.a"))
        #expect(single.apps.map(\.app) == ["com.a"])
        // A single endpoint without one: no name to give a line, so none.
        #expect(EventBacklog(counts: [], destinations: .init(apps: nil, defaultBundleID: nil)).apps.isEmpty)
    }

    @Test func theMetricsArePrometheusTextPendingOnlyForAppsThatAreSent() {
        let backlog = EventBacklog(
            counts: [
                EventCountsByApp(app: "com.sent", pending: 4, dead: 2, oldestPendingCreatedAtMs: Self.nowMs - 90_500),
                EventCountsByApp(app: "com.unsent\"x", pending: 7, dead: 0, oldestPendingCreatedAtMs: Self.nowMs - 1_000_000),
            ],
            destinations: .init(apps: ["com.sent", "com.idle"], defaultBundleID: nil), attemptsDelivered: 12, attemptsFailed: 3)
        var out = MetricsText()
        backlog.writeMetrics(to: &out, nowMs: Self.nowMs)
        #expect(out.text == """
            # HELP subrecon_events_pending Events waiting for delivery to the app's webhook (retries included).
            # TYPE subrecon_events_pending gauge
            subrecon_events_pending{app="com.idle"} 0
            subrecon_events_pending{app="com.sent"} 4
            # HELP subrecon_events_dead Events that failed every attempt (webhooks replay --dead-only sends them again).
            # TYPE subrecon_events_dead gauge
            subrecon_events_dead{app="com.idle"} 0
            subrecon_events_dead{app="com.sent"} 2
            subrecon_events_dead{app="com.unsent\\"x"} 0
            # HELP subrecon_event_oldest_pending_seconds Age of the oldest event waiting for delivery; 0 when none waits.
            # TYPE subrecon_event_oldest_pending_seconds gauge
            subrecon_event_oldest_pending_seconds{app="com.idle"} 0
            subrecon_event_oldest_pending_seconds{app="com.sent"} 90.5
            # HELP subrecon_events_unsent Events of an app with no webhook endpoint configured: recorded, not sent.
            # TYPE subrecon_events_unsent gauge
            subrecon_events_unsent{app="com.unsent\\"x"} 7
            # HELP subrecon_webhook_attempts_total Webhook delivery attempts, by result (failed: any answer but 2xx, or none).
            # TYPE subrecon_webhook_attempts_total counter
            subrecon_webhook_attempts_total{result="delivered"} 12
            subrecon_webhook_attempts_total{result="failed"} 3

            """)
    }

    @Test func anOldestPendingEventFromTheFutureIsNoneOldNotANegativeAge() {
        let app = EventBacklog.App(
            app: "a", pending: 1, dead: 0, oldestPendingCreatedAtMs: Self.nowMs + 5_000, webhookConfigured: true)
        #expect(app.oldestPendingAgeMs(nowMs: Self.nowMs) == 0)
    }
}
