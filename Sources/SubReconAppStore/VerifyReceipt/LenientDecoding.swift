import Foundation
import SubReconModel

/// Apple sends almost every value as a string, but producers differ: numbers, booleans and
/// empty strings all occur for the same key. These readings take a value whatever its JSON type
/// and treat `""` and `null` as absent (Apple's 'responseBody.Latest_receipt_info' and
/// 'responseBody.Pending_renewal_info' pages give each field's type; the real bodies in
/// Tests/SubReconTests/Fixtures/apple-real show what is sent). They never fail for a type mismatch.
extension ScannedValue {
    /// The value as text: a string as sent, a whole number in decimal digits (see `wholeNumber`),
    /// a boolean as `true`/`false`; nil for `""`, `null`, a missing key, an object or array, and a
    /// number that is not a whole Int64.
    package var text: String? {
        switch kind {
        case .string: bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
        // Never empty: every escape stands for at least one character.
        case .escapedString: unescapedText()
        case .integer, .decimal: wholeNumber.map { String($0) }
        case .true: "true"
        case .false: "false"
        case .absent, .null, .container: nil
        }
    }

    /// Epoch milliseconds from a `<name>_ms` value, falling back to `fallback` (the `<name>` key)
    /// in Apple's `yyyy-MM-dd HH:mm:ss Etc/GMT` form, or holding bare digits (iOS 6 receipts).
    /// The fallback is read only when the `_ms` value is absent, not when it is unreadable.
    package func milliseconds(orDate fallback: ScannedValue = .absent) -> Int64? {
        // The common case, a non-empty plain string, straight from the bytes.
        if kind == .string, !bytes.isEmpty { return AppleDate.milliseconds(fromDigits: bytes) }
        if let text { return AppleDate.milliseconds(fromDigits: text.utf8) }
        guard let date = fallback.text else { return nil }
        return AppleDate.milliseconds(fromDigits: date.utf8) ?? AppleDate.milliseconds(fromGMT: date)
    }

    /// Apple's truthy spellings: `"true"` (in any case), `true`, `"1"`, `1`; falsy: `"false"`,
    /// `false`, `"0"`, `0`. Anything else is unknown.
    package var flag: Bool? {
        switch kind {
        case .true: return true
        case .false: return false
        // A plain string compared in place; lowercasing can only make "true"/"false" of ASCII letters.
        case .string: return Self.flag(spelledAs: bytes)
        default: return text.flatMap { Self.flag(spelledAs: $0.utf8) }
        }
    }

    package var integer: Int? { text.flatMap { Int($0) } }

    private static func flag(spelledAs utf8: some Collection<UInt8>) -> Bool? {
        if utf8.elementsEqual("1".utf8) { return true }
        if utf8.elementsEqual("0".utf8) { return false }
        // ORing 0x20 lowercases an ASCII letter and never turns another byte into one of these letters.
        let lowered = utf8.lazy.map { $0 | 0x20 }
        if lowered.elementsEqual("true".utf8) { return true }
        if lowered.elementsEqual("false".utf8) { return false }
        return nil
    }
}

/// Apple's date encodings, parsed without DateFormatter (which is slow and locale-sensitive).
package enum AppleDate {
    /// A decimal string of milliseconds. 12- and 13-digit values both occur; anything that is
    /// not 1–16 plain digits is rejected rather than guessed at.
    package static func milliseconds(fromDigits utf8: some Collection<UInt8>) -> Int64? {
        guard !utf8.isEmpty, utf8.count <= 16 else { return nil }
        var value: Int64 = 0
        for byte in utf8 {
            guard byte >= 48, byte <= 57 else { return nil }
            value = value * 10 + Int64(byte - 48)
        }
        return value
    }

    /// `2020-06-09 17:28:31 Etc/GMT` → epoch milliseconds (UTC).
    package static func milliseconds(fromGMT text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 19 else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let byte = bytes[index]
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard bytes[4] == 45, bytes[7] == 45, bytes[10] == 32, bytes[13] == 58, bytes[16] == 58,
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            year >= 1970, (1...12).contains(month), (1...CalendarDay.daysInMonth(year: year, month: month)).contains(day), hour < 24,
            minute < 60, second < 61
        else { return nil }
        if bytes.count > 19 {
            let zone = String(decoding: bytes[19...], as: UTF8.self).trimmingCharacters(in: .whitespaces)
            guard zone == "Etc/GMT" || zone == "GMT" || zone == "UTC" || zone.isEmpty else { return nil }
        }
        let days = CalendarDay.ordinal(year: year, month: month, day: day)
        return (days * 86_400 + Int64(hour * 3600 + minute * 60 + second)) * 1000
    }
}
