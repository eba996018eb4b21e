@testable import SubReconModel
import SubReconTestSupport
import Testing

@Suite("MetricsReport")
struct MetricsReportTests {
    typealias F = LedgerFixture

    static func report(_ subscriptions: [[LedgerEntry]], by: String? = nil, since: String? = nil, until: String? = nil,
                       environment: String? = nil, now: String = "2026-12-15T12:00Z", firstData: String? = "2026-09-05") throws -> [[String?]] {
        let nowMs = F.ms(now)
        let options = try MoneyReportOptions.parse(by: by, since: since, until: until, environment: environment, nowMs: nowMs)
        var report = MetricsReport(options: options, nowMs: nowMs, firstDataMs: firstData.map(F.ms))
        for subscription in subscriptions { report.add(subscription: subscription) }
        return report.rows()
    }

    /// Measured at Oct 1 (September's end), Nov 1, Dec 1, and now (Dec 15 12:00) for December.
    static let autumn: [[LedgerEntry]] = [
        // A: monthly 9.99, covered at every end.
        [F.row("A", from: "2026-09-10", to: "2026-10-10"), F.row("A", from: "2026-10-10", to: "2026-11-10"),
         F.row("A", from: "2026-11-10", to: "2026-12-10"), F.row("A", from: "2026-12-10", to: "2027-01-10")],
        // B: a trial over Nov 1, paid over Dec 1, gone by now: churned in December.
        [F.row("B", from: "2026-10-28", to: "2026-11-04", price: 0, offer: "FREE_TRIAL"),
         F.row("B", from: "2026-11-04", to: "2026-12-04")],
        // C: a year in yen: 12,000 ÷ 12 = 1000 a month.
        [F.row("C", "pro.yearly", from: "2026-10-15", to: "2027-10-15", price: 12_000_000, currency: "JPY")],
        // D: one week at 2.99 over Dec 1 (× 52/12), gone by now.
        [F.row("D", "pro.weekly", from: "2026-11-28", to: "2026-12-05", price: 2990)],
        // E: upgraded from monthly 4.99 to yearly 49.99; the old period has no revocation date,
        // so both cover Dec 1 and now: the later purchase (the yearly) governs.
        [F.row("E", from: "2026-11-20", to: "2026-12-20", price: 4990, upgraded: true),
         F.row("E", "pro.yearly", from: "2026-11-25", to: "2027-11-25", price: 49_990)],
        // F: price unknown (verifyReceipt only), covering Dec 1 and now (expires an hour after now).
        [F.row("F", from: "2026-11-15", to: "2026-12-15T13:00Z", price: nil, currency: nil, refund: nil)],
        // G: paid over Oct 1; the next period was refunded on Oct 20, before Nov 1: churned in October.
        [F.row("G", from: "2026-09-05", to: "2026-10-05"),
         F.row("G", from: "2026-10-05", to: "2026-11-05", cancelled: "2026-10-20", refund: 9990)],
        // H: family-shared, I: sandbox: not counted.
        [F.row("H", from: "2026-11-01", to: "2026-12-01T00:00:01Z", ownership: "FAMILY_SHARED")],
        [F.row("I", from: "2026-11-01", to: "2026-12-01T00:00:01Z", environment: "Sandbox")],
    ]

    @Test func autumnByMonth() throws {
        // Sep (Oct 1): A, G paid (30-day months, × 1): 19980.
        // Oct (Nov 1): USD A paid, B trial; G churned (1 of 2 → 0.5000). JPY C: 1,000,000.
        // Nov (Dec 1): USD A, B (× 1), D (2990 × 52), E yearly (49990 × 1) in twelfths:
        //   119880 + 119880 + 155480 + 49990 = 445230 → 37102.5 → 37102 (even) → "37.10".
        //   "" F paid, nothing to MRR, no decimal text; no USD churn (B was a trial at Oct's end).
        // Dec (now): USD A, E: 119880 + 49990 = 169870 → 14155.83 → 14156 → "14.16";
        //   B and D churned: 2 of 4 → 0.5000. JPY C. "" F.
        let expected: [[String?]] = [
            ["2026-09", "USD", "2", "0", "19980", "19.98", "0", nil],
            ["2026-10", "JPY", "1", "0", "1000000", "1000", "0", nil],
            ["2026-10", "USD", "1", "1", "9990", "9.99", "1", "0.5000"],
            ["2026-11", "", "1", "0", "0", nil, "0", nil],
            ["2026-11", "JPY", "1", "0", "1000000", "1000", "0", "0.0000"],
            ["2026-11", "USD", "4", "0", "37102", "37.10", "0", "0.0000"],
            ["2026-12", "", "1", "0", "0", nil, "0", "0.0000"],
            ["2026-12", "JPY", "1", "0", "1000000", "1000", "0", "0.0000"],
            ["2026-12", "USD", "2", "0", "14156", "14.16", "2", "0.5000"],
        ]
        #expect(try Self.report(Self.autumn) == expected)
        // Input order does not change anything.
        #expect(try Self.report(Self.autumn.reversed().map { Array($0.reversed()) }) == expected)
    }

    @Test func theFirstOutputPeriodStillLooksOneBack() throws {
        // From October: G's churn (paid at September's end) is still counted, rate 1 of 2.
        let rows = try Self.report(Self.autumn, since: "2026-10-01", until: "2026-12-01")
        #expect(rows.map { $0[0] } == ["2026-10", "2026-10", "2026-11", "2026-11", "2026-11"])
        #expect(rows[1] == ["2026-10", "USD", "1", "1", "9990", "9.99", "1", "0.5000"])
    }

    @Test func noDataNoRowsAndNothingAfterTheCurrentPeriod() throws {
        #expect(try Self.report(Self.autumn, firstData: nil) == [])
        // --until far ahead: still no row after December (the current period).
        #expect(try Self.report(Self.autumn, until: "2027-06-01").last?[0] == "2026-12")
        // Now in October: the current period is measured at now (Oct 20 noon): G's period was
        // cancelled at midnight before it, A and C cover it, B's trial has not begun.
        let october = try Self.report(Self.autumn, now: "2026-10-20T12:00Z")
        #expect(october == [
            ["2026-09", "USD", "2", "0", "19980", "19.98", "0", nil],
            ["2026-10", "JPY", "1", "0", "1000000", "1000", "0", nil],
            ["2026-10", "USD", "1", "0", "9990", "9.99", "1", "0.5000"],
        ])
    }

    @Test func boundariesByDay() throws {
        // Day ends at midnight. Purchase at exactly midnight covers it; expiry or cancellation at
        // exactly midnight does not ("purchase ≤ T < expires", cancellation "later than T").
        // Both periods are ≤ 10 days: × 52/12, 9990 → 43290 each.
        let subscriptions = [
            [F.row("1", from: "2026-11-02", to: "2026-11-04")],  // covers the ends of 11-01 and 11-02
            [F.row("2", from: "2026-11-01T12:00Z", to: "2026-11-10", cancelled: "2026-11-03")],  // the end of 11-01
        ]
        let rows = try Self.report(subscriptions, by: "day", now: "2026-11-05T12:00Z", firstData: "2026-11-01T12:00Z")
        #expect(rows == [
            ["2026-11-01", "USD", "2", "0", "86580", "86.58", "0", nil],
            ["2026-11-02", "USD", "1", "0", "43290", "43.29", "1", "0.5000"],
            ["2026-11-03", "USD", "0", "0", "0", "0.00", "1", "1.0000"],
        ])
    }

    @Test func aCurrencyChangeIsNoChurnAndChurnCountsUnderThePreviousCurrency() throws {
        // Paid in USD at Sep's end, in EUR at Oct's end, nothing at Nov's end: churned in November
        // under EUR, 1 of 1. October has no USD row: nothing paid, trialled or churned in USD.
        let rows = try Self.report([[
            F.row("1", from: "2026-09-15", to: "2026-10-15"),
            F.row("1", from: "2026-10-15", to: "2026-11-15", price: 8990, currency: "EUR"),
        ]], now: "2026-11-20T00:00Z", firstData: "2026-09-15")
        #expect(rows == [
            ["2026-09", "USD", "1", "0", "9990", "9.99", "0", nil],
            ["2026-10", "EUR", "1", "0", "8990", "8.99", "0", nil],
            ["2026-11", "EUR", "0", "0", "0", "0.00", "1", "1.0000"],
        ])
    }

    /// Issue 34: `mrr` is written from `mrr_milliunits`; a currency whose paying subscribers all
    /// churned has an MRR of zero (`0` in yen), not an unknown one. Empty stays for unknown prices.
    @Test func aCurrencyWhoseSubscribersAllChurnedHasAZeroMRRNotAnEmptyOne() throws {
        let rows = try Self.report([
            [F.row("1", from: "2026-09-15", to: "2026-10-15", price: 1_200_000, currency: "JPY")],
            [F.row("2", from: "2026-09-15", to: "2026-10-15", price: nil, currency: "USD", refund: nil)],
            [F.row("3", from: "2026-09-15", to: "2026-10-15", price: nil, currency: nil, refund: nil)],
        ], now: "2026-10-20T00:00Z", firstData: "2026-09-15")
        #expect(rows == [
            ["2026-09", "", "1", "0", "0", nil, "0", nil],
            ["2026-09", "JPY", "1", "0", "1200000", "1200", "0", nil],
            ["2026-09", "USD", "1", "0", "0", nil, "0", nil],
            ["2026-10", "", "0", "0", "0", nil, "1", "1.0000"],
            ["2026-10", "JPY", "0", "0", "0", "0", "1", "1.0000"],
            ["2026-10", "USD", "0", "0", "0", "0.00", "1", "1.0000"],
        ])
    }

    @Test func trialsAndZeroPricesAreTrialsPaidToTrialIsNoChurn() throws {
        // Paid at Sep's end, a free-trial row (even priced) at Oct's end, price 0 at Nov's end.
        let rows = try Self.report([[
            F.row("1", from: "2026-09-15", to: "2026-10-15"),
            F.row("1", from: "2026-10-15", to: "2026-11-15", price: 500, offer: "FREE_TRIAL"),
            F.row("1", from: "2026-11-15", to: "2026-12-15T13:00Z", price: 0),
        ]], firstData: "2026-09-15")
        #expect(rows == [
            ["2026-09", "USD", "1", "0", "9990", "9.99", "0", nil],
            ["2026-10", "USD", "0", "1", "0", "0.00", "0", "0.0000"],
            ["2026-11", "USD", "0", "1", "0", "0.00", "0", nil],
            ["2026-12", "USD", "0", "1", "0", "0.00", "0", nil],
        ])
    }

    @Test("MRR normalisation at the boundaries, in a report", arguments: [
        (Int64(10), Int64(0), "43290"), (10, 1, "9990"), (45, 0, "9990"), (45, 1, "4995"),
        (75, 0, "4995"), (75, 1, "3330"), (135, 0, "3330"), (135, 1, "1665"),
        (270, 0, "1665"), (270, 1, "832"),  // 9990 ÷ 12 = 832.5 → 832 (even)
    ] as [(Int64, Int64, String)])
    func normalisation(days: Int64, extraMs: Int64, mrr: String) {
        let purchase = F.ms("2026-11-30")
        let entry = LedgerEntry(
            originalTransactionID: "1", productID: "p", purchaseDateMs: purchase, expiresDateMs: purchase + days * F.day + extraMs,
            cancellationDateMs: nil, isUpgraded: false, priceMilliunits: 9990, currency: "USD", offerDiscountType: nil,
            transactionReason: nil, ownershipType: nil, environment: "Production", refundMilliunits: 0)
        let options = MoneyReportOptions(granularity: .month, nowMs: F.ms("2026-11-30T12:00Z"))
        var report = MetricsReport(options: options, nowMs: options.nowMs, firstDataMs: purchase)
        report.add(subscription: [entry])
        #expect(report.rows() == [["2026-11", "USD", "1", "0", mrr, MoneyText.text(milliunits: Int64(mrr)!, currency: "USD"), "0", nil]])
    }

    @Test func matchesADirectComputationOnRandomData() throws {
        // The accumulator (difference arrays, a stack for the governing row) against the
        // contract read literally: at each instant, scan every row.
        var random = SplitMix64(seed: 7)
        let base = F.ms("2026-01-01")
        let products = ["p"], currencies: [String?] = ["USD", "EUR", nil]
        var subscriptions: [[LedgerEntry]] = []
        for id in 0..<400 {
            var rows: [LedgerEntry] = []
            var start = base + Int64(random.next() % 200) * F.day + Int64(random.next() % 86_400_000)
            for _ in 0..<Int(random.next() % 6) {
                let length = [7, 30, 31, 60, 90, 180, 365][Int(random.next() % 7)] * F.day + Int64(random.next() % 3) - 1
                let price: Int64? = random.next() % 10 == 0 ? nil : [0, 990, 4990, 9990, 12_345][Int(random.next() % 5)]
                let cancelled: Int64? = random.next() % 5 == 0 ? start + Int64(random.next() % UInt64(length + 1)) : nil
                rows.append(LedgerEntry(
                    originalTransactionID: "\(id)", productID: products[0], purchaseDateMs: start, expiresDateMs: start + length,
                    cancellationDateMs: cancelled, isUpgraded: false, priceMilliunits: price,
                    currency: currencies[Int(random.next() % 3)], offerDiscountType: random.next() % 6 == 0 ? "FREE_TRIAL" : nil,
                    transactionReason: nil, ownershipType: random.next() % 15 == 0 ? "FAMILY_SHARED" : "PURCHASED",
                    environment: "Production", refundMilliunits: 0))
                // Overlaps (upgrades) and gaps (lapses) both occur.
                start += length + (Int64(random.next() % 40) - 10) * F.day
            }
            subscriptions.append(rows)
        }
        for granularity in ReportGranularity.allCases {
            let nowMs = F.ms("2027-03-10T08:00Z")
            let options = MoneyReportOptions(granularity: granularity, nowMs: nowMs)
            var report = MetricsReport(options: options, nowMs: nowMs, firstDataMs: base)
            for subscription in subscriptions { report.add(subscription: subscription) }
            #expect(report.rows() == Self.direct(subscriptions, granularity: granularity, nowMs: nowMs, firstDataMs: base))
        }
    }

    /// The contract, read literally and slowly: for each period end, each subscription's covering
    /// row with the greatest purchase date (the later one on ties).
    static func direct(_ subscriptions: [[LedgerEntry]], granularity: ReportGranularity, nowMs: Int64, firstDataMs: Int64) -> [[String?]] {
        let current = ReportPeriod(holding: nowMs, granularity: granularity)
        var period = ReportPeriod(holding: firstDataMs, granularity: granularity).previous
        func instant(_ period: ReportPeriod) -> Int64 { period == current ? nowMs : period.endMs }
        func state(_ rows: [LedgerEntry], at t: Int64) -> LedgerEntry? {
            let covering = rows.filter {
                $0.counts(in: "Production") && $0.purchaseDateMs! <= t && t < $0.expiresDateMs && ($0.cancellationDateMs ?? .max) > t
            }
            let latest = covering.map { $0.purchaseDateMs! }.max()
            return covering.last { $0.purchaseDateMs == latest }
        }
        func isTrial(_ row: LedgerEntry) -> Bool { row.isFreeTrial || row.hasKnownPrice && row.priceMilliunits == 0 }
        var output: [[String?]] = []
        var previous = subscriptions.map { state($0, at: instant(period)) }
        while period < current {
            period = period.next
            let now = subscriptions.map { state($0, at: instant(period)) }
            var byCurrency: [String: (paid: Int64, trials: Int64, twelfths: Int64, known: Int64, churned: Int64, before: Int64)] = [:]
            for (before, after) in zip(previous, now) {
                if let before, !isTrial(before) { byCurrency[before.currencyColumn, default: (0, 0, 0, 0, 0, 0)].before += 1 }
                if let after {
                    var totals = byCurrency[after.currencyColumn, default: (0, 0, 0, 0, 0, 0)]
                    if isTrial(after) { totals.trials += 1 } else { totals.paid += 1 }
                    if after.hasKnownPrice {
                        totals.known += 1
                        if !isTrial(after) {
                            totals.twelfths += after.priceMilliunits! * MRRNormalisation.twelfths(lengthMs: after.expiresDateMs - after.purchaseDateMs!)
                        }
                    }
                    byCurrency[after.currencyColumn] = totals
                } else if let before, !isTrial(before) {
                    byCurrency[before.currencyColumn, default: (0, 0, 0, 0, 0, 0)].churned += 1
                }
            }
            for (currency, t) in byCurrency.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) })
            where t.paid != 0 || t.trials != 0 || t.churned != 0 {
                let mrr = HalfEven.divide(t.twelfths, by: 12)
                output.append([period.label, currency, String(t.paid), String(t.trials), String(mrr),
                               !currency.isEmpty && (t.known > 0 || t.paid + t.trials == 0)
                                   ? MoneyText.text(milliunits: mrr, currency: currency) : nil, String(t.churned),
                               ChurnRate.text(churned: t.churned, activePaidBefore: t.before)])
            }
            previous = now
        }
        return output
    }
}
