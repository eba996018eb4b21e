import ArgumentParser
import NotificationReceiver

/// `notifications serve`'s defences against slow clients: the read and idle timeouts
/// and the connection cap. Each flag wins over its variable; a bad value is exit 2.
struct ReceiverLimitOptions: ParsableArguments {
    @Option(parsing: .unconditional, 
        help: ArgumentHelp(
            "Seconds a request may take to arrive in full, headers and body; then its connection is closed (SUBRECON_NOTIFICATIONS_READ_TIMEOUT; default \(NotificationReceiverLimits.defaultReadTimeoutSeconds)).",
            valueName: "seconds"))
    var readTimeout: Int?

    @Option(parsing: .unconditional, 
        help: ArgumentHelp(
            "Seconds an idle keep-alive connection stays open (SUBRECON_NOTIFICATIONS_IDLE_TIMEOUT; default \(NotificationReceiverLimits.defaultIdleTimeoutSeconds)).",
            valueName: "seconds"))
    var idleTimeout: Int?

    @Option(parsing: .unconditional, 
        help: ArgumentHelp(
            "Connections served at once; more wait in the listen backlog (SUBRECON_NOTIFICATIONS_MAX_CONNECTIONS; default \(NotificationReceiverLimits.defaultMaxConnections), or fewer if the file-descriptor limit allows fewer).",
            valueName: "n"))
    var maxConnections: Int?

    /// The flags as given; the library resolves them with their variables (a bad value is exit 2).
    var flags: NotificationReceiverLimits.Flags {
        NotificationReceiverLimits.Flags(readTimeout: readTimeout, idleTimeout: idleTimeout, maxConnections: maxConnections)
    }
}
