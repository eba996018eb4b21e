import NIOHTTP1

/// Decides each request's answer and when it leaves: routing, Apple's method rule, latency,
/// fault injection and the request timeout around `VerifyReceiptResponder`. No I/O and no waiting
/// here; `SimulatorChannelHandler` carries the `SimulatorReply` out on the connection.
struct SimulatorRequestRouter: Sendable {
    let responder: VerifyReceiptResponder
    let clock: MillisecondsClock
    let latency: Duration
    let requestTimeout: Duration
    let faults: FaultInjector
    let statistics: StatisticsRecorder

    func reply(method: HTTPMethod, path: Substring, body: [UInt8]) -> SimulatorReply {
        let endpoint = SimulatorEndpoint.allCases.first { $0.path == path }
        statistics.recordRequest(endpoint: endpoint)
        guard let endpoint else {
            return SimulatorReply(delay: .zero, action: .answer(SimulatedHTTPResponse(
                httpStatus: 404, headers: ["Content-Type": "text/plain"], body: Array("Not Found".utf8), appleStatus: nil)))
        }
        let nowMs = clock()
        guard method == .POST else {
            return after(latency, .answer(VerifyReceiptResponder.statusResponse(21000, environment: nil)))
        }
        let parsed = VerifyReceiptResponder.ParsedRequest(body: body)
        let (extraLatency, step) = faults.next(for: parsed.subscriber?.id)
        if step != .answer {
            statistics.recordFault(step)
        }
        let delay = latency + extraLatency

        switch step {
        case .answer:
            return after(delay, .answer(responder.respond(to: parsed, endpoint: endpoint, nowMs: nowMs)))
        case .appleStatus(let status, let isRetryable):
            return after(delay, .answer(VerifyReceiptResponder.statusResponse(
                status,
                environment: parsed.subscriber?.environment ?? endpoint.environment,
                isRetryable: isRetryable ?? VerifyReceiptResponder.defaultRetryFlag(for: status))))
        case .httpError(let code, let retryAfterSeconds):
            var headers = ["Content-Type": "text/html"]
            if let retryAfterSeconds {
                headers["Retry-After"] = String(retryAfterSeconds)
            }
            let phrase = HTTPResponseStatus(statusCode: code).reasonPhrase
            let page = "<html><body><h1>\(code) \(phrase)</h1></body></html>"
            return after(delay, .answer(SimulatedHTTPResponse(
                httpStatus: code, headers: headers, body: Array(page.utf8), appleStatus: nil)))
        case .stall(let duration):
            return after(delay + duration, .answer(responder.respond(to: parsed, endpoint: endpoint, nowMs: nowMs)))
        case .truncatedBody:
            return after(delay, .truncate(responder.respond(to: parsed, endpoint: endpoint, nowMs: nowMs)))
        case .connectionReset:
            return after(delay, .reset)
        case .nonJSONBody:
            let page = "<html><head><title>Service Unavailable</title></head><body>Please try again later.</body></html>"
            return after(delay, .answer(SimulatedHTTPResponse(
                httpStatus: 200, headers: ["Content-Type": "text/html"], body: Array(page.utf8), appleStatus: nil)))
        }
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
