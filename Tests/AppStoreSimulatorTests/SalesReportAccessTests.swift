@testable import AppStoreSimulator
import Crypto
import Foundation
import Testing

/// Everything around the report: Apple's parameter checks (report, vendor number, version,
/// date), the team key's bearer token, the hourly budget and its headers, and injected faults.
@Suite struct SalesReportAccessTests {
    /// 2026-11-20 12:00 PST.
    let now: Int64 = 1_795_204_800_000
    /// A day with a sale for the account every test registers (its renewal 20 days ago).
    var date: String { PacificTestCalendar.date(now - 20 * SimulatedProducts.dayMs) }

    func withReports(
        _ salesReports: SalesReportOptions = SalesReportOptions(), clock: SimulatedClock? = nil,
        _ body: (AppStoreSimulator) async throws -> Void
    ) async throws {
        let clock = clock ?? SimulatedClock(nowMs: now)
        try await withSimulator(SimulatorOptions(clock: clock.millisecondsClock, salesReports: salesReports)) { simulator in
            simulator.register(SimulatedLedgerScenario.monthlyUSD.subscriber(id: 9, nowMs: now))
            try await body(simulator)
        }
    }

    func expectInvalid(
        _ answer: SalesReportAnswer, parameter: String, _ comment: Comment? = nil
    ) throws -> String {
        #expect(answer.status == 400, comment)
        #expect(answer.headers["content-type"] == "application/json", comment)
        let error = try answer.error()
        #expect(error["status"] as? String == "400", comment)
        #expect(error["code"] as? String == "PARAMETER_ERROR.INVALID", comment)
        #expect(error["title"] as? String == "A parameter has an invalid value", comment)
        #expect((error["source"] as? [String: Any])?["parameter"] as? String == parameter, comment)
        #expect((error["id"] as? String)?.count == 36, comment)
        return error["detail"] as? String ?? ""
    }

    @Test func onlyTheAcceptedVersionIsServedAndTheRefusalNamesIt() async throws {
        try await withReports { simulator in
            let newer = try await simulator.salesReport(salesReportQuery(date: date, version: "1_1"))
            #expect(try expectInvalid(newer, parameter: "filter[version]") ==
                "The version parameter you have specified is invalid. The latest version for this report is 1_0.")
            let none = try await simulator.salesReport(salesReportQuery(date: date, version: nil))
            #expect(try expectInvalid(none, parameter: "filter[version]").hasSuffix("is 1_0."))
            #expect(try await simulator.salesReport(salesReportQuery(date: date, version: "1_0")).status == 200)
        }
        // Apple's drift of January 2024: 1_0 refused, 1_1 named.
        try await withReports(SalesReportOptions(acceptedVersion: "1_1")) { simulator in
            let old = try await simulator.salesReport(salesReportQuery(date: date, version: "1_0"))
            #expect(try expectInvalid(old, parameter: "filter[version]").hasSuffix("The latest version for this report is 1_1."))
            #expect(try await simulator.salesReport(salesReportQuery(date: date, version: "1_1")).status == 200)
        }
    }

    @Test func anotherVendorNumberIsRefusedAsApplesInvalidParameter() async throws {
        try await withReports(SalesReportOptions(vendorNumber: "85012345")) { simulator in
            let wrong = try await simulator.salesReport(salesReportQuery(date: date, vendor: "80012345"))
            #expect(try expectInvalid(wrong, parameter: "filter[vendorNumber]") == "Invalid vendor number specified")
            #expect(try await simulator.salesReport(salesReportQuery(date: date, vendor: "85012345")).status == 200)
        }
    }

    @Test func onlyTheDailySummarySalesReportIsServed() async throws {
        try await withReports { simulator in
            let subscription = try await simulator.salesReport(salesReportQuery(date: date, reportType: "SUBSCRIPTION"))
            #expect(try expectInvalid(subscription, parameter: "filter[reportType]").contains("'SUBSCRIPTION'"))
            let weekly = try await simulator.salesReport(salesReportQuery(date: date).replacingOccurrences(of: "DAILY", with: "WEEKLY"))
            _ = try expectInvalid(weekly, parameter: "filter[frequency]")
            let detailed = try await simulator.salesReport(
                salesReportQuery(date: date).replacingOccurrences(of: "SUMMARY", with: "DETAILED"))
            _ = try expectInvalid(detailed, parameter: "filter[reportSubType]")
            for bad in ["2026-02-30", "20261031", "2026-1-31", "tomorrow"] {
                let answer = try await simulator.salesReport(salesReportQuery(date: bad))
                #expect(try expectInvalid(answer, parameter: "filter[reportDate]", "\(bad)").contains("YYYY-MM-DD"))
            }
            _ = try expectInvalid(try await simulator.salesReport(salesReportQuery(date: nil)), parameter: "filter[reportDate]")
        }
    }

    @Test func percentEncodedParametersInAnyOrderAreTheSameRequest() async throws {
        try await withReports { simulator in
            let encoded = "filter%5BvendorNumber%5D=80012345&filter%5Bversion%5D=1_0&filter%5BreportType%5D=SALES"
                + "&filter%5BreportDate%5D=\(date)&filter%5Bfrequency%5D=DAILY&filter%5BreportSubType%5D=SUMMARY"
            let answer = try await simulator.salesReport(encoded)
            #expect(answer.status == 200)
            #expect(try answer.table() == (try await simulator.salesReport(date: date).table()))
        }
    }

    @Test func withATeamKeyOnlyItsShortLivedTokensWithoutBidAreAccepted() async throws {
        let key = P256.Signing.PrivateKey()
        try await withReports(SalesReportOptions(ascPublicKey: key.publicKey)) { simulator in
            let wallNow = Int64(Date().timeIntervalSince1970)
            func expectRefused(_ bearer: String?, _ comment: Comment) async throws {
                let answer = try await simulator.salesReport(date: date, bearer: bearer)
                #expect(answer.status == 401, comment)
                let error = try answer.error()
                #expect(error["code"] as? String == "NOT_AUTHORIZED", comment)
                #expect(error["title"] as? String == "Authentication credentials are missing or invalid.", comment)
                #expect((error["detail"] as? String)?.hasPrefix("Provide a properly configured and signed bearer token") == true, comment)
            }
            try await expectRefused(nil, "missing")
            try await expectRefused(try makeTeamBearer(key: P256.Signing.PrivateKey()), "another key")
            try await expectRefused(
                try makeTeamBearer(key: key, bundleID: SimulatedProducts.bundleID), "an In-App Purchase key's token (bid)")
            try await expectRefused(try makeTeamBearer(key: key, lifetime: 1201), "lives over 20 minutes")
            try await expectRefused(try makeTeamBearer(key: key, issuedAt: wallNow - 1300), "expired")
            try await expectRefused(try makeTeamBearer(key: key, keyID: nil), "no kid")
            try await expectRefused(try makeTeamBearer(key: key, audience: "appstoreconnect-v2"), "wrong audience")
            // A Server API token signed by the very same key is still refused: it carries `bid`.
            try await expectRefused(try makeBearer(key: key, lifetime: 1200), "Server API token")
            #expect(simulator.statistics().salesReportUnauthorized == 8)

            let good = try makeTeamBearer(key: key, lifetime: 1200)
            #expect(try await simulator.salesReport(date: date, bearer: good).status == 200)
            #expect(try await simulator.salesReport(date: date, bearer: good).status == 200, "again, remembered")
        }
    }

    @Test func theHourlyBudgetIsCountedInEveryAnswerAndThen429WithRetryAfter() async throws {
        // 20 minutes into an hour of the simulated clock.
        let clock = SimulatedClock(nowMs: now + 20 * 60_000)
        try await withReports(SalesReportOptions(hourlyLimit: 3), clock: clock) { simulator in
            var remaining: [String?] = []
            for _ in 0..<3 {
                remaining.append(try await simulator.salesReport(date: date).headers["x-rate-limit"])
            }
            #expect(remaining == [
                "user-hour-lim:3;user-hour-rem:2;", "user-hour-lim:3;user-hour-rem:1;", "user-hour-lim:3;user-hour-rem:0;",
            ])
            let limited = try await simulator.salesReport(date: date)
            #expect(limited.status == 429)
            #expect(limited.headers["retry-after"] == "2400", "40 minutes to the next hour")
            #expect(limited.headers["x-rate-limit"] == "user-hour-lim:3;user-hour-rem:0;")
            #expect(try limited.error()["code"] as? String == "RATE_LIMIT_EXCEEDED")
            // Errors count too: a 400 spends the budget like a report.
            clock.advance(byMs: 40 * 60_000)
            let invalid = try await simulator.salesReport(salesReportQuery(date: date, version: "9_9"))
            #expect(invalid.status == 400)
            #expect(invalid.headers["x-rate-limit"] == "user-hour-lim:3;user-hour-rem:2;")
            #expect(try await simulator.salesReport(date: date).status == 200)
        }
    }

    @Test func faultsAreAnsweredOncePerRequestInOrder() async throws {
        let faults: [SalesReportFault] = [.rateLimited(retryAfterSeconds: 7), .serverError, .truncatedGzip, .notGzip]
        try await withReports(SalesReportOptions(faults: faults)) { simulator in
            let limited = try await simulator.salesReport(date: date)
            #expect(limited.status == 429)
            #expect(limited.headers["retry-after"] == "7")
            #expect(limited.headers["x-rate-limit"] == "user-hour-lim:3600;user-hour-rem:3599;")

            let failed = try await simulator.salesReport(date: date)
            #expect(failed.status == 500)
            #expect(try failed.error()["code"] as? String == "UNEXPECTED_ERROR")

            let truncated = try await simulator.salesReport(date: date)
            #expect(truncated.status == 200)
            #expect(truncated.headers["content-type"] == "application/a-gzip")
            #expect(Array(truncated.body.prefix(2)) == [0x1F, 0x8B], "it starts like a gzip file")

            let plain = try await simulator.salesReport(date: date)
            #expect(plain.status == 200)
            #expect(Array(plain.body.prefix(2)) != [0x1F, 0x8B])
            #expect(String(decoding: plain.body, as: UTF8.self).hasPrefix("Provider\tProvider Country\tSKU"))

            let whole = try await simulator.salesReport(date: date)
            #expect(whole.status == 200)
            #expect(truncated.body.count == whole.body.count / 2, "half of the real file")
            #expect(Array(whole.body.prefix(truncated.body.count)) == truncated.body)
            #expect(try whole.rows().count == 1)
            // compress-nio inflates a cut file without complaint (it never checks for the end of the
            // stream): what comes out is a strict prefix of the report, missing its last line.
            let wholeText = try gunzip(whole.body)
            let cutText = (try? gunzip(truncated.body)) ?? ""
            #expect(cutText.count < wholeText.count)
            #expect(wholeText.hasPrefix(cutText))
            #expect(simulator.statistics().faultsInjected == [
                "salesReportRateLimited": 1, "salesReportServerError": 1, "salesReportTruncatedGzip": 1,
                "salesReportNotGzip": 1,
            ])

            simulator.queueSalesReportFaults([.serverError])
            #expect(try await simulator.salesReport(date: date).status == 500)
            #expect(try await simulator.salesReport(date: date).status == 200)
        }
    }

    @Test func requestsAreCountedPerReportDate() async throws {
        try await withReports { simulator in
            for day in ["2026-11-10", "2026-11-11", "2026-11-11", date] {
                _ = try await simulator.salesReport(date: day)
            }
            _ = try await simulator.salesReport(salesReportQuery(date: nil))
            let statistics = simulator.statistics()
            #expect(statistics.salesReportRequests == 5)
            #expect(statistics.salesReportRequestsByDate == ["2026-11-10": 1, "2026-11-11": 2, date: 1])
            #expect(statistics.totalRequests == 5)
        }
    }
}
