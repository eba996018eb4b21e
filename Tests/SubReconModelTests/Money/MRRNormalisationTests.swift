@testable import SubReconModel
import Testing

@Suite("MRRNormalisation")
struct MRRNormalisationTests {
    static let day: Int64 = 86_400_000

    @Test("factor in twelfths at each boundary: exactly at it, and 1 ms above", arguments: [
        (Int64(1), Int64(52)), (7 * day, 52), (10 * day, 52), (10 * day + 1, 12),
        (30 * day, 12), (45 * day, 12), (45 * day + 1, 6),
        (60 * day, 6), (75 * day, 6), (75 * day + 1, 4),
        (90 * day, 4), (135 * day, 4), (135 * day + 1, 2),
        (180 * day, 2), (270 * day, 2), (270 * day + 1, 1),
        (365 * day, 1), (Int64.max, 1),
        (0, 52), (-day, 52),
    ] as [(Int64, Int64)])
    func twelfths(lengthMs: Int64, expected: Int64) {
        #expect(MRRNormalisation.twelfths(lengthMs: lengthMs) == expected)
    }

    @Test func weeklyPriceIsFiftyTwoTwelfths() {
        // 9.99 a week: 9990 × 52 ÷ 12 = 43290 milliunits a month.
        let twelfths = MRRNormalisation.monthlyTwelfths(priceMilliunits: 9990, lengthMs: 7 * Self.day)
        #expect(twelfths == WideInteger(519_480))
        #expect(MRRNormalisation.milliunits(fromTwelfths: twelfths) == WideInteger(43_290))
    }

    @Test func sumIsExactAndRoundedOnce() {
        // Three quarterly periods of 1 milliunit: each is 1/3 (0 if rounded alone), together 1.
        var sum = WideInteger.zero
        for _ in 0..<3 { sum += MRRNormalisation.monthlyTwelfths(priceMilliunits: 1, lengthMs: 90 * Self.day) }
        #expect(MRRNormalisation.milliunits(fromTwelfths: sum) == WideInteger(1))
        // 6 twelfths = ½ → 0; 18 twelfths = 1½ → 2 (halves to even).
        #expect(MRRNormalisation.milliunits(fromTwelfths: WideInteger(6)) == WideInteger(0))
        #expect(MRRNormalisation.milliunits(fromTwelfths: WideInteger(18)) == WideInteger(2))
        #expect(MRRNormalisation.milliunits(fromTwelfths: WideInteger(30)) == WideInteger(2))
    }
}
