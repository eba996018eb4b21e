/// The simulator's pure core: turns one verifyReceipt request body into Apple's answer for a
/// given endpoint and "now". No I/O and no state, so it is unit-testable without a server.
///
/// Checks, in order (each answers HTTP 200 with the status in the body):
/// 1. body not a JSON object with a string `receipt-data` → 21000;
/// 2. `receipt-data` not a simulator receipt → 21002;
/// 3. Sandbox receipt at production → 21007, Production receipt at sandbox → 21008;
/// 4. the app of the receipt's account (`SimulatedSubscriber.bundleID`) has a shared secret and
///    `password` is missing or different → 21004;
/// 5. the receipt's `fixedStatus` (e.g. 21003, 21010) if it has one;
/// 6. otherwise status 0 with the receipt's state at `nowMs`, as that app's (`bundle_id`, `adam_id`).
public struct VerifyReceiptResponder: Sendable {
    /// The apps whose receipts it answers (the first for accounts that name none).
    var catalog: SimulatedAppCatalog

    /// The first app's shared secret; nil accepts any `password`.
    public var sharedSecret: String? {
        get { catalog.defaultApp.sharedSecret }
        set { catalog = catalog.updatingDefaultApp { $0.sharedSecret = newValue } }
    }
    /// The first app's bundle id: `receipt.bundle_id` in answers for accounts that name no app.
    public var bundleID: String {
        get { catalog.defaultApp.bundleID }
        set { catalog = catalog.updatingDefaultApp { $0.bundleID = newValue } }
    }

    static let jsonHeaders = ["Content-Type": "application/json"]

    /// A request body decoded as far as it goes (shared with the server, which needs the
    /// subscriber id for fault plans before answering).
    struct ParsedRequest: Sendable {
        var request: VerifyReceiptRequest?
        var subscriber: SimulatedSubscriber?

        init(body: [UInt8]) {
            request = VerifyReceiptRequest(body: body)
            subscriber = request.flatMap { SimulatedReceipt.decode($0.receiptData) }
        }
    }

    public init(sharedSecret: String? = nil, bundleID: String = SimulatedProducts.bundleID) {
        catalog = SimulatedAppCatalog(bundleID: bundleID, sharedSecret: sharedSecret)
    }

    /// Answers for several apps, each with its own shared secret (`apps` must not be empty).
    public init(apps: [SimulatedApp]) {
        catalog = SimulatedAppCatalog(apps)
    }

    /// Apple's answer to a POST of `body` to `endpoint` at `nowMs`.
    public func respond(to body: [UInt8], endpoint: SimulatorEndpoint, nowMs: Int64) -> SimulatedHTTPResponse {
        respond(to: ParsedRequest(body: body), endpoint: endpoint, nowMs: nowMs)
    }

    /// One-shot form: Apple's answer with `sharedSecret` configured.
    public static func respond(
        to body: [UInt8], endpoint: SimulatorEndpoint, nowMs: Int64, sharedSecret: String?
    ) -> SimulatedHTTPResponse {
        VerifyReceiptResponder(sharedSecret: sharedSecret).respond(to: body, endpoint: endpoint, nowMs: nowMs)
    }

    func respond(to parsed: ParsedRequest, endpoint: SimulatorEndpoint, nowMs: Int64) -> SimulatedHTTPResponse {
        guard let request = parsed.request else {
            return Self.statusResponse(21000, environment: nil)
        }
        let endpointEnvironment = endpoint.environment
        guard let subscriber = parsed.subscriber else {
            return Self.statusResponse(21002, environment: endpointEnvironment)
        }
        switch (subscriber.environment, endpoint) {
        case (.sandbox, .production):
            return Self.statusResponse(21007, environment: endpointEnvironment)
        case (.production, .sandbox):
            return Self.statusResponse(21008, environment: endpointEnvironment)
        default:
            break
        }
        let app = catalog.app(of: subscriber)
        if let sharedSecret = app.sharedSecret, request.password != sharedSecret {
            return Self.statusResponse(21004, environment: endpointEnvironment)
        }
        if let fixedStatus = subscriber.fixedStatus, fixedStatus != 0 {
            return Self.statusResponse(
                fixedStatus, environment: subscriber.environment, isRetryable: Self.defaultRetryFlag(for: fixedStatus))
        }
        let body = ValidReceiptBodyRenderer(
            subscriber: subscriber, nowMs: nowMs,
            excludeOldTransactions: request.excludeOldTransactions, bundleID: app.bundleID, appAppleID: app.appAppleID
        ).render()
        return SimulatedHTTPResponse(httpStatus: 200, headers: Self.jsonHeaders, body: body, appleStatus: 0)
    }

    /// An error-status body like Apple's, e.g. `{"environment":"Production","status":21010,"is_retryable":false}`.
    /// 21000 carries no environment (Apple could not read the request).
    public static func statusResponse(
        _ status: Int, environment: SimulatedEnvironment?, isRetryable: Bool? = nil
    ) -> SimulatedHTTPResponse {
        var json = JSONByteWriter(capacity: 96)
        json.beginObject()
        if let environment {
            json.field("environment", environment.rawValue)
        }
        json.field("status", number: Int64(status))
        if let isRetryable {
            // A real JSON boolean on the wire (observed), unlike the string flags elsewhere.
            json.key("is_retryable")
            json.bool(isRetryable)
        }
        json.endObject()
        let bytes = json.bytes
        return SimulatedHTTPResponse(httpStatus: 200, headers: jsonHeaders, body: bytes, appleStatus: status)
    }

    /// Observed: 21010 says `is_retryable: false`; the 211xx range carries the flag, retryable by default.
    static func defaultRetryFlag(for status: Int) -> Bool? {
        switch status {
        case 21010: false
        case 21100...21199: true
        default: nil
        }
    }
}
