import Foundation

/// The Server API's pure core: one `GET` of a routed path → Apple's answer for a given "now".
/// No I/O; the bearer check, the rate limit and faults are applied around it by the router.
///
/// Checks, in order:
/// 1. the transaction id is not a positive decimal number → 400 `4000006`;
/// 2. no known account has it, the account belongs to the other environment, or the id does not
///    exist yet at "now" → 404 `4040010` (so "production first, then the sandbox once" sees the
///    production 404 for a Sandbox account);
/// 3. the account's `fixedStatus`: 21003 (`invalidReceipt`: the receipt could not be
///    authenticated, i.e. Apple knows no such purchase) → 404 `4040010`, so the worker finds it in
///    neither environment and records `invalid`, as it does for 21003; 21010 (`accountGone`) →
///    404 `4040001` AccountNotFound, the Server API's "account not found, do not retry";
///    21100–21199 (Apple's internal, retryable) → 500 `5000001`; any other → 404 `4040010`;
/// 4. otherwise 200 with the account's state at "now".
///
/// Get Notification History names no account in its path: it goes to `NotificationHistoryResponder`.
struct ServerAPIResponder: Sendable {
    let authority: LazySigningAuthority
    let registry: SimulatedAccountRegistry
    let bundleID: String
    let appAppleID: Int64
    let historyPageSize: Int
    /// A `var` with a default so tests that only need the transaction endpoints can leave it out.
    var notificationHistory = NotificationHistoryResponder(log: SimulatedNotificationLog(), pageSize: 20)

    static let jsonHeaders = ["Content-Type": "application/json"]

    /// The account a route names, when it names one that exists in its environment (used for
    /// fault plans before answering, and by `respond`).
    func account(for route: ServerAPIRoute) -> (SimulatedSubscriber, SimulatedAccountRegistry.Reference)? {
        guard let id = Self.transactionID(route.transactionID) else { return nil }
        return registry.lookUp(transactionID: id)
    }

    func respond(
        to route: ServerAPIRoute, query: Substring?, body: [UInt8] = [], nowMs: Int64,
        variant: SignedDataVariant = .valid
    ) -> SimulatedHTTPResponse {
        if route.endpoint == .notificationHistory {
            return notificationHistory.respond(body: body, query: query, environment: route.environment, nowMs: nowMs)
        }
        guard Self.transactionID(route.transactionID) != nil else {
            return Self.error(400, 4_000_006, "Invalid transaction id.")
        }
        guard let (subscriber, reference) = account(for: route),
              subscriber.environment == route.environment,
              Self.exists(reference, in: subscriber, nowMs: nowMs)
        else {
            return Self.transactionNotFound
        }
        if let fixedStatus = subscriber.fixedStatus, fixedStatus != 0 {
            switch fixedStatus {
            case 21010: return Self.error(404, 4_040_001, "Account not found.")
            case 21100...21199: return Self.error(500, 5_000_001, "An unknown error occurred. Please try again.")
            default: return Self.transactionNotFound
            }
        }
        let renderer = ServerAPIBodyRenderer(
            subscriber: subscriber, environment: route.environment, nowMs: nowMs, bundleID: bundleID,
            appAppleID: appAppleID, authority: authority.value, variant: variant)
        switch route.endpoint {
        case .subscriptionStatuses:
            return SimulatedHTTPResponse(
                httpStatus: 200, headers: Self.jsonHeaders, body: renderer.statusesBody(), appleStatus: nil)
        case .transactionHistory:
            var after = ServerAPIBodyRenderer.HistoryKey.start
            if let revision = Self.queryValue("revision", in: query), !revision.isEmpty {
                guard let key = ServerAPIBodyRenderer.HistoryKey(revision: revision) else {
                    return Self.error(400, 4_000_005, "Invalid request revision.")
                }
                after = key
            }
            return SimulatedHTTPResponse(
                httpStatus: 200, headers: Self.jsonHeaders,
                body: renderer.historyBody(after: after, pageSize: historyPageSize), appleStatus: nil)
        case .notificationHistory:
            preconditionFailure("Get Notification History is answered before any account lookup")
        }
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
        guard let query else { return nil }
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.first.map(String.init) == name else { continue }
            let raw = parts.count > 1 ? String(parts[1]) : ""
            return raw.removingPercentEncoding ?? raw
        }
        return nil
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
