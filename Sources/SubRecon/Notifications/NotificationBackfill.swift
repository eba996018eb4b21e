import AppleSignedData
import Foundation
import Logging
import SubReconAppStore
import SubReconHTTP
import SubReconModel

/// `notifications backfill`: asks Apple's Get Notification History for a span, page by page
/// (`paginationToken`), and hands every notification to the processor, which stores only the
/// ones not stored yet (dedupe by uuid: an overlapping span is harmless). Same JWT, rate limiter,
/// 429 and retry handling as a run.
public struct NotificationBackfill: Sendable {
    let transport: any HTTPTransport
    let endpoints: ServerAPIEndpoints
    let tokens: BearerTokenProvider
    let limiter: APIRateLimiter
    let processor: NotificationProcessor
    let requestTimeout: Duration
    let retryPolicy: RetryPolicy
    let clockMs: @Sendable () -> Int64
    let logger: Logger

    public init(
        transport: any HTTPTransport, endpoints: ServerAPIEndpoints, tokens: BearerTokenProvider, limiter: APIRateLimiter,
        processor: NotificationProcessor, requestTimeout: Duration = .seconds(30), retryPolicy: RetryPolicy = .standard,
        clockMs: @escaping @Sendable () -> Int64, logger: Logger
    ) {
        self.transport = transport
        self.endpoints = endpoints
        self.tokens = tokens
        self.limiter = limiter
        self.processor = processor
        self.requestTimeout = requestTimeout
        self.retryPolicy = retryPolicy
        self.clockMs = clockMs
        self.logger = logger
    }

    /// What a backfill did.
    public struct Summary: Sendable, Equatable {
        public var pages = 0
        /// Notifications in Apple's history for the span.
        public var listed = 0
        /// Stored now for the first time, by outcome.
        public var stored: [NotificationOutcome: Int] = [:]
        /// Already stored (received, imported or backfilled before).
        public var alreadyStored = 0
        /// Refused by verification (each logged with its reason).
        public var refused = 0
        /// Since when the span was asked (after clamping to Apple's retention).
        public var sinceMs: Int64 = 0
        public var untilMs: Int64 = 0

        public var storedTotal: Int { stored.values.reduce(0, +) }
    }

    /// Why a backfill stopped early; what it stored until then stands.
    public enum Failure: OperatorFacingError, Sendable {
        /// A configuration problem (a refused JWT, an unknown app, a bad span): exit 2.
        case configuration(String)
        /// Apple gave no usable answer after the retries: exit 1, run it again later.
        case apple(String, Summary)
        /// The store failed: exit 74.
        case store(String, Summary)

        public var description: String {
            switch self {
            case .configuration(let message), .apple(let message, _), .store(let message, _): message
            }
        }

        public var exitStatus: ExitStatus {
            switch self {
            case .configuration: .configuration
            case .apple: .incomplete
            case .store: .databaseFailed
            }
        }
    }

    /// Apple keeps 180 days of history in production and 30 in the sandbox; one user saw
    /// 4000012 at about 170 days, so the start is clamped a day inside that.
    public static func retentionDays(_ environment: ReceiptEnvironment) -> Int64 {
        environment == .production ? 179 : 29
    }

    public func run(sinceMs: Int64, untilMs: Int64, environment: ReceiptEnvironment) async throws(Failure) -> Summary {
        var summary = Summary()
        let nowMs = clockMs()
        let earliest = nowMs - Self.retentionDays(environment) * 86_400_000
        summary.sinceMs = max(sinceMs, earliest)
        summary.untilMs = min(untilMs, nowMs)
        if summary.sinceMs > sinceMs {
            logger.warning(
                "--since is beyond Apple's notification history (\(Self.retentionDays(environment) + 1) days in \(environment.rawValue)); asking from \(ISO8601.string(fromMilliseconds: summary.sinceMs))")
        }
        guard summary.sinceMs < summary.untilMs else {
            throw .configuration("nothing to ask: --since must be before --until (and before now)")
        }
        let body = Array("{\"startDate\":\(summary.sinceMs),\"endDate\":\(summary.untilMs)}".utf8)
        var token: String? = nil
        // Bounded: 100,000 pages of 20 is two million notifications in one span.
        for _ in 0..<100_000 {
            let page = try await fetchPage(body: body, token: token, environment: environment, summary: summary)
            summary.pages += 1
            for item in page.notificationHistory ?? [] {
                summary.listed += 1
                switch await processor.process(signedPayload: item.signedPayload, source: .backfill, countsAsDelivery: true) {
                case .stored(_, let outcome, let duplicate, _):
                    if duplicate { summary.alreadyStored += 1 } else { summary.stored[outcome, default: 0] += 1 }
                case .refused:
                    summary.refused += 1
                case .unavailable(let message):
                    throw .store(message, summary)
                }
            }
            guard page.hasMore == true, let next = page.paginationToken, !next.isEmpty else { return summary }
            token = next
        }
        throw .apple("Apple's notification history did not end after 100,000 pages", summary)
    }

    struct Page: Decodable {
        struct Item: Decodable {
            var signedPayload: String
        }
        var notificationHistory: [Item]?
        var hasMore: Bool?
        var paginationToken: String?
    }

    /// One page, retried on timeouts, 5xx and 429 (after its `Retry-After`) like a receipt.
    private func fetchPage(body: [UInt8], token: String?, environment: ReceiptEnvironment, summary: Summary)
        async throws(Failure) -> Page
    {
        var url = endpoints.base(for: environment) + "/inApps/v1/notifications/history"
        if let token { url += "?paginationToken=" + ServerAPIEndpoints.percentEncoded(token) }
        let connection = ServerAPIConnection(
            transport: transport, endpoints: endpoints, tokens: tokens, limiter: limiter, requestTimeout: requestTimeout,
            retryPolicy: retryPolicy, clockMs: clockMs)
        var attempt = 0
        while true {
            attempt += 1
            let problem: String
            var retryAfter: Duration? = nil
            var retryable = true
            switch await connection.send("POST", url, body: body) {
            case .success(let bytes):
                guard let page = try? JSONDecoder().decode(Page.self, from: Data(bytes)) else {
                    throw .apple("a notification history page was not the expected JSON", summary)
                }
                return page
            case .failure(.noToken(let reason)):
                throw .configuration("cannot make the App Store Server API token: \(reason)")
            case .failure(.stopping):
                throw .apple("stopped while waiting for the rate limit", summary)
            case .failure(.transport(let error)):
                problem = error.description
                retryable = error.isTransient
            case .failure(.refused(let status, let code, let wait)):
                switch (status, code) {
                case (401, _):
                    throw .configuration(RunStoppingProblem.apiKeyRejected(environment: environment).description)
                case (404, .appNotFound?):
                    throw .configuration(RunStoppingProblem.appNotFound(environment: environment).description)
                case (400, .startDateTooFarInPast?):
                    throw .configuration(
                        "Apple answered 4000012: --since is further back than its notification history (180 days in production, 30 in the sandbox)")
                case (400, .paginationTokenExpired?) where token != nil:
                    throw .apple(
                        "Apple's pagination token expired (4000017); run the backfill again from the last notification stored (duplicates are skipped)",
                        summary)
                case (429, _):
                    retryAfter = wait
                    problem = "the App Store Server API answered 429 (rate limit)"
                default:
                    retryable = status >= 500 || status == 408
                    problem = "HTTP \(status)\(code.map { " (\($0))" } ?? "") from the App Store Server API at \(url)"
                }
            }
            guard retryable,
                let delay = retryPolicy.delay(afterAttempt: attempt, retryAfter: retryAfter, random: Double.random(in: 0..<1))
            else { throw .apple(problem + " (after \(attempt) attempt(s))", summary) }
            logger.warning("notification history: \(problem); retrying in \(delay)")
            try? await Task.sleep(for: delay)
        }
    }
}
