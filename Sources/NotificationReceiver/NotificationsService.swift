import AppleSignedData
import Logging
import NIOCore
import SubRecon
import SubReconModel
import SubReconStore

/// Why `notifications serve` ended other than by SIGTERM or SIGINT (exit 1): the address could
/// not be bound, or the server failed after it listened.
public struct NotificationsServeFailure: OperatorFacingError {
    public var message: String

    public var exitStatus: ExitStatus { .incomplete }
    public var description: String { message }
}

extension CommandContext {
    /// `subrecon notifications serve`: verifies the settings (exit 2 before the database is
    /// touched), opens the store for a server Apple waits on, prints the URL it listens on (one
    /// line, the port when 0 picked one) and serves until SIGTERM or SIGINT.
    public func serveNotifications(
        _ configuration: NotificationReceiverConfiguration, flags: NotificationSettings.Flags,
        limits limitFlags: NotificationReceiverLimits.Flags = NotificationReceiverLimits.Flags()
    ) async throws {
        // A bad webhook setting is refused before anything, as every command refuses it. Its
        // endpoints say which apps' events `/metrics` counts as pending.
        let events = try eventDestinations(try webhookSettings())
        let settings = try NotificationSettings.resolve(environment: environment, flags: notificationFlags(flags))
        var warnings: [String] = []
        let limits = try NotificationReceiverLimits.resolve(
            environment: environment, readTimeoutFlag: limitFlags.readTimeout, idleTimeoutFlag: limitFlags.idleTimeout,
            maxConnectionsFlag: limitFlags.maxConnections, descriptors: .current(), warnings: &warnings)
        for warning in warnings { output.warning(warning) }
        var configuration = configuration
        configuration.apply(limits)
        // Apple waits a few seconds at most: an unreachable PostgreSQL answers 503 (Apple
        // retries, the daily backfill recovers) after this, not after the nightly run's 120 s.
        var storeEnvironment = environment
        if storeEnvironment["SUBRECON_DB_RETRY_SECONDS"] == nil { storeEnvironment["SUBRECON_DB_RETRY_SECONDS"] = "5" }
        let store = try await openStore(ifMissing: .create, environment: storeEnvironment, latencyBound: true)
        let intake = NotificationProcessor.live(store: store, settings: settings, logger: logger)
        let logger = self.logger
        let server = NotificationReceiverServer(
            configuration: configuration, intake: intake, logger: logger,
            storeMetrics: {
                do {
                    return try await EventBacklog.metricsText(store: store, destinations: events, nowMs: WallClock.unixMilliseconds())
                } catch {
                    // The receiver's own counters still answer; the store's state shows in its 503s.
                    logger.warning("/metrics: the events could not be read: \(error)")
                    return ""
                }
            })
        var failure: (any Error)?
        var listened = false
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await server.run() }
                // The one line scripts read (the port, when --port 0 picked one).
                if let url = await server.listeningURL() {
                    listened = true
                    output.out(url + "\n")
                }
                try await group.waitForAll()
            }
        } catch {
            failure = error
        }
        await store.close()
        if let failure {
            throw NotificationsServeFailure(
                message: listened
                    ? "notifications serve stopped: \(failure)"
                    : ListenFailure(
                        host: configuration.host, port: Int(configuration.port), errno: (failure as? IOError)?.errnoCode,
                        detail: "\(failure)"
                    ).description)
        }
        logger.notice("notifications serve stopped", source: Self.logSource)
    }
}
