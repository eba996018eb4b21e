@testable import SubReconModel
import Testing

@Suite("HalfEven and WideInteger")
struct HalfEvenTests {
    @Test("Int64 division rounds halves to even, symmetrically around zero", arguments: [
        (Int64(5), Int64(2), Int64(2)),  // 2.5 → 2
        (7, 2, 4),  // 3.5 → 4
        (-5, 2, -2),  // −2.5 → −2
        (-7, 2, -4),  // −3.5 → −4
        (10, 4, 2),  // 2.5 → 2
        (14, 4, 4),  // 3.5 → 4
        (-10, 4, -2),
        (-14, 4, -4),
        (15, 10, 2),  // 1.5 → 2
        (25, 10, 2),  // 2.5 → 2
        (-15, 10, -2),
        (-25, 10, -2),
        (1, 3, 0),  // 0.33 → 0
        (2, 3, 1),  // 0.67 → 1
        (-1, 3, 0),  // −0.33 → 0 (and never "−0": integers have none)
        (-2, 3, -1),
        (0, 7, 0),
        (6, 3, 2),
        (-6, 3, -2),
        (Int64.max, 1, Int64.max),
        (Int64.min, 1, Int64.min),
        (Int64.max, 2, 1 << 62),  // 2^62 − 0.5 → 2^62 (even)
        (Int64.min, 2, -(1 << 62)),
        (Int64.max, Int64.max, 1),
        (Int64.min, Int64.max, -1),
        (1 << 62, Int64.max, 1),  // 2^62 ÷ (2^63 − 1) is just above ½
        ((1 << 62) - 1, Int64.max, 0),  // just below ½
    ] as [(Int64, Int64, Int64)])
    func int64(numerator: Int64, denominator: Int64, expected: Int64) {
        #expect(HalfEven.divide(numerator, by: denominator) == expected)
        // The 128-bit path agrees on every value that fits.
        #expect(HalfEven.divide(WideInteger(numerator), by: denominator).int64Value == expected)
    }

    @Test func wideDivisionKeepsWhatInt64CannotHold() {
        #expect(HalfEven.divide(WideInteger(Int64.max, times: 12), by: 12) == WideInteger(Int64.max))
        #expect(HalfEven.divide(WideInteger(Int64.min, times: 3), by: 3) == WideInteger(Int64.min))
        // (2^64 − 1) ÷ 4 = 4611686018427387903.75 → …904
        let almost = WideInteger(Int64.max, times: 2) + WideInteger(1)
        #expect(HalfEven.divide(almost, by: 4).int64Value == 4_611_686_018_427_387_904)
        // A quotient beyond Int64: 2^64 ÷ 1 has no Int64 value.
        #expect(HalfEven.divide(WideInteger(Int64.max, times: 4), by: 2).int64Value == nil)
        #expect(HalfEven.divide(WideInteger(Int64.max, times: 4), by: 2).description == "18446744073709551614")
    }

    @Test func multiplyDivideIsExact() {
        #expect(HalfEven.multiplyDivide(Int64.max, 100_000, by: 100_000) == Int64.max)
        #expect(HalfEven.multiplyDivide(Int64.max, 50_000, by: 100_000) == 1 << 62)
        #expect(HalfEven.multiplyDivide(Int64.max, 200_000, by: 100_000) == nil)
        #expect(HalfEven.multiplyDivide(9990, 33_333, by: 100_000) == 3330)
    }

    @Test("WideInteger prints exact decimals", arguments: [
        (WideInteger(Int64.max, times: Int64.max), "85070591730234615847396907784232501249"),
        (WideInteger(Int64.min, times: Int64.min), "85070591730234615865843651857942052864"),
        (WideInteger(Int64.min, times: Int64.max), "-85070591730234615856620279821087277056"),
        (WideInteger(Int64.max, times: 4), "36893488147419103228"),
        (WideInteger(Int64.max, times: 12), "110680464442257309684"),
        (WideInteger(-1, times: 1_000_000_000_000_000_000) - WideInteger(Int64.max), "-10223372036854775807"),
        (WideInteger(0), "0"),
        (WideInteger(-42), "-42"),
        (WideInteger(Int64.min), "-9223372036854775808"),
    ])
    func decimal(value: WideInteger, expected: String) {
        #expect(value.description == expected)
    }

    @Test func additionCarriesAndSubtractionBorrows() {
        let big = WideInteger(Int64.max) + WideInteger(Int64.max) + WideInteger(2)
        #expect(big.description == "18446744073709551616")  // 2^64
        #expect((big - WideInteger(Int64.max) - WideInteger(Int64.max) - WideInteger(2)).isZero)
        #expect((WideInteger(5) - WideInteger(7)).int64Value == -2)
        #expect(WideInteger(-3) < WideInteger(2))
        #expect(WideInteger(Int64.max) < big)
        #expect(-big < WideInteger(Int64.min))
        #expect(WideInteger(-3).multiplied(by: 10).int64Value == -30)
        #expect(WideInteger(Int64.max).multiplied(by: 10).description == "92233720368547758070")
    }
}
