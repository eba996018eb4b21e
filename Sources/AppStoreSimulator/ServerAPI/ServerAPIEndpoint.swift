/// The App Store Server API endpoints the simulator serves, on the same port as verifyReceipt:
/// production under `/inApps/...`, the sandbox under `/sandbox/inApps/...` (so a worker's
/// production base URL is `http://HOST:PORT` and its sandbox base URL `http://HOST:PORT/sandbox`).
public enum ServerAPIEndpoint: String, Sendable, Hashable, CaseIterable {
    /// Get All Subscription Statuses: `GET /inApps/v1/subscriptions/{transactionId}`.
    case subscriptionStatuses
    /// Get Transaction History v2: `GET /inApps/v2/history/{transactionId}[?revision=…]`.
    case transactionHistory
    /// Get Notification History: `POST /inApps/v1/notifications/history[?paginationToken=…]`
    /// with a JSON `NotificationHistoryRequest` body (no id in the path).
    case notificationHistory

    /// The path before the transaction id, in production (the whole path for
    /// `notificationHistory`, which has none).
    public var pathPrefix: String {
        switch self {
        case .subscriptionStatuses: "/inApps/v1/subscriptions/"
        case .transactionHistory: "/inApps/v2/history/"
        case .notificationHistory: "/inApps/v1/notifications/history"
        }
    }

    /// The path prefix before the transaction id in `environment`.
    public func pathPrefix(in environment: SimulatedEnvironment) -> String {
        environment == .sandbox ? ServerAPIRoute.sandboxPrefix + pathPrefix : pathPrefix
    }
}

/// A request path parsed as a Server API call.
struct ServerAPIRoute: Sendable, Hashable {
    static let sandboxPrefix = "/sandbox"

    var endpoint: ServerAPIEndpoint
    var environment: SimulatedEnvironment
    /// The `{transactionId}` path component, unparsed (empty for `notificationHistory`).
    var transactionID: Substring

    /// Whether `path` is under `/inApps/` or `/sandbox/inApps/` (Server API rules apply: bearer,
    /// rate limit, JSON error bodies).
    static func isServerAPIPath(_ path: Substring) -> Bool {
        path.hasPrefix("/inApps/") || path.hasPrefix(sandboxPrefix + "/inApps/")
    }

    /// The route of `path`, or nil when it is not one of the served endpoints.
    init?(path: Substring) {
        var rest = path
        var environment = SimulatedEnvironment.production
        if rest.hasPrefix(Self.sandboxPrefix + "/") {
            rest = rest.dropFirst(Self.sandboxPrefix.utf8.count)
            environment = .sandbox
        }
        if rest == ServerAPIEndpoint.notificationHistory.pathPrefix {
            endpoint = .notificationHistory
            self.environment = environment
            transactionID = ""
            return
        }
        for endpoint in ServerAPIEndpoint.allCases where endpoint != .notificationHistory && rest.hasPrefix(endpoint.pathPrefix) {
            let id = rest.dropFirst(endpoint.pathPrefix.utf8.count)
            guard !id.isEmpty, !id.contains("/") else { return nil }
            self.endpoint = endpoint
            self.environment = environment
            self.transactionID = id
            return
        }
        return nil
    }
}
