import Foundation

/// The `filter[...]` parameters of one `GET /v1/salesReports`, percent-decoded (clients send
/// `filter[reportType]` raw or as `filter%5BreportType%5D`), in any order. The last of a repeated
/// parameter wins.
struct SalesReportQuery: Sendable, Hashable {
    private(set) var filters: [String: String] = [:]

    init(_ query: Substring?) {
        guard let query else { return }
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = Self.decoded(parts[0])
            let value = parts.count > 1 ? Self.decoded(parts[1]) : ""
            filters[name] = value
        }
    }

    /// The value of `filter[name]`.
    subscript(_ name: String) -> String? {
        filters["filter[\(name)]"]
    }

    /// What the simulator makes: the daily Summary Sales Report.
    static let supported = ["reportType": "SALES", "reportSubType": "SUMMARY", "frequency": "DAILY"]

    /// The first reason Apple would refuse this query (in Apple's order: what report, whose,
    /// which version, which day), or the day asked for.
    func validated(vendorNumber: String, acceptedVersion: String) -> Result<PacificDay, AppStoreConnectError> {
        for name in ["reportType", "reportSubType", "frequency"] {
            guard let expected = Self.supported[name] else { continue }
            let value = self[name]
            guard value == expected else {
                let shown = value.map { "'\($0)'" } ?? "A missing value"
                return .failure(.invalidParameter(
                    "filter[\(name)]",
                    detail: "\(shown) is not a value the simulator serves for the parameter 'filter[\(name)]': "
                        + "it makes the daily Summary Sales Report only (SALES, SUMMARY, DAILY)."))
            }
        }
        guard self["vendorNumber"] == vendorNumber else {
            // Apple's answer for a vendor number that is not the key's team's (clients quote it).
            return .failure(.invalidParameter("filter[vendorNumber]", detail: "Invalid vendor number specified"))
        }
        guard self["version"] == acceptedVersion else {
            return .failure(.invalidParameter(
                "filter[version]",
                detail: "The version parameter you have specified is invalid. The latest version for this report is "
                    + "\(acceptedVersion)."))
        }
        guard let text = self["reportDate"], let day = PacificDay(reportDate: Substring(text)) else {
            return .failure(.invalidParameter(
                "filter[reportDate]",
                detail: "The reportDate parameter is missing or invalid: a DAILY report's date is in the format "
                    + "YYYY-MM-DD."))
        }
        return .success(day)
    }

    private static func decoded(_ text: Substring) -> String {
        let plain = String(text)
        return plain.removingPercentEncoding ?? plain
    }
}
