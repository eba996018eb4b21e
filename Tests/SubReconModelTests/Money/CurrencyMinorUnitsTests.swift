import Foundation
@testable import SubReconModel
import Testing

@Suite("CurrencyMinorUnits")
struct CurrencyMinorUnitsTests {
    @Test("ISO 4217 minor units", arguments: [
        ("USD", 2), ("EUR", 2), ("GBP", 2), ("JPY", 0), ("KRW", 0), ("CLP", 0), ("ISK", 0), ("VND", 0),
        ("KWD", 3), ("BHD", 3), ("OMR", 3), ("JOD", 3), ("TND", 3), ("LYD", 3), ("IQD", 3),
        ("CLF", 4), ("UYW", 4), ("IDR", 2), ("HUF", 2), ("TWD", 2),
        ("usd", 2), ("jpy", 0), ("kwd", 3),  // case-insensitive
        ("", 2), ("ZZZ", 2), ("XAU", 2), ("US", 2), ("USDX", 2),  // fallback
    ])
    func digits(code: String, expected: Int) {
        #expect(CurrencyMinorUnits.digits(for: code) == expected)
    }

    @Test func everyEntryIsAThreeLetterCodeWithPlausibleDigits() {
        for (code, digits) in CurrencyMinorUnits.table {
            #expect(code.utf8.count == 3 && code.utf8.allSatisfy { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }, "\(code)")
            #expect([0, 2, 3, 4].contains(digits), "\(code): \(digits)")
        }
        #expect(CurrencyMinorUnits.table.count >= 160)
    }

    /// Where ICU (CLDR's currency data, which this machine's Foundation formats with) differs from
    /// ISO 4217, and why the table keeps ISO's value. CLDR gives these currencies 0 digits because
    /// their smaller units are no longer used in everyday prices (the rial, the dinar, the rupiah…);
    /// ISO 4217, which the contract names, still defines them. The deviations are not asserted
    /// (another ICU version may well agree with ISO), every other code must match ICU.
    static let iso4217OverICU: Set<String> = [
        "AFN", "ALL", "COP", "IDR", "IQD", "IRR", "KPW", "LAK", "LBP", "MGA", "MMK", "PKR", "RSD", "SOS",
        "SYP", "YER",
        // Withdrawn codes kept for old periods (ISO's last minor units).
        "MRO", "SLL", "STD",
    ]

    /// The fraction digits ICU writes for `code` when formatting a number with many decimals.
    /// `NumberFormatter.maximumFractionDigits` is not updated from `currencyCode` on Linux
    /// (swift-corelibs-foundation reports 2 for every code), so the digits are counted in the output.
    static func icuDigits(_ code: String) -> Int? {
        let formatter = NumberFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.numberStyle = .currencyISOCode
        formatter.currencyCode = code
        formatter.usesGroupingSeparator = false
        guard let text = formatter.string(from: NSNumber(value: 1.234_567_89)) else { return nil }
        guard let point = text.firstIndex(of: ".") else { return 0 }
        return text[text.index(after: point)...].prefix(while: \.isNumber).count
    }

    @Test func tableAgreesWithICUOutsideTheDocumentedDeviations() {
        var checked = 0
        for (code, digits) in CurrencyMinorUnits.table where !Self.iso4217OverICU.contains(code) {
            #expect(Self.icuDigits(code) == digits, "\(code): table \(digits), ICU \(Self.icuDigits(code).map(String.init) ?? "nil")")
            checked += 1
        }
        #expect(checked > 140)
        // The deviation list names table entries only, so it cannot silently hide a typo.
        #expect(Self.iso4217OverICU.isSubset(of: Set(CurrencyMinorUnits.table.keys)))
    }

    @Test func icuAlsoFallsBackToTwoDigitsForAnUnknownCode() {
        #expect(Self.icuDigits("ZZZ") == CurrencyMinorUnits.fallbackDigits)
    }

    @Test func everyActiveCodeICUKnowsThatIsInISO4217IsInTheTable() {
        // ICU's list holds many historical codes (DEM, FRF …) and funds; the active ones with
        // ISO minor units must all be in the table. Spot-check the ones subscriptions are sold in.
        let icu = Set(Locale.Currency.isoCurrencies.map(\.identifier))
        for code in ["USD", "EUR", "JPY", "KWD", "BRL", "INR", "TRY", "XCG", "ZWG", "VES", "SLE"] where icu.contains(code) {
            #expect(CurrencyMinorUnits.table[code] != nil, "\(code)")
        }
        #expect(Set(CurrencyMinorUnits.table.keys).isSubset(of: icu))
    }
}
