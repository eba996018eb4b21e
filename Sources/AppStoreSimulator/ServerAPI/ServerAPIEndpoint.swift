/// The App Store Server API endpoints the simulator serves, on the same port as verifyReceipt:
/// production under `/inApps/...`, the sandbox under `/sandbox/inApps/...` (so a worker's
/// production base URL is `http://HOST:PORT` and its sandbox base URL `http://HOST:PORT/sandbox`).
public enum ServerAPIEndpoint: String, Sendable, Hashable, CaseIterable {
    /// Get All Subscription Statuses: `GET /inApps/v1/subscriptions/{transactionId}[?status=…]`.
    case subscriptionStatuses
    /// Get Transaction History v2: `GET /inApps/v2/history/{transactionId}[?revision=…]`.
    case transactionHistory
    /// Get Notification History: `POST /inApps/v1/notifications/history[?paginationToken=…]`
    /// with a JSON `NotificationHistoryRequest` body (no id in the path).
    case notificationHistory
    /// Get Transaction Info: `GET /inApps/v1/transactions/{transactionId}`.
    case transactionInfo
    /// Look Up Order ID: `GET /inApps/v1/lookup/{orderId}` (production only, as Apple's).
    case orderLookup
    /// Request a Test Notification: `POST /inApps/v1/notifications/test` (no id in the path).
    case testNotification
    /// Get Test Notification Status: `GET /inApps/v1/notifications/test/{testNotificationToken}`.
    case testNotificationStatus
    /// Set App Account Token: `PUT /inApps/v1/transactions/{originalTransactionId}/appAccountToken`
    /// with a JSON `UpdateAppAccountTokenRequest` body.
    case setAppAccountToken

    /// The path before the path parameter, in production (the whole path for the endpoints that
    /// have none: `notificationHistory`, `testNotification`).
    public var pathPrefix: String {
        switch self {
        case .subscriptionStatuses: "/inApps/v1/subscriptions/"
        case .transactionHistory: "/inApps/v2/history/"
        case .notificationHistory: "/inApps/v1/notifications/history"
        case .transactionInfo: "/inApps/v1/transactions/"
        case .orderLookup: "/inApps/v1/lookup/"
        case .testNotification: "/inApps/v1/notifications/test"
        case .testNotificationStatus: "/inApps/v1/notifications/test/"
        case .setAppAccountToken: "/inApps/v1/transactions/"
        }
    }

    /// The path after the path parameter (empty for all but `setAppAccountToken`, whose prefix
    /// is Get Transaction Info's).
    public var pathSuffix: String {
        self == .setAppAccountToken ? "/appAccountToken" : ""
    }

    /// Whether the path ends in a parameter (a transaction id, an order id, a token).
    var hasPathParameter: Bool {
        self != .notificationHistory && self != .testNotification
    }

    /// The one method Apple serves it with; any other answers 405.
    var method: String {
        switch self {
        case .notificationHistory, .testNotification: "POST"
        case .setAppAccountToken: "PUT"
        case .subscriptionStatuses, .transactionHistory, .transactionInfo, .orderLookup, .testNotificationStatus: "GET"
        }
    }

    /// Apple serves Look Up Order ID in production only: the sandbox has no order ids.
    func isServed(in environment: SimulatedEnvironment) -> Bool {
        self != .orderLookup || environment == .production
    }

    /// The path prefix before the path parameter in `environment`.
    public func pathPrefix(in environment: SimulatedEnvironment) -> String {
        environment == .sandbox ? ServerAPIRoute.sandboxPrefix + pathPrefix : pathPrefix
    }
}

/// A request path parsed as a Server API call.
struct ServerAPIRoute: Sendable, Hashable {
    static let sandboxPrefix = "/sandbox"

    var endpoint: ServerAPIEndpoint
    var environment: SimulatedEnvironment
    /// The path parameter, unparsed: `{transactionId}`, `{originalTransactionId}`, `{orderId}` or
    /// `{testNotificationToken}` (empty for the endpoints without one).
    var parameter: Substring

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
        self.environment = environment
        // Exact paths first: `/notifications/test` is also the prefix of the status endpoint's.
        if let exact = ServerAPIEndpoint.allCases.first(where: { !$0.hasPathParameter && rest == $0.pathPrefix }) {
            endpoint = exact
            parameter = ""
            return
        }
        for endpoint in ServerAPIEndpoint.allCases
        where endpoint.hasPathParameter && rest.hasPrefix(endpoint.pathPrefix) && rest.hasSuffix(endpoint.pathSuffix) {
            let value = rest.dropFirst(endpoint.pathPrefix.utf8.count).dropLast(endpoint.pathSuffix.utf8.count)
            // Another endpoint may share the prefix (Get Transaction Info and Set App Account Token).
            guard !value.isEmpty, !value.contains("/") else { continue }
            guard endpoint.isServed(in: environment) else { return nil }
            self.endpoint = endpoint
            parameter = value
            return
        }
        return nil
    }
}
