import Foundation
import NIOCore
import SubReconModel

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How long a request may take to arrive, how long an idle connection stays open, and how many
/// connections are served at once: `notifications serve`'s defences against slow clients, so the
/// receiver never depends on a reverse proxy to absorb them. Each is a flag, else an environment
/// variable, else its default; a bad value is a configuration error (exit 2) naming the setting.
public struct NotificationReceiverLimits: Sendable, Equatable {
    /// Seconds from a request's first byte (from the connection being accepted, for its first
    /// request) until the whole request, headers and body, has arrived.
    public var readTimeoutSeconds: Int
    /// Seconds a keep-alive connection may wait for its next request.
    public var idleTimeoutSeconds: Int
    /// Connections served at once; more wait in the listen backlog.
    public var maxConnections: Int

    /// Apple's POSTs are a few KB sent at once: they arrive in milliseconds; 10 s leaves a wide
    /// margin for a slow path while a client that stalls or trickles holds a connection 10 s at most.
    public static let defaultReadTimeoutSeconds = 10
    /// Longer than nginx's upstream keep-alive (60 s), so the proxy closes first and never sends
    /// a request down a connection the receiver is closing.
    public static let defaultIdleTimeoutSeconds = 75
    /// Far above what Apple (a handful of POSTs at once) and a proxy's keep-alive pool (tens) need,
    /// and within the smallest usual file-descriptor limit (1024) with room for the rest.
    public static let defaultMaxConnections = 512

    public static let readTimeoutRange = 1...300
    public static let idleTimeoutRange = 1...3_600
    public static let maxConnectionsRange = 1...1_000_000

    public static let readTimeoutVariable = "SUBRECON_NOTIFICATIONS_READ_TIMEOUT"
    public static let idleTimeoutVariable = "SUBRECON_NOTIFICATIONS_IDLE_TIMEOUT"
    public static let maxConnectionsVariable = "SUBRECON_NOTIFICATIONS_MAX_CONNECTIONS"

    public init(
        readTimeoutSeconds: Int = defaultReadTimeoutSeconds, idleTimeoutSeconds: Int = defaultIdleTimeoutSeconds,
        maxConnections: Int = defaultMaxConnections
    ) {
        self.readTimeoutSeconds = readTimeoutSeconds
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.maxConnections = maxConnections
    }

    /// The flag, else the variable, else the default, each checked against its range. The
    /// connection cap must also fit `descriptors`: one set explicitly above it is an error (raise
    /// `ulimit -n`, `LimitNOFILE=`); the default is lowered to it, with a warning, so the default
    /// can never run the process out of file descriptors.
    /// `notifications serve`'s three flags, as given (nil: the variable, else the default).
    public struct Flags: Sendable {
        public var readTimeout: Int?
        public var idleTimeout: Int?
        public var maxConnections: Int?

        public init(readTimeout: Int? = nil, idleTimeout: Int? = nil, maxConnections: Int? = nil) {
            self.readTimeout = readTimeout
            self.idleTimeout = idleTimeout
            self.maxConnections = maxConnections
        }
    }

    public static func resolve(
        environment: [String: String], readTimeoutFlag: Int? = nil, idleTimeoutFlag: Int? = nil,
        maxConnectionsFlag: Int? = nil, descriptors: FileDescriptorBudget, warnings: inout [String]
    ) throws(ConfigurationError) -> NotificationReceiverLimits {
        let read = try number(
            readTimeoutFlag, environment, readTimeoutVariable, "--read-timeout", range: readTimeoutRange, unit: "seconds")
        let idle = try number(
            idleTimeoutFlag, environment, idleTimeoutVariable, "--idle-timeout", range: idleTimeoutRange, unit: "seconds")
        let cap = try number(
            maxConnectionsFlag, environment, maxConnectionsVariable, "--max-connections", range: maxConnectionsRange,
            unit: "connections")
        let available = descriptors.available
        var maxConnections = defaultMaxConnections
        if let cap {
            guard cap <= available else {
                throw .other(
                    "\(maxConnectionsVariable) / --max-connections \(cap) is more connections than this process has file "
                        + "descriptors for: its limit is \(descriptors.limit) (ulimit -n) and \(descriptors.reserved) are kept for "
                        + "the store, the event loops and the listener, so at most \(available); raise the limit "
                        + "(ulimit -n, LimitNOFILE= in the systemd unit) or lower the setting")
            }
            maxConnections = cap
        } else if available < defaultMaxConnections {
            guard available >= 1 else {
                throw .other(
                    "the file-descriptor limit \(descriptors.limit) leaves no room for connections (\(descriptors.reserved) "
                        + "are kept for the store, the event loops and the listener); raise it (ulimit -n, LimitNOFILE=)")
            }
            maxConnections = available
            warnings.append(
                "at most \(available) connections at once, not \(defaultMaxConnections): the file-descriptor limit is "
                    + "\(descriptors.limit) (ulimit -n) and \(descriptors.reserved) are kept for the store, the event loops "
                    + "and the listener; raise it (LimitNOFILE= in the systemd unit) for the default")
        }
        return NotificationReceiverLimits(
            readTimeoutSeconds: read ?? defaultReadTimeoutSeconds, idleTimeoutSeconds: idle ?? defaultIdleTimeoutSeconds,
            maxConnections: maxConnections)
    }

    /// The flag, else the variable (nil when neither is set), in `range`.
    private static func number(
        _ flag: Int?, _ environment: [String: String], _ variable: String, _ flagName: String, range: ClosedRange<Int>,
        unit: String
    ) throws(ConfigurationError) -> Int? {
        let expected = "a whole number of \(unit) from \(range.lowerBound) to \(range.upperBound)"
        let value: Int
        if let flag {
            value = flag
        } else if let text = environment[variable]?.trimmingCharacters(in: .whitespaces), !text.isEmpty {
            guard let parsed = Int(text) else { throw .invalidNumber(setting: variable, value: text, expected: expected) }
            value = parsed
        } else {
            return nil
        }
        guard range.contains(value) else {
            throw .invalidNumber(setting: "\(variable) / \(flagName)", value: "\(value)", expected: expected)
        }
        return value
    }
}

/// How many file descriptors connections may use: the process's soft limit (`ulimit -n`) minus
/// those open now and a reserve for what opens later (the store's connections, SQLite's WAL files,
/// the event loops' epoll and event descriptors, the listener).
public struct FileDescriptorBudget: Sendable, Equatable {
    /// RLIMIT_NOFILE's soft limit (`Int.max` when unlimited).
    public var limit: Int
    /// Kept back from connections.
    public var reserved: Int

    public var available: Int { max(0, limit - reserved) }

    public init(limit: Int, reserved: Int) {
        self.limit = limit
        self.reserved = reserved
    }

    /// Room for the store (PostgreSQL: 4 pooled connections; SQLite: the writer, readers and the
    /// checkpointer, three files each) and whatever else a run of the receiver opens.
    static let margin = 64

    /// This process, now: open descriptors plus three per event loop (epoll, eventfd, timerfd)
    /// plus `margin`, all kept back.
    public static func current() -> FileDescriptorBudget {
        var limits = rlimit()
        #if os(Linux)
        let status = getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limits)
        #else
        let status = getrlimit(RLIMIT_NOFILE, &limits)
        #endif
        let limit = status == 0 && limits.rlim_cur < rlim_t(Int.max) ? Int(limits.rlim_cur) : Int.max
        return FileDescriptorBudget(limit: limit, reserved: openDescriptors() + 3 * System.coreCount + margin)
    }

    /// Descriptors open now, less the one listing them.
    private static func openDescriptors() -> Int {
        #if os(Linux)
        let folder = "/proc/self/fd"
        #else
        let folder = "/dev/fd"
        #endif
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: folder).count) ?? 0
        return max(0, entries - 1)
    }
}
