import CompressNIO
import NIOCore
import Synchronization

/// `GET /v1/salesReports`, App Store Connect's Sales and Trends download, as far as reconciling a
/// subscription ledger needs it: the daily Summary Sales Report of every registered account
/// (see `SalesReportIndex`), gzipped. No I/O here; the router adds latency.
///
/// Checks, in order: the method (GET); the bearer token when a team key is configured (401);
/// the hourly budget (429); the next queued `SalesReportFault`; the report asked for
/// (`SalesReportQuery`: 400 naming the parameter); the day's publication, the next day at 08:00
/// Pacific (404 "not available yet"); a day without lines (404 "no sales"); else 200. Every
/// answer but a 401 carries `X-Rate-Limit`.
struct SalesReportResponder: Sendable {
    /// The endpoint's path.
    static let path = "/v1/salesReports"

    let options: SalesReportOptions
    let bearer: AppStoreConnectBearerVerifier?
    let index: SalesReportIndex
    let rateCounter: SalesReportRateCounter
    let faults: SalesReportFaultQueue
    let statistics: StatisticsRecorder

    init(options: SalesReportOptions, registry: SimulatedAccountRegistry, faults: SalesReportFaultQueue,
         statistics: StatisticsRecorder) {
        self.options = options
        bearer = options.ascPublicKeyX963.map { AppStoreConnectBearerVerifier(publicKeyX963: $0) }
        index = SalesReportIndex(registry: registry)
        rateCounter = SalesReportRateCounter(limit: options.hourlyLimit)
        self.faults = faults
        self.statistics = statistics
    }

    func respond(to request: SimulatorRequest, nowMs: Int64) -> SimulatedHTTPResponse {
        let query = SalesReportQuery(request.query)
        statistics.recordSalesReportRequest(reportDate: query["reportDate"])
        guard request.method == .GET else {
            return AppStoreConnectError(
                status: 405, code: "METHOD_NOT_ALLOWED", title: "The request method is not allowed",
                detail: "Use GET for /v1/salesReports.").response()
        }
        if let bearer, !bearer.accepts(authorization: request.authorization) {
            statistics.recordSalesReportUnauthorized()
            return AppStoreConnectError.notAuthorized.response()
        }
        let (remaining, retryAfter) = rateCounter.admit(atMs: nowMs)
        var response = answer(query, nowMs: nowMs, retryAfterSeconds: retryAfter)
        response.headers["X-Rate-Limit"] = rateCounter.header(remaining: remaining)
        return response
    }

    private func answer(_ query: SalesReportQuery, nowMs: Int64, retryAfterSeconds: Int?) -> SimulatedHTTPResponse {
        if let retryAfterSeconds {
            return Self.rateLimited(retryAfterSeconds: retryAfterSeconds)
        }
        let fault = faults.next()
        if let fault { statistics.recordFault(named: fault.name) }
        switch fault {
        case .rateLimited(let seconds):
            return Self.rateLimited(retryAfterSeconds: seconds)
        case .serverError:
            return AppStoreConnectError.unexpected.response()
        case .truncatedGzip, .notGzip, nil:
            break
        }
        let day: PacificDay
        switch query.validated(vendorNumber: options.vendorNumber, acceptedVersion: options.acceptedVersion) {
        case .failure(let error): return error.response()
        case .success(let asked): day = asked
        }
        guard day.publishedMs <= nowMs else {
            return AppStoreConnectError.reportNotAvailableYet.response()
        }
        let rows = index.rows(of: day, nowMs: nowMs)
        let report = Array(SummarySalesReport(day: day, rows: rows).text.utf8)
        // A fault shows its defect even on a day without sales: the client must never get that far.
        switch fault {
        case .notGzip:
            return SimulatedHTTPResponse(
                httpStatus: 200, headers: ["Content-Type": "text/plain"], body: report, appleStatus: nil)
        case .truncatedGzip:
            let gzip = Self.gzip(report)
            return Self.gzipFile(Array(gzip.prefix(gzip.count / 2)))
        default:
            break
        }
        guard !rows.isEmpty else {
            return AppStoreConnectError.noSales.response()
        }
        return Self.gzipFile(Self.gzip(report))
    }

    private static func rateLimited(retryAfterSeconds: Int) -> SimulatedHTTPResponse {
        var response = AppStoreConnectError.rateLimitExceeded.response()
        response.headers["Retry-After"] = String(max(0, retryAfterSeconds))
        return response
    }

    private static func gzipFile(_ bytes: [UInt8]) -> SimulatedHTTPResponse {
        SimulatedHTTPResponse(
            httpStatus: 200, headers: ["Content-Type": "application/a-gzip"], body: bytes, appleStatus: nil)
    }

    /// `bytes` as a gzip file. zlib cannot fail on a buffer it sized itself; if it ever did, the
    /// answer is an empty body, which every client rejects as not gzip.
    static func gzip(_ bytes: [UInt8]) -> [UInt8] {
        var buffer = ByteBuffer(bytes: bytes)
        guard let compressed = try? buffer.compress(with: .gzip()) else { return [] }
        return Array(compressed.readableBytesView)
    }
}
