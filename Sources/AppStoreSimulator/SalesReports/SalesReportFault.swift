/// A failure `GET /v1/salesReports` answers instead of the real report, for testing a client's
/// handling of Apple's bad days (see `SalesReportOptions.faults`).
public enum SalesReportFault: Sendable, Hashable {
    /// 429 `RATE_LIMIT_EXCEEDED` with `Retry-After: seconds`, whatever the hourly count says.
    case rateLimited(retryAfterSeconds: Int)
    /// 500 `UNEXPECTED_ERROR` (Apple's JSON error).
    case serverError
    /// 200 `application/a-gzip` whose gzip file is cut in half (a complete HTTP answer).
    case truncatedGzip
    /// 200 whose body is the report's plain text, not a gzip file (as a proxy that inflated it
    /// would pass it on).
    case notGzip

    /// The name counted in `SimulatorStatistics.faultsInjected`.
    var name: String {
        switch self {
        case .rateLimited: "salesReportRateLimited"
        case .serverError: "salesReportServerError"
        case .truncatedGzip: "salesReportTruncatedGzip"
        case .notGzip: "salesReportNotGzip"
        }
    }
}
