import ArgumentParser
import Logging
import NotificationReceiver

/// `subrecon notifications serve`: the long-running receiver Apple posts notifications to.
struct NotificationsServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Receive Apple's notifications over HTTP and apply each one at once.",
        discussion: """
            POST bodies {"signedPayload": "..."} on --path: 200 stored (or already stored), 400 refused \
            (not JSON, bad signature, another app), 413 over 1 MiB, 503 the store could not be reached \
            (Apple retries). GET /metrics: Prometheus text; GET /healthz: ok. TLS is the reverse \
            proxy's job: listen on loopback behind it. Prints the URL it listens on (one line), then \
            serves until SIGTERM or SIGINT: no new connections, requests in flight are answered, exit 0. \
            An address that cannot be bound (port taken): exit 1.

            Examples:
              subrecon notifications serve
              subrecon notifications serve --host 0.0.0.0 --port 9000 --path /hooks/apple
              subrecon notifications serve --port 0    # prints the port it got
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var notification: NotificationOptions

    @Option(help: "The address to listen on.")
    var host: String = NotificationReceiverConfiguration.defaultHost

    @Option(parsing: .unconditional, help: "The port, 0 for any free one.")
    var port: Int = NotificationReceiverConfiguration.defaultPort

    @Option(help: "The path Apple posts to.")
    var path: String = NotificationReceiverConfiguration.defaultPath

    // Slow clients: --read-timeout, --idle-timeout, --max-connections (ReceiverLimitOptions.swift).
    @OptionGroup var limits: ReceiverLimitOptions

    func validate() throws {
        if !(0...65_535).contains(port) { throw ValidationError("--port must be from 0 to 65535, not \(port)") }
        if !path.hasPrefix("/") { throw ValidationError("--path must start with /, not \"\(path)\"") }
        if path == "/metrics" || path == "/healthz" { throw ValidationError("--path \(path) is the receiver's own") }
        if host.isEmpty { throw ValidationError("--host must not be empty") }
    }

    func run() async throws {
        try await global.context().serveNotifications(
            NotificationReceiverConfiguration(host: host, port: port, path: path), flags: notification.flags,
            limits: limits.flags)
    }
}
