/// The contract's normalisation of one billed period's price to a month, by the period's length.
///
/// The factors (52/12, 1, 1/2, 1/3, 1/6, 1/12) are all whole numbers of twelfths, so a report
/// sums `price × twelfths` exactly and divides by 12 once at the end (``HalfEven``): summing
/// rounded per-subscription amounts would make the total depend on how many subscriptions there are.
package enum MRRNormalisation {
    package static let dayMs: Int64 = 86_400_000

    /// The factor in twelfths for a period of `lengthMs` (expires − purchase). Lengths are compared
    /// in exact milliseconds, "up to N days" meaning ≤ N × 86,400,000: 10 days and 1 ms is no longer
    /// a week-ish period. A zero or negative length (malformed data) is taken as the shortest.
    package static func twelfths(lengthMs: Int64) -> Int64 {
        switch lengthMs {
        case ...(10 * dayMs): 52  // weekly: 52 weeks a year ÷ 12 months
        case ...(45 * dayMs): 12  // monthly
        case ...(75 * dayMs): 6  // two months
        case ...(135 * dayMs): 4  // three months
        case ...(270 * dayMs): 2  // six months
        default: 1  // a year (or longer)
        }
    }

    /// One period's monthly amount in twelfths of a milliunit: `price × twelfths`, exact.
    package static func monthlyTwelfths(priceMilliunits: Int64, lengthMs: Int64) -> WideInteger {
        WideInteger(priceMilliunits, times: twelfths(lengthMs: lengthMs))
    }

    /// A sum of twelfths → milliunits, rounded once, halves to even.
    package static func milliunits(fromTwelfths twelfths: WideInteger) -> WideInteger {
        HalfEven.divide(twelfths, by: 12)
    }
}
