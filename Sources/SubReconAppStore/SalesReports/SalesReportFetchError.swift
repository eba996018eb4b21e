import SubReconModel

/// Why a day's report could not be fetched. Each reads as one operator-facing sentence; none
/// carries the key or the token.
public enum SalesReportFetchError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 401: the token was refused.
    case unauthorized(String)
    /// 403: the key may not read sales reports, or the vendor number is not the team's.
    case forbidden(vendorNumber: String, detail: String)
    /// 400 about something other than the version: our request is wrong (a configuration error).
    case badRequest(String)
    /// Apple refused the version it named itself, or named none.
    case versionRefused(asked: String, detail: String)
    /// 429 more often than the attempts allow, or the hourly quota is used up.
    case rateLimited(String)
    /// 5xx, a timeout or a broken connection, after the attempts.
    case unavailable(String)
    /// A 200 whose body is not a gzip report (or a status Apple does not document).
    case unexpectedAnswer(String)

    /// Configuration errors stop the command with exit 2; the others leave the day to the next run (exit 1).
    public var isConfigurationError: Bool {
        switch self {
        case .unauthorized, .forbidden, .badRequest, .versionRefused: true
        case .rateLimited, .unavailable, .unexpectedAnswer: false
        }
    }

    public var description: String {
        switch self {
        case .unauthorized(let detail):
            "App Store Connect refused the key (401: \(detail)). Check SUBRECON_ASC_KEY_ID and SUBRECON_ASC_ISSUER_ID, "
                + "and that the key is a team key (an individual key, or an In-App Purchase key, cannot read sales reports)"
        case .forbidden(let vendor, let detail):
            "App Store Connect forbade the sales report (403: \(detail)). The key needs the Sales, Finance or Admin role, "
                + "and vendor number \(vendor) (SUBRECON_VENDOR_NUMBER) must be the team's (App Store Connect → Payments and Financial Reports)"
        case .badRequest(let detail):
            "App Store Connect refused the request (400: \(detail))"
        case .versionRefused(let asked, let detail):
            "App Store Connect refused report version \(asked) and named no other that it accepts (400: \(detail))"
        case .rateLimited(let detail):
            "App Store Connect's rate limit for this key is reached (\(detail)); the days not fetched are fetched by the next run"
        case .unavailable(let detail):
            "App Store Connect did not answer usably (\(detail)); the days not fetched are fetched by the next run"
        case .unexpectedAnswer(let detail):
            "App Store Connect's answer was not a report (\(detail))"
        }
    }
}
