import SubReconStore

extension EventBacklog {
    /// The events' metrics, as the metrics file and `/metrics` write them. Pending events and the
    /// oldest one's age are those of apps with an endpoint (what can be delivered: an alert on them
    /// means an endpoint is behind); events of an app without one are `subrecon_events_unsent`,
    /// which never pages anyone for an app that deliberately has no webhook. The oldest pending age
    /// is 0 when nothing is pending, so an alert on it needs no special case for an absent series.
    public func writeMetrics(to out: inout MetricsText, nowMs: Int64) {
        for app in apps where app.webhookConfigured {
            out.gauge(
                "subrecon_events_pending", "Events waiting for delivery to the app's webhook (retries included).",
                [("app", app.app)], Double(app.pending))
        }
        for app in apps {
            out.gauge(
                "subrecon_events_dead", "Events that failed every attempt (webhooks replay --dead-only sends them again).",
                [("app", app.app)], Double(app.dead))
        }
        for app in apps where app.webhookConfigured {
            out.gauge(
                "subrecon_event_oldest_pending_seconds", "Age of the oldest event waiting for delivery; 0 when none waits.",
                [("app", app.app)], Double(app.oldestPendingAgeMs(nowMs: nowMs) ?? 0) / 1000)
        }
        for app in apps where !app.webhookConfigured {
            out.gauge(
                "subrecon_events_unsent", "Events of an app with no webhook endpoint configured: recorded, not sent.",
                [("app", app.app)], Double(app.pending))
        }
        out.counter(
            "subrecon_webhook_attempts_total", "Webhook delivery attempts, by result (failed: any answer but 2xx, or none).",
            [("result", "delivered")], Double(attemptsDelivered))
        out.counter(
            "subrecon_webhook_attempts_total", "Webhook delivery attempts, by result (failed: any answer but 2xx, or none).",
            [("result", "failed")], Double(attemptsFailed))
    }

    /// The events' metrics read from `store` now, for a server's `/metrics`.
    public static func metricsText(
        store: any SubscriptionStore, destinations: Destinations, nowMs: Int64
    ) async throws -> String {
        let backlog = try await store.withReadSnapshot { db in try await read(db, destinations: destinations) }
        var out = MetricsText()
        backlog.writeMetrics(to: &out, nowMs: nowMs)
        return out.text
    }
}
