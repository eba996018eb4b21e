import Foundation

/// An App Store Connect API error answer: JSON `{"errors":[{"id","status","code","title",
/// "detail","source":{"parameter"}}]}`, never gzipped (a client must look before inflating).
struct AppStoreConnectError: Error, Sendable, Hashable {
    var status: Int
    var code: String
    var title: String
    var detail: String
    /// The query parameter at fault (`source.parameter`), when one is.
    var parameter: String?

    /// The HTTP answer, with a fresh `id` as Apple gives each error.
    func response() -> SimulatedHTTPResponse {
        var json = JSONByteWriter(capacity: 512)
        json.beginObject()
        json.key("errors")
        json.beginArray()
        json.beginObject()
        json.field("id", UUID().uuidString.lowercased())
        json.field("status", String(status))
        json.field("code", code)
        json.field("title", title)
        json.field("detail", detail)
        if let parameter {
            json.key("source")
            json.beginObject()
            json.field("parameter", parameter)
            json.endObject()
        }
        json.endObject()
        json.endArray()
        json.endObject()
        return SimulatedHTTPResponse(
            httpStatus: status, headers: ["Content-Type": "application/json"], body: json.bytes, appleStatus: nil)
    }

    /// 400 for a query parameter Apple refuses.
    static func invalidParameter(_ parameter: String, detail: String) -> AppStoreConnectError {
        AppStoreConnectError(
            status: 400, code: "PARAMETER_ERROR.INVALID", title: "A parameter has an invalid value", detail: detail,
            parameter: parameter)
    }

    static let notAuthorized = AppStoreConnectError(
        status: 401, code: "NOT_AUTHORIZED", title: "Authentication credentials are missing or invalid.",
        detail: "Provide a properly configured and signed bearer token, and make sure that it has not expired. "
            + "Learn more about Generating Tokens for API Requests https://developer.apple.com/go/?id=api-generating-tokens")

    static let rateLimitExceeded = AppStoreConnectError(
        status: 429, code: "RATE_LIMIT_EXCEEDED", title: "The request rate limit has been reached.",
        detail: "We've received too many requests for this API. Please wait and try again or slow down your request rate.")

    static let unexpected = AppStoreConnectError(
        status: 500, code: "UNEXPECTED_ERROR", title: "An unexpected error occurred.",
        detail: "An unexpected error occurred on the server side. If this issue continues, contact us at "
            + "https://developer.apple.com/contact/.")

    /// 404 for a day whose report Apple has not made yet (retry later; never "no sales").
    static let reportNotAvailableYet = notFound(
        "Report is not available yet. Daily reports for the Americas are available by 5 am Pacific Time; Japan, "
            + "Australia, and New Zealand by 5 am Japan Standard Time; and 5 am Central European Time for all "
            + "other territories.")

    /// 404 for a published day without a single sale or refund (Apple makes no empty file).
    static let noSales = notFound("There were no sales for the date specified.")

    private static func notFound(_ detail: String) -> AppStoreConnectError {
        AppStoreConnectError(
            status: 404, code: "NOT_FOUND", title: "The specified resource does not exist", detail: detail)
    }
}
