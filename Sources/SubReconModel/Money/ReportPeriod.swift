/// One period of a money report: a UTC calendar month (`2026-11`) or day (`2026-11-26`).
///
/// Stored as a count from the epoch's period (months since 1970-01, or days since 1970-01-01)
/// so that the next period, the period holding an instant and the distance between two periods
/// are integer arithmetic, without Calendar or time zones.
package struct ReportPeriod: Sendable, Hashable, Comparable {
    package static let dayMs: Int64 = 86_400_000

    package let granularity: ReportGranularity
    /// Months since 1970-01, or days since 1970-01-01 (negative before 1970).
    package let index: Int64

    package init(granularity: ReportGranularity, index: Int64) {
        self.granularity = granularity
        self.index = index
    }

    /// The period holding the instant `ms` (epoch milliseconds, UTC).
    package init(holding ms: Int64, granularity: ReportGranularity) {
        self.granularity = granularity
        // Floor division: an instant before 1970 belongs to the day that started before it.
        let days = ms >= 0 ? ms / Self.dayMs : (ms + 1) / Self.dayMs - 1
        switch granularity {
        case .day:
            index = days
        case .month:
            let day = CalendarDay(ordinal: days)
            index = Int64(day.year - 1970) * 12 + Int64(day.month - 1)
        }
    }

    /// The first instant of the period (inclusive).
    package var startMs: Int64 {
        switch granularity {
        case .day:
            return index * Self.dayMs
        case .month:
            let (year, month) = yearAndMonth
            return CalendarDay.ordinal(year: year, month: month, day: 1) * Self.dayMs
        }
    }

    /// The instant the next period begins: the end of this one (exclusive).
    package var endMs: Int64 { next.startMs }

    package var next: ReportPeriod { ReportPeriod(granularity: granularity, index: index + 1) }
    package var previous: ReportPeriod { ReportPeriod(granularity: granularity, index: index - 1) }

    /// The `period` column: `2026-11` or `2026-11-26`.
    package var label: String {
        switch granularity {
        case .month:
            let (year, month) = yearAndMonth
            return "\(Self.fourDigits(year))-\(Self.twoDigits(month))"
        case .day:
            let day = CalendarDay(ordinal: index)
            return "\(Self.fourDigits(day.year))-\(Self.twoDigits(day.month))-\(Self.twoDigits(day.day))"
        }
    }

    package static func < (lhs: ReportPeriod, rhs: ReportPeriod) -> Bool { lhs.index < rhs.index }

    private var yearAndMonth: (Int, Int) {
        // Floor division keeps months before 1970 in the right year.
        let monthsFrom1970 = Int(index)
        let yearOffset = monthsFrom1970 >= 0 ? monthsFrom1970 / 12 : (monthsFrom1970 + 1) / 12 - 1
        return (1970 + yearOffset, monthsFrom1970 - yearOffset * 12 + 1)
    }

    private static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    private static func fourDigits(_ value: Int) -> String {
        // As ISO8601.string does: years before 1000 padded so labels keep sorting bytewise.
        guard value >= 0, value < 1000 else { return String(value) }
        let digits = String(value)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }
}
