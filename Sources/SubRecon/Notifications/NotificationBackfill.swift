import AppleSignedData
import Foundation
import Logging
import SubReconAppStore
import SubReconHTTP
import SubReconModel

/// `notifications backfill`: asks Apple's Get Notification History for a span, page by page
/// (`paginationToken`), and hands every notification to the processor, which stores only the
/// ones not stored yet (dedupe by uuid: an overlapping span is harmless). The pages come from the
/// app's `NotificationHistoryClient`: same JWT, rate limiter, 429 and retry policy as a run.
public struct NotificationBackfill: Sendable {
    let history: NotificationHistoryClient
    let processor: NotificationProcessor
    /// The run's clock: the span's end and Apple's retention are counted from it.
    let clockMs: @Sendable () -> Int64
    let logger: Logger

    package init(
        history: NotificationHistoryClient, processor: NotificationProcessor, clockMs: @escaping @Sendable () -> Int64,
        logger: Logger
    ) {
        self.history = history
        self.processor = processor
        self.clockMs = clockMs
        self.logger = logger
    }

    /// A backfill through a connection made of these parts (`clockMs` also dates Apple's `Retry-After`).
    public init(
        transport: any HTTPTransport, endpoints: ServerAPIEndpoints, tokens: BearerTokenProvider, limiter: APIRateLimiter,
        processor: NotificationProcessor, requestTimeout: Duration = .seconds(30), retryPolicy: RetryPolicy = .standard,
        clockMs: @escaping @Sendable () -> Int64, logger: Logger
    ) {
        let connection = ServerAPIConnection(
            transport: transport, endpoints: endpoints, tokens: tokens, limiter: limiter, requestTimeout: requestTimeout,
            retryPolicy: retryPolicy, clockMs: clockMs)
        self.init(
            history: NotificationHistoryClient(connection: connection, logger: logger), processor: processor, clockMs: clockMs,
            logger: logger)
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
        /// The task was cancelled (the command is stopping): nothing more was asked; exit 130.
        case cancelled(Summary)

        public var description: String {
            switch self {
            case .configuration(let message), .apple(let message, _), .store(let message, _): message
            case .cancelled:
                "the backfill was stopped; what it stored stands (run it again: notifications stored already are skipped)"
            }
        }

        public var exitStatus: ExitStatus {
            switch self {
            case .configuration: .configuration
            case .apple: .incomplete
            case .store: .databaseFailed
            case .cancelled: .interrupted
            }
        }

        /// What was done until the backfill stopped (nothing for a configuration error).
        public var summary: Summary? {
            switch self {
            case .configuration: nil
            case .apple(_, let summary), .store(_, let summary), .cancelled(let summary): summary
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
        var token: String? = nil
        // Bounded: 100,000 pages of 20 is two million notifications in one span.
        for _ in 0..<100_000 {
            let page: NotificationHistoryClient.Page
            switch await history.page(
                sinceMs: summary.sinceMs, untilMs: summary.untilMs, paginationToken: token, environment: environment)
            {
            case .success(let read): page = read
            case .failure(.configuration(let message)): throw .configuration(message)
            case .failure(.unavailable(let message)): throw .apple(message, summary)
            case .failure(.cancelled): throw .cancelled(summary)
            }
            summary.pages += 1
            for item in page.notificationHistory ?? [] {
                // A cancelled backfill stops between notifications; each one stored stands.
                guard !Task.isCancelled else { throw .cancelled(summary) }
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
            guard !Task.isCancelled else { throw .cancelled(summary) }
            token = next
        }
        throw .apple("Apple's notification history did not end after 100,000 pages", summary)
    }
}
