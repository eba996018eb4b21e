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

    @Test func ordersByDate() throws {
        let days = ["2026-11-02", "2025-12-31", "2026-01-10", "2026-01-09"].compactMap { CalendarDay(text: $0) }
        #expect(days.sorted().map(\.text) == ["2025-12-31", "2026-01-09", "2026-01-10", "2026-11-02"])
    }
}
