import Foundation

/// The Server API's pure core: one routed request → Apple's answer for a given "now". No I/O
/// (a test notification's POST is handed to `NotificationDelivery`, which sends it in the
/// background); the bearer check, the rate limit and faults are applied around it by the router.
///
/// Every request is answered for one app, the one its bearer token names (see
/// `ServerAPIAppAccess`): an account of another app is not found, as Apple finds no such
/// transaction for the app asking.
///
/// The endpoints named by a transaction id (Get All Subscription Statuses, Get Transaction
/// History, Get Transaction Info) check, in order:
/// 1. the transaction id is not a positive decimal number → 400 `4000006`;
/// 2. Get All Subscription Statuses: a `status` value that is not 1…5 → 400 `4000031`;
/// 3. no known account of the app has it, the account belongs to the other environment, or the
///    id does not exist yet at "now" → 404 `4040010` (so "production first, then the sandbox
///    once" sees the production 404 for a Sandbox account);
/// 4. the account's `fixedStatus`: 21003 (`invalidReceipt`: the receipt could not be
///    authenticated, i.e. Apple knows no such purchase) → 404 `4040010`, so the worker finds it in
///    neither environment and records `invalid`, as it does for 21003; 21010 (`accountGone`) →
///    404 `4040001` AccountNotFound, the Server API's "account not found, do not retry";
///    21100–21199 (Apple's internal, retryable) → 500 `5000001`; any other → 404 `4040010`;
/// 5. otherwise 200 with the account's state at "now" (Get Transaction Info: 404 `4040010` for a
///    transaction older than the newest 100 of its subscription, which the simulator keeps no more).
///
/// Look Up Order ID answers 200 always: `{"status":0,"signedTransactions":[…]}` for an order of a
/// production account that exists at "now" (`SimulatedOrderID`), else `{"status":1}`.
/// Get Notification History goes to `NotificationHistoryResponder`, the test notification
/// endpoints to `TestNotificationResponder`, Set App Account Token to `setAppAccountToken`.
struct ServerAPIResponder: Sendable {
    let authority: LazySigningAuthority
    let registry: SimulatedAccountRegistry
    /// The apps served; `respond`'s `app` is a position in it.
    let apps: SimulatedAppCatalog
    let historyPageSize: Int
    /// A `var` with a default so tests that only need the transaction endpoints can leave it out.
    var notificationHistory = NotificationHistoryResponder(log: SimulatedNotificationLog(), pageSize: 20)
    /// Nil answers Request a Test Notification as for an app without a notification URL.
    var testNotifications: TestNotificationResponder?

    init(
        authority: LazySigningAuthority, registry: SimulatedAccountRegistry, apps: SimulatedAppCatalog,
        historyPageSize: Int, notificationHistory: NotificationHistoryResponder? = nil,
        testNotifications: TestNotificationResponder? = nil
    ) {
        self.authority = authority
        self.registry = registry
        self.apps = apps
        self.historyPageSize = historyPageSize
        if let notificationHistory { self.notificationHistory = notificationHistory }
        self.testNotifications = testNotifications
    }

    /// A responder for one app.
    init(
        authority: LazySigningAuthority, registry: SimulatedAccountRegistry, bundleID: String, appAppleID: Int64,
        historyPageSize: Int
    ) {
        self.init(
            authority: authority, registry: registry, apps: SimulatedAppCatalog(bundleID: bundleID, appAppleID: appAppleID),
            historyPageSize: historyPageSize)
    }

    static let jsonHeaders = ["Content-Type": "application/json"]

    /// The account of app `app` a route names, when it names one (used for fault plans before
    /// answering, and by `respond`).
    func account(for route: ServerAPIRoute, app: Int = 0) -> (SimulatedSubscriber, SimulatedAccountRegistry.Reference)? {
        let id = switch route.endpoint {
        case .subscriptionStatuses, .transactionHistory, .transactionInfo, .setAppAccountToken:
            Self.transactionID(route.parameter)
        case .orderLookup: SimulatedOrderID.transactionID(orderID: route.parameter)
        case .notificationHistory, .testNotification, .testNotificationStatus: Int64?.none
        }
        guard let found = id.flatMap(registry.lookUp(transactionID:)), apps.index(of: found.0) == app else { return nil }
        return found
    }

    /// The answer to `route` for app `app` (a position in `apps`).
    func respond(
        to route: ServerAPIRoute, app: Int = 0, query: Substring?, body: [UInt8] = [], nowMs: Int64,
        variant: SignedDataVariant = .valid
    ) -> SimulatedHTTPResponse {
        switch route.endpoint {
        case .notificationHistory:
            return notificationHistory.respond(
                body: body, query: query, environment: route.environment, bundleID: apps.apps[app].bundleID, nowMs: nowMs)
        case .testNotification, .testNotificationStatus:
            return testNotifications?.respond(to: route, app: apps.apps[app], nowMs: nowMs, variant: variant)
                ?? TestNotificationResponder.urlNotFound
        case .orderLookup:
            return lookUpOrder(route, app: app, nowMs: nowMs, variant: variant)
        case .setAppAccountToken:
            return setAppAccountToken(route, app: app, body: body, nowMs: nowMs)
        case .subscriptionStatuses, .transactionHistory, .transactionInfo:
            break
        }
        guard Self.transactionID(route.parameter) != nil else {
            return Self.error(400, 4_000_006, "Invalid transaction id.")
        }
        var statuses: Set<Int>?
        if route.endpoint == .subscriptionStatuses {
            guard let filter = Self.statusFilter(query) else {
                return Self.error(400, 4_000_031, "Invalid request. The status parameter is invalid.")
            }
            statuses = filter.isEmpty ? nil : filter
        }
        let subscriber: SimulatedSubscriber, reference: SimulatedAccountRegistry.Reference
        switch liveAccount(for: route, app: app, nowMs: nowMs, notFound: Self.transactionNotFound) {
        case .found(let account, let position): (subscriber, reference) = (account, position)
        case .refused(let refusal): return refusal
        }
        let renderer = renderer(subscriber, app: app, environment: route.environment, nowMs: nowMs, variant: variant)
        switch route.endpoint {
        case .subscriptionStatuses:
            return Self.ok(renderer.statusesBody(statuses: statuses))
        case .transactionHistory:
            var after = ServerAPIBodyRenderer.HistoryKey.start
            if let revision = Self.queryValue("revision", in: query), !revision.isEmpty {
                guard let key = ServerAPIBodyRenderer.HistoryKey(revision: revision) else {
                    return Self.error(400, 4_000_005, "Invalid request revision.")
                }
                after = key
            }
            return Self.ok(renderer.historyBody(after: after, pageSize: historyPageSize))
        case .transactionInfo:
            guard let signed = renderer.signedTransaction(at: reference) else { return Self.transactionNotFound }
            return Self.ok(ServerAPIBodyRenderer.transactionInfoBody(signed))
        case .notificationHistory, .testNotification, .testNotificationStatus, .orderLookup, .setAppAccountToken:
            preconditionFailure("answered before any transaction id lookup")
        }
    }

    /// The renderer of `subscriber`'s answers for app `app` (whose bundle id and Apple id they carry).
    private func renderer(
        _ subscriber: SimulatedSubscriber, app: Int, environment: SimulatedEnvironment, nowMs: Int64,
        variant: SignedDataVariant
    ) -> ServerAPIBodyRenderer {
        ServerAPIBodyRenderer(
            subscriber: subscriber, environment: environment, nowMs: nowMs, bundleID: apps.apps[app].bundleID,
            appAppleID: apps.apps[app].appAppleID, authority: authority.value, variant: variant)
    }

    /// An account found for a request, or the answer refusing it.
    enum AccountLookup {
        case found(SimulatedSubscriber, SimulatedAccountRegistry.Reference)
        case refused(SimulatedHTTPResponse)
    }

    /// The account of app `app` that `route`'s transaction id names, and where in it, when it
    /// is in the route's environment and the transaction exists at `nowMs` (else `notFound`), and
    /// Apple has not lost it (its `fixedStatus`: 21010 → 404 `4040001` AccountNotFound,
    /// 21100–21199 → 500 `5000001`, others → `notFound`).
    func liveAccount(
        for route: ServerAPIRoute, app: Int, nowMs: Int64, notFound: SimulatedHTTPResponse
    ) -> AccountLookup {
        guard let (subscriber, reference) = account(for: route, app: app),
              subscriber.environment == route.environment,
              Self.exists(reference, in: subscriber, nowMs: nowMs)
        else {
            return .refused(notFound)
        }
        switch subscriber.fixedStatus ?? 0 {
        case 0: return .found(subscriber, reference)
        case 21010: return .refused(Self.error(404, 4_040_001, "Account not found."))
        case 21100...21199: return .refused(Self.error(500, 5_000_001, "An unknown error occurred. Please try again."))
        default: return .refused(notFound)
        }
    }

    /// Look Up Order ID (routed in production only). Apple's answer for an order id it does not
    /// know is 200 `{"status":1}`, whatever the reason: malformed, another app's, or an account
    /// Apple lost (`fixedStatus`).
    private func lookUpOrder(
        _ route: ServerAPIRoute, app: Int, nowMs: Int64, variant: SignedDataVariant
    ) -> SimulatedHTTPResponse {
        guard let (subscriber, reference) = account(for: route, app: app),
              subscriber.environment == route.environment,
              subscriber.fixedStatus == nil || subscriber.fixedStatus == 0,
              Self.exists(reference, in: subscriber, nowMs: nowMs)
        else {
            return Self.ok(ServerAPIBodyRenderer.orderLookupBody([]))
        }
        let renderer = renderer(subscriber, app: app, environment: route.environment, nowMs: nowMs, variant: variant)
        return Self.ok(ServerAPIBodyRenderer.orderLookupBody(renderer.signedTransaction(at: reference).map { [$0] } ?? []))
    }

    /// The `status` filter of Get All Subscription Statuses: every `status` value (repeatable),
    /// empty when there is none; nil when one is not 1…5.
    static func statusFilter(_ query: Substring?) -> Set<Int>? {
        var statuses: Set<Int> = []
        for value in queryValues("status", in: query) {
            guard value.utf8.count == 1, let status = Int(value), (1...5).contains(status) else { return nil }
            statuses.insert(status)
        }
        return statuses
    }

    private static func ok(_ body: [UInt8]) -> SimulatedHTTPResponse {
        SimulatedHTTPResponse(httpStatus: 200, headers: jsonHeaders, body: body, appleStatus: nil)
    }

    /// Whether the transaction `reference` points at exists at `nowMs`.
    static func exists(_ reference: SimulatedAccountRegistry.Reference, in subscriber: SimulatedSubscriber, nowMs: Int64) -> Bool {
        if reference.slot == SimulatedIdentifiers.consumableSlot {
            return reference.index == 0
        }
        guard reference.slot < subscriber.subscriptions.count,
              let timeline = SubscriptionTimeline(
                subscription: subscriber.subscriptions[reference.slot], slot: reference.slot, nowMs: nowMs)
        else { return false }
        return reference.index < timeline.transactionCount
    }

    static func transactionID(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.utf8.count <= 19, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int64(text).flatMap { $0 > 0 ? $0 : nil }
    }

    /// The first value of `name` in a query string, percent-decoded.
    static func queryValue(_ name: String, in query: Substring?) -> String? {
        queryValues(name, in: query).first
    }

    /// Every value of `name` in a query string, in order, percent-decoded.
    static func queryValues(_ name: String, in query: Substring?) -> [String] {
        guard let query else { return [] }
        var values: [String] = []
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.first.map(String.init) == name else { continue }
            let raw = parts.count > 1 ? String(parts[1]) : ""
            values.append(raw.removingPercentEncoding ?? raw)
        }
        return values
    }

    static let transactionNotFound = error(404, 4_040_010, "Transaction id not found.")

    /// Apple's error body, `{"errorCode":4040010,"errorMessage":"Transaction id not found."}`.
    static func error(_ httpStatus: Int, _ code: Int64, _ message: String, headers: [String: String] = [:]) -> SimulatedHTTPResponse {
        var json = JSONByteWriter(capacity: 96)
        json.beginObject()
        json.field("errorCode", number: code)
        json.field("errorMessage", message)
        json.endObject()
        return SimulatedHTTPResponse(
            httpStatus: httpStatus, headers: jsonHeaders.merging(headers) { $1 }, body: json.bytes, appleStatus: nil)
    }

    /// 429 `4290000` with `Retry-After` as a Unix time in milliseconds (Apple's form), on the wall
    /// clock since the client waits in real time.
    static func rateLimited(retryAfterMs: Int64) -> SimulatedHTTPResponse {
        let resumeAt = SimulatedClock.wallNowMs() + max(1, retryAfterMs)
        return error(429, 4_290_000, "Rate limit exceeded.", headers: ["Retry-After": String(resumeAt)])
    }

    /// What Apple answers when the bearer token is refused: 401 with a plain-text body.
    static let unauthorized = SimulatedHTTPResponse(
        httpStatus: 401, headers: ["Content-Type": "text/plain"],
        body: Array("Unauthenticated\n\nRequest ID: SIMULATOR.0.0\n".utf8), appleStatus: nil)
}
