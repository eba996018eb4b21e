import Hummingbird
import HummingbirdCore
import Logging

/// Counts the server's connections into the metrics and caps them: while `maxConnections` are
/// open, Hummingbird stops accepting, so new connections wait in the listen backlog (the kernel's
/// queue, no file descriptor of ours) and are accepted as open ones close. Hummingbird keeps this
/// value in its acceptor's handler and calls it on the listener's event loop only.
struct ConnectionCounter: AvailableConnectionsDelegate {
    let metrics: NotificationReceiverMetrics
    let maxConnections: Int
    let logger: Logger
    private var open = 0
    private var lastNotice: ContinuousClock.Instant?

    init(metrics: NotificationReceiverMetrics, maxConnections: Int, logger: Logger) {
        self.metrics = metrics
        self.maxConnections = maxConnections
        self.logger = logger
    }

    mutating func connectionOpened() {
        open += 1
        metrics.connectionOpened()
        if open >= maxConnections { reachedTheLimit() }
    }

    mutating func connectionClosed() {
        open -= 1
        metrics.connectionClosed()
    }

    func isAcceptingNewConnections() -> Bool { open < maxConnections }

    /// Counted each time; logged at most once a minute (under a flood it is reached again and again).
    private mutating func reachedTheLimit() {
        metrics.connectionLimitReached()
        let now = ContinuousClock.now
        if let lastNotice, now - lastNotice < .seconds(60) { return }
        lastNotice = now
        logger.notice(
            "at the connection limit: new connections wait in the listen backlog until one closes",
            metadata: ["max_connections": "\(maxConnections)"])
    }
}
