import NIOHTTP1

/// One request as the router needs it: the target split into path and query, and the only
/// header any endpoint reads.
struct SimulatorRequest: Sendable {
    var method: HTTPMethod
    var path: Substring
    var query: Substring?
    var authorization: String?
    var body: [UInt8]

    init(method: HTTPMethod, uri: String, authorization: String? = nil, body: [UInt8] = []) {
        let parts = uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        self.method = method
        path = parts.first ?? ""
        query = parts.count > 1 ? parts[1] : nil
        self.authorization = authorization
        self.body = body
    }
}

/// Decides each request's answer and when it leaves: routing, Apple's method rule, latency,
/// fault injection and the request timeout around `VerifyReceiptResponder` (verifyReceipt),
/// `ServerAPIResponder` (App Store Server API, `/inApps/...` and `/sandbox/inApps/...`) and
/// `SalesReportResponder` (App Store Connect's `GET /v1/salesReports`), plus the admin endpoint
/// `POST /simulator/accounts`. No I/O and no waiting here;
/// `SimulatorChannelHandler` carries the `SimulatorReply` out on the connection.
struct SimulatorRequestRouter: Sendable {
    let responder: VerifyReceiptResponder
    let serverAPI: ServerAPIResponder
    /// Each Server API request's app: bearer check and rate limit.
    let access: ServerAPIAppAccess
    let registersVerifiedReceipts: Bool
    let clock: MillisecondsClock
    let latency: Duration
    let requestTimeout: Duration
    let faults: FaultInjector
    let statistics: StatisticsRecorder
    let salesReports: SalesReportResponder

    /// The admin endpoint registering accounts for the Server API (see `registerAccounts`).
    static let accountsPath = "/simulator/accounts"
    /// The admin endpoint answering the Server API counters per app (see `statisticsReply`).
    static let statisticsPath = "/simulator/statistics"

    func reply(to request: SimulatorRequest) -> SimulatorReply {
        if ServerAPIRoute.isServerAPIPath(request.path) {
            return serverAPIReply(to: request)
        }
        if request.path == SalesReportResponder.path {
            return after(latency, .answer(salesReports.respond(to: request, nowMs: clock())))
        }
        if request.path == Self.accountsPath {
            statistics.recordOtherRequest()
            return registerAccounts(request)
        }
        if request.path == Self.statisticsPath {
            return statisticsReply(request)
        }
        return verifyReceiptReply(method: request.method, path: request.path, body: request.body)
    }

    private static let notFound = SimulatedHTTPResponse(
        httpStatus: 404, headers: ["Content-Type": "text/plain"], body: Array("Not Found".utf8), appleStatus: nil)

    // MARK: verifyReceipt

    private func verifyReceiptReply(method: HTTPMethod, path: Substring, body: [UInt8]) -> SimulatorReply {
        let endpoint = SimulatorEndpoint.allCases.first { $0.path == path }
        statistics.recordRequest(endpoint: endpoint)
        guard let endpoint else {
            return SimulatorReply(delay: .zero, action: .answer(Self.notFound))
        }
        let nowMs = clock()
        guard method == .POST else {
            return after(latency, .answer(VerifyReceiptResponder.statusResponse(21000, environment: nil)))
        }
        var parsed = VerifyReceiptResponder.ParsedRequest(body: body)
        if let subscriber = parsed.subscriber {
            // A token set through the Server API is Apple's record of the purchase, over the receipt's.
            let setToken = registersVerifiedReceipts
                ? serverAPI.registry.registerIfAbsent(subscriber)
                : serverAPI.registry.appAccountToken(setForSubscriberID: subscriber.id)
            if let setToken { parsed.subscriber?.appAccountToken = setToken }
        }
        let (extraLatency, step) = faults.next(for: parsed.subscriber?.id)
        if step != .answer, !step.isTrustFailure {
            statistics.recordFault(step)
        }
        let delay = latency + extraLatency

        switch step {
        case .answer, .badSignature, .leafWithoutMarker, .intermediateWithoutMarker, .foreignRoot, .expiredLeaf,
             .otherBundleID, .wrongEnvironment:
            return after(delay, .answer(responder.respond(to: parsed, endpoint: endpoint, nowMs: nowMs)))
        case .appleStatus(let status, let isRetryable):
            return after(delay, .answer(VerifyReceiptResponder.statusResponse(
                status,
                environment: parsed.subscriber?.environment ?? endpoint.environment,
                isRetryable: isRetryable ?? VerifyReceiptResponder.defaultRetryFlag(for: status))))
        case .httpError(let code, let retryAfterSeconds):
            return after(delay, .answer(Self.htmlError(code, retryAfterSeconds: retryAfterSeconds)))
        case .stall(let duration):
            return after(delay + duration, .answer(responder.respond(to: parsed, endpoint: endpoint, nowMs: nowMs)))
        case .truncatedBody:
            return after(delay, .truncate(responder.respond(to: parsed, endpoint: endpoint, nowMs: nowMs)))
        case .connectionReset:
            return after(delay, .reset)
        case .nonJSONBody:
            return after(delay, .answer(Self.nonJSONPage))
        }
    }

    private static func htmlError(_ code: Int, retryAfterSeconds: Int?) -> SimulatedHTTPResponse {
        var headers = ["Content-Type": "text/html"]
        if let retryAfterSeconds {
            headers["Retry-After"] = String(retryAfterSeconds)
        }
        let phrase = HTTPResponseStatus(statusCode: code).reasonPhrase
        let page = "<html><body><h1>\(code) \(phrase)</h1></body></html>"
        return SimulatedHTTPResponse(httpStatus: code, headers: headers, body: Array(page.utf8), appleStatus: nil)
    }

    private static let nonJSONPage = SimulatedHTTPResponse(
        httpStatus: 200, headers: ["Content-Type": "text/html"],
        body: Array("<html><head><title>Service Unavailable</title></head><body>Please try again later.</body></html>".utf8),
        appleStatus: nil)

    // MARK: App Store Server API

    /// Order: route (unknown `/inApps` path, or Look Up Order ID in the sandbox → 404 `4040000`),
    /// method (`ServerAPIEndpoint.method`: POST for Get Notification History and Request a Test
    /// Notification, PUT for Set App Account Token, GET for the others → 405), bearer (the app it
    /// names, 401 when refused), that app's rate limit (429), then the account's fault plan (the
    /// global one for the endpoints that name no account; Get Notification History's signed
    /// payloads come from the log as emitted, so trust-failure steps leave them as they are), then
    /// `ServerAPIResponder` for that app.
    private func serverAPIReply(to request: SimulatorRequest) -> SimulatorReply {
        let route = ServerAPIRoute(path: request.path)
        statistics.recordServerAPIRequest(route)
        guard let route else {
            return SimulatorReply(delay: .zero, action: .answer(ServerAPIResponder.error(404, 4_040_000, "Not found.")))
        }
        guard request.method.rawValue == route.endpoint.method else {
            return after(latency, .answer(ServerAPIResponder.error(405, 4_000_000, "Method not allowed.")))
        }
        guard let app = access.app(for: request.authorization) else {
            statistics.recordUnauthorized()
            return after(latency, .answer(ServerAPIResponder.unauthorized))
        }
        let bundleID = access.apps.apps[app].bundleID
        statistics.recordServerAPIRequest(app: bundleID, atMs: SimulatedClock.wallNowMs())
        if let waitMs = access.admit(app: app) {
            statistics.recordRateLimited(app: bundleID)
            return after(latency, .answer(ServerAPIResponder.rateLimited(retryAfterMs: waitMs)))
        }
        let nowMs = clock()
        let subscriberID = serverAPI.account(for: route, app: app)?.0.id
        let (extraLatency, step) = faults.next(for: subscriberID)
        if step != .answer {
            statistics.recordFault(step)
        }
        let delay = latency + extraLatency
        func answer(_ variant: SignedDataVariant = .valid) -> SimulatedHTTPResponse {
            serverAPI.respond(to: route, app: app, query: request.query, body: request.body, nowMs: nowMs, variant: variant)
        }

        switch step {
        case .answer:
            return after(delay, .answer(answer()))
        case .badSignature, .leafWithoutMarker, .intermediateWithoutMarker, .foreignRoot, .expiredLeaf,
             .otherBundleID, .wrongEnvironment:
            return after(delay, .answer(answer(step.signedDataVariant(at: route.environment) ?? .valid)))
        case .appleStatus(let status, _):
            let response = switch status {
            case 21010: ServerAPIResponder.error(404, 4_040_001, "Account not found.")
            case 21002, 21003, 21007, 21008: ServerAPIResponder.transactionNotFound
            default: ServerAPIResponder.error(500, 5_000_001, "An unknown error occurred. Please try again.")
            }
            return after(delay, .answer(response))
        case .httpError(429, let retryAfterSeconds):
            return after(delay, .answer(ServerAPIResponder.rateLimited(retryAfterMs: Int64(retryAfterSeconds ?? 1) * 1000)))
        case .httpError(500, let retryAfterSeconds):
            var response = ServerAPIResponder.error(500, 5_000_000, "An unknown error occurred.")
            if let retryAfterSeconds { response.headers["Retry-After"] = String(retryAfterSeconds) }
            return after(delay, .answer(response))
        case .httpError(let code, let retryAfterSeconds):
            return after(delay, .answer(Self.htmlError(code, retryAfterSeconds: retryAfterSeconds)))
        case .stall(let duration):
            return after(delay + duration, .answer(answer()))
        case .truncatedBody:
            return after(delay, .truncate(answer()))
        case .connectionReset:
            return after(delay, .reset)
        case .nonJSONBody:
            return after(delay, .answer(Self.nonJSONPage))
        }
    }

    // MARK: Admin

    /// `GET /simulator/statistics`: the Server API as Apple's side saw it, for benchmarks that run
    /// the simulator as its own process: `{"verifyReceiptRequests":N,"serverAPIRequests":N,"rateLimited":N,"unauthorized":N,
    /// "apps":[{"bundleId":…,"requests":N,"rateLimited":N,"firstRequestMs":T,"lastRequestMs":T}]}`,
    /// apps sorted by bundle ID; requests before the bearer check gave them an app count in no app.
    /// Not counted itself.
    private func statisticsReply(_ request: SimulatorRequest) -> SimulatorReply {
        guard request.method == .GET else {
            return SimulatorReply(delay: .zero, action: .answer(ServerAPIResponder.error(405, 4_000_000, "Use GET.")))
        }
        let snapshot = statistics.snapshot()
        var json = JSONByteWriter(capacity: 256)
        json.beginObject()
        json.field("verifyReceiptRequests", number: Int64(snapshot.productionRequests + snapshot.sandboxRequests))
        json.field("serverAPIRequests", number: Int64(snapshot.serverAPIRequests))
        json.field("rateLimited", number: Int64(snapshot.serverAPIRateLimited))
        json.field("unauthorized", number: Int64(snapshot.serverAPIUnauthorized))
        json.key("apps")
        json.beginArray()
        for bundleID in snapshot.serverAPIRequestsByApp.keys.sorted() {
            json.beginObject()
            json.field("bundleId", bundleID)
            json.field("requests", number: Int64(snapshot.serverAPIRequestsByApp[bundleID, default: 0]))
            json.field("rateLimited", number: Int64(snapshot.serverAPIRateLimitedByApp[bundleID, default: 0]))
            if let span = snapshot.serverAPIRequestSpanByApp[bundleID] {
                json.field("firstRequestMs", number: span.lowerBound)
                json.field("lastRequestMs", number: span.upperBound)
            }
            json.endObject()
        }
        json.endArray()
        json.endObject()
        return SimulatorReply(delay: .zero, action: .answer(SimulatedHTTPResponse(
            httpStatus: 200, headers: ServerAPIResponder.jsonHeaders, body: json.bytes, appleStatus: nil)))
    }

    /// `POST /simulator/accounts`: the body is receipt data strings, one per line (blank lines
    /// ignored), as `SimulatedReceipt.encode` makes them. All decodable: each account is
    /// registered (replacing one with the same id) and the answer is 200
    /// `{"registered":N,"accounts":TOTAL}`. Any line that is not a simulator receipt: 400
    /// `{"registered":0,"badLines":[1-based line numbers]}` and nothing is registered.
    private func registerAccounts(_ request: SimulatorRequest) -> SimulatorReply {
        guard request.method == .POST else {
            return SimulatorReply(delay: .zero, action: .answer(ServerAPIResponder.error(405, 4_000_000, "Use POST.")))
        }
        var subscribers: [SimulatedSubscriber] = []
        var badLines: [Int64] = []
        for (number, line) in request.body.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            var text = String(decoding: line, as: UTF8.self)
            text = text.trimmedLine()
            guard !text.isEmpty else { continue }
            if let subscriber = SimulatedReceipt.decode(text) {
                subscribers.append(subscriber)
            } else {
                badLines.append(Int64(number + 1))
            }
        }
        var json = JSONByteWriter(capacity: 64)
        json.beginObject()
        guard badLines.isEmpty else {
            json.field("registered", number: 0)
            json.key("badLines")
            json.beginArray()
            for line in badLines { json.number(line) }
            json.endArray()
            json.endObject()
            return SimulatorReply(delay: .zero, action: .answer(SimulatedHTTPResponse(
                httpStatus: 400, headers: ServerAPIResponder.jsonHeaders, body: json.bytes, appleStatus: nil)))
        }
        for subscriber in subscribers {
            serverAPI.registry.register(subscriber)
        }
        statistics.recordRegistered(subscribers.count)
        json.field("registered", number: Int64(subscribers.count))
        json.field("accounts", number: Int64(serverAPI.registry.count))
        json.endObject()
        return SimulatorReply(delay: .zero, action: .answer(SimulatedHTTPResponse(
            httpStatus: 200, headers: ServerAPIResponder.jsonHeaders, body: json.bytes, appleStatus: nil)))
    }

    /// `action` after `delay`; past `requestTimeout` the server gives up instead: HTTP 500 at the timeout.
    private func after(_ delay: Duration, _ action: SimulatorReply.Action) -> SimulatorReply {
        guard delay > requestTimeout else {
            return SimulatorReply(delay: delay, action: action)
        }
        return SimulatorReply(delay: requestTimeout, action: .answer(SimulatedHTTPResponse(
            httpStatus: 500, headers: ["Content-Type": "text/plain"], body: Array("Request timed out".utf8),
            appleStatus: nil)))
    }
}

private extension String {
    /// Drops surrounding spaces, tabs and a trailing CR (lines may come CRLF-terminated).
    func trimmedLine() -> String {
        var view = Substring(self)
        while let first = view.first, first == " " || first == "\t" || first == "\r" { view.removeFirst() }
        while let last = view.last, last == " " || last == "\t" || last == "\r" { view.removeLast() }
        return String(view)
    }
}
