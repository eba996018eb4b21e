import AppleSignedData
import Crypto
import Foundation
import Logging
import SubReconHTTP
import Synchronization
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@testable import SubReconStore

/// How `SalesReportClient` reads each of App Store Connect's answers (a scripted transport: the
/// simulator's loopback tests cover the real exchange).
@Suite struct SalesReportClientTests {
    final class ScriptedTransport: HTTPTransport {
        private let state: Mutex<(answers: [HTTPResponse], urls: [String], authorizations: [String])>
        init(_ answers: [HTTPResponse]) { state = Mutex((answers, [], [])) }
        var urls: [String] { state.withLock { $0.urls } }
        var authorizations: [String] { state.withLock { $0.authorizations } }
        func send(_ request: HTTPRequest) async throws(HTTPTransportError) -> HTTPResponse {
            try state.withLock { (state: inout (answers: [HTTPResponse], urls: [String], authorizations: [String])) throws(HTTPTransportError) -> HTTPResponse in
                state.urls.append(request.url)
                state.authorizations.append(request.headers.first { $0.name == "Authorization" }?.value ?? "")
                guard !state.answers.isEmpty else { throw .connectionFailed(url: request.url, reason: "no answer scripted") }
                return state.answers.removeFirst()
            }
        }
    }

    static let day = CalendarDay(text: "2026-11-20")!

    static func error(_ status: Int, _ code: String, _ detail: String, parameter: String? = nil, headers: [String: String] = [:]) -> HTTPResponse {
        let source = parameter.map { ",\"source\":{\"parameter\":\"\($0)\"}" } ?? ""
        let body = "{\"errors\":[{\"status\":\"\(status)\",\"code\":\"\(code)\",\"title\":\"t\",\"detail\":\"\(detail)\"\(source)}]}"
        return HTTPResponse(status: status, headers: headers.merging(["content-type": "application/json"]) { $1 }, body: Array(body.utf8))
    }

    static func client(_ transport: ScriptedTransport) -> SalesReportClient {
        SalesReportClient(
            baseURL: "https://asc.example/", vendorNumber: "80012345",
            tokens: BearerTokenProvider(teamKey: AppStoreConnectKey(privateKey: P256.Signing.PrivateKey(), keyID: "K1", issuerID: "I1")),
            transport: transport, logger: Logger(label: "test"), sleep: { _ in })
    }

    @Test func theRequestNamesApplesFiltersAndCarriesTheTeamToken() async throws {
        let transport = ScriptedTransport([HTTPResponse(status: 200, body: [0x1f, 0x8b, 0x08, 0x00])])
        let answer = try await Self.client(transport).download(day: Self.day, version: "1_0")
        #expect(answer == .report(bytes: [0x1f, 0x8b, 0x08, 0x00], version: "1_0"))
        #expect(transport.urls == [
            "https://asc.example/v1/salesReports?filter%5Bfrequency%5D=DAILY&filter%5BreportDate%5D=2026-11-20"
                + "&filter%5BreportSubType%5D=SUMMARY&filter%5BreportType%5D=SALES&filter%5BvendorNumber%5D=80012345"
                + "&filter%5Bversion%5D=1_0",
        ])
        #expect(transport.authorizations.first?.hasPrefix("Bearer ey") == true)
    }

    @Test func eachAnswerMeansWhatAppleMeans() async throws {
        let cases: [(HTTPResponse, Result<SalesReportDownload, SalesReportFetchError>)] = [
            (Self.error(404, "NOT_FOUND", "There were no sales for the date specified."), .success(.noSales(version: "1_0"))),
            (Self.error(404, "NOT_FOUND", "Report is not available yet. Daily reports for the Americas are available by 5 am Pacific Time"),
             .success(.notYetAvailable)),
            (Self.error(410, "GONE", "Report is no longer available."), .success(.noLongerAvailable)),
            (Self.error(401, "NOT_AUTHORIZED", "Authentication credentials are missing or invalid."),
             .failure(.unauthorized("NOT_AUTHORIZED: t: Authentication credentials are missing or invalid."))),
            (Self.error(403, "FORBIDDEN_ERROR", "This request is forbidden for security reasons"),
             .failure(.forbidden(vendorNumber: "80012345", detail: "FORBIDDEN_ERROR: t: This request is forbidden for security reasons"))),
            (Self.error(400, "PARAMETER_ERROR.INVALID", "Invalid vendor number specified", parameter: "filter[vendorNumber]"),
             .failure(.forbidden(vendorNumber: "80012345", detail: "PARAMETER_ERROR.INVALID: t: Invalid vendor number specified"))),
            (Self.error(400, "PARAMETER_ERROR.INVALID", "bad date", parameter: "filter[reportDate]"),
             .failure(.badRequest("PARAMETER_ERROR.INVALID: t: bad date"))),
            (HTTPResponse(status: 200, body: Array("Provider\tSKU\n".utf8)),
             .failure(.unexpectedAnswer("200 for 2026-11-20 whose body is not gzip (13 bytes)"))),
        ]
        for (response, expected) in cases {
            let client = Self.client(ScriptedTransport([response]))
            let result: Result<SalesReportDownload, SalesReportFetchError>
            do { result = .success(try await client.download(day: Self.day, version: "1_0")) } catch { result = .failure(error) }
            #expect(result == expected, "HTTP \(response.status)")
        }
        #expect(SalesReportFetchError.forbidden(vendorNumber: "80012345", detail: "x").description.contains("80012345"))
        #expect(SalesReportFetchError.unauthorized("x").isConfigurationError)
        #expect(!SalesReportFetchError.rateLimited("x").isConfigurationError)
    }

    @Test func theVersionApplesErrorNamesIsTriedOnceAndNoMore() async throws {
        let drift = Self.error(
            400, "PARAMETER_ERROR.INVALID", "The version parameter you have specified is invalid. The latest version for this report is 1_1.",
            parameter: "filter[version]")
        let followed = ScriptedTransport([drift, HTTPResponse(status: 200, body: [0x1f, 0x8b])])
        #expect(try await Self.client(followed).download(day: Self.day, version: "1_0") == .report(bytes: [0x1f, 0x8b], version: "1_1"))
        #expect(followed.urls.last?.hasSuffix("filter%5Bversion%5D=1_1") == true)

        let refusedAgain = Self.error(
            400, "PARAMETER_ERROR.INVALID", "The latest version for this report is 1_2.", parameter: "filter[version]")
        let looping = ScriptedTransport([drift, refusedAgain, HTTPResponse(status: 200, body: [0x1f, 0x8b])])
        await #expect(throws: SalesReportFetchError.self) { try await Self.client(looping).download(day: Self.day, version: "1_0") }
        #expect(looping.urls.count == 2, "one drift followed, never a loop")
    }

    @Test func applesHourlyQuotaIsReadFromEveryAnswer() async throws {
        let transport = ScriptedTransport([
            HTTPResponse(status: 200, headers: ["x-rate-limit": "user-hour-lim:3600;user-hour-rem:0;"], body: [0x1f, 0x8b]),
        ])
        let client = Self.client(transport)
        #expect(client.requestsLeftThisHour == nil)
        _ = try await client.download(day: Self.day, version: "1_0")
        #expect(client.requestsLeftThisHour == 0)
        #expect(SalesReportClient.remaining("user-hour-lim:3500;user-hour-rem:3499;") == 3499)
        #expect(SalesReportClient.remaining("nonsense") == nil)
    }

    @Test func fiveHundredsAreRetriedThenGiveUp() async throws {
        let failing = ScriptedTransport(Array(repeating: Self.error(503, "UNAVAILABLE", "down"), count: 3))
        await #expect(throws: SalesReportFetchError.unavailable("HTTP 503 for 2026-11-20: UNAVAILABLE: t: down")) {
            try await Self.client(failing).download(day: Self.day, version: "1_0")
        }
        #expect(failing.urls.count == SalesReportClient.attempts)
    }
}
