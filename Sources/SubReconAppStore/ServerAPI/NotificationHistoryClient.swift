import Logging
import SubReconModel

/// Get Notification History: one page of an app's notification history for a span, through the
/// app's Server API connection (token, shared rate limit, `Retry-After`), retried by the policy
/// every Apple call shares, and Apple's refusals said as the operator needs them. Which pages to
/// ask and what to do with the notifications is the caller's (`NotificationBackfill`).
package struct NotificationHistoryClient: Sendable {
    package let connection: ServerAPIConnection
    let logger: Logger
    let sleep: RetryPolicy.Sleep

    package init(connection: ServerAPIConnection, logger: Logger, sleep: @escaping RetryPolicy.Sleep = RetryPolicy.taskSleep) {
        self.connection = connection
        self.logger = logger
        self.sleep = sleep
    }

    package typealias Page = ServerAPIWire.NotificationHistoryResponse

    /// Why no page came back.
    package enum Failure: Error, Sendable, Equatable {
        /// The key, the app or the span is wrong: asking again will not help (exit 2).
        case configuration(String)
        /// Apple gave no usable answer (after the retries), or an unreadable one.
        case unavailable(String)
        /// The task was cancelled: nothing more was asked.
        case cancelled
    }

    /// The page of `[sinceMs, untilMs)` after `paginationToken` (the first page without one).
    package func page(
        sinceMs: Int64, untilMs: Int64, paginationToken: String?, environment: ReceiptEnvironment
    ) async -> Result<Page, Failure> {
        let url = connection.endpoints.notificationHistory(paginationToken: paginationToken, environment: environment)
        let body = Array("{\"startDate\":\(sinceMs),\"endDate\":\(untilMs)}".utf8)
        let retried: RetryPolicy.Retried<[UInt8], Refusal> = await connection.retryPolicy.run(
            sleep: sleep,
            willRetry: { refusal, _, wait in
                if case .problem(let problem) = refusal { logger.warning("notification history: \(problem); retrying in \(wait)") }
            }
        ) { _ in
            await attempt(url, body: body, paginationToken: paginationToken, environment: environment)
        }
        switch retried {
        case .success(let bytes):
            guard let page = try? Page.scan(bytes) else { return .failure(.unavailable("a notification history page was not the expected JSON")) }
            return .success(page)
        case .failure(.final(let failure), _), .exhausted(.final(let failure), _):
            return .failure(failure)
        case .failure(.problem(let problem), let attempts), .exhausted(.problem(let problem), let attempts):
            return .failure(.unavailable(problem + " (after \(attempts) attempt(s))"))
        case .cancelled:
            return .failure(.cancelled)
        }
    }

    /// What one attempt's failure was: said as it is, or an answer counted in attempts.
    private enum Refusal {
        case final(Failure)
        case problem(String)
    }

    /// One POST and what Apple's answer means for a backfill (Apple's "Error codes" page).
    private func attempt(
        _ url: String, body: [UInt8], paginationToken: String?, environment: ReceiptEnvironment
    ) async -> RetryPolicy.Attempt<[UInt8], Refusal> {
        switch await connection.send("POST", url, body: body) {
        case .success(let bytes):
            return .success(bytes)
        case .failure(.noToken(let reason)):
            return .failure(.final(.configuration("cannot make the App Store Server API token: \(reason)")))
        case .failure(.stopping):
            return .failure(.final(Task.isCancelled ? .cancelled : .unavailable("stopped while waiting for the rate limit")))
        case .failure(.transport(let error)):
            return error.isTransient ? .transient(.problem(error.description)) : .failure(.problem(error.description))
        case .failure(.refused(let status, let code, let wait)):
            switch (status, code) {
            case (401, _):
                return .failure(.final(.configuration(RunStoppingProblem.apiKeyRejected(environment: environment).description)))
            case (404, .appNotFound?):
                return .failure(.final(.configuration(RunStoppingProblem.appNotFound(environment: environment).description)))
            case (400, .startDateTooFarInPast?):
                return .failure(.final(.configuration(
                    "Apple answered 4000012: --since is further back than its notification history (180 days in production, 30 in the sandbox)")))
            case (400, .paginationTokenExpired?) where paginationToken != nil:
                return .failure(.final(.unavailable(
                    "Apple's pagination token expired (4000017); run the backfill again from the last notification stored (duplicates are skipped)")))
            case (429, _):
                return .transient(.problem("the App Store Server API answered 429 (rate limit)"), retryAfter: wait)
            default:
                let problem = "HTTP \(status)\(code.map { " (\($0))" } ?? "") from the App Store Server API at \(url)"
                return RetryPolicy.isTransient(status: status, code: code)
                    ? .transient(.problem(problem)) : .failure(.problem(problem))
            }
        }
    }
}
