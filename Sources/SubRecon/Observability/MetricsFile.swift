import Foundation
import SubReconAppStore
import SubReconModel
import SubReconStore

/// Writes Prometheus text exposition format at the end of a run, atomically, for
/// node_exporter's textfile collector (`--metrics-file /var/lib/node_exporter/subrecon.prom`):
/// cron monitoring can alert on a stale last success or a non-zero exit.
public enum MetricsFile {
    /// `events`: which apps' events this configuration sends (their pending events and age are
    /// metrics; the others' are `subrecon_events_unsent`).
    public static func write(
        to path: String, summary: RunSummary, store: any SubscriptionStore, events: EventBacklog.Destinations = .none
    ) async throws(ReportError) {
        let text: String
        do {
            text = try await store.withReadSnapshot { db in try await render(summary: summary, db, events: events) }
        } catch let error as ReportError {
            throw error
        } catch {
            throw .failed(StoreError.reason(error))
        }
        // 0644: node_exporter reads it as another user, and it holds counts only, no customer data.
        try await AtomicFile.write(to: path, mode: 0o644) { handle in handle.write(Data(text.utf8)) }
    }

    static func render(
        summary: RunSummary, _ db: any SnapshotQuerying, events: EventBacklog.Destinations = .none
    ) async throws -> String {
        do {
            var out = MetricsText()
            let kind = summary.kind.rawValue
            let lastSuccess = try await db.lastSuccessfulRunFinishedAtMs(kind: kind)
            out.gauge(
                "subrecon_last_run_timestamp_seconds", "When the last run finished (Unix time).",
                [("kind", kind)], Double(summary.finishedAtMs) / 1000)
            if let lastSuccess {
                out.gauge(
                    "subrecon_last_success_timestamp_seconds", "When the last run that exited 0 finished (Unix time).",
                    [("kind", kind)], Double(lastSuccess) / 1000)
            }
            out.gauge(
                "subrecon_last_run_duration_seconds", "How long the last run took.", [("kind", kind)],
                Double(summary.finishedAtMs - summary.startedAtMs) / 1000)
            out.gauge("subrecon_last_run_exit_code", "The last run's exit code.", [("kind", kind)], Double(summary.exitCode))
            out.gauge(
                "subrecon_last_run_receipts_total", "Receipts the last run selected.", [("kind", kind)],
                Double(summary.receiptsTotal))
            for outcome in RunItemOutcome.allCases {
                out.gauge(
                    "subrecon_last_run_receipts", "Receipts of the last run by outcome.",
                    [("kind", kind), ("outcome", outcome.rawValue)], Double(summary.count(outcome)))
            }
            if let api = summary.serverAPI {
                out.gauge(
                    "subrecon_last_run_server_api_requests", "App Store Server API requests of the last run.",
                    [("kind", kind)], Double(api.requests))
                out.gauge(
                    "subrecon_last_run_server_api_rate_limited", "App Store Server API answers 429 in the last run.",
                    [("kind", kind)], Double(api.rateLimited))
                out.gauge(
                    "subrecon_last_run_server_api_requests_per_second", "The request rate the last run reached.",
                    [("kind", kind)], api.achievedRate ?? 0)
            }
            if let runID = summary.runID {
                for (status, count) in try await db.appleStatusCounts(ofRun: runID) {
                    out.gauge(
                        "subrecon_last_run_apple_status", "Apple statuses answered in the last run.",
                        [("kind", kind), ("status", String(status))], Double(count))
                }
            }
            let byStatus = try await db.subscriptionCountsByStatus()
            for status in SubscriptionStatus.allCases {
                out.gauge(
                    "subrecon_subscriptions", "Stored subscriptions by status.", [("status", status.rawValue)],
                    Double(byStatus[status.rawValue] ?? 0))
            }
            let due = try await db.dueReceiptCount(at: summary.finishedAtMs)
            out.gauge("subrecon_receipts_due", "Receipts due when the last run finished.", [], Double(due))
            // The outbox as the run leaves it, aged at the run's end like the due receipts.
            try await EventBacklog.read(db, destinations: events).writeMetrics(to: &out, nowMs: summary.finishedAtMs)
            return out.text
        }
    }
}
