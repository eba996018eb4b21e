/// Where `notifications serve` listens and how it treats connections; the defaults are the contract's.
public struct NotificationReceiverConfiguration: Sendable {
    /// The address to bind: loopback by default, since TLS is the reverse proxy's job.
    public var host: String
    /// 0 picks a free port (tests, benchmarks); `NotificationReceiverServer.listeningURL()` tells which.
    public var port: Int
    /// The path Apple posts to; anything else answers 404.
    public var path: String
    /// A larger body answers 413 and never reaches the intake (Apple's bodies are a few KB).
    public var maxBodyBytes: Int
    /// An idle keep-alive connection is closed after this long. Longer than a reverse proxy's
    /// usual upstream keep-alive (nginx: 60 s), so the proxy, not we, closes first and never
    /// sends a request down a connection we are closing.
    public var idleTimeout: Duration
    /// A request must arrive in full (headers and body) within this long of its first byte (of
    /// the connection being accepted, for its first request), or the connection is closed: a
    /// client that stalls or trickles bytes cannot hold a connection (see `ReadDeadlineHandler`).
    public var readTimeout: Duration
    /// Connections served at once; while this many are open, new ones wait in the listen
    /// backlog (the kernel's queue) and are accepted as others close, so open connections never
    /// exhaust the process's file descriptors (see `NotificationReceiverLimits`).
    public var maxConnections: Int
    /// SIGTERM and SIGINT start the graceful shutdown (the command); tests stop it with
    /// `shutDown()` instead, so the test process's own signals are left alone.
    public var handlesSignals: Bool
    /// How long in-flight requests may take to finish after a shutdown began; after that they
    /// are cancelled (a notification not answered 200 is retried by Apple, or found by backfill).
    public var shutdownGracePeriod: Duration

    public static let defaultHost = "127.0.0.1"
    public static let defaultPort = 8088
    public static let defaultPath = "/apple/notifications"
    public static let defaultMaxBodyBytes = 1 << 20
    public static let defaultIdleTimeout = Duration.seconds(NotificationReceiverLimits.defaultIdleTimeoutSeconds)
    public static let defaultReadTimeout = Duration.seconds(NotificationReceiverLimits.defaultReadTimeoutSeconds)
    public static let defaultMaxConnections = NotificationReceiverLimits.defaultMaxConnections

    public init(
        host: String = defaultHost, port: Int = defaultPort, path: String = defaultPath,
        maxBodyBytes: Int = defaultMaxBodyBytes, idleTimeout: Duration = defaultIdleTimeout, handlesSignals: Bool = true,
        shutdownGracePeriod: Duration = .seconds(30), readTimeout: Duration = defaultReadTimeout,
        maxConnections: Int = defaultMaxConnections
    ) {
        self.host = host
        self.port = port
        self.path = path
        self.maxBodyBytes = maxBodyBytes
        self.idleTimeout = idleTimeout
        self.handlesSignals = handlesSignals
        self.shutdownGracePeriod = shutdownGracePeriod
        self.readTimeout = readTimeout
        self.maxConnections = maxConnections
    }

    /// The read and idle timeouts and the connection cap `notifications serve` resolved.
    public mutating func apply(_ limits: NotificationReceiverLimits) {
        readTimeout = .seconds(limits.readTimeoutSeconds)
        idleTimeout = .seconds(limits.idleTimeoutSeconds)
        maxConnections = limits.maxConnections
    }

    /// The URL Apple (through the proxy) would post to, for `port` (the bound one when 0 was asked).
    func url(port: Int) -> String {
        let hostPart = host.contains(":") ? "[\(host)]" : host
        return "http://\(hostPart):\(port)\(path)"
    }
}
