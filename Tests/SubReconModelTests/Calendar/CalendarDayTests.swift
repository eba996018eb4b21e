@testable import SubReconModel
import Testing

@Suite("CalendarDay")
struct CalendarDayTests {
    @Test func parsesBothFormatsAndPrints() throws {
        let day = try #require(CalendarDay(text: "2026-03-08"))
        #expect(day.text == "2026-03-08")
        #expect(CalendarDay(appleReportText: "03/08/2026") == day)
        #expect(CalendarDay(text: "2026-02-29") == nil)
        #expect(CalendarDay(text: "2024-02-29") != nil)
        #expect(CalendarDay(appleReportText: "13/01/2026") == nil)
        #expect(CalendarDay(text: "2026-3-8") == nil)
        #expect(CalendarDay(appleReportText: "2026-03-08") == nil)
    }

    @Test func ordinalRoundTripsAndAddsDays() throws {
        #expect(CalendarDay(ordinal: 0).text == "1970-01-01")
        #expect(CalendarDay(ordinal: -1).text == "1969-12-31")
        let day = try #require(CalendarDay(text: "2026-12-31"))
        #expect(day.adding(days: 1).text == "2027-01-01")
        #expect(day.adding(days: -365).text == "2025-12-31")
        #expect(try #require(CalendarDay(text: "2026-03-01")).days(to: day) == 305)
        for ordinal in stride(from: Int64(-800_000), through: 800_000, by: 997) {
            let day = CalendarDay(ordinal: ordinal)
            #expect(day.ordinal == ordinal)
            #expect(CalendarDay(text: day.text) == day || day.year < 1)
        }
    }

    /// The one days-from-civil and civil-from-days (the timestamp formatter, report periods and
    /// Apple's GMT dates use them too), at the dates that break a hand-written one.
    @Test(arguments: [
        ("1970-01-01", Int64(0)), ("1969-12-31", -1), ("2000-02-29", 11_016), ("2000-03-01", 11_017),
        ("2024-02-29", 19_782), ("2100-01-01", 47_482), ("2100-02-28", 47_540), ("2100-03-01", 47_541),
        ("1900-01-01", -25_567), ("1900-03-01", -25_508), ("1600-02-29", -135_081), ("0001-01-01", -719_162),
        ("9999-12-31", 2_932_896),
    ])
    func knownOrdinals(text: String, ordinal: Int64) throws {
        let day = try #require(CalendarDay(text: text))
        #expect(day.ordinal == ordinal)
        #expect(CalendarDay(ordinal: ordinal) == day)
        #expect(CalendarDay.ordinal(year: day.year, month: day.month, day: day.day) == ordinal)
    }

    @Test func leapYearsFollowTheGregorianRule() {
        #expect(CalendarDay.isLeapYear(2024) && CalendarDay.isLeapYear(2000) && CalendarDay.isLeapYear(2400))
        #expect(!CalendarDay.isLeapYear(2100) && !CalendarDay.isLeapYear(1900) && !CalendarDay.isLeapYear(2026))
        #expect(CalendarDay(text: "2100-02-29") == nil)
        #expect(CalendarDay(text: "1900-02-29") == nil)
        #expect(CalendarDay(text: "2400-02-29") != nil)
        #expect(CalendarDay.daysInMonth(year: 2100, month: 2) == 28)
        #expect(CalendarDay.daysInMonth(year: 2000, month: 2) == 29)
        #expect(CalendarDay.daysInMonth(year: 2026, month: 4) == 30)
        #expect(CalendarDay.daysInMonth(year: 2026, month: 12) == 31)
    }

    /// Year 0 (1 BC, proleptic) and earlier: no `CalendarDay` holds them, the arithmetic still does.
    @Test func negativeYearsAndDaysBeforeTheCommonEra() {
        #expect(CalendarDay.ordinal(year: 0, month: 3, day: 1) == -719_468)
        #expect(CalendarDay.ordinal(year: 0, month: 1, day: 1) == -719_528)
        #expect(CalendarDay.ordinal(year: 0, month: 2, day: 29) == -719_469)
        let early = CalendarDay(ordinal: -719_469)
        #expect((early.year, early.month, early.day) == (0, 2, 29))
        let beforeThat = CalendarDay(ordinal: -719_528 - 365)  // year -1 is not a leap year
        #expect((beforeThat.year, beforeThat.month, beforeThat.day) == (-1, 1, 1))
        #expect(CalendarDay(year: 0, month: 1, day: 1) == nil)
    }

    /// Day after day from 1599-12-01 to 2401-03-01 (covering 1600, 1700, 2000, 2100 and 2400), each
    /// ordinal one more than the last and the fields counted up by hand with `daysInMonth`.
    @Test func everyDayFollowsTheOneBefore() throws {
        var (year, month, day) = (1599, 12, 1)
        var ordinal = CalendarDay.ordinal(year: year, month: month, day: day)
        while (year, month, day) < (2401, 3, 1) {
            if day < CalendarDay.daysInMonth(year: year, month: month) {
                day += 1
            } else if month < 12 {
                (month, day) = (month + 1, 1)
            } else {
                (year, month, day) = (year + 1, 1, 1)
            }
            ordinal += 1
            let computed = CalendarDay(ordinal: ordinal)
            guard (computed.year, computed.month, computed.day) == (year, month, day),
                CalendarDay.ordinal(year: year, month: month, day: day) == ordinal
            else {
                Issue.record("\(year)-\(month)-\(day) and ordinal \(ordinal) disagree: \(computed)")
                return
            }
        }
    }

    @Test func ordersByDate() throws {
        let days = ["2026-11-02", "2025-12-31", "2026-01-10", "2026-01-09"].compactMap { CalendarDay(text: $0) }
        #expect(days.sorted().map(\.text) == ["2025-12-31", "2026-01-09", "2026-01-10", "2026-11-02"])
    }
}
