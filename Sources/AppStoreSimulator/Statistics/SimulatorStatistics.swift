/// Request counters of a running simulator (see `AppStoreSimulator.statistics()`), so tests and
/// benchmarks can count Apple calls.
public struct SimulatorStatistics: Sendable, Hashable {
    /// Every request received, including unknown paths.
    public var totalRequests: Int = 0
    /// Requests per verifyReceipt endpoint (any method).
    public var requestsByEndpoint: [SimulatorEndpoint: Int] = [:]
    /// Answers per Apple `status` in the body (fault-injected statuses included).
    public var answersByAppleStatus: [Int: Int] = [:]
    /// Answers per HTTP status code (404 for unknown paths, 503/429 from faults, …; 0 counts
    /// connections dropped by a `connectionReset` fault).
    public var answersByHTTPStatus: [Int: Int] = [:]
    /// Injected faults per `FaultStep.name` (and sales report faults per `SalesReportFault` name,
    /// e.g. `salesReportServerError`).
    public var faultsInjected: [String: Int] = [:]
    /// Requests to a path other than the served endpoints.
    public var unknownPathRequests: Int = 0
    /// App Store Server API requests per endpoint (both environments, any outcome).
    public var serverAPIRequestsByEndpoint: [ServerAPIEndpoint: Int] = [:]
    /// Server API requests per environment (by the path asked: `/inApps` or `/sandbox/inApps`).
    public var serverAPIRequestsByEnvironment: [SimulatedEnvironment: Int] = [:]
    /// 429s answered because an app's `apiRateLimit` was exceeded (fault-injected 429s count
    /// under `faultsInjected` and `answersByHTTPStatus`).
    public var serverAPIRateLimited: Int = 0
    /// Server API requests refused with 401 by the bearer check.
    public var serverAPIUnauthorized: Int = 0
    /// Server API requests per app (`SimulatedApp.bundleID`) that passed its bearer check,
    /// whatever the answer (429s included); those refused earlier (404 path, 405, 401) count for none.
    public var serverAPIRequestsByApp: [String: Int] = [:]
    /// `serverAPIRateLimited` per app: 429s because that app's `apiRateLimit` was exceeded.
    public var serverAPIRateLimitedByApp: [String: Int] = [:]
    /// Per app, the wall-clock milliseconds of its first and last request counted in
    /// `serverAPIRequestsByApp`: with the count, the rate the app's clients reached as Apple saw it.
    public var serverAPIRequestSpanByApp: [String: ClosedRange<Int64>] = [:]
    /// Accounts registered through `POST /simulator/accounts`.
    public var accountsRegisteredByPOST: Int = 0
    /// `GET /v1/salesReports` requests (any outcome).
    public var salesReportRequests: Int = 0
    /// Sales report requests per `filter[reportDate]` as sent (requests without one are not
    /// counted here), so a test can tell which days a client asked for, and how often.
    public var salesReportRequestsByDate: [String: Int] = [:]
    /// Sales report requests refused with 401 by the team key's bearer check.
    public var salesReportUnauthorized: Int = 0

    public init() {}

    /// Requests to `/verifyReceipt`.
    public var productionRequests: Int { requestsByEndpoint[.production, default: 0] }
    /// Requests to `/sandbox/verifyReceipt`.
    public var sandboxRequests: Int { requestsByEndpoint[.sandbox, default: 0] }

    /// Get All Subscription Statuses requests.
    public var subscriptionStatusesRequests: Int { serverAPIRequestsByEndpoint[.subscriptionStatuses, default: 0] }
    /// Get Transaction History requests.
    public var transactionHistoryRequests: Int { serverAPIRequestsByEndpoint[.transactionHistory, default: 0] }
    /// Get Notification History requests.
    public var notificationHistoryRequests: Int { serverAPIRequestsByEndpoint[.notificationHistory, default: 0] }
    /// Get Transaction Info requests.
    public var transactionInfoRequests: Int { serverAPIRequestsByEndpoint[.transactionInfo, default: 0] }
    /// Look Up Order ID requests.
    public var orderLookupRequests: Int { serverAPIRequestsByEndpoint[.orderLookup, default: 0] }
    /// Request a Test Notification requests.
    public var testNotificationRequests: Int { serverAPIRequestsByEndpoint[.testNotification, default: 0] }
    /// Get Test Notification Status requests.
    public var testNotificationStatusRequests: Int { serverAPIRequestsByEndpoint[.testNotificationStatus, default: 0] }
    /// Set App Account Token requests.
    public var setAppAccountTokenRequests: Int { serverAPIRequestsByEndpoint[.setAppAccountToken, default: 0] }
    /// All Server API requests.
    public var serverAPIRequests: Int { serverAPIRequestsByEndpoint.values.reduce(0, +) }

    /// App `bundleID`'s Server API requests per second between its first and last request
    /// (requests after the first ÷ the time between them); nil before two requests.
    public func serverAPIRate(ofApp bundleID: String) -> Double? {
        guard let span = serverAPIRequestSpanByApp[bundleID], span.upperBound > span.lowerBound,
            let requests = serverAPIRequestsByApp[bundleID], requests > 1
        else { return nil }
        return Double(requests - 1) * 1000 / Double(span.upperBound - span.lowerBound)
    }

    /// Answers that carried Apple status `status`.
    public func answers(withAppleStatus status: Int) -> Int {
        answersByAppleStatus[status, default: 0]
    }
}
