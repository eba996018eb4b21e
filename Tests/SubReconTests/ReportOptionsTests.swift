import Foundation
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@testable import SubReconStore

/// The report flags' values (`--within`, `--since`, `--until`, `--run`) and the `change` vocabulary.
@Suite("Report options and change classification")
struct ReportOptionsTests {
    // MARK: --within

    static let durationCases: [(String, Int64)] = [
        ("7d", 604_800_000), ("36h", 129_600_000), ("90m", 5_400_000), ("1m", 60_000), ("365d", 31_536_000_000),
    ]

    @Test("durations", arguments: durationCases)
    func durations(text: String, ms: Int64) {
        #expect(ReportOptions.durationMs(text) == ms)
    }

    @Test("not durations", arguments: ["10x", "", "d", "0d", "-1d", "+7d", "7", "7 d", "7D", "1.5h", "٣d",
                                       "99999999999999999d"])
    func notDurations(text: String) {
        #expect(ReportOptions.durationMs(text) == nil)
    }

    @Test func aBadDurationNamesTheAcceptedForms() {
        let error = #expect(throws: ReportError.self) {
            try ReportOptions.parse(kind: .expiring, runID: nil, since: nil, until: nil, within: "10x", nowMs: 0)
        }
        #expect(error?.description.contains("7d, 36h, 90m") == true)
        #expect(error?.description.contains("\"10x\"") == true)
    }

    // MARK: --since / --until

    static let timeCases: [(String, Int64)] = [
        ("2026-11-22", 1_795_305_600_000),
        ("2026-11-22T06:46:04Z", 1_795_329_964_000),
        ("2026-11-22T06:46:04", 1_795_329_964_000),
        ("2026-11-22t06:46:04z", 1_795_329_964_000),
        ("2026-11-22T06:46Z", 1_795_329_960_000),
        ("2026-11-22T06:46:04.250Z", 1_795_329_964_250),
        ("2026-11-22T06:46:04.2509Z", 1_795_329_964_250),
        ("2026-11-22T08:46:04+02:00", 1_795_329_964_000),
        ("2026-11-22T01:46:04-0500", 1_795_329_964_000),
        ("2024-02-29", 1_709_164_800_000),
        ("1970-01-01T00:00:00Z", 0),
    ]

    @Test("ISO 8601 dates and date-times", arguments: timeCases)
    func times(text: String, ms: Int64) {
        #expect(ISO8601.milliseconds(from: text) == ms)
    }

    @Test("not ISO 8601", arguments: [
        "", "yesterday", "2026-11-22T", "2026-13-01", "2026-02-29", "2026-11-31", "2026-11-22T24:00:00Z",
        "2026-11-22T06:60Z", "2026-11-22T06:46:04.Z", "2026-11-22T06:46:04ZZ", "26-11-22", "2026-11-22 ",
        "2026/11/22", "1795329964000",
    ])
    func notTimes(text: String) {
        #expect(ISO8601.milliseconds(from: text) == nil)
    }

    @Test("formatting and parsing agree", arguments: [Int64(0), 1_795_329_964_000, 951_782_400_000, -2_208_988_800_000])
    func roundTrip(ms: Int64) {
        #expect(ISO8601.milliseconds(from: ISO8601.string(fromMilliseconds: ms)) == ms)
    }

    @Test func sinceAndUntilBecomeAHalfOpenWindow() throws {
        let options = try ReportOptions.parse(
            kind: .runs, runID: nil, since: "2026-11-01", until: "2026-12-01", within: nil, nowMs: 5)
        #expect(options.sinceMs == ISO8601.milliseconds(from: "2026-11-01T00:00:00Z"))
        #expect(options.untilMs == ISO8601.milliseconds(from: "2026-12-01T00:00:00Z"))
        #expect(options.nowMs == 5)
        #expect(options.withinMs == ReportOptions.defaultWithinMs)
    }

    static let refusalCases: [(ReportKind, Int64?, String?, String?, String?)] = [
        (.subscriptions, 1, nil, nil, nil),
        (.shared, nil, "2026-11-01", nil, nil),
        (.runItems, nil, nil, "2026-11-01", nil),
        (.changes, nil, nil, nil, "7d"),
        (.changes, 3, "2026-11-01", nil, nil),
        (.runs, nil, "2026-12-01", "2026-11-01", nil),
        (.runs, nil, "2026-11-01", "2026-11-01", nil),
        (.changes, 0, nil, nil, nil),
        (.unrecorded, nil, "last week", nil, nil),
    ]

    @Test("flags a kind does not use, or that contradict each other, are refused", arguments: refusalCases)
    func refused(kind: ReportKind, runID: Int64?, since: String?, until: String?, within: String?) {
        #expect(throws: ReportError.self) {
            try ReportOptions.parse(kind: kind, runID: runID, since: since, until: until, within: within, nowMs: 0)
        }
    }

    // MARK: change vocabulary

    static func row(
        _ status: SubscriptionStatus, expires: Int64 = 1_000, product: String = "pro", autoRenew: Bool? = true,
        autoRenewProduct: String? = "pro", grace: Int64? = nil
    ) -> StoredSubscription {
        StoredSubscription(
            userID: "u", originalTransactionID: "1", receiptID: 1, productID: product, status: status,
            expiresDateMs: expires, autoRenewStatus: autoRenew, autoRenewProductID: autoRenewProduct,
            expirationIntent: nil, gracePeriodExpiresDateMs: grace, isInBillingRetry: nil, cancellationDateMs: nil,
            ownershipType: nil, environment: .production, lastVerifiedAt: 0, firstSeenAt: 0, updatedAt: 0, flag: nil)
    }

    static let transitions: [(StoredSubscription?, StoredSubscription, SubscriptionChange.Kind?)] = [
        (nil, row(.active), .new),
        (row(.active), row(.active, expires: 2_000), .renewed),
        (row(.active), row(.expired), .expired),
        (row(.gracePeriod), row(.expired), .expired),
        (row(.active), row(.refunded), .refunded),
        (row(.active), row(.gracePeriod, grace: 5_000), .enteredGracePeriod),
        (row(.gracePeriod), row(.billingRetry), .enteredBillingRetry),
        (row(.active), row(.billingRetry), .enteredBillingRetry),
        (row(.gracePeriod), row(.active, expires: 2_000), .recovered),
        (row(.billingRetry), row(.active, expires: 2_000), .recovered),
        (row(.expired), row(.active, expires: 9_000, product: "premium"), .recovered),
        (row(.refunded), row(.active, expires: 9_000), .other),
        (row(.active), row(.active, expires: 1_500, product: "premium"), .productChanged),
        (row(.active), row(.active, expires: 500, product: "premium"), .productChanged),
        (row(.active), row(.active, autoRenew: false), .autoRenewChanged),
        (row(.active), row(.active, autoRenewProduct: "basic"), .autoRenewChanged),
        (row(.active), row(.active, expires: 2_000, autoRenew: false), .renewed),
        (row(.gracePeriod, grace: 5_000), row(.gracePeriod, grace: 6_000), .other),
        (row(.active), row(.active, expires: 500), .other),
        (row(.active), row(.active), nil),
    ]

    @Test("one word per change", arguments: transitions)
    func classify(old: StoredSubscription?, new: StoredSubscription, expected: SubscriptionChange.Kind?) {
        #expect(SubscriptionChange.classify(old: old, new: new) == expected)
    }

    @Test func onlyTheVerificationTimeMovingIsNoChange() {
        var refreshed = Self.row(.active)
        refreshed.lastVerifiedAt = 99
        refreshed.updatedAt = 99
        #expect(SubscriptionChange(old: Self.row(.active), new: refreshed, recordedAt: 99) == nil)
    }
}
