import AppleSignedData
import Crypto
import Foundation
import Logging
import SubReconHTTP
import Synchronization
import Testing

@testable import SubReconAppStore
@testable import SubReconModel

/// Get Notification History's client without a network: its pages read by the one-pass scanner
/// (Apple's library fixture, and the same bodies JSONDecoder accepted or refused), the request it
/// sends, and what each of Apple's answers means, retries included (the waits recorded, not waited).
@Suite struct NotificationHistoryClientTests {
    /// Answers each request with the next scripted answer and records what was asked.
    final class ScriptedTransport: HTTPTransport {
        private let state: Mutex<(answers: [Result<HTTPResponse, HTTPTransportError>], requests: [HTTPRequest])>
        init(_ answers: [Result<HTTPResponse, HTTPTransportError>]) { state = Mutex((answers, [])) }
        var requests: [HTTPRequest] { state.withLock { $0.requests } }
        func send(_ request: HTTPRequest) async throws(HTTPTransportError) -> HTTPResponse {
            let answer = state.withLock { state -> Result<HTTPResponse, HTTPTransportError> in
                state.requests.append(request)
                guard !state.answers.isEmpty else { return .failure(.connectionFailed(url: request.url, reason: "no answer scripted")) }
                return state.answers.removeFirst()
            }
            return try answer.get()
        }
    }

    /// The page the backfill decoded with Foundation before, kept here to compare with the scanner.
    struct DecodedPage: Decodable, Equatable {
        struct Item: Decodable, Equatable { var signedPayload: String }
        var notificationHistory: [Item]?
        var hasMore: Bool?
        var paginationToken: String?
    }

    static func fixture(_ name: String) throws -> [UInt8] {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/server-api/\(name)", withExtension: "json"))
        return Array(try Data(contentsOf: url))
    }

    static func ok(_ json: String) -> Result<HTTPResponse, HTTPTransportError> {
        .success(HTTPResponse(status: 200, headers: ["content-type": "application/json"], body: Array(json.utf8)))
    }

    static func refused(_ status: Int, code: Int? = nil, headers: [String: String] = [:]) -> Result<HTTPResponse, HTTPTransportError> {
        let body = code.map { "{\"errorCode\":\($0),\"errorMessage\":\"m\"}" } ?? ""
        return .success(HTTPResponse(status: status, headers: headers, body: Array(body.utf8)))
    }

    static let policy = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(100), maxDelay: .seconds(1))

    static func client(
        _ transport: ScriptedTransport, sleeps: RetryPolicyTests.Sleeps = RetryPolicyTests.Sleeps()
    ) -> NotificationHistoryClient {
        let key = AppStoreAPIKey(privateKey: P256.Signing.PrivateKey(), keyID: "KEY0000001", issuerID: "issuer", bundleID: "com.example.app")
        let connection = ServerAPIConnection(
            transport: transport, endpoints: ServerAPIEndpoints(production: "https://api.test/", sandbox: "https://sandbox.test"),
            tokens: BearerTokenProvider(key: key, clock: { 1_800_000_000_000 }), limiter: APIRateLimiter(requestsPerSecond: 0),
            requestTimeout: .seconds(5), retryPolicy: policy, clockMs: { 1_800_000_000_000 })
        return NotificationHistoryClient(connection: connection, logger: Logger(label: "test"), sleep: sleeps.sleep)
    }

    static let page = #"{"hasMore":false,"notificationHistory":[{"signedPayload":"a.b.c"}],"paginationToken":"t"}"#

    // MARK: - Pages

    @Test func applesLibraryPageIsRead() throws {
        let bytes = try Self.fixture("getNotificationHistoryResponse")
        let page = try ServerAPIWire.NotificationHistoryResponse.scan(bytes)
        #expect(page.notificationHistory?.map(\.signedPayload) == ["signed_payload_one", "signed_payload_two"])
        #expect(page.hasMore == true)
        #expect(page.paginationToken == "57715481-805a-4283-8499-1c19b5d6b20a")
        let decoded = try JSONDecoder().decode(DecodedPage.self, from: Data(bytes))
        #expect(decoded.notificationHistory?.map(\.signedPayload) == page.notificationHistory?.map(\.signedPayload))
    }

    /// The simulator's answer, as `NotificationHistoryResponder` writes it: the token first,
    /// `sendAttempts` before each payload (an empty page included).
    @Test func theSimulatorsPagesAreRead() throws {
        let full = try ServerAPIWire.NotificationHistoryResponse.scan(Array(
            #"{"paginationToken":"bjEuMTcxNjE5MjkzMDQxNy4zLjFmMmEz","hasMore":true,"notificationHistory":[{"sendAttempts":[{"attemptDate":1716192930417,"sendAttemptResult":"SUCCESS"}],"signedPayload":"eyJhbGciOiJFUzI1NiJ9.eyJub3RpZmljYXRpb25UeXBlIjoiRElEX1JFTkVXIn0.c2ln"},{"sendAttempts":[],"signedPayload":"x.y.z"}]}"#.utf8))
        #expect(full.notificationHistory?.count == 2)
        #expect(full.notificationHistory?.last?.signedPayload == "x.y.z")
        #expect(full.hasMore == true)
        #expect(full.paginationToken == "bjEuMTcxNjE5MjkzMDQxNy4zLjFmMmEz")
        let empty = try ServerAPIWire.NotificationHistoryResponse.scan(
            Array(#"{"paginationToken":"bjEu","hasMore":false,"notificationHistory":[]}"#.utf8))
        #expect(empty.notificationHistory == [])
        #expect(empty.hasMore == false)
    }

    /// The scanner accepts what JSONDecoder accepted, with the same values, and refuses what it refused.
    @Test(arguments: [
        page,
        #"{}"#,
        #"{"notificationHistory":null,"hasMore":null,"paginationToken":null}"#,
        #"{"notificationHistory":[],"hasMore":true,"paginationToken":"","extra":{"a":[1,2,{"b":null}]}}"#,
        "\u{FEFF}" + #"{"notificationHistory":[{"signedPayload":"esc\u0061ped\/"}]}"#,
        #"{"notificationHistory":[{"signedPayload":""}], "hasMore" : false }"#,
        // Refused: a missing, null or non-string payload; an item that is not an object; wrong types.
        #"{"notificationHistory":[{"sendAttempts":[]}]}"#,
        #"{"notificationHistory":[{"signedPayload":null}]}"#,
        #"{"notificationHistory":[{"signedPayload":12}]}"#,
        #"{"notificationHistory":[null]}"#,
        #"{"notificationHistory":["a.b.c"]}"#,
        #"{"notificationHistory":{"signedPayload":"a"}}"#,
        #"{"hasMore":"true"}"#,
        #"{"hasMore":1}"#,
        #"{"paginationToken":5}"#,
        #"[]"#,
        #"{"hasMore":true"#,
        #"{"hasMore":true} x"#,
        "",
    ])
    func theScannerReadsWhatJSONDecoderRead(body: String) {
        let decoded = try? JSONDecoder().decode(DecodedPage.self, from: Data(body.utf8))
        let scanned = try? ServerAPIWire.NotificationHistoryResponse.scan(Array(body.utf8))
        #expect((decoded == nil) == (scanned == nil), "\(body)")
        if let decoded, let scanned {
            #expect(decoded.notificationHistory?.map(\.signedPayload) == scanned.notificationHistory?.map(\.signedPayload))
            #expect(decoded.hasMore == scanned.hasMore)
            #expect(decoded.paginationToken == scanned.paginationToken)
        }
    }

    // MARK: - Requests

    @Test func theRequestIsAPostOfTheSpanToTheEndpointWithTheToken() async throws {
        let transport = ScriptedTransport([Self.ok(Self.page), Self.ok(Self.page)])
        let client = Self.client(transport)
        let first = await client.page(sinceMs: 10, untilMs: 20, paginationToken: nil, environment: .production)
        #expect(try first.get().notificationHistory?.first?.signedPayload == "a.b.c")
        _ = await client.page(sinceMs: 10, untilMs: 20, paginationToken: "a b/c=", environment: .sandbox)
        let requests = transport.requests
        #expect(requests.map(\.url) == [
            "https://api.test/inApps/v1/notifications/history",
            "https://sandbox.test/inApps/v1/notifications/history?paginationToken=a%20b%2Fc%3D",
        ])
        #expect(requests.allSatisfy { $0.method == "POST" })
        #expect(requests.map { String(decoding: $0.body, as: UTF8.self) } == Array(repeating: #"{"startDate":10,"endDate":20}"#, count: 2))
        #expect(requests.first?.headers.first { $0.name == "Authorization" }?.value.hasPrefix("Bearer ey") == true)
    }

    // MARK: - Answers

    @Test(arguments: [
        (401, nil, "configuration"), (404, 4_040_003, "configuration"), (400, 4_000_012, "configuration"),
        (400, 4_000_017, "unavailable"), (400, 4_000_006, "unavailable"), (403, nil, "unavailable"),
    ] as [(Int, Int?, String)])
    func applesRefusalsAreFinal(status: Int, code: Int?, kind: String) async {
        let transport = ScriptedTransport([Self.refused(status, code: code)])
        let sleeps = RetryPolicyTests.Sleeps()
        let result = await Self.client(transport, sleeps: sleeps).page(
            sinceMs: 1, untilMs: 2, paginationToken: "token", environment: .production)
        switch result {
        case .failure(.configuration): #expect(kind == "configuration")
        case .failure(.unavailable): #expect(kind == "unavailable")
        default: Issue.record("\(result)")
        }
        #expect(transport.requests.count == 1)
        #expect(sleeps.recorded.isEmpty)
    }

    @Test func aRefusalSaysWhatAppleSaidAndAfterHowManyAttempts() async {
        let transport = ScriptedTransport([Self.refused(403)])
        let result = await Self.client(transport).page(sinceMs: 1, untilMs: 2, paginationToken: nil, environment: .production)
        #expect(result == .failure(.unavailable(
            "HTTP 403 from the App Store Server API at https://api.test/inApps/v1/notifications/history (after 1 attempt(s))")))
        let expired = await Self.client(ScriptedTransport([Self.refused(400, code: 4_000_017)])).page(
            sinceMs: 1, untilMs: 2, paginationToken: "t", environment: .production)
        #expect(expired == .failure(.unavailable(
            "Apple's pagination token expired (4000017); run the backfill again from the last notification stored (duplicates are skipped)")))
        let refusedKey = await Self.client(ScriptedTransport([Self.refused(401)])).page(
            sinceMs: 1, untilMs: 2, paginationToken: nil, environment: .production)
        #expect(refusedKey == .failure(.configuration(RunStoppingProblem.apiKeyRejected(environment: .production).description)))
    }

    @Test func transientAnswersAreRetriedThenThePageIsRead() async throws {
        let transport = ScriptedTransport([
            Self.refused(503), .failure(.timedOut(url: "u")), Self.refused(429, headers: ["retry-after": "1800000000300"]),  // Apple's form: a time in ms
        ])
        let policy = RetryPolicy(maxAttempts: 4, baseDelay: .milliseconds(100), maxDelay: .seconds(1))
        let key = AppStoreAPIKey(privateKey: P256.Signing.PrivateKey(), keyID: "KEY0000001", issuerID: "issuer", bundleID: "b")
        let sleeps = RetryPolicyTests.Sleeps()
        let client = NotificationHistoryClient(
            connection: ServerAPIConnection(
                transport: transport, endpoints: ServerAPIEndpoints(production: "https://api.test", sandbox: "https://sandbox.test"),
                tokens: BearerTokenProvider(key: key, clock: { 1_800_000_000_000 }), limiter: APIRateLimiter(requestsPerSecond: 0),
                requestTimeout: .seconds(5), retryPolicy: policy, clockMs: { 1_800_000_000_000 }),
            logger: Logger(label: "test"), sleep: sleeps.sleep)
        let result = await client.page(sinceMs: 1, untilMs: 2, paginationToken: nil, environment: .production)
        guard case .failure(.unavailable(let message)) = result else { Issue.record("\(result)"); return }
        // Out of attempts (the fourth answer is none at all): the last problem, counted.
        #expect(message.hasSuffix("(after 4 attempt(s))"))
        #expect(transport.requests.count == 4)
        #expect(sleeps.recorded.count == 3)
        #expect(sleeps.recorded[2] >= .milliseconds(300))  // Apple's Retry-After

        let recovering = ScriptedTransport([Self.refused(500), Self.ok(Self.page)])
        let page = try await Self.client(recovering).page(sinceMs: 1, untilMs: 2, paginationToken: nil, environment: .production).get()
        #expect(page.paginationToken == "t")
        #expect(recovering.requests.count == 2)
    }

    @Test func anUnreadablePageIsNotRetried() async {
        let transport = ScriptedTransport([Self.ok(#"{"notificationHistory":[{"signedPayload":1}]}"#)])
        let result = await Self.client(transport).page(sinceMs: 1, untilMs: 2, paginationToken: nil, environment: .production)
        #expect(result == .failure(.unavailable("a notification history page was not the expected JSON")))
        #expect(transport.requests.count == 1)
    }

    /// A cancelled wait ends the page: Apple is not asked again.
    @Test func aCancelledRetryIsNotSwallowed() async {
        let transport = ScriptedTransport([Self.refused(503), Self.ok(Self.page)])
        let result = await Self.client(transport, sleeps: RetryPolicyTests.Sleeps(cancelAt: 1)).page(
            sinceMs: 1, untilMs: 2, paginationToken: nil, environment: .production)
        #expect(result == .failure(.cancelled))
        #expect(transport.requests.count == 1)
    }
}
