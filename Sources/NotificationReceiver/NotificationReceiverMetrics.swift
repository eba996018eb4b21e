import SubRecon
import SubReconModel
import Synchronization

/// The receiver's counters since it started, for `GET /metrics` (Prometheus text, the same style as
/// a run's metrics file). One lock around one small struct: a few additions per request.
public final class NotificationReceiverMetrics: Sendable {
    /// Why a POST was not stored: every `NotificationRefusal`, plus a body over the limit and a
    /// store that could not be reached.
    public static let rejectionReasons = NotificationRefusal.allCases.map(\.rawValue) + ["too_large", "unavailable"]

    private struct Counts {
        var received: UInt64 = 0
        var stored: [NotificationOutcome: UInt64] = [:]
        var duplicates: UInt64 = 0
        var rejected: [String: UInt64] = [:]
        var lastReceivedMs: Int64?
        var connectionsOpened: UInt64 = 0
        var connectionsOpen: Int = 0
        var maxConnections: Int?
        var connectionLimitReached: UInt64 = 0
        var readTimeouts: UInt64 = 0
        var requestSeconds = SecondsHistogram(upperBounds: SecondsHistogram.requestBounds)
        var lagSeconds = SecondsHistogram(upperBounds: SecondsHistogram.lagBounds)
    }

    private let counts = Mutex(Counts())

    public init() {}

    /// A POST to the notification path arrived (before its body is read).
    func received(atMs nowMs: Int64) {
        counts.withLock {
            $0.received += 1
            $0.lastReceivedMs = nowMs
        }
    }

    /// The intake stored it; a duplicate (same `notificationUUID` again) changes nothing, so it
    /// counts only as a duplicate and adds no lag.
    func stored(_ outcome: NotificationOutcome, duplicate: Bool, lagSeconds: Double) {
        counts.withLock {
            if duplicate {
                $0.duplicates += 1
            } else {
                $0.stored[outcome, default: 0] += 1
                $0.lagSeconds.observe(max(0, lagSeconds))
            }
        }
    }

    func rejected(_ reason: String) {
        counts.withLock { $0.rejected[reason, default: 0] += 1 }
    }

    /// Connections, to see keep-alive at work: many requests, few connections.
    func connectionOpened() {
        counts.withLock {
            $0.connectionsOpened += 1
            $0.connectionsOpen += 1
        }
    }

    func connectionClosed() {
        counts.withLock { $0.connectionsOpen -= 1 }
    }

    /// The cap on connections served at once, shown beside the open count.
    func limitConnections(to maximum: Int) {
        counts.withLock { $0.maxConnections = maximum }
    }

    /// The last free connection was taken: new ones wait in the listen backlog.
    func connectionLimitReached() {
        counts.withLock { $0.connectionLimitReached += 1 }
    }

    /// A connection was closed because a request did not arrive in full within the read timeout.
    func readTimedOut() {
        counts.withLock { $0.readTimeouts += 1 }
    }

    func answered(afterSeconds seconds: Double) {
        counts.withLock { $0.requestSeconds.observe(seconds) }
    }

    /// Prometheus text exposition of everything counted so far.
    public func exposition() -> String {
        let counts = counts.withLock { $0 }
        var out = MetricsText()
        out.counter(
            "subrecon_notifications_received_total", "Notification POSTs received, whatever became of them.", [],
            Double(counts.received))
        for outcome in NotificationOutcome.allCases {
            out.counter(
                "subrecon_notifications_stored_total", "Notifications stored for the first time, by outcome.",
                [("outcome", outcome.rawValue)], Double(counts.stored[outcome] ?? 0))
        }
        out.counter(
            "subrecon_notifications_duplicates_total", "Notifications already stored (same notificationUUID), answered 200.",
            [], Double(counts.duplicates))
        for reason in Self.rejectionReasons {
            out.counter(
                "subrecon_notifications_rejected_total", "Notifications not stored (400, 413 or 503), by reason.",
                [("reason", reason)], Double(counts.rejected[reason] ?? 0))
        }
        counts.requestSeconds.write(
            "subrecon_notification_request_seconds", "Time from a notification POST to its answer.", to: &out)
        counts.lagSeconds.write(
            "subrecon_notification_lag_seconds", "Time from a notification's signedDate to it being stored.", to: &out)
        if let last = counts.lastReceivedMs {
            out.gauge(
                "subrecon_notifications_last_received_timestamp_seconds", "When the last notification POST arrived (Unix time).",
                [], Double(last) / 1000)
        }
        out.counter(
            "subrecon_notification_connections_opened_total", "HTTP connections accepted (keep-alive: far fewer than requests).",
            [], Double(counts.connectionsOpened))
        out.gauge("subrecon_notification_connections_open", "HTTP connections open now.", [], Double(counts.connectionsOpen))
        if let maximum = counts.maxConnections {
            out.gauge(
                "subrecon_notification_connections_max", "HTTP connections served at once at most; more wait in the listen backlog.",
                [], Double(maximum))
        }
        out.counter(
            "subrecon_notification_connection_limit_reached_total",
            "Times every connection was taken, so new ones had to wait in the listen backlog.", [],
            Double(counts.connectionLimitReached))
        out.counter(
            "subrecon_notification_read_timeouts_total",
            "Connections closed because a request did not arrive in full within the read timeout (slow or stalled clients).",
            [], Double(counts.readTimeouts))
        return out.text
    }
}
