import AppleSignedData
import Crypto
import Foundation
import Logging
import SubReconHTTP
import Testing

@testable import SubRecon
@testable import SubReconAppStore
@testable import SubReconModel

/// The one place an app's Server API connection is made, and Set App Account Token on the shared
/// retry policy (a scripted transport: no network, the waits recorded, not waited).
@Suite struct ServerAPIConnectionFactoryTests {
    typealias Scripted = NotificationHistoryClientTests.ScriptedTransport

    static let key = AppStoreAPIKey(privateKey: P256.Signing.PrivateKey(), keyID: "KEY0000001", issuerID: "issuer", bundleID: "com.example.app")
    static let policy = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(100), maxDelay: .seconds(1))

    static func settings() -> Settings {
        let serverAPI = ServerAPISettings(
            key: key, endpoints: ServerAPIEndpoints(production: "https://api.test", sandbox: "https://sandbox.test"), verifier: .apple)
        return Settings(
            databasePath: "/tmp/unused.sqlite", sharedSecret: nil, endpoints: .apple, concurrency: 1, products: [],
            requestTimeout: .seconds(7), caFile: nil, warnings: [], retryPolicy: policy, appleAPI: .serverAPI, serverAPI: serverAPI)
    }

    /// The app's endpoints and key, the run's timeout and retry policy: what every client then uses.
    @Test func theConnectionCarriesTheAppsSettingsAndTheRunsPolicy() async throws {
        let settings = Self.settings()
        let serverAPI = try #require(settings.serverAPI)
        let transport = Scripted([NotificationHistoryClientTests.ok("{}")])
        let connection = serverAPI.connection(transport: transport, limiter: APIRateLimiter(requestsPerSecond: 0), settings: settings)
        #expect(connection.endpoints == serverAPI.endpoints)
        #expect(connection.requestTimeout == .seconds(7))
        #expect(connection.retryPolicy == Self.policy)
        _ = await connection.send("GET", connection.endpoints.subscriptionStatuses("1", environment: .production))
        let request = try #require(transport.requests.first)
        #expect(request.timeout == .seconds(7))
        // The JWT is the app's key's, signed now: its payload names the app's bundle id.
        let jwt = try #require(request.headers.first { $0.name == "Authorization" }?.value.dropFirst("Bearer ".count))
        let payload = try #require(Base64URL.decode(String(jwt.split(separator: ".")[1])))
        #expect(String(decoding: payload, as: UTF8.self).contains("\"bid\":\"com.example.app\""))
    }

    static func setter(_ transport: Scripted, sleeps: RetryPolicyTests.Sleeps) throws -> AppAccountTokenSetter {
        let settings = Self.settings()
        let connection = try #require(settings.serverAPI).connection(
            transport: transport, limiter: APIRateLimiter(requestsPerSecond: 0), settings: settings)
        return AppAccountTokenSetter(connection: connection, sleep: sleeps.sleep)
    }

    @Test func setAppAccountTokenRetriesTransientAnswersWithTheSharedBackoff() async throws {
        let sleeps = RetryPolicyTests.Sleeps()
        let transport = Scripted([
            NotificationHistoryClientTests.refused(503), NotificationHistoryClientTests.refused(500, code: 5_000_001),
            .success(HTTPResponse(status: 200, body: [])),
        ])
        let result = try await Self.setter(transport, sleeps: sleeps).set(token: "ABC", originalTransactionID: "1000")
        #expect(result == .success(.production))
        #expect(transport.requests.count == 3)
        #expect(transport.requests.allSatisfy { $0.method == "PUT" && $0.url == "https://api.test/inApps/v1/transactions/1000/appAccountToken" })
        #expect(String(decoding: transport.requests[0].body, as: UTF8.self) == #"{"appAccountToken":"abc"}"#)
        #expect(sleeps.recorded.count == 2)
        #expect(sleeps.recorded.allSatisfy { $0 <= .milliseconds(200) })
    }

    @Test func setAppAccountTokensRefusalIsFinalAndOutOfAttemptsIsUnavailable() async throws {
        let refusedSleeps = RetryPolicyTests.Sleeps()
        let refused = Scripted([NotificationHistoryClientTests.refused(400, code: 4_000_185)])
        let final = try await Self.setter(refused, sleeps: refusedSleeps).set(token: "abc", originalTransactionID: "1")
        #expect(final == .failure(.refused(status: 400, errorCode: .init(rawValue: 4_000_185))))
        #expect(refused.requests.count == 1)
        #expect(refusedSleeps.recorded.isEmpty)

        let down = Scripted(Array(repeating: NotificationHistoryClientTests.refused(503), count: 3))
        let unavailable = try await Self.setter(down, sleeps: RetryPolicyTests.Sleeps()).set(token: "abc", originalTransactionID: "1")
        #expect(unavailable == .failure(.unavailable("HTTP 503")))
        #expect(down.requests.count == 3)
    }

    /// Production does not know the purchase: the sandbox is asked.
    @Test func setAppAccountTokenAsksTheSandboxWhenProductionDoesNotKnowThePurchase() async throws {
        let transport = Scripted([
            NotificationHistoryClientTests.refused(404, code: 4_040_005), .success(HTTPResponse(status: 200, body: [])),
        ])
        let result = try await Self.setter(transport, sleeps: RetryPolicyTests.Sleeps()).set(token: "abc", originalTransactionID: "1")
        #expect(result == .success(.sandbox))
        #expect(transport.requests.map(\.url).last == "https://sandbox.test/inApps/v1/transactions/1/appAccountToken")
    }

    /// A cancelled wait ends the call: Apple is not asked again.
    @Test func aCancelledSetIsNotRetried() async throws {
        let transport = Scripted([NotificationHistoryClientTests.refused(503), .success(HTTPResponse(status: 200, body: []))])
        let result = try await Self.setter(transport, sleeps: RetryPolicyTests.Sleeps(cancelAt: 1)).set(
            token: "abc", originalTransactionID: "1")
        #expect(result == .failure(.unavailable("stopping")))
        #expect(transport.requests.count == 1)
    }
}
