import AppleSignedData
import Foundation
import SubReconHTTP
import SubReconModel

/// One authenticated, paced request to the App Store Server API, and Apple's refusal classified:
/// the bearer token, the shared rate limiter, sending, the error body's code and `Retry-After`
/// (a 429 also slows every request sharing the limiter). The status and history calls of a run and
/// the notification history of a backfill all go through it; what a refusal means is theirs to say.
package struct ServerAPIConnection: Sendable {
    package let transport: any HTTPTransport
    package let endpoints: ServerAPIEndpoints
    package let tokens: BearerTokenProvider
    package let limiter: APIRateLimiter
    package let requestTimeout: Duration
    package let retryPolicy: RetryPolicy
    /// Wall-clock milliseconds: Apple's `Retry-After` is a real time, whatever clock the run uses.
    package let clockMs: @Sendable () -> Int64

    package init(
        transport: any HTTPTransport, endpoints: ServerAPIEndpoints, tokens: BearerTokenProvider, limiter: APIRateLimiter,
        requestTimeout: Duration, retryPolicy: RetryPolicy, clockMs: @escaping @Sendable () -> Int64
    ) {
        self.transport = transport
        self.endpoints = endpoints
        self.tokens = tokens
        self.limiter = limiter
        self.requestTimeout = requestTimeout
        self.retryPolicy = retryPolicy
        self.clockMs = clockMs
    }

    /// Why a request brought no body.
    package enum Problem: Error, Sendable {
        /// No bearer token could be made (the key): no request was sent.
        case noToken(String)
        /// The run is stopping: the request was not sent.
        case stopping
        /// No answer (a timeout, a refused connection, TLS).
        case transport(HTTPTransportError)
        /// Apple answered with an error status; `errorCode` from its error body when it had one.
        /// A 429 carries the wait Apple asked for (the limiter has already been paused).
        case refused(status: Int, errorCode: ServerAPIErrorCode?, retryAfter: Duration?)
    }

    /// GET or POST `url`; the body of a 2xx answer, or why there is none.
    package func send(_ method: String, _ url: String, body: [UInt8]? = nil) async -> Result<[UInt8], Problem> {
        let token: String
        do {
            token = try tokens.token()
        } catch {
            return .failure(.noToken("\(error)"))
        }
        do {
            try await limiter.acquire()
        } catch {
            return .failure(.stopping)
        }
        var headers = [("Authorization", "Bearer " + token), ("Accept", "application/json")]
        if body != nil { headers.insert(("Content-Type", "application/json"), at: 1) }
        let request = HTTPRequest(url: url, method: method, headers: headers, body: body ?? [], timeout: requestTimeout)
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch {
            return .failure(.transport(error))
        }
        if (200..<300).contains(response.status) { return .success(response.body) }
        let code = ServerAPIWire.ErrorBody.scan(response.body)?.errorCode.map(ServerAPIErrorCode.init(rawValue:))
        var wait: Duration? = nil
        if response.status == 429 {
            let asked = Self.retryAfter(response.headers["retry-after"], nowMs: clockMs())
            // Every request sharing the limiter (all workers, with a shared budget) slows down, but
            // never for longer than a retry would wait.
            await limiter.rateLimited(retryAfterNs: min(asked, retryPolicy.maxRetryAfter).nanoseconds)
            wait = asked
        }
        return .failure(.refused(status: response.status, errorCode: code, retryAfter: wait))
    }

    /// `Retry-After` as Apple sends it (a Unix time in milliseconds) or in HTTP's delay-seconds
    /// form; absent or unreadable: one second.
    package static func retryAfter(_ header: String?, nowMs: Int64) -> Duration {
        guard let text = header?.trimmingCharacters(in: .whitespaces), let value = Int64(text), value >= 0 else {
            return .seconds(1)
        }
        if value >= 100_000_000_000 { return .milliseconds(max(0, value - nowMs)) }
        return .seconds(value)
    }
}
