@testable import AppStoreSimulator
import CompressNIO
import Crypto
import Foundation
import NIOCore
import Testing

/// One answer of `GET /v1/salesReports`, read off a raw connection (URLSession would refuse or
/// re-encode the unencoded `filter[...]` brackets clients do send).
struct SalesReportAnswer: Sendable {
    var status: Int
    /// Lowercased names.
    var headers: [String: String]
    var body: [UInt8]

    /// The gunzipped body as lines of cells (header first); throws when it is not a whole gzip file.
    func table() throws -> [[String]] {
        let text = try gunzip(body)
        #expect(text.hasSuffix("\n"), "the last line ends with \\n")
        #expect(!text.contains("\r"), "\\n line ends, no CR")
        return text.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
    }

    /// The data rows as column name → cell.
    func rows() throws -> [[String: String]] {
        let table = try table()
        let header = try #require(table.first)
        return table.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
    }

    /// `errors[0]` of a JSON error answer.
    func error() throws -> [String: Any] {
        let object = try jsonObject(body)
        let errors = try #require(object["errors"] as? [[String: Any]])
        return try #require(errors.first)
    }
}

func gunzip(_ bytes: [UInt8]) throws -> String {
    var buffer = ByteBuffer(bytes: bytes)
    let inflated = try buffer.decompress(with: .gzip())
    return String(decoding: inflated.readableBytesView, as: UTF8.self)
}

/// The query of a daily Summary Sales Report for `date`, raw brackets, Apple's parameter order.
func salesReportQuery(
    date: String?, vendor: String = SalesReportOptions.defaultVendorNumber, version: String? = "1_0",
    reportType: String = "SALES"
) -> String {
    var pairs = ["filter[frequency]=DAILY"]
    if let date { pairs.append("filter[reportDate]=\(date)") }
    pairs += ["filter[reportSubType]=SUMMARY", "filter[reportType]=\(reportType)", "filter[vendorNumber]=\(vendor)"]
    if let version { pairs.append("filter[version]=\(version)") }
    return pairs.joined(separator: "&")
}

extension AppStoreSimulator {
    /// `GET /v1/salesReports?query` over a fresh loopback connection.
    func salesReport(_ query: String, bearer: String? = nil) async throws -> SalesReportAnswer {
        let port = listeningPort
        let path = "/v1/salesReports?" + query
        let response = try await onDedicatedThread {
            let connection = try RawHTTPConnection(port: port)
            connection.send(method: "GET", path: path, extraHeaders: bearer.map { "Authorization: Bearer \($0)\r\n" } ?? "")
            return try connection.readResponse()
        }
        return SalesReportAnswer(status: response.status, headers: response.headers, body: response.body)
    }

    /// The daily report of `date` with the default vendor and version.
    func salesReport(date: String, bearer: String? = nil) async throws -> SalesReportAnswer {
        try await salesReport(salesReportQuery(date: date), bearer: bearer)
    }
}

/// A team App Store Connect API key's token (ES256, raw R||S) with chosen header and claims.
func makeTeamBearer(
    key: P256.Signing.PrivateKey, issuedAt: Int64 = Int64(Date().timeIntervalSince1970) - 60,
    lifetime: Int64 = 1200, keyID: String? = "2X9R4HXF34", audience: String = "appstoreconnect-v1",
    bundleID: String? = nil
) throws -> String {
    let kid = keyID.map { #","kid":"\#($0)""# } ?? ""
    let header = #"{"alg":"ES256"\#(kid),"typ":"JWT"}"#
    let bid = bundleID.map { #","bid":"\#($0)""# } ?? ""
    let claims = #"{"iss":"57246542-96fe-1a63-e053-0824d011072a","iat":\#(issuedAt),"exp":\#(issuedAt + lifetime),"#
        + #""aud":"\#(audience)"\#(bid)}"#
    let input = base64URLEncode(Array(header.utf8)) + "." + base64URLEncode(Array(claims.utf8))
    let signature = try key.signature(for: Array(input.utf8))
    return input + "." + base64URLEncode(signature.rawRepresentation)
}

/// Pacific-time dates computed with Foundation's calendar, independently of the simulator's `PacificDay`.
enum PacificTestCalendar {
    static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "America/Los_Angeles")!
        return calendar
    }()

    /// `YYYY-MM-DD` of the instant `ms` in Pacific time.
    static func date(_ ms: Int64) -> String {
        let parts = calendar.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: Double(ms) / 1000))
        return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
    }

    /// `MM/DD/YYYY` of a `YYYY-MM-DD`.
    static func usDate(_ date: String) -> String {
        let parts = date.split(separator: "-")
        return "\(parts[1])/\(parts[2])/\(parts[0])"
    }

    /// The instant of a Pacific wall-clock time.
    static func ms(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int = 0) -> Int64 {
        let date = calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute))!
        return Int64(date.timeIntervalSince1970 * 1000)
    }
}
