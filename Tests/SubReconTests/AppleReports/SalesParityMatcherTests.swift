import Foundation
@testable import SubRecon
@testable import SubReconAppStore
@testable import SubReconModel
@testable import SubReconStore
import Testing

@Suite("Apple parity")
struct SalesParityMatcherTests {
    static let pacific: PacificTime = {
        guard let value = try? PacificTime() else { fatalError("no tzdata") }
        return value
    }()

    static func day(_ text: String) -> CalendarDay {
        guard let day = CalendarDay(text: text) else { fatalError("bad test day \(text)") }
        return day
    }

    /// `2026-11-26T23:58:00-08:00` → epoch ms.
    static func ms(_ text: String) -> Int64 {
        guard let date = ISO8601DateFormatter().date(from: text) else { fatalError("bad test instant \(text)") }
        return Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    static func entry(
        purchase: String?, price: Int64? = 9990, currency: String? = "USD", storefront: String? = "USA",
        cancelled: String? = nil, refund: Int64? = nil, revocation: String? = nil, ownership: String? = "PURCHASED",
        environment: String? = "Production"
    ) -> LedgerEntry {
        LedgerEntry(
            originalTransactionID: "1", productID: "pro.monthly", purchaseDateMs: purchase.map(ms), expiresDateMs: 0,
            cancellationDateMs: cancelled.map(ms), isUpgraded: false, priceMilliunits: price, currency: currency,
            offerDiscountType: nil, transactionReason: nil, ownershipType: ownership, environment: environment,
            refundMilliunits: refund, storefront: storefront, revocationType: revocation)
    }

    static func appleRow(units: Int64, price: Int64, type: String = "IAY", currency: String = "USD", country: String = "US") -> SalesReportRow {
        SalesReportRow(line: 2, sku: "pro.monthly", productTypeIdentifier: type, units: units, customerPriceMilliunits: price, customerCurrency: currency, countryCode: country)
    }

    static func key(_ day: String, _ price: Int64 = 9990, _ kind: SalesParityKind = .billed, currency: String = "USD", country: String = "US") -> SalesParityKey {
        SalesParityKey(day: Self.day(day), productID: "pro.monthly", country: country, currency: currency, priceMilliunits: price, kind: kind)
    }

    @Test func aLostOrder() {
        var apple = SalesParityTally()
        apple.add(SalesReport(day: Self.day("2026-11-26"), rows: [Self.appleRow(units: 3, price: 9990)]))
        var ledger = SalesParityTally()
        ledger.add(Self.entry(purchase: "2026-11-26T10:00:00-08:00"), pacificTime: Self.pacific)
        ledger.add(Self.entry(purchase: "2026-11-26T11:00:00-08:00"), pacificTime: Self.pacific)
        let rows = SalesParityMatcher.match(apple: apple.counts, ledger: ledger.counts, comparedDays: [Self.day("2026-11-26")])
        #expect(rows == [SalesParityRow(key: Self.key("2026-11-26"), appleUnits: 3, ledgerUnits: 2, status: .missingInLedger)])
        #expect(rows[0].csvFields == ["2026-11-26", "pro.monthly", "US", "USD", "9990", "billed", "3", "2", "1", "missing_in_ledger"])
        let summary = SalesParitySummary(rows: rows, comparedDays: [Self.day("2026-11-26")])
        #expect(summary.lostOrders == 1)
        #expect(summary.billedPeriodsMatched == 2)
        #expect(summary.exitCode == 1)
        #expect(summary.worstDays == [SalesParitySummary.Day(day: Self.day("2026-11-26"), unexplainedUnits: 1)])
    }

    @Test func aRefundAndAPartialRefundWithRounding() {
        var apple = SalesParityTally()
        apple.add(SalesReport(day: Self.day("2026-11-26"), rows: [
            Self.appleRow(units: -1, price: -9990),
            Self.appleRow(units: 0, price: -38250, currency: "GBP", country: "GB"),
        ]))
        var ledger = SalesParityTally()
        ledger.add(Self.entry(purchase: "2026-10-26T10:00:00-07:00", cancelled: "2026-11-26T09:00:00-08:00", refund: 9990, revocation: "REFUND_FULL"), pacificTime: Self.pacific)
        ledger.add(Self.entry(purchase: "2026-10-20T10:00:00-07:00", price: 79990, currency: "GBP", storefront: "gbr", cancelled: "2026-11-26T12:00:00-08:00", refund: 38246, revocation: "REFUND_PRORATED"), pacificTime: Self.pacific)
        let rows = SalesParityMatcher.match(apple: apple.counts, ledger: ledger.counts, comparedDays: [Self.day("2026-11-26")])
        #expect(rows.map(\.status) == [.match, .match])
        #expect(rows.map(\.key) == [Self.key("2026-11-26", 38250, .partialRefund, currency: "GBP", country: "GB"), Self.key("2026-11-26", 9990, .refund)])
        #expect(SalesParityTally.roundedToMinorUnits(38246, currency: "GBP") == 38250)
        #expect(SalesParityTally.roundedToMinorUnits(38245, currency: "GBP") == 38240)
        #expect(SalesParityTally.roundedToMinorUnits(1500, currency: "JPY") == 2000)
        #expect(SalesParityTally.roundedToMinorUnits(1234, currency: "KWD") == 1234)
    }

    @Test func aPurchaseAt2358PacificIsThatPacificDay() {
        var apple = SalesParityTally()
        apple.add(SalesReport(day: Self.day("2026-11-26"), rows: [Self.appleRow(units: 1, price: 9990)]))
        var ledger = SalesParityTally()
        ledger.add(Self.entry(purchase: "2026-11-26T23:58:00-08:00"), pacificTime: Self.pacific)  // 07:58Z on the 27th
        let rows = SalesParityMatcher.match(apple: apple.counts, ledger: ledger.counts, comparedDays: [Self.day("2026-11-26"), Self.day("2026-11-27")])
        #expect(rows.map(\.status) == [.match])
    }

    @Test func aLedgerEntryOnTheDSTDay() {
        var ledger = SalesParityTally()
        ledger.add(Self.entry(purchase: "2026-03-08T23:30:00-07:00"), pacificTime: Self.pacific)
        ledger.add(Self.entry(purchase: "2026-11-01T23:30:00-08:00"), pacificTime: Self.pacific)
        #expect(ledger.counts == [Self.key("2026-03-08"): 1, Self.key("2026-11-01"): 1])
    }

    @Test func shiftsWithinToleranceAndNotBeyond() {
        let apple = [Self.key("2026-11-26"): Int64(1)]
        let ledger = [Self.key("2026-11-27"): Int64(1)]
        let days: Set = [Self.day("2026-11-26"), Self.day("2026-11-27")]
        let shifted = SalesParityMatcher.match(apple: apple, ledger: ledger, comparedDays: days)
        #expect(shifted.map(\.status) == [.shifted, .shifted])
        #expect(shifted.map(\.difference) == [1, -1])
        let summary = SalesParitySummary(rows: shifted, comparedDays: days)
        #expect(summary.exitCode == 0 && summary.billedPeriodsMatched == 1 && summary.lostOrders == 0)
        let strict = SalesParityMatcher.match(apple: apple, ledger: ledger, comparedDays: days, toleranceDays: 0)
        #expect(strict.map(\.status) == [.missingInLedger, .missingAtApple])
        // Two days apart is beyond the default tolerance.
        let far = SalesParityMatcher.match(apple: apple, ledger: [Self.key("2026-11-28"): 1], comparedDays: days.union([Self.day("2026-11-28")]))
        #expect(far.map(\.status) == [.missingInLedger, .missingAtApple])
    }

    @Test func aPartialCancellationLeavesOneRowMissing() {
        let rows = SalesParityMatcher.match(
            apple: [Self.key("2026-11-26"): 2], ledger: [Self.key("2026-11-27"): 1],
            comparedDays: [Self.day("2026-11-26"), Self.day("2026-11-27")])
        #expect(rows.map(\.status) == [.missingInLedger, .shifted])
        #expect(rows[0].shiftedUnits == 1 && rows[0].unexplainedUnits == 1)
        let summary = SalesParitySummary(rows: rows, comparedDays: [Self.day("2026-11-26"), Self.day("2026-11-27")])
        #expect(summary.lostOrders == 1 && summary.billedPeriodsMatched == 1 && summary.rowsNotMatched == 1)
    }

    @Test func theNearestDayCancelsFirstAndTheEarlierOnATie() {
        // −1 on D−1 and D+1, +1 on D: D−1 (the earlier) takes it.
        let rows = SalesParityMatcher.match(
            apple: [Self.key("2026-11-26"): 1],
            ledger: [Self.key("2026-11-25"): 1, Self.key("2026-11-27"): 1],
            comparedDays: [Self.day("2026-11-25"), Self.day("2026-11-26"), Self.day("2026-11-27")])
        #expect(rows.map(\.status) == [.shifted, .shifted, .missingAtApple])
    }

    @Test func keysOnUncomparedDaysAreDropped() {
        let rows = SalesParityMatcher.match(
            apple: [Self.key("2026-11-26"): 1], ledger: [Self.key("2026-11-26"): 1, Self.key("2026-11-30"): 4],
            comparedDays: [Self.day("2026-11-26")])
        #expect(rows.map(\.key.day.text) == ["2026-11-26"])
    }

    @Test func sandboxFamilyFreeAndUnpricedRowsAreIgnored() {
        var ledger = SalesParityTally()
        let purchase = "2026-11-26T10:00:00-08:00"
        ledger.add(Self.entry(purchase: purchase, environment: "Sandbox"), pacificTime: Self.pacific)
        ledger.add(Self.entry(purchase: purchase, ownership: "FAMILY_SHARED"), pacificTime: Self.pacific)
        ledger.add(Self.entry(purchase: purchase, price: 0), pacificTime: Self.pacific)
        ledger.add(Self.entry(purchase: purchase, currency: nil), pacificTime: Self.pacific)
        ledger.add(Self.entry(purchase: nil), pacificTime: Self.pacific)
        ledger.add(Self.entry(purchase: purchase, cancelled: purchase, refund: 0, revocation: "FAMILY_REVOKE"), pacificTime: Self.pacific)
        // Only the family-revoked period counts, as billed: its revocation gave nothing back.
        #expect(ledger.counts == [Self.key("2026-11-26"): 1])
        ledger = SalesParityTally()
        ledger.add(Self.entry(purchase: purchase, storefront: nil, environment: nil), pacificTime: Self.pacific)
        #expect(ledger.counts == [Self.key("2026-11-26", country: ""): 1])

        var apple = SalesParityTally()
        apple.add(SalesReport(day: Self.day("2026-11-26"), rows: [
            Self.appleRow(units: 5, price: 0),               // free periods
            Self.appleRow(units: 1, price: 990, type: "IA1"), // not auto-renewable
            Self.appleRow(units: 0, price: 990),              // nothing billed
            Self.appleRow(units: 2, price: 4990, type: "IAY-M"),
            Self.appleRow(units: 1, price: -500),             // odd: credit without a unit back
            Self.appleRow(units: -2, price: 0),               // refund of a free period: nothing
        ]))
        #expect(apple.counts == [Self.key("2026-11-26", 4990): 2, Self.key("2026-11-26", 500, .partialRefund): 1])
    }

    @Test func rowsAreSortedAsTheContractSays() {
        let keys = [
            SalesParityKey(day: Self.day("2026-11-27"), productID: "a", country: "US", currency: "USD", priceMilliunits: 1, kind: .billed),
            SalesParityKey(day: Self.day("2026-11-26"), productID: "b", country: "US", currency: "USD", priceMilliunits: 1, kind: .billed),
            SalesParityKey(day: Self.day("2026-11-26"), productID: "a", country: "US", currency: "USD", priceMilliunits: 10_000, kind: .billed),
            SalesParityKey(day: Self.day("2026-11-26"), productID: "a", country: "US", currency: "USD", priceMilliunits: 9_000, kind: .refund),
            SalesParityKey(day: Self.day("2026-11-26"), productID: "a", country: "US", currency: "USD", priceMilliunits: 9_000, kind: .partialRefund),
            SalesParityKey(day: Self.day("2026-11-26"), productID: "a", country: "GB", currency: "USD", priceMilliunits: 9_000, kind: .billed),
            SalesParityKey(day: Self.day("2026-11-26"), productID: "a", country: "", currency: "USD", priceMilliunits: 9_000, kind: .billed),
            SalesParityKey(day: Self.day("2026-11-26"), productID: "B", country: "US", currency: "USD", priceMilliunits: 1, kind: .billed),
        ]
        let counts = Dictionary(uniqueKeysWithValues: keys.map { ($0, Int64(1)) })
        let rows = SalesParityMatcher.match(apple: counts, ledger: [:], comparedDays: [Self.day("2026-11-26"), Self.day("2026-11-27")], toleranceDays: 0)
        #expect(rows.map { "\($0.key.day.text) \($0.key.productID) \($0.key.country) \($0.key.priceMilliunits) \($0.key.kind.rawValue)" } == [
            "2026-11-26 B US 1 billed",
            "2026-11-26 a  9000 billed",
            "2026-11-26 a GB 9000 billed",
            "2026-11-26 a US 9000 partial_refund",
            "2026-11-26 a US 9000 refund",
            "2026-11-26 a US 10000 billed",
            "2026-11-26 b US 1 billed",
            "2026-11-27 a US 1 billed",
        ])
    }

    @Test func theSampleReportTallies() throws {
        let report = try SalesReportParser.parse(SalesReportParserTests.fixture("sales.tsv"), file: "sales.tsv")
        var apple = SalesParityTally()
        apple.add(report)
        let partial = SalesParityKey(day: Self.day("2020-10-05"), productID: "foo.bar.baz", country: "RU", currency: "RUB", priceMilliunits: 85_430, kind: .partialRefund)
        #expect(apple.counts[partial] == 1)
        let billedUnits = apple.counts.filter { $0.key.kind == .billed }.values.reduce(0, +)
        let expected = report.rows.filter { $0.productTypeIdentifier == "IAY" && $0.units > 0 && $0.customerPriceMilliunits > 0 }.map(\.units).reduce(0, +)
        #expect(billedUnits == expected)
    }
}
