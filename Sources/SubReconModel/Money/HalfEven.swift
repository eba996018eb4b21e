/// Integer division rounded to the nearest integer, halves to the even neighbour (banker's
/// rounding), the contract's one rounding rule for money, MRR and churn rates.
///
/// Symmetric around zero: −2.5 → −2, −3.5 → −4. Never goes through floating point.
package enum HalfEven {
    /// `numerator ÷ denominator`, rounded. `denominator` must be positive. Cannot overflow: the
    /// quotient's magnitude is at most |numerator|.
    package static func divide(_ numerator: Int64, by denominator: Int64) -> Int64 {
        precondition(denominator > 0, "HalfEven.divide needs a positive denominator")
        // Swift's / truncates toward zero, so the remainder carries the numerator's sign.
        let quotient = numerator / denominator
        let remainder = numerator % denominator
        let remainderMagnitude = remainder.magnitude  // < denominator, so the subtraction below is safe
        let rest = UInt64(denominator) - remainderMagnitude
        guard remainderMagnitude > rest || (remainderMagnitude == rest && quotient & 1 != 0) else { return quotient }
        return numerator < 0 ? quotient - 1 : quotient + 1
    }

    /// `numerator ÷ denominator`, rounded, for 128-bit sums. `denominator` must be positive.
    package static func divide(_ numerator: WideInteger, by denominator: Int64) -> WideInteger {
        var (quotient, remainder) = numerator.magnitudeQuotientAndRemainder(dividingBy: denominator)
        let rest = UInt64(denominator) - remainder
        if remainder > rest || (remainder == rest && quotient.low & 1 != 0) {
            let (low, carry) = quotient.low.addingReportingOverflow(1)
            quotient = (quotient.high &+ (carry ? 1 : 0), low)
        }
        return WideInteger(magnitude: quotient, negative: numerator.isNegative)
    }

    /// `a × b ÷ denominator`, rounded, with the product kept exact (a price × a milli-percentage
    /// can pass Int64.max). nil when the rounded result does not fit in an `Int64`.
    package static func multiplyDivide(_ a: Int64, _ b: Int64, by denominator: Int64) -> Int64? {
        divide(WideInteger(a, times: b), by: denominator).int64Value
    }
}
