/// Epoch milliseconds → `2026-11-22T06:46:04Z` (the contract's format), without DateFormatter:
/// reports format millions of timestamps.
public enum ISO8601 {
    public static func string(fromMilliseconds ms: Int64) -> String {
        let seconds = ms >= 0 ? ms / 1000 : (ms - 999) / 1000
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = Int(seconds - days * 86_400)
        let (year, month, day) = civil(fromDays: Int(days))
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let yearText = year < 1000 ? String(repeating: "0", count: 4 - String(year).count) + String(year) : String(year)
        return "\(yearText)-\(two(month))-\(two(day))T\(two(secondOfDay / 3600)):\(two(secondOfDay % 3600 / 60)):\(two(secondOfDay % 60))Z"
    }

    /// Howard Hinnant's civil-from-days.
    package static func civil(fromDays days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

extension ISO8601 {
    /// The forms ``milliseconds(from:)`` accepts, for error messages.
    public static let acceptedForms =
        "2026-11-22 (midnight UTC), 2026-11-22T06:46Z, 2026-11-22T06:46:04Z or 2026-11-22T06:46:04.250Z (Z may be omitted: UTC; or an offset such as +02:00)"

    /// Parses an ISO 8601 date (`2026-11-22`, midnight UTC) or date-time (`2026-11-22T06:46:04Z`,
    /// seconds and fraction optional, `Z`, no zone, or a `±HH:MM` offset) into epoch milliseconds.
    /// nil when the text is not one of those forms or names an impossible date or time.
    /// Hand-written like the formatter: no DateFormatter, and no locale or lenient parsing surprises.
    public static func milliseconds(from text: String) -> Int64? {
        var scanner = DigitScanner(Array(text.utf8))
        guard let year = scanner.number(digits: 4), scanner.take("-"),
            let month = scanner.number(digits: 2), scanner.take("-"),
            let day = scanner.number(digits: 2),
            (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year)
        else { return nil }
        var ms = Int64(days(fromCivil: year, month, day)) * 86_400_000
        if scanner.atEnd { return ms }
        guard scanner.take("T") || scanner.take("t") || scanner.take(" "),
            let hour = scanner.number(digits: 2), hour < 24, scanner.take(":"),
            let minute = scanner.number(digits: 2), minute < 60
        else { return nil }
        ms += Int64(hour * 3_600_000 + minute * 60_000)
        if scanner.take(":") {
            guard let second = scanner.number(digits: 2), second < 60 else { return nil }
            ms += Int64(second * 1000)
            if scanner.take(".") || scanner.take(",") {
                // Milliseconds from the first three fraction digits; further digits are dropped.
                var scale = 100
                var any = false
                while let digit = scanner.digit() {
                    any = true
                    ms += Int64(digit * scale)
                    scale /= 10
                }
                guard any else { return nil }
            }
        }
        if scanner.atEnd || (scanner.take("Z") || scanner.take("z")) && scanner.atEnd { return ms }
        let sign: Int64
        if scanner.take("+") { sign = 1 } else if scanner.take("-") { sign = -1 } else { return nil }
        guard let offsetHours = scanner.number(digits: 2), offsetHours < 24 else { return nil }
        _ = scanner.take(":")
        guard let offsetMinutes = scanner.number(digits: 2), offsetMinutes < 60, scanner.atEnd else { return nil }
        // 06:46+02:00 is 04:46Z.
        return ms - sign * Int64(offsetHours * 3_600_000 + offsetMinutes * 60_000)
    }

    /// Howard Hinnant's days-from-civil: days since 1970-01-01 of a proleptic Gregorian date.
    package static func days(fromCivil year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    package static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Reads ASCII digits and single characters off a byte array, for the parser above.
    private struct DigitScanner {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { index == bytes.count }

        mutating func take(_ character: Unicode.Scalar) -> Bool {
            guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
            index += 1
            return true
        }

        mutating func digit() -> Int? {
            guard index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) else { return nil }
            defer { index += 1 }
            return Int(bytes[index] - UInt8(ascii: "0"))
        }

        /// Exactly `digits` digits.
        mutating func number(digits: Int) -> Int? {
            var value = 0
            for _ in 0..<digits {
                guard let digit = digit() else { return nil }
                value = value * 10 + digit
            }
            return value
        }
    }
}
