import FlyingFox
import FlyingSocks
import Foundation

/// FlyingFox handler for both verifyReceipt endpoints: routing, Apple's method rule, latency,
/// fault injection and statistics around `VerifyReceiptResponder`.
struct SimulatorHTTPHandler: HTTPHandler {
    let responder: VerifyReceiptResponder
    let clock: MillisecondsClock
    let latency: Duration
    let faults: FaultInjector
    let statistics: StatisticsRecorder
    /// The port the server listens on, known only once it started (used to find connections to reset).
    let serverPort: ListeningPort

    func handleRequest(_ request: HTTPRequest) async throws -> HTTPResponse {
        let endpoint = SimulatorEndpoint.allCases.first { $0.path == request.path }
        statistics.recordRequest(endpoint: endpoint)
        guard let endpoint else {
            return finish(SimulatedHTTPResponse(
                httpStatus: 404, headers: ["Content-Type": "text/plain"], body: Array("Not Found".utf8), appleStatus: nil))
        }
        let nowMs = clock()
        guard request.method == .POST else {
            try await sleep(latency)
            return finish(VerifyReceiptResponder.statusResponse(21000, environment: nil))
        }
        let parsed = VerifyReceiptResponder.ParsedRequest(body: [UInt8](try await request.bodyData))
        let (extraLatency, step) = faults.next(for: parsed.subscriber?.id)
        if step != .answer {
            statistics.recordFault(step)
        }
        try await sleep(latency + extraLatency)

        switch step {
        case .answer:
            return finish(responder.respond(to: parsed, endpoint: endpoint, nowMs: nowMs))
        case .appleStatus(let status, let isRetryable):
            return finish(VerifyReceiptResponder.statusResponse(
                status,
                environment: parsed.subscriber?.environment ?? endpoint.environment,
                isRetryable: isRetryable ?? VerifyReceiptResponder.defaultRetryFlag(for: status)))
        case .httpError(let code, let retryAfterSeconds):
            var headers = ["Content-Type": "text/html"]
            if let retryAfterSeconds {
                headers["Retry-After"] = String(retryAfterSeconds)
            }
            let page = "<html><body><h1>\(code) \(Self.phrase(for: code))</h1></body></html>"
            return finish(SimulatedHTTPResponse(httpStatus: code, headers: headers, body: Array(page.utf8), appleStatus: nil))
        case .stall(let duration):
            try await sleep(duration)
            return finish(responder.respond(to: parsed, endpoint: endpoint, nowMs: nowMs))
        case .truncatedBody:
            let full = responder.respond(to: parsed, endpoint: endpoint, nowMs: nowMs)
            statistics.recordAnswer(httpStatus: full.httpStatus, appleStatus: nil)
            return Self.truncated(full)
        case .connectionReset:
            statistics.recordAnswer(httpStatus: 0, appleStatus: nil)
            if ConnectionResetter.reset(serverPort: serverPort.value, peer: request.remoteAddress) {
                // The socket is shut down: FlyingFox's write of this fails and it closes the connection.
                return HTTPResponse(statusCode: .ok)
            }
            // Fallback where the socket cannot be found: headers only, then close.
            return Self.truncated(SimulatedHTTPResponse(
                httpStatus: 200, headers: VerifyReceiptResponder.jsonHeaders, body: Array("{}".utf8), appleStatus: nil),
                keeping: 0)
        case .nonJSONBody:
            let page = "<html><head><title>Service Unavailable</title></head><body>Please try again later.</body></html>"
            return finish(SimulatedHTTPResponse(
                httpStatus: 200, headers: ["Content-Type": "text/html"], body: Array(page.utf8), appleStatus: nil))
        }
    }

    private func sleep(_ duration: Duration) async throws {
        if duration > .zero {
            try await Task.sleep(for: duration)
        }
    }

    private func finish(_ response: SimulatedHTTPResponse) -> HTTPResponse {
        statistics.recordAnswer(httpStatus: response.httpStatus, appleStatus: response.appleStatus)
        return Self.httpResponse(response)
    }

    static func httpResponse(_ response: SimulatedHTTPResponse) -> HTTPResponse {
        // One buffer for the whole body, so it leaves in a single write after the headers.
        HTTPResponse(
            statusCode: HTTPStatusCode(response.httpStatus, phrase: phrase(for: response.httpStatus)),
            headers: headers(response.headers),
            body: HTTPBodySequence(data: Data(response.body), suggestedBufferSize: max(4096, response.body.count)))
    }

    /// Headers with the full Content-Length, then `keeping` bytes (default: half) of the body, then a failure.
    static func truncated(_ response: SimulatedHTTPResponse, keeping: Int? = nil) -> HTTPResponse {
        let kept = min(response.body.count, keeping ?? response.body.count / 2)
        return HTTPResponse(
            statusCode: HTTPStatusCode(response.httpStatus, phrase: phrase(for: response.httpStatus)),
            headers: headers(response.headers),
            body: HTTPBodySequence(
                from: TruncatedBodySequence(prefix: Array(response.body.prefix(kept))),
                count: response.body.count,
                suggestedBufferSize: max(4096, response.body.count)))
    }

    private static func headers(_ dictionary: [String: String]) -> HTTPHeaders {
        var headers = HTTPHeaders()
        for (name, value) in dictionary {
            headers[HTTPHeader(name)] = value
        }
        return headers
    }

    static func phrase(for code: Int) -> String {
        switch code {
        case 200: "OK"
        case 404: "Not Found"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: "Status \(code)"
        }
    }
}
