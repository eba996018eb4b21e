/// Milliunits → decimal text in a currency's ISO 4217 minor units, rounded once, halves to even:
/// 9990 USD → `9.99`, 1_200_000 JPY → `1200`, 1250 KWD → `1.250`, −49_990 USD → `-49.99`.
///
/// Integer arithmetic only. Never `-0`: a negative amount that rounds to zero is `0` (or `0.00`).
/// No grouping separators and always `.`: the text is for CSV readers, not for a locale.
package enum MoneyText {
    package static func text(milliunits: Int64, currency: String) -> String {
        text(milliunits: WideInteger(milliunits), currency: currency)
    }

    package static func text(milliunits: WideInteger, currency: String) -> String {
        let digits = CurrencyMinorUnits.digits(for: currency)
        // The amount in minor units (cents, fils, yen): milliunits have 3 decimals.
        let minorUnits = digits <= 3
            ? HalfEven.divide(milliunits, by: powerOfTen(3 - digits))
            : milliunits.multiplied(by: powerOfTen(digits - 3))
        return decimal(minorUnits, digits: digits)
    }

    /// `value × 10^−digits` as text: the digits of |value|, a point before the last `digits`, and a
    /// sign only when the value is not zero.
    package static func decimal(_ value: WideInteger, digits: Int) -> String {
        var magnitude = WideInteger(magnitude: value.magnitude, negative: false).description
        if digits > 0 {
            if magnitude.count <= digits {
                magnitude = String(repeating: "0", count: digits + 1 - magnitude.count) + magnitude
            }
            magnitude.insert(".", at: magnitude.index(magnitude.endIndex, offsetBy: -digits))
        }
        return value.isNegative && !value.isZero ? "-" + magnitude : magnitude
    }

    private static func powerOfTen(_ exponent: Int) -> Int64 {
        var result: Int64 = 1
        for _ in 0..<exponent { result *= 10 }
        return result
    }
}
