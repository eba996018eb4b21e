@testable import SubReconModel
import Testing

@Suite("RevenueReport")
struct RevenueReportTests {
    typealias F = LedgerFixture

    static func report(_ subscriptions: [[LedgerEntry]], by: String? = nil, since: String? = nil, until: String? = nil,
                       environment: String? = nil, now: String = "2026-12-15T12:00Z") throws -> [[String?]] {
        let options = try MoneyReportOptions.parse(by: by, since: since, until: until, environment: environment, nowMs: F.ms(now))
        var report = RevenueReport(options: options)
        for subscription in subscriptions { report.add(subscription: subscription) }
        return report.rows()
    }

    /// Autumn 2026, monthly, production (each subscription's rows in purchase order).
    static let autumn: [[LedgerEntry]] = [
        // 1000: a free week, converted (Apple marks the first paid period RENEWAL), then October
        // refunded in full on 3 November.
        [F.row("1000", from: "2026-09-10", to: "2026-09-17", price: 0, offer: "FREE_TRIAL", reason: "PURCHASE"),
         F.row("1000", from: "2026-09-17", to: "2026-10-17", reason: "RENEWAL"),
         F.row("1000", from: "2026-10-17", to: "2026-11-17", reason: "RENEWAL", cancelled: "2026-11-03", refund: 9990)],
        // 2000: no reasons (older data): the first period is new, the next a renewal, refunded half.
        [F.row("2000", from: "2026-10-05", to: "2026-11-05"),
         F.row("2000", from: "2026-11-05", to: "2026-12-05", cancelled: "2026-11-20", refund: 4995)],
        // 3000: a year in yen.
        [F.row("3000", "pro.yearly", from: "2026-10-01", to: "2027-10-01", price: 1_200_000, currency: "JPY", reason: "PURCHASE")],
        // 4000: family-shared: nobody's revenue.
        [F.row("4000", from: "2026-10-06", to: "2026-11-06", reason: "PURCHASE", ownership: "FAMILY_SHARED")],
        // 5000: sandbox.
        [F.row("5000", from: "2026-10-07", to: "2026-11-07", reason: "PURCHASE", environment: "Sandbox")],
        // 6000: seen only through verifyReceipt in October; in November Apple gave a currency, not a price.
        [F.row("6000", from: "2026-10-08", to: "2026-11-08", price: nil, currency: nil, refund: nil),
         F.row("6000", from: "2026-11-08", to: "2026-12-08", price: nil, currency: "USD", refund: nil)],
        // 7000: a free offer-code month (price 0, no trial): counts nowhere, and the paid month
        // after it is no trial conversion.
        [F.row("7000", from: "2026-10-09", to: "2026-11-09", price: 0, reason: "PURCHASE"),
         F.row("7000", from: "2026-11-09", to: "2026-12-09", reason: "RENEWAL")],
    ]

    @Test func autumnByMonth() throws {
        // 2026-09 USD: 1000's trial (start) and its first paid month (renewal, conversion).
        // 2026-10 "": 6000 unpriced, no currency. USD: 1000 renewal + 2000 new = 19980.
        //   JPY: 3000 new, 1,200,000 → "1200".
        // 2026-11 USD: 2000 + 7000 renewals = 19980; refunds 9990 (1000's October) + 4995 = 14985
        //   → "14.98" (1498.5 cents, even); net 4995 → "5.00" (499.5 → 500); 6000 unpriced in USD.
        // 4000 (family) and 5000 (sandbox) appear nowhere.
        let expected: [[String?]] = [
            ["2026-09", "pro.monthly", "USD", "1", "0", "1", "1", "1", "0", "9990", "0", "9990", "9.99", "0.00", "9.99", "0"],
            ["2026-10", "pro.monthly", "", "0", "0", "0", "0", "0", "0", "0", "0", "0", nil, nil, nil, "1"],
            ["2026-10", "pro.monthly", "USD", "2", "1", "1", "0", "0", "0", "19980", "0", "19980", "19.98", "0.00", "19.98", "0"],
            ["2026-10", "pro.yearly", "JPY", "1", "1", "0", "0", "0", "0", "1200000", "0", "1200000", "1200", "0", "1200", "0"],
            ["2026-11", "pro.monthly", "USD", "2", "0", "2", "0", "0", "2", "19980", "14985", "4995", "19.98", "14.98", "5.00", "1"],
        ]
        #expect(try Self.report(Self.autumn) == expected)
    }

    @Test func inputOrderDoesNotMatter() throws {
        let shuffled = Self.autumn.reversed().map { Array($0.reversed()) }
        #expect(try Self.report(shuffled) == Self.report(Self.autumn))
    }

    @Test func refundIsBookedInTheRefundsMonthNotTheSales() throws {
        // Sold in November, refunded in December: November's gross stays; December has only
        // the refund, a negative net; a refund of 4 milliunits is "0.00", never "-0.00".
        let rows = try Self.report([
            [F.row("1", from: "2026-11-10", to: "2026-12-10", reason: "PURCHASE", cancelled: "2026-12-02", refund: 9990)],
            [F.row("2", "tiny", from: "2026-11-11", to: "2026-12-11", price: 4, reason: "PURCHASE", cancelled: "2026-12-03", refund: 4)],
        ])
        #expect(rows == [
            ["2026-11", "pro.monthly", "USD", "1", "1", "0", "0", "0", "0", "9990", "0", "9990", "9.99", "0.00", "9.99", "0"],
            ["2026-11", "tiny", "USD", "1", "1", "0", "0", "0", "0", "4", "0", "4", "0.00", "0.00", "0.00", "0"],
            ["2026-12", "pro.monthly", "USD", "0", "0", "0", "0", "0", "1", "0", "9990", "-9990", "0.00", "9.99", "-9.99", "0"],
            ["2026-12", "tiny", "USD", "0", "0", "0", "0", "0", "1", "0", "4", "-4", "0.00", "0.00", "0.00", "0"],
        ])
    }

    @Test func windowFiltersTheInstantBeingBucketed() throws {
        // October only: the September trial and sale, and the November refund of October's sale,
        // are outside; October's sale stays.
        let rows = try Self.report(Self.autumn, since: "2026-10-01", until: "2026-11-01")
        #expect(rows.map { $0[0] } == ["2026-10", "2026-10", "2026-10"])
        #expect(rows.allSatisfy { $0[8] == "0" })
        // Until alone, and since alone.
        #expect(try Self.report(Self.autumn, until: "2026-10-01").map { $0[0] } == ["2026-09"])
        #expect(try Self.report(Self.autumn, since: "2026-11-01").map { $0[0] } == ["2026-11"])
        // Without --until, nothing after the current period (now in October).
        #expect(try Self.report(Self.autumn, now: "2026-10-31T23:59Z").map { $0[0] }.last == "2026-10")
    }

    @Test func byDay() throws {
        let rows = try Self.report(Self.autumn, by: "day", since: "2026-11-03", until: "2026-11-09")
        // 11-03 refund of 1000; 11-05 2000's renewal; 11-08 6000 unpriced (USD). 7000 on 11-09 is outside.
        #expect(rows == [
            ["2026-11-03", "pro.monthly", "USD", "0", "0", "0", "0", "0", "1", "0", "9990", "-9990", "0.00", "9.99", "-9.99", "0"],
            ["2026-11-05", "pro.monthly", "USD", "1", "0", "1", "0", "0", "0", "9990", "0", "9990", "9.99", "0.00", "9.99", "0"],
            ["2026-11-08", "pro.monthly", "USD", "0", "0", "0", "0", "0", "0", "0", "0", "0", nil, nil, nil, "1"],
        ])
    }

    @Test func sandboxOnlyWithSandbox() throws {
        let rows = try Self.report(Self.autumn, environment: "Sandbox")
        #expect(rows == [
            ["2026-10", "pro.monthly", "USD", "1", "1", "0", "0", "0", "0", "9990", "0", "9990", "9.99", "0.00", "9.99", "0"],
        ])
    }

    @Test func trialConversionLooksAtThePreviousPeriodEvenOutsideTheWindow() throws {
        // Trial in September, paid in October (no reason): the conversion counts in October's
        // slot; the paid period is a renewal (not the subscription's first period).
        let subscription = [
            F.row("1", from: "2026-09-28", to: "2026-10-05", price: 0, offer: "FREE_TRIAL"),
            F.row("1", from: "2026-10-05", to: "2026-11-05"),
            F.row("1", from: "2026-11-05", to: "2026-12-05"),  // previous is paid: no conversion
        ]
        #expect(try Self.report([subscription], since: "2026-10-01") == [
            ["2026-10", "pro.monthly", "USD", "1", "0", "1", "0", "1", "0", "9990", "0", "9990", "9.99", "0.00", "9.99", "0"],
            ["2026-11", "pro.monthly", "USD", "1", "0", "1", "0", "0", "0", "9990", "0", "9990", "9.99", "0.00", "9.99", "0"],
        ])
    }

    @Test func previousPeriodIsTheGreatestPurchaseDateBelow() throws {
        // Two rows bought at the same instant (the paid one listed first): for the December row,
        // the previous period is the last of them in the given order, the trial. Neither
        // same-instant row is the other's previous period.
        let subscription = [
            F.row("1", from: "2026-10-05", to: "2026-11-05", reason: "PURCHASE"),
            F.row("1", from: "2026-11-05", to: "2026-12-05", reason: "RENEWAL"),
            F.row("1", from: "2026-11-05", to: "2026-12-05", price: 0, offer: "FREE_TRIAL"),
            F.row("1", from: "2026-12-05", to: "2027-01-05", reason: "RENEWAL"),
        ]
        let rows = try Self.report([subscription])
        #expect(rows.map { [$0[0], $0[3], $0[6], $0[7]] } == [
            ["2026-10", "1", "0", "0"],
            ["2026-11", "1", "1", "0"],  // November's paid row: previous is October's (paid)
            ["2026-12", "1", "0", "1"],
        ])
    }

    @Test("reasons: PURCHASE, RENEWAL, and empty or unknown by position", arguments: [
        (nil, nil, ["1", "0"], ["0", "1"]),
        ("FOO", "BAR", ["1", "0"], ["0", "1"]),
        ("RENEWAL", "PURCHASE", ["0", "1"], ["1", "0"]),
        ("", "", ["1", "0"], ["0", "1"]),
    ] as [(String?, String?, [String?], [String?])])
    func reasons(first: String?, second: String?, firstCounts: [String?], secondCounts: [String?]) throws {
        let rows = try Self.report([[
            F.row("1", from: "2026-10-05", to: "2026-11-05", reason: first),
            F.row("1", from: "2026-11-05", to: "2026-12-05", reason: second),
        ]])
        #expect(rows.map { [$0[4], $0[5]] } == [firstCounts, secondCounts])
    }

    @Test func familySharedAndUnknownOwnershipAreExcludedEmptyOwnershipCounts() throws {
        let rows = try Self.report([
            [F.row("1", from: "2026-10-05", to: "2026-11-05", ownership: "FAMILY_SHARED")],
            [F.row("2", from: "2026-10-06", to: "2026-11-06", ownership: "SOMETHING_NEW")],
            [F.row("3", from: "2026-10-07", to: "2026-11-07", ownership: nil)],
            [F.row("4", from: "2026-10-08", to: "2026-11-08", ownership: "")],
            // No environment: counts as Production (see LedgerEntry.counts(in:)).
            [F.row("5", from: "2026-10-09", to: "2026-11-09", environment: nil)],
        ])
        #expect(rows.map { [$0[3], $0[9]] } == [["3", "29970"]])
    }

    @Test func unknownPricesCountUnderTheirCurrencyOrEmpty() throws {
        // A price without a currency is unknown; a currency without a price too; a known price in
        // the same slot makes the slot's decimal text appear (from the known amounts only).
        let rows = try Self.report([
            [F.row("1", from: "2026-10-05", to: "2026-11-05", price: 9990, currency: nil, refund: nil)],
            [F.row("2", from: "2026-10-06", to: "2026-11-06", price: nil, currency: "EUR", refund: nil)],
            [F.row("3", from: "2026-10-07", to: "2026-11-07", price: nil, currency: "USD", refund: nil)],
            [F.row("4", from: "2026-10-08", to: "2026-11-08", price: 1990, currency: "USD")],
            // No purchase date: bucketed nowhere.
            [F.row("5", from: nil, to: "2026-11-08", price: nil, currency: nil, refund: nil)],
        ])
        #expect(rows == [
            ["2026-10", "pro.monthly", "", "0", "0", "0", "0", "0", "0", "0", "0", "0", nil, nil, nil, "1"],
            ["2026-10", "pro.monthly", "EUR", "0", "0", "0", "0", "0", "0", "0", "0", "0", nil, nil, nil, "1"],
            ["2026-10", "pro.monthly", "USD", "1", "1", "0", "0", "0", "0", "1990", "0", "1990", "1.99", "0.00", "1.99", "1"],
        ])
    }

    @Test func aFreeTrialWithAKnownZeroPriceShowsZeroAmounts() throws {
        let rows = try Self.report([[F.row("1", from: "2026-10-05", to: "2026-10-12", price: 0, currency: "KWD", offer: "FREE_TRIAL")]])
        #expect(rows == [["2026-10", "pro.monthly", "KWD", "0", "0", "0", "1", "0", "0", "0", "0", "0", "0.000", "0.000", "0.000", "0"]])
    }

    @Test func rowsSortBytewise() throws {
        // "Z" (0x5A) sorts before "a" (0x61) bytewise; "é" (0xC3…) after both.
        let rows = try Self.report([
            [F.row("1", "a", from: "2026-10-05", to: "2026-11-05")],
            [F.row("2", "é", from: "2026-10-05", to: "2026-11-05")],
            [F.row("3", "Z", from: "2026-10-05", to: "2026-11-05")],
            [F.row("4", "Z", from: "2026-10-05", to: "2026-11-05", currency: "EUR")],
        ])
        #expect(rows.map { [$0[1], $0[2]] } == [["Z", "EUR"], ["Z", "USD"], ["a", "USD"], ["é", "USD"]])
    }

    @Test func nothingHappenedNoRows() throws {
        #expect(try Self.report([]) == [])
        #expect(try Self.report([[F.row("1", from: "2026-10-05", to: "2026-11-05", price: 0)]]) == [])
    }
}
