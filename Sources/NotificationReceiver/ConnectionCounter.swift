import Hummingbird
import HummingbirdCore

/// Counts the server's connections into the metrics; never refuses one (a reverse proxy in front
/// bounds them).
struct ConnectionCounter: AvailableConnectionsDelegate {
    let metrics: NotificationReceiverMetrics

    func connectionOpened() { metrics.connectionOpened() }

    func connectionClosed() { metrics.connectionClosed() }

    func isAcceptingNewConnections() -> Bool { true }
}
