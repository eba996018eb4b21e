@testable import SubReconModel
import Testing

@Suite("RefundAmount")
struct RefundAmountTests {
    /// One case: the inputs besides the price and currency, and the expected refund.
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var price: Int64? = 9990
        var currency: String? = "USD"
        var cancelled: Int64? = 1_700_000_000_000
        var upgraded = false
        var type: String? = nil
        var percentage: Int64? = nil
        var expected: Int64?
        var testDescription: String { name }
    }

    @Test(arguments: [
        Case(name: "nothing revoked", cancelled: nil, expected: 0),
        Case(name: "revocation fields without a date are ignored", cancelled: nil, type: "REFUND_FULL", percentage: 50_000, expected: 0),
        Case(name: "unknown price, nothing revoked", price: nil, cancelled: nil, expected: nil),
        Case(name: "unknown price, refunded", price: nil, type: "REFUND_FULL", expected: nil),
        Case(name: "price without currency is unknown", currency: nil, type: "REFUND_FULL", expected: nil),
        Case(name: "price with empty currency is unknown", currency: "", cancelled: nil, expected: nil),
        Case(name: "negative price is malformed, unknown", price: -1, type: "REFUND_FULL", expected: nil),
        Case(name: "date without type: the whole price", expected: 9990),
        Case(name: "date without type on an upgraded transaction: 0", upgraded: true, expected: 0),
        Case(name: "empty type counts as none", type: "", expected: 9990),
        Case(name: "empty type, upgraded: 0", upgraded: true, type: "", expected: 0),
        Case(name: "REFUND_FULL", type: "REFUND_FULL", expected: 9990),
        Case(name: "REFUND_FULL even when upgraded", upgraded: true, type: "REFUND_FULL", expected: 9990),
        Case(name: "FAMILY_REVOKE", type: "FAMILY_REVOKE", expected: 0),
        Case(name: "prorated half", type: "REFUND_PRORATED", percentage: 50_000, expected: 4995),
        Case(name: "prorated third: 3329.9667 → 3330", type: "REFUND_PRORATED", percentage: 33_333, expected: 3330),
        Case(name: "prorated 0%", type: "REFUND_PRORATED", percentage: 0, expected: 0),
        Case(name: "prorated 100%", type: "REFUND_PRORATED", percentage: 100_000, expected: 9990),
        Case(name: "prorated on an upgraded transaction", upgraded: true, type: "REFUND_PRORATED", percentage: 50_000, expected: 4995),
        Case(name: "prorated 0.5 → 0", price: 1, type: "REFUND_PRORATED", percentage: 50_000, expected: 0),
        Case(name: "prorated 1.5 → 2", price: 3, type: "REFUND_PRORATED", percentage: 50_000, expected: 2),
        Case(name: "prorated 2.5 → 2", price: 5, type: "REFUND_PRORATED", percentage: 50_000, expected: 2),
        Case(name: "prorated 3.5 → 4", price: 7, type: "REFUND_PRORATED", percentage: 50_000, expected: 4),
        Case(name: "prorated without percentage", type: "REFUND_PRORATED", expected: nil),
        Case(name: "prorated negative percentage", type: "REFUND_PRORATED", percentage: -1, expected: nil),
        Case(name: "prorated above 100%", type: "REFUND_PRORATED", percentage: 100_001, expected: nil),
        Case(name: "prorated huge price, no overflow", price: Int64.max, type: "REFUND_PRORATED", percentage: 50_000, expected: 1 << 62),
        Case(name: "an unnamed type is unknown", type: "REFUND_PARTIAL", expected: nil),
        Case(name: "types are case-sensitive", type: "refund_full", expected: nil),
        Case(name: "free period refunded: 0", price: 0, type: "REFUND_FULL", expected: 0),
    ])
    func refund(_ c: Case) {
        #expect(RefundAmount.milliunits(
            priceMilliunits: c.price, currency: c.currency, cancellationDateMs: c.cancelled, isUpgraded: c.upgraded,
            revocationType: c.type, revocationPercentage: c.percentage) == c.expected)
    }
}
