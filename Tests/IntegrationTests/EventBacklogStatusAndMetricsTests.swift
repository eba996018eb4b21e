import AppStoreSimulator
import AppleSignedData
import Foundation
import Testing

@testable import SubRecon
@testable import SubReconModel
@_spi(RawSQL) @testable import SubReconStore

/// Operators see the outbox: `status` shows events pending, dead and the oldest pending one's age
/// per app (and whether the app's events are sent at all); the metrics file and `/metrics` carry
/// `subrecon_events_pending`, `subrecon_events_dead`, `subrecon_event_oldest_pending_seconds` and
/// `subrecon_webhook_attempts_total{result}`. Events come from a real run against the simulator,
/// settled through the store as the deliverer settles them.
@Suite(.serialized) struct EventBacklogStatusAndMetricsTests {
    /// The run's `subscription.new` events, one per subscription: the first delivered, the second
    /// failed once (its retry still pending), the third dead after a timeout (no HTTP answer).
    /// Returns how many events the run wrote and when they were created.
    static func runAndSettle(_ world: TestWorld) async throws -> (events: Int, createdAtMs: Int64) {
        try await world.importScenarios([.active, .expired, .refunded, .trialActive])
        let createdAtMs = world.clock.nowMs
        _ = try await world.run()
        let events = try await world.count("SELECT COUNT(*) FROM events")
        #expect(events == 4)
        let scope = EventDeliveryScope(apps: nil, firstDelayMs: 0)
        let claimed = try await world.store.settleAndClaimEvents(
            [], token: "status-test", scope: scope, nowMs: world.clock.nowMs, limit: 3, leaseMs: 60_000)
        #expect(claimed.count == 3)
        let settlements: [(Int?, WebhookAttemptResult.Settlement)] = [
            (204, .delivered), (500, .retry(atMs: world.clock.nowMs + 5_000)), (nil, .dead),
        ]
        _ = try await world.store.settleAndClaimEvents(
            zip(claimed, settlements).map { event, settlement in
                WebhookAttemptResult(
                    position: event.position, attemptedAtMs: world.clock.nowMs, status: settlement.0, settlement: settlement.1)
            }, token: "status-test", scope: scope, nowMs: world.clock.nowMs, limit: 0, leaseMs: 60_000)
        return (events, createdAtMs)
    }

    /// The `app` the run's events are stored under (the simulator's receipts name their app).
    static func eventApp(_ world: TestWorld) async throws -> String {
        try await world.store.withReadSnapshot { db in
            try await db.all("SELECT DISTINCT bundle_id FROM events") { try $0.requiredText("bundle_id") }
        }.first ?? "?"
    }

    @Test(arguments: StoreKind.allCases) func statusShowsPendingDeadAndTheOldestPendingAgePerApp(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            let (_, createdAtMs) = try await Self.runAndSettle(world)
            let app = try await Self.eventApp(world)
            world.clock.set(nowMs: createdAtMs + 125_000)

            // One endpoint for every app: 2 pending (the retry and the one never tried), 1 dead.
            let sent = try await StatusReport.load(
                from: world.store, nowMs: world.clock.nowMs, events: .init(apps: nil, defaultBundleID: nil))
            #expect(sent.events.apps == [
                .init(
                    app: app, pending: 2, dead: 1, oldestPendingAt: ISO8601.string(fromMilliseconds: createdAtMs),
                    oldestPendingAgeMs: 125_000, webhookConfigured: true)
            ])
            #expect(sent.events.webhookAttemptsDelivered == 1)
            #expect(sent.events.webhookAttemptsFailed == 2)
            let text = sent.text()
            let label = app.isEmpty ? "(no app)" : app
            #expect(text.contains("\nEvents: 2 pending, 1 dead; webhook attempts so far: 1 delivered, 2 failed\n"), "\(text)")
            let header = "  app" + String(repeating: " ", count: max(3, label.count) - 3)
                + "  pending  dead  oldest pending  webhook\n"
            #expect(text.contains(header), "\(text)")
            #expect(text.contains("  \(label)        2     1  2 min 05 s old  configured\n"), "\(text)")

            // No endpoint: the same events are recorded and never sent, and status says so.
            let unsent = try await StatusReport.load(from: world.store, nowMs: world.clock.nowMs)
            #expect(unsent.events.apps.map(\.webhookConfigured) == [false])
            #expect(unsent.text().contains("2 min 05 s old  no webhook configured: recorded, not sent\n"), "\(unsent.text())")

            let json = try #require(try JSONSerialization.jsonObject(with: sent.json()) as? [String: Any])
            let events = try #require(json["events"] as? [String: Any])
            #expect(events["webhook_attempts_failed"] as? Int == 2)
            let first = try #require((events["apps"] as? [[String: Any]])?.first)
            #expect(first["pending"] as? Int == 2)
            #expect(first["oldest_pending_age_ms"] as? Int == 125_000)
            #expect(first["webhook_configured"] as? Bool == true)
        }
    }

    @Test(arguments: StoreKind.allCases) func statusHasNoEventsSectionWhenNoEventExists(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            let report = try await StatusReport.load(
                from: world.store, nowMs: world.clock.nowMs, events: .init(apps: ["com.example.app"], defaultBundleID: nil))
            #expect(!report.text().contains("Events:"))
            // The JSON keeps its keys: the configured app with zeros.
            #expect(report.events.apps.map(\.pending) == [0])
        }
    }

    @Test(arguments: StoreKind.allCases) func theMetricsFileCarriesTheEventsFigures(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            let (_, createdAtMs) = try await Self.runAndSettle(world)
            let app = try await Self.eventApp(world)
            let summary = try await world.run()
            let oldest = Double(summary.finishedAtMs - createdAtMs) / 1000

            let sent = try PrometheusText.parse(
                try await world.store.withReadSnapshot { db in
                    try await MetricsFile.render(summary: summary, db, events: .init(apps: nil, defaultBundleID: nil))
                })
            #expect(sent["subrecon_events_pending{app=\"\(app)\"}"] == 2)
            #expect(sent["subrecon_events_dead{app=\"\(app)\"}"] == 1)
            #expect(sent["subrecon_event_oldest_pending_seconds{app=\"\(app)\"}"] == oldest)
            #expect(sent["subrecon_webhook_attempts_total{result=\"delivered\"}"] == 1)
            #expect(sent["subrecon_webhook_attempts_total{result=\"failed\"}"] == 2)
            #expect(sent["subrecon_events_unsent{app=\"\(app)\"}"] == nil)

            // Without an endpoint, the app's waiting events are unsent, not pending: an alert on the
            // oldest pending age never fires for an app that has no webhook.
            let unsent = try PrometheusText.parse(
                try await world.store.withReadSnapshot { db in try await MetricsFile.render(summary: summary, db) })
            #expect(unsent["subrecon_events_unsent{app=\"\(app)\"}"] == 2)
            #expect(unsent["subrecon_events_pending{app=\"\(app)\"}"] == nil)
            #expect(unsent["subrecon_events_dead{app=\"\(app)\"}"] == 1)
            #expect(unsent["subrecon_webhook_attempts_total{result=\"delivered\"}"] == 1)

            // Retention removes settled events, never the attempt counters (a counter never goes down).
            _ = try await world.store.removeSettledEvents(createdBefore: world.clock.nowMs + 1)
            let after = try PrometheusText.parse(
                try await world.store.withReadSnapshot { db in
                    try await MetricsFile.render(summary: summary, db, events: .init(apps: nil, defaultBundleID: nil))
                })
            #expect(after["subrecon_events_dead{app=\"\(app)\"}"] == 0)
            #expect(after["subrecon_events_pending{app=\"\(app)\"}"] == 2)
            #expect(after["subrecon_webhook_attempts_total{result=\"delivered\"}"] == 1)
            #expect(after["subrecon_webhook_attempts_total{result=\"failed\"}"] == 2)
        }
    }

    /// Status and every scrape stay fast on a large events table: the pending and dead counts walk
    /// the partial indexes, never the delivered bulk.
    @Test(arguments: StoreKind.allCases) func thePendingAndDeadCountsUseThePartialIndexes(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            let plans = try await world.store.withReadSnapshot { db in
                var plans: [String] = []
                for sql in [EventReportSQL.pendingByApp, EventReportSQL.deadByApp] {
                    if store == .postgres {
                        // Without statistics a tiny table is read sequentially whatever the indexes;
                        // this stands in for a large one.
                        try await db.forEachRow("SET LOCAL enable_seqscan = off", []) { _ in }
                        plans.append(try await db.all("EXPLAIN " + sql) { try $0.requiredText("QUERY PLAN") }.joined(separator: " | "))
                    } else {
                        plans.append(try await db.all("EXPLAIN QUERY PLAN " + sql) { try $0.requiredText("detail") }.joined(separator: " | "))
                    }
                }
                return plans
            }
            #expect(plans[0].contains("events_pending"), "\(plans[0])")
            #expect(plans[1].contains("events_dead"), "\(plans[1])")
        }
    }
}
