/// Apple's three renderings of an instant (`x`, `x_ms`, `x_pst`), written straight into bytes.
/// Hand-rolled calendar maths instead of `DateFormatter`: the simulator formats ~20 dates per
/// response at thousands of responses per second, and DateFormatter is slow and not thread-safe.
enum AppleDateFormat {
    private static let msPerSecond: Int64 = 1000
    private static let secondsPerDay: Int64 = 86_400

    /// `"yyyy-MM-dd HH:mm:ss Etc/GMT"`.
    static func utc(_ ms: Int64) -> String {
        var bytes = [UInt8]()
        appendUTC(ms, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `"yyyy-MM-dd HH:mm:ss America/Los_Angeles"` (local time, daylight saving included).
    static func pacific(_ ms: Int64) -> String {
        var bytes = [UInt8]()
        appendPacific(ms, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    static func appendUTC(_ ms: Int64, to bytes: inout [UInt8]) {
        appendTimestamp(seconds: floorDiv(ms, msPerSecond), to: &bytes)
        bytes.append(contentsOf: " Etc/GMT".utf8)
    }

    static func appendPacific(_ ms: Int64, to bytes: inout [UInt8]) {
        let seconds = floorDiv(ms, msPerSecond)
        let offsetHours: Int64 = isPacificDaylightTime(utcSeconds: seconds) ? -7 : -8
        appendTimestamp(seconds: seconds + offsetHours * 3600, to: &bytes)
        bytes.append(contentsOf: " America/Los_Angeles".utf8)
    }

    /// US Pacific daylight saving: since 2007 from the second Sunday of March 02:00 PST (10:00Z)
    /// to the first Sunday of November 02:00 PDT (09:00Z); 1987–2006 from the first Sunday of
    /// April to the last Sunday of October. Earlier years use the 1987 rule (never needed here).
    static func isPacificDaylightTime(utcSeconds: Int64) -> Bool {
        let year = civilDate(fromDays: floorDiv(utcSeconds, secondsPerDay)).year
        let startDay: Int64
        let endDay: Int64
        if year >= 2007 {
            startDay = nthSunday(2, year: year, month: 3)
            endDay = nthSunday(1, year: year, month: 11)
        } else {
            startDay = nthSunday(1, year: year, month: 4)
            endDay = lastSunday(year: year, month: 10)
        }
        let start = startDay * secondsPerDay + 10 * 3600
        let end = endDay * secondsPerDay + 9 * 3600
        return utcSeconds >= start && utcSeconds < end
    }

    /// Days since 1970-01-01 of the `n`th Sunday of a month.
    private static func nthSunday(_ n: Int64, year: Int64, month: Int64) -> Int64 {
        let first = daysFromCivil(year: year, month: month, day: 1)
        let firstSunday = first + (7 - weekday(days: first)) % 7
        return firstSunday + (n - 1) * 7
    }

    private static func lastSunday(year: Int64, month: Int64) -> Int64 {
        let nextMonthFirst = month == 12
            ? daysFromCivil(year: year + 1, month: 1, day: 1)
            : daysFromCivil(year: year, month: month + 1, day: 1)
        let last = nextMonthFirst - 1
        return last - weekday(days: last)
    }

    /// 0 = Sunday; 1970-01-01 was a Thursday.
    private static func weekday(days: Int64) -> Int64 {
        floorMod(days + 4, 7)
    }

    /// `yyyy-MM-dd HH:mm:ss`, built in a fixed 19-byte buffer and appended once (years outside
    /// 0...9999 keep their last four digits, as before).
    private static func appendTimestamp(seconds: Int64, to bytes: inout [UInt8]) {
        let days = floorDiv(seconds, secondsPerDay)
        let secondOfDay = Int(seconds - days * secondsPerDay)
        let date = civilDate(fromDays: days)
        var text: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &text) { buffer in
            func put(_ value: Int, at offset: Int) {
                buffer[offset] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value / 10)
                buffer[offset + 1] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value % 10)
            }
            let year = Int(floorMod(date.year, 10_000))
            put(year / 100, at: 0)
            put(year % 100, at: 2)
            buffer[4] = UInt8(ascii: "-")
            put(Int(date.month), at: 5)
            buffer[7] = UInt8(ascii: "-")
            put(Int(date.day), at: 8)
            buffer[10] = UInt8(ascii: " ")
            put(secondOfDay / 3600, at: 11)
            buffer[13] = UInt8(ascii: ":")
            put(secondOfDay % 3600 / 60, at: 14)
            buffer[16] = UInt8(ascii: ":")
            put(secondOfDay % 60, at: 17)
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[..<19]))
        }
    }

    /// Howard Hinnant's `civil_from_days`: proleptic Gregorian date of a day count since 1970-01-01.
    /// The simulator keeps its own copy of the day arithmetic (the worker's is `CalendarDay` in
    /// SubReconModel): it plays Apple, and depends on nothing of the worker it is there to test.
    static func civilDate(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = floorDiv(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    /// Howard Hinnant's `days_from_civil`.
    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDiv(y, 400)
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    private static func floorMod(_ a: Int64, _ b: Int64) -> Int64 {
        a - floorDiv(a, b) * b
    }
}
