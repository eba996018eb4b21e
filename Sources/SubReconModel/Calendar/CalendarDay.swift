/// A civil date (proleptic Gregorian, no time zone): the day a sales report covers, or the Pacific
/// day a ledger row falls on.
///
/// Pure arithmetic on an ordinal (days since 1970-01-01) rather than Foundation's `Calendar`: the
/// parity report maps over a million rows, and a day needs no time zone to be added to or compared.
public struct CalendarDay: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    /// nil when the fields do not name a real date (month 13, 30 February, year outside 1…9999).
    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month),
            day >= 1, day <= CalendarDay.daysInMonth(year: year, month: month)
        else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// The day `ordinal` days after 1970-01-01 (negative: before it); the one copy of the
    /// days-to-date arithmetic (the timestamp formatters and report periods use it too).
    public init(ordinal: Int64) {
        // Howard Hinnant's civil_from_days: eras of 400 years (146097 days) starting 0000-03-01.
        let z = ordinal + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153  // 0 = March
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        self.year = Int(yearOfEra + era * 400 + (month <= 2 ? 1 : 0))
        self.month = Int(month)
        self.day = Int(day)
    }

    /// Days since 1970-01-01 (Hinnant's days_from_civil).
    public var ordinal: Int64 { CalendarDay.ordinal(year: year, month: month, day: day) }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil), the
    /// one copy of that arithmetic: also for fields no `CalendarDay` holds (an ISO 8601 year 0000,
    /// Apple's timestamps). `month` 1…12; the fields are not checked.
    package static func ordinal(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    public func adding(days: Int64) -> CalendarDay { CalendarDay(ordinal: ordinal + days) }

    /// Days from `self` to `other` (positive when `other` is later).
    public func days(to other: CalendarDay) -> Int64 { other.ordinal - ordinal }

    /// `yyyy-MM-dd`, the contract's date text.
    public var text: String {
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
    }

    public var description: String { text }

    /// Parses `yyyy-MM-dd` exactly (10 characters, ASCII digits); nil otherwise.
    public init?(text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            let year = CalendarDay.number(bytes[0..<4]), let month = CalendarDay.number(bytes[5..<7]),
            let day = CalendarDay.number(bytes[8..<10])
        else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// Parses Apple's report dates, `MM/DD/YYYY` exactly; nil otherwise.
    public init?(appleReportText text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[2] == UInt8(ascii: "/"), bytes[5] == UInt8(ascii: "/"),
            let month = CalendarDay.number(bytes[0..<2]), let day = CalendarDay.number(bytes[3..<5]),
            let year = CalendarDay.number(bytes[6..<10])
        else { return nil }
        self.init(year: year, month: month, day: day)
    }

    public static func < (lhs: CalendarDay, rhs: CalendarDay) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    package static func isLeapYear(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    package static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static func number(_ digits: ArraySlice<UInt8>) -> Int? {
        var value = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }
}
