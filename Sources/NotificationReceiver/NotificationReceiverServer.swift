import AppleSignedData
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle
import SubRecon
import SubReconModel
import UnixSignals

/// `subrecon notifications serve`: an HTTP/1.1 server (Hummingbird, keep-alive) that hands each
/// notification body to a `NotificationIntake` and answers what Apple acts on, with `/metrics` and
/// `/healthz` beside it. It runs in a ServiceGroup: on SIGTERM/SIGINT (or `shutDown()`) it stops
/// accepting, lets requests in flight finish and be answered, closes idle connections, and
/// `run()` returns.
///
/// ```
/// let server = NotificationReceiverServer(configuration: .init(port: 0), intake: intake, logger: logger)
/// async let running: Void = server.run()
/// let url = await server.listeningURL()   // http://127.0.0.1:PORT/apple/notifications
/// await server.shutDown()                 // or SIGTERM when `handlesSignals`
/// try await running
/// ```
public final class NotificationReceiverServer: Sendable {
    public let configuration: NotificationReceiverConfiguration
    /// Counted since this server was made; also served at `GET /metrics`.
    public let metrics: NotificationReceiverMetrics
    private let serviceGroup: ServiceGroup
    private let announcement: ListeningAnnouncement

    /// - Parameter wallClockMs: now in Unix milliseconds, for the lag from `signedDate` and the
    ///   last-received gauge (tests pass a fixed clock).
    /// - Parameter storeMetrics: more `/metrics` text read from the store at each scrape (the
    ///   events' backlog), after the receiver's counters.
    public init(
        configuration: NotificationReceiverConfiguration, intake: any NotificationIntake, logger: Logger,
        wallClockMs: @escaping @Sendable () -> Int64 = { WallClock.unixMilliseconds() },
        storeMetrics: (@Sendable () async -> String)? = nil
    ) {
        self.configuration = configuration
        let metrics = NotificationReceiverMetrics()
        self.metrics = metrics
        let responder = NotificationResponder(
            path: configuration.path, maxBodyBytes: configuration.maxBodyBytes, intake: intake, metrics: metrics,
            wallClockMs: wallClockMs, storeMetrics: storeMetrics, logger: logger)
        let announcement = ListeningAnnouncement()
        self.announcement = announcement
        metrics.limitConnections(to: configuration.maxConnections)
        let http1 = HTTP1Channel.Configuration(idleTimeout: Self.timeAmount(configuration.idleTimeout))
        let readTimeout = Self.timeAmount(configuration.readTimeout)
        let deadlineLogger = logger
        let application = Application(
            responder: responder,
            server: HTTPServerBuilder { responder in
                DeadlineHTTP1Channel(
                    http1: HTTP1Channel(responder: responder, configuration: http1), readTimeout: readTimeout,
                    timedOut: {
                        metrics.readTimedOut()
                        deadlineLogger.debug("request not in full within the read timeout: connection closed")
                    })
            },
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port),
                availableConnectionsDelegate: ConnectionCounter(
                    metrics: metrics, maxConnections: configuration.maxConnections, logger: logger)),
            onServerRunning: { channel in
                // One connection accepted per read of the listener (NIO's default is 4), so the cap
                // is checked before each: never more than `maxConnections` open, not a few over.
                try? await channel.setOption(ChannelOptions.maxMessagesPerRead, value: 1).get()
                announcement.listening(at: configuration.url(port: channel.localAddress?.port ?? configuration.port))
            },
            logger: logger)
        var groupConfiguration = ServiceGroupConfiguration(
            services: [application], gracefulShutdownSignals: configuration.handlesSignals ? [.sigterm, .sigint] : [],
            logger: logger)
        groupConfiguration.maximumGracefulShutdownDuration = configuration.shutdownGracePeriod
        self.serviceGroup = ServiceGroup(configuration: groupConfiguration)
    }

    /// Binds, serves, and returns once a graceful shutdown has finished. Throws when the address
    /// cannot be bound (the port is taken, the host is not this machine's). Call it once.
    public func run() async throws {
        defer { announcement.stopped() }
        if configuration.handlesSignals { Self.unblockStopSignals() }
        try await serviceGroup.run()
    }

    /// The URL it listens on once bound (with the real port when 0 was asked); nil if `run()`
    /// ended before it listened.
    public func listeningURL() async -> String? {
        await announcement.wait()
    }

    /// Starts the graceful shutdown, as SIGTERM does: no new connections, requests in flight
    /// answered, then `run()` returns. Before `run()`, it makes `run()` stop at once.
    public func shutDown() async {
        await serviceGroup.triggerGracefulShutdown()
    }

    /// A parent (a test runner, some supervisors) may have left SIGTERM and SIGINT blocked; a
    /// blocked SIGTERM would never stop the server (the same care as `StopSignal`).
    private static func unblockStopSignals() {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGINT)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    private static func timeAmount(_ duration: Duration) -> TimeAmount {
        .nanoseconds(duration.nanoseconds)
    }
}
