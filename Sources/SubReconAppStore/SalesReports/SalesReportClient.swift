import AppleSignedData
import Foundation
import Logging
import SubReconHTTP
import SubReconModel
import Synchronization

/// Downloads Apple's daily Summary Sales Report (`GET /v1/salesReports`, `SALES`/`SUMMARY`/`DAILY`)
/// with a team key's bearer token. One request at a time: Apple's limit is per key and hour, and
/// parallel requests drew 429s even with quota left. Retries 429 (after Apple's `Retry-After`) and
/// 5xx a few times; follows Apple's version drift once ("The latest version for this report is X").
public struct SalesReportClient: Sendable {
    /// The version Apple's documentation gives for `SALES`/`SUMMARY`.
    public static let documentedVersion = "1_0"
    /// Attempts per day for 429 and 5xx answers and transport failures.
    public static let attempts = 3
    /// A `Retry-After` longer than this stops the fetch instead of sleeping through it.
    public static let longestWait: Duration = .seconds(120)

    package let baseURL: String
    package let vendorNumber: String
    package let tokens: BearerTokenProvider
    package let transport: any HTTPTransport
    package let logger: Logger
    /// How a wait is spent (tests shorten it).
    package let sleep: @Sendable (Duration) async throws -> Void
    /// Requests left this hour, as Apple's last `X-Rate-Limit` said.
    private let quota = QuotaLeft()

    private final class QuotaLeft: Sendable {
        let remaining = Mutex<Int?>(nil)
    }

    /// Requests Apple's last answer said are left this hour for the key (`X-Rate-Limit`
    /// `user-hour-rem`); nil before the first answer or when Apple sent none.
    public var requestsLeftThisHour: Int? { quota.remaining.withLock { $0 } }

    public init(
        baseURL: String, vendorNumber: String, tokens: BearerTokenProvider, transport: any HTTPTransport, logger: Logger,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.vendorNumber = vendorNumber
        self.tokens = tokens
        self.transport = transport
        self.logger = logger
        self.sleep = sleep
    }

    /// The request's URL: Apple's filters, brackets percent-encoded.
    package func url(day: CalendarDay, version: String) -> String {
        let filters = [
            ("frequency", "DAILY"), ("reportDate", day.text), ("reportSubType", "SUMMARY"), ("reportType", "SALES"),
            ("vendorNumber", vendorNumber), ("version", version),
        ]
        return baseURL + "/v1/salesReports?"
            + filters.map { "filter%5B\($0.0)%5D=\(ServerAPIEndpoints.percentEncoded($0.1))" }.joined(separator: "&")
    }

    /// One day's report. `version` is the one to ask for; a drift Apple names is followed once and
    /// the answer says which version it was (the caller keeps it for the next days).
    public func download(day: CalendarDay, version: String) async throws(SalesReportFetchError) -> SalesReportDownload {
        var version = version
        var followedDrift = false
        var attempt = 0
        while true {
            attempt += 1
            let response = try await send(day: day, version: version, attempt: attempt)
            if let rateLimit = response.headers["x-rate-limit"] {
                logger.debug("App Store Connect rate limit", metadata: ["x-rate-limit": "\(rateLimit)"])
                if let left = Self.remaining(rateLimit) { quota.remaining.withLock { $0 = left } }
            }
            let errors = response.status == 200 ? [] : AppStoreConnectErrorBody.parse(response.body)
            let detail = AppStoreConnectErrorBody.summary(of: errors)
            switch response.status {
            case 200:
                guard response.body.starts(with: [0x1f, 0x8b]) else {
                    throw .unexpectedAnswer("200 for \(day.text) whose body is not gzip (\(response.body.count) bytes)")
                }
                return .report(bytes: response.body, version: version)
            case 400:
                if let latest = AppStoreConnectErrorBody.latestVersion(in: errors) {
                    guard !followedDrift, latest != version else { throw .versionRefused(asked: version, detail: detail) }
                    logger.notice(
                        "App Store Connect asks for another report version; retrying with it",
                        metadata: ["asked": "\(version)", "latest": "\(latest)", "day": "\(day.text)"])
                    version = latest
                    followedDrift = true
                    attempt = 0
                    continue
                }
                if errors.contains(where: { $0.source?.parameter == "filter[version]" }) {
                    throw .versionRefused(asked: version, detail: detail)
                }
                if errors.contains(where: { $0.source?.parameter == "filter[vendorNumber]" }) {
                    throw .forbidden(vendorNumber: vendorNumber, detail: detail)
                }
                throw .badRequest(detail)
            case 401:
                throw .unauthorized(detail)
            case 403:
                throw .forbidden(vendorNumber: vendorNumber, detail: detail)
            case 404:
                let text = errors.compactMap(\.detail).joined(separator: " ").lowercased()
                if text.contains("no sales") { return .noSales(version: version) }
                // "Report is not available yet", or a 404 Apple words otherwise: never a zero day.
                return .notYetAvailable
            case 410:
                return .noLongerAvailable
            case 429:
                let wait = Self.retryAfter(response.headers["retry-after"]) ?? .seconds(attempt * 5)
                guard attempt < Self.attempts, wait <= Self.longestWait else {
                    throw .rateLimited("429 \(detail); X-Rate-Limit \(response.headers["x-rate-limit"] ?? "not sent")")
                }
                logger.notice("App Store Connect answered 429; waiting", metadata: ["seconds": "\(wait.components.seconds)"])
                try await pause(wait)
            case 500...599:
                guard attempt < Self.attempts else { throw .unavailable("HTTP \(response.status) for \(day.text): \(detail)") }
                let wait = Self.retryAfter(response.headers["retry-after"]) ?? .seconds(attempt * 2)
                try await pause(min(wait, Self.longestWait))
            default:
                throw .unexpectedAnswer("HTTP \(response.status) for \(day.text): \(detail)")
            }
        }
    }

    private func send(day: CalendarDay, version: String, attempt: Int) async throws(SalesReportFetchError) -> HTTPResponse {
        let token: String
        do {
            token = try tokens.token()
        } catch {
            throw .unauthorized("the token could not be signed: \(error.description)")
        }
        let request = HTTPRequest(
            url: url(day: day, version: version), method: "GET",
            headers: [("Authorization", "Bearer " + token), ("Accept", "application/a-gzip, application/json")],
            timeout: .seconds(120))
        do {
            return try await transport.send(request)
        } catch {
            guard attempt < Self.attempts else { throw .unavailable(error.description) }
            try await pause(.seconds(attempt * 2))
            return try await send(day: day, version: version, attempt: attempt + 1)
        }
    }

    private func pause(_ duration: Duration) async throws(SalesReportFetchError) {
        do { try await sleep(duration) } catch { throw .unavailable("cancelled while waiting to retry") }
    }

    /// `user-hour-rem` of `X-Rate-Limit: user-hour-lim:3600;user-hour-rem:3599;`.
    package static func remaining(_ header: String) -> Int? {
        for part in header.split(separator: ";") {
            let pair = part.split(separator: ":", maxSplits: 1)
            if pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces) == "user-hour-rem" {
                return Int(pair[1].trimmingCharacters(in: .whitespaces))
            }
        }
        return nil
    }

    /// `Retry-After` in seconds (Apple's form here); an HTTP date or anything else is ignored.
    package static func retryAfter(_ value: String?) -> Duration? {
        guard let value, let seconds = Int(value.trimmingCharacters(in: .whitespaces)), seconds >= 0 else { return nil }
        return .seconds(seconds)
    }
}
