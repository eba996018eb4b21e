/// A signed 128-bit integer (two's complement in two words), so that money sums never overflow.
///
/// Sums of prices, and of prices × 52 (MRR in twelfths of a milliunit), can pass `Int64.max`
/// with implausible but well-formed data (Apple's `price` is any non-negative integer), and a report
/// must never crash on data. Swift's own `Int128` would do, but it needs macOS 15 and the package
/// declares no platforms, so this is the small part of it the money code needs: add, subtract,
/// multiply two `Int64`s exactly, divide by a positive `Int64`, and print in decimal.
/// Arithmetic wraps at 2^127, far beyond any sum of Int64 products a report can hold.
package struct WideInteger: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The upper 64 bits, carrying the sign.
    package var high: Int64
    /// The lower 64 bits.
    package var low: UInt64

    package static let zero = WideInteger(0)

    package init(_ value: Int64) {
        high = value < 0 ? -1 : 0
        low = UInt64(bitPattern: value)
    }

    package init(high: Int64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// The exact product of two `Int64`s (never overflows: |a·b| < 2^126).
    package init(_ a: Int64, times b: Int64) {
        let product = a.multipliedFullWidth(by: b)
        self.init(high: product.high, low: product.low)
    }

    package var isNegative: Bool { high < 0 }
    package var isZero: Bool { high == 0 && low == 0 }

    /// The value when it fits in an `Int64`.
    package var int64Value: Int64? {
        let value = Int64(bitPattern: low)
        return high == (value < 0 ? -1 : 0) ? value : nil
    }

    package static func + (lhs: WideInteger, rhs: WideInteger) -> WideInteger {
        let (low, carry) = lhs.low.addingReportingOverflow(rhs.low)
        return WideInteger(high: lhs.high &+ rhs.high &+ (carry ? 1 : 0), low: low)
    }

    package static func += (lhs: inout WideInteger, rhs: WideInteger) { lhs = lhs + rhs }

    static prefix func - (value: WideInteger) -> WideInteger {
        // Two's complement: invert and add one.
        let (low, carry) = (~value.low).addingReportingOverflow(1)
        return WideInteger(high: ~value.high &+ (carry ? 1 : 0), low: low)
    }

    package static func - (lhs: WideInteger, rhs: WideInteger) -> WideInteger { lhs + -rhs }

    package static func -= (lhs: inout WideInteger, rhs: WideInteger) { lhs = lhs - rhs }

    package static func < (lhs: WideInteger, rhs: WideInteger) -> Bool {
        lhs.high != rhs.high ? lhs.high < rhs.high : lhs.low < rhs.low
    }

    /// The absolute value as an unsigned 128-bit pair (|−2^127| fits).
    package var magnitude: (high: UInt64, low: UInt64) {
        let positive = isNegative ? -self : self
        return (UInt64(bitPattern: positive.high), positive.low)
    }

    /// Rebuilds a value from a magnitude and a sign.
    package init(magnitude: (high: UInt64, low: UInt64), negative: Bool) {
        let value = WideInteger(high: Int64(bitPattern: magnitude.high), low: magnitude.low)
        self = negative ? -value : value
    }

    /// `self × factor`, for a non-negative factor (scaling to more decimal places).
    package func multiplied(by factor: Int64) -> WideInteger {
        precondition(factor >= 0, "WideInteger.multiplied(by:) takes a non-negative factor")
        let magnitude = self.magnitude
        let lowProduct = magnitude.low.multipliedFullWidth(by: UInt64(factor))
        let high = magnitude.high &* UInt64(factor) &+ lowProduct.high
        return WideInteger(magnitude: (high, lowProduct.low), negative: isNegative)
    }

    /// Truncating division of the magnitude by a positive divisor: quotient magnitude and remainder.
    package func magnitudeQuotientAndRemainder(dividingBy divisor: Int64) -> (quotient: (high: UInt64, low: UInt64), remainder: UInt64) {
        precondition(divisor > 0, "WideInteger division needs a positive divisor")
        let d = UInt64(divisor)
        let magnitude = self.magnitude
        let (highQuotient, highRemainder) = magnitude.high.quotientAndRemainder(dividingBy: d)
        // highRemainder < d, so the two-word division cannot overflow.
        let (lowQuotient, remainder) = d.dividingFullWidth((highRemainder, magnitude.low))
        return ((highQuotient, lowQuotient), remainder)
    }

    /// Plain decimal, `-` for negatives: the milliunit columns.
    package var description: String {
        if let small = int64Value { return String(small) }
        // Peel off 18 digits at a time (10^18 < 2^63), most significant chunk first in the end.
        let chunk: Int64 = 1_000_000_000_000_000_000
        var rest = WideInteger(magnitude: magnitude, negative: false)
        var chunks: [UInt64] = []
        while !rest.isZero {
            let (quotient, remainder) = rest.magnitudeQuotientAndRemainder(dividingBy: chunk)
            chunks.append(remainder)
            rest = WideInteger(magnitude: quotient, negative: false)
        }
        var text = isNegative ? "-" : ""
        for (index, part) in chunks.reversed().enumerated() {
            let digits = String(part)
            if index > 0 { text += String(repeating: "0", count: 18 - digits.count) }
            text += digits
        }
        return text
    }
}
