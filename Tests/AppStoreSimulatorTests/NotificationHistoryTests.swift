@testable import AppStoreSimulator
import AppleSignedData
import Crypto
import Foundation
import Testing

@Suite struct NotificationHistoryTests {
    let now: Int64 = 1_716_192_930_417
    let day = SimulatedProducts.dayMs
    let minute: Int64 = 60_000

    func options(pageSize: Int = 20, key: P256.Signing.PrivateKey? = nil, rateLimit: Double? = nil) -> SimulatorOptions {
        SimulatorOptions(
            sharedSecret: "secret", clock: SimulatedClock(nowMs: now).millisecondsClock, apiPublicKey: key?.publicKey,
            apiRateLimit: rateLimit, notificationHistoryPageSize: pageSize)
    }

    /// A history request over the last `days` days (the end just after now).
    func request(days: Int64 = 1, _ extra: [String: Any] = [:]) -> [String: Any] {
        let dates: [String: Any] = ["startDate": now - days * day, "endDate": now + 1]
        return dates.merging(extra) { $1 }
    }

    /// Every page of one request, following `paginationToken` until `hasMore` is false.
    func pages(
        _ simulator: AppStoreSimulator, _ body: [String: Any], environment: SimulatedEnvironment = .production,
        bearer: String? = nil
    ) async throws -> [[String: Any]] {
        var pages: [[String: Any]] = []
        var token: String?
        repeat {
            var url = simulator.notificationHistoryURL(environment)
            if let token {
                url += "?paginationToken=" + (token.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? token)
            }
            let answer = try await apiPost(url, json: body, bearer: bearer)
            try #require(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
            let page = try jsonObject(answer.body)
            pages.append(page)
            token = page["paginationToken"] as? String
            try #require(token != nil)
        } while pages.last?["hasMore"] as? Bool == true && pages.count < 50
        return pages
    }

    func items(_ pages: [[String: Any]]) throws -> [[String: Any]] {
        try pages.flatMap { try #require($0["notificationHistory"] as? [[String: Any]]) }
    }

    func uuids(_ items: [[String: Any]]) throws -> [String] {
        try items.map { item in
            let signedPayload = try #require(item["signedPayload"] as? String)
            return try #require(try DecodedNotification(signedPayload).uuid)
        }
    }

    /// Apple's error code of a 400 answer to `body`.
    func errorCode(
        _ simulator: AppStoreSimulator, _ body: [UInt8], query: String = "", environment: SimulatedEnvironment = .production
    ) async throws -> Int? {
        let answer = try await apiPost(simulator.notificationHistoryURL(environment) + query, body: body)
        #expect(answer.status == 400, "\(String(decoding: answer.body, as: UTF8.self))")
        return try jsonObject(answer.body)["errorCode"] as? Int
    }

    func json(_ object: [String: Any]) throws -> [UInt8] {
        Array(try JSONSerialization.data(withJSONObject: object))
    }

    @Test func fortyFiveNotificationsComeInThreePagesInSignedDateOrder() async throws {
        try await withSimulator(options()) { simulator in
            let account = SimulatedScenario.active.subscriber(id: 600, nowMs: now)
            // Made out of order: the history orders by signedDate, not by emission.
            let made = (0..<45).map { index in
                simulator.makeNotification(.didRenew, for: account, atMs: now - Int64((index * 7) % 45 + 1) * minute)
            }
            let pages = try await pages(simulator, request())
            #expect(pages.count == 3)
            #expect(try pages.map { try #require($0["notificationHistory"] as? [Any]).count } == [20, 20, 5])
            #expect(pages.map { $0["hasMore"] as? Bool } == [true, true, false])
            let tokens = pages.compactMap { $0["paginationToken"] as? String }
            #expect(Set(tokens).count == 3, "each page its own token")

            let items = try items(pages)
            let expected = made.sorted { $0.signedDateMs < $1.signedDateMs }.map(\.notificationUUID)
            #expect(try uuids(items) == expected)
            for item in items {
                let attempts = try #require(item["sendAttempts"] as? [[String: Any]])
                #expect(attempts.count == 1)
                #expect(attempts.first?["sendAttemptResult"] as? String == "SUCCESS")
                #expect(attempts.first?["attemptDate"] is NSNumber)
            }
            // What history serves is the very payload emitted, and it verifies.
            let verifier = try SignedDataVerifier(rootPEM: simulator.rootCertificatePEM)
            let first = try #require(items.first?["signedPayload"] as? String)
            #expect(first == made.min { $0.signedDateMs < $1.signedDateMs }?.signedPayload)
            _ = try await verifier.verify(first)
            #expect(simulator.statistics().notificationHistoryRequests == 3)
        }
    }

    @Test func pageSizeIsConfigurable() async throws {
        try await withSimulator(options(pageSize: 7)) { simulator in
            let account = SimulatedScenario.active.subscriber(id: 601, nowMs: now)
            for index in 0..<15 {
                simulator.makeNotification(.didRenew, for: account, atMs: now - Int64(index + 1) * minute)
            }
            let pages = try await pages(simulator, request())
            #expect(try pages.map { try #require($0["notificationHistory"] as? [Any]).count } == [7, 7, 1])
        }
    }

    @Test func scenarioNotificationsAreServedAndFilteredByTypeSubtypeCustomerAndDates() async throws {
        try await withSimulator(options()) { simulator in
            let recovered = SimulatedScenario.billingRecovered.subscriber(id: 602, nowMs: now)
            let expired = SimulatedScenario.expired.subscriber(id: 603, nowMs: now)
            let all = simulator.notifications(for: [recovered, expired], afterMs: now - 179 * day, throughMs: now)
            #expect(all.count == 10)

            let everything = try uuids(try items(try await pages(simulator, request(days: 179))))
            #expect(everything == all.map(\.notificationUUID))

            let renewals = try uuids(try items(try await pages(simulator, request(days: 179, ["notificationType": "DID_RENEW"]))))
            #expect(renewals == all.filter { $0.type == .didRenew }.map(\.notificationUUID))
            #expect(renewals.count == 4)

            let recoveries = try uuids(try items(try await pages(
                simulator, request(days: 179, ["notificationType": "DID_RENEW", "notificationSubtype": "BILLING_RECOVERY"]))))
            #expect(recoveries == all.filter { $0.subtype == .billingRecovery }.map(\.notificationUUID))
            #expect(recoveries.count == 1)

            // Any id of the customer: a later transaction's id finds the original's notifications too.
            let renewalID = SimulatedIdentifiers.transactionID(subscriberID: 603, slot: 0, index: 2)
            let customer = try uuids(try items(try await pages(simulator, request(days: 179, ["transactionId": "\(renewalID)"]))))
            #expect(customer == all.filter { $0.subscriberID == 603 }.map(\.notificationUUID))
            #expect(!customer.isEmpty)

            // startDate is in, endDate is out.
            let pivot = all[3].signedDateMs
            let span = try uuids(try items(try await pages(simulator, ["startDate": pivot, "endDate": all[5].signedDateMs])))
            #expect(span == all.filter { $0.signedDateMs >= pivot && $0.signedDateMs < all[5].signedDateMs }.map(\.notificationUUID))
            #expect(span.first == all[3].notificationUUID)

            // A future endDate counts as now: a notification signed later is not there yet.
            simulator.makeNotification(.didRenew, for: recovered, atMs: now + day)
            let future = try items(try await pages(simulator, ["startDate": now - day, "endDate": now + 10 * day]))
            #expect(future.isEmpty)
        }
    }

    @Test func onlyFailuresKeepsNotificationsNeverDelivered() async throws {
        try await withSimulator(options()) { simulator in
            let account = SimulatedScenario.active.subscriber(id: 604, nowMs: now)
            simulator.makeNotification(.didRenew, for: account, atMs: now - 30 * minute)
            let retried = simulator.makeNotification(
                .didRenew, for: account, atMs: now - 20 * minute, sendAttempt: .timedOut)
            let recovered = simulator.makeNotification(
                .didRenew, for: account, atMs: now - 10 * minute, sendAttempt: .unsuccessfulHTTPResponseCode)
            #expect(simulator.recordSendAttempt(.success, notificationUUID: recovered.notificationUUID, atMs: now - 9 * minute))
            let pending = simulator.makeNotification(.didRenew, for: account, atMs: now - 5 * minute, sendAttempt: nil)
            #expect(!simulator.recordSendAttempt(.success, notificationUUID: "not-there", atMs: now))

            let failures = try items(try await pages(simulator, request(["onlyFailures": true])))
            #expect(try uuids(failures) == [retried.notificationUUID, pending.notificationUUID])
            let retriedAttempts = try #require(failures.first?["sendAttempts"] as? [[String: Any]])
            #expect(retriedAttempts.map { $0["sendAttemptResult"] as? String } == ["TIMED_OUT"])
            #expect((retriedAttempts.first?["attemptDate"] as? NSNumber)?.int64Value == now - 20 * minute)

            let everything = try items(try await pages(simulator, request(["onlyFailures": false])))
            #expect(try uuids(everything).count == 4)
            let recoveredItem = try #require(everything.first { item in
                (try? DecodedNotification(item["signedPayload"] as? String ?? "").uuid) == recovered.notificationUUID
            })
            #expect((recoveredItem["sendAttempts"] as? [[String: Any]])?.map { $0["sendAttemptResult"] as? String }
                == ["UNSUCCESSFUL_HTTP_RESPONSE_CODE", "SUCCESS"])
        }
    }

    @Test func eachEnvironmentServesItsOwnNotifications() async throws {
        try await withSimulator(options()) { simulator in
            let production = simulator.makeNotification(.didRenew, for: SimulatedScenario.active.subscriber(id: 605, nowMs: now))
            let sandbox = simulator.makeNotification(
                .didRenew, for: SimulatedScenario.sandboxActive.subscriber(id: 606, nowMs: now), atMs: now - minute)
            let test = simulator.makeTestNotification(environment: .sandbox, atMs: now - 2 * minute)
            let atProduction = try uuids(try items(try await pages(simulator, request())))
            let atSandbox = try uuids(try items(try await pages(simulator, request(), environment: .sandbox)))
            #expect(atProduction == [production.notificationUUID])
            #expect(atSandbox == [test.notificationUUID, sandbox.notificationUUID])
        }
    }

    @Test func badRequestsGetApplesErrorCodes() async throws {
        try await withSimulator(options()) { simulator in
            let account = SimulatedScenario.active.subscriber(id: 607, nowMs: now)
            for index in 0..<3 {
                simulator.makeNotification(.didRenew, for: account, atMs: now - Int64(index + 1) * minute)
            }
            #expect(try await errorCode(simulator, json(request(days: 181))) == 4_000_012, "over 180 days back")
            #expect(try await errorCode(simulator, json(request(days: 31)), environment: .sandbox) == 4_000_012, "sandbox: 30 days")
            #expect(try await apiPost(simulator.notificationHistoryURL(.sandbox), json: request(days: 29)).status == 200)
            #expect(try await apiPost(simulator.notificationHistoryURL(), json: request(days: 179)).status == 200)
            #expect(try await errorCode(simulator, json(["startDate": now, "endDate": now])) == 4_000_013, "start not before end")
            #expect(try await errorCode(simulator, json(["startDate": now, "endDate": now - 1])) == 4_000_013)
            #expect(try await errorCode(simulator, json(request(["transactionId": "\(originalID(607))", "notificationType": "DID_RENEW"]))) == 4_000_019)
            #expect(try await errorCode(simulator, json(request(["notificationType": "NOT_A_TYPE"]))) == 4_000_018)
            #expect(try await errorCode(simulator, json(request(["notificationSubtype": "VOLUNTARY"]))) == 4_000_018, "subtype alone")
            #expect(try await errorCode(simulator, json(request(["notificationType": "DID_RENEW", "notificationSubtype": "VOLUNTARY"]))) == 4_000_018)
            #expect(try await errorCode(simulator, json(request(["transactionId": "abc"]))) == 4_000_006)
            #expect(try await errorCode(simulator, json(["endDate": now])) == 4_000_015)
            #expect(try await errorCode(simulator, json(["startDate": now - day, "endDate": "tomorrow"])) == 4_000_016)
            #expect(try await errorCode(simulator, Array("not json".utf8)) == 4_000_000)

            // Tokens: garbage, and a real one with another body.
            #expect(try await errorCode(simulator, json(request()), query: "?paginationToken=garbage") == 4_000_014)
            let first = try jsonObject(try await apiPost(simulator.notificationHistoryURL(), json: request()).body)
            let token = try #require(first["paginationToken"] as? String)
            #expect(try await errorCode(simulator, json(request(days: 2)), query: "?paginationToken=\(token)") == 4_000_014)
            #expect(try await apiPost(simulator.notificationHistoryURL() + "?paginationToken=\(token)", json: request()).status == 200)

            // Only POST.
            #expect(try await apiRequest(simulator.notificationHistoryURL(), method: "GET").status == 405)
        }
    }

    @Test func theBearerTokenIsCheckedAsForTheOtherEndpoints() async throws {
        let key = P256.Signing.PrivateKey()
        try await withSimulator(options(key: key)) { simulator in
            simulator.makeNotification(.didRenew, for: SimulatedScenario.active.subscriber(id: 608, nowMs: now))
            let url = simulator.notificationHistoryURL()
            let refused = try await apiPost(url, json: request())
            #expect(refused.status == 401)
            #expect(try await apiPost(url, json: request(), bearer: try makeBearer(key: P256.Signing.PrivateKey())).status == 401)
            #expect(try await apiPost(url, json: request(), bearer: try makeBearer(key: key, bundleID: "com.example.other")).status == 401)
            let good = try makeBearer(key: key)
            #expect(try items(try await pages(simulator, request(), bearer: good)).count == 1)
            #expect(simulator.statistics().serverAPIUnauthorized == 3)
        }
    }

    @Test func historyRequestsCountAgainstTheRateLimit() async throws {
        try await withSimulator(options(rateLimit: 3)) { simulator in
            let url = simulator.notificationHistoryURL()
            let body = try json(request())
            let results = try await withThrowingTaskGroup(of: HTTPResult.self) { group in
                for _ in 0..<15 {
                    group.addTask { try await apiPost(url, body: body) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let limited = results.filter { $0.status == 429 }
            #expect(!limited.isEmpty)
            #expect(results.filter { $0.status == 200 }.count >= 3)
            for answer in limited {
                #expect(try jsonObject(answer.body)["errorCode"] as? Int == 4_290_000)
                #expect(answer.header("Retry-After").flatMap { Int64($0) } != nil)
            }
            #expect(simulator.statistics().serverAPIRateLimited == limited.count)
            #expect(simulator.statistics().notificationHistoryRequests == 15)
        }
    }
}
