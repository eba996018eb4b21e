import Foundation

/// Apple sends almost every value as a string, but producers differ: numbers, booleans and
/// empty strings all occur for the same key. These helpers read a key whatever its JSON type
/// and treat `""` and `null` as absent (reference §4.1, §9). They never throw for a type mismatch.
extension KeyedDecodingContainer {
    func lenientString(_ key: Key) -> String? {
        guard contains(key), (try? decodeNil(forKey: key)) == false else { return nil }
        if let text = try? decode(String.self, forKey: key) { return text.isEmpty ? nil : text }
        if let number = try? decode(Int64.self, forKey: key) { return String(number) }
        if let flag = try? decode(Bool.self, forKey: key) { return flag ? "true" : "false" }
        if let number = try? decode(Double.self, forKey: key), number.isFinite,
            number == number.rounded(), abs(number) < 9.0e15
        {
            return String(Int64(number))
        }
        return nil
    }

    /// Epoch milliseconds from `<name>_ms`, falling back to `<name>` in Apple's
    /// `yyyy-MM-dd HH:mm:ss Etc/GMT` form, or to `<name>` holding bare digits (iOS 6 receipts).
    func lenientMilliseconds(_ msKey: Key, fallback: Key? = nil) -> Int64? {
        if let text = lenientString(msKey) { return AppleDate.milliseconds(fromDigits: text) }
        guard let fallback, let text = lenientString(fallback) else { return nil }
        return AppleDate.milliseconds(fromDigits: text) ?? AppleDate.milliseconds(fromGMT: text)
    }

    /// Apple's truthy spellings: `"true"`, `true`, `"1"`, `1`; falsy: `"false"`, `false`, `"0"`, `0`.
    func lenientBool(_ key: Key) -> Bool? {
        switch lenientString(key)?.lowercased() {
        case "true", "1": return true
        case "false", "0": return false
        default: return nil
        }
    }

    func lenientInt(_ key: Key) -> Int? {
        guard let text = lenientString(key) else { return nil }
        return Int(text)
    }
}

/// Apple's date encodings, parsed without DateFormatter (which is slow and locale-sensitive).
enum AppleDate {
    /// A decimal string of milliseconds. 12- and 13-digit values both occur; anything that is
    /// not 1–16 plain digits is rejected rather than guessed at.
    static func milliseconds(fromDigits text: String) -> Int64? {
        let utf8 = text.utf8
        guard !utf8.isEmpty, utf8.count <= 16 else { return nil }
        var value: Int64 = 0
        for byte in utf8 {
            guard byte >= 48, byte <= 57 else { return nil }
            value = value * 10 + Int64(byte - 48)
        }
        return value
    }

    /// `2020-06-09 17:28:31 Etc/GMT` → epoch milliseconds (UTC).
    static func milliseconds(fromGMT text: String) -> Int64? {
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
            year >= 1970, (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day), hour < 24,
            minute < 60, second < 61
        else { return nil }
        if bytes.count > 19 {
            let zone = String(decoding: bytes[19...], as: UTF8.self).trimmingCharacters(in: .whitespaces)
            guard zone == "Etc/GMT" || zone == "GMT" || zone == "UTC" || zone.isEmpty else { return nil }
        }
        let days = daysFromCivil(year: year, month: month, day: day)
        return (Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second)) * 1000
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Howard Hinnant's days-from-civil: days since 1970-01-01 for a proleptic Gregorian date.
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
