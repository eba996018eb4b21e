/// Epoch milliseconds → `2026-11-22T06:46:04Z` (the contract's format), without DateFormatter:
/// reports format millions of timestamps.
public enum ISO8601 {
    public static func string(fromMilliseconds ms: Int64) -> String {
        let seconds = ms >= 0 ? ms / 1000 : (ms - 999) / 1000
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = Int(seconds - days * 86_400)
        let date = CalendarDay(ordinal: days)
        let (year, month, day) = (date.year, date.month, date.day)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let yearText = year < 1000 ? String(repeating: "0", count: 4 - String(year).count) + String(year) : String(year)
        return "\(yearText)-\(two(month))-\(two(day))T\(two(secondOfDay / 3600)):\(two(secondOfDay % 3600 / 60)):\(two(secondOfDay % 60))Z"
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
            (1...12).contains(month), day >= 1, day <= CalendarDay.daysInMonth(year: year, month: month)
        else { return nil }
        var ms = CalendarDay.ordinal(year: year, month: month, day: day) * 86_400_000
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
