import Foundation
@testable import SubReconModel
import Testing

@Suite("PacificTime")
struct PacificTimeTests {
    static func ms(_ text: String) -> Int64 {
        // ISO 8601 with an offset, e.g. 2026-03-08T01:59:59-08:00.
        let formatter = ISO8601DateFormatter()
        guard let date = formatter.date(from: text) else { fatalError("bad test instant \(text)") }
        return Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    @Test func springForward() throws {
        let pacific = try PacificTime()
        // 2026-03-08 02:00 PST becomes 03:00 PDT.
        #expect(pacific.offsetSeconds(atMs: Self.ms("2026-03-08T09:59:59Z")) == -8 * 3600)
        #expect(pacific.offsetSeconds(atMs: Self.ms("2026-03-08T10:00:00Z")) == -7 * 3600)
        #expect(pacific.day(ofMs: Self.ms("2026-03-08T00:00:00-08:00")).text == "2026-03-08")
        #expect(pacific.day(ofMs: Self.ms("2026-03-08T23:59:59-07:00")).text == "2026-03-08")
        #expect(pacific.day(ofMs: Self.ms("2026-03-09T00:00:00-07:00")).text == "2026-03-09")
        // The DST day has 23 hours.
        let start = pacific.startMs(of: try #require(CalendarDay(text: "2026-03-08")))
        let next = pacific.startMs(of: try #require(CalendarDay(text: "2026-03-09")))
        #expect(start == Self.ms("2026-03-08T00:00:00-08:00"))
        #expect(next - start == 23 * 3_600_000)
    }

    @Test func fallBack() throws {
        let pacific = try PacificTime()
        let start = pacific.startMs(of: try #require(CalendarDay(text: "2026-11-01")))
        let next = pacific.startMs(of: try #require(CalendarDay(text: "2026-11-02")))
        #expect(start == Self.ms("2026-11-01T00:00:00-07:00"))
        #expect(next - start == 25 * 3_600_000)
        #expect(pacific.day(ofMs: Self.ms("2026-11-01T23:59:59-08:00")).text == "2026-11-01")
    }

    @Test func lateEveningIsTheNextUTCDay() throws {
        let pacific = try PacificTime()
        let instant = Self.ms("2026-11-26T23:58:00-08:00")  // 2026-11-27T07:58Z
        #expect(pacific.day(ofMs: instant).text == "2026-11-26")
        #expect(CalendarDay(ordinal: PacificTime.floorDivide(instant, by: PacificTime.dayMs)).text == "2026-11-27")
    }

    @Test func aYearOfHoursAgreesWithFoundation() throws {
        let pacific = try PacificTime()
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "America/Los_Angeles"))
        let start = Self.ms("2026-01-01T00:30:00Z")
        for hour in 0..<(366 * 24) {
            let ms = start + Int64(hour) * 3_600_000
            let parts = calendar.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: Double(ms) / 1000))
            let expected = CalendarDay(year: parts.year ?? 0, month: parts.month ?? 0, day: parts.day ?? 0)
            #expect(pacific.day(ofMs: ms) == expected, "hour \(hour)")
        }
    }

    @Test func outsideTheTableAsksFoundation() throws {
        let pacific = try PacificTime()
        #expect(pacific.day(ofMs: Self.ms("1985-07-01T06:00:00Z")).text == "1985-06-30")
        #expect(pacific.day(ofMs: Self.ms("2150-01-01T07:59:00Z")).text == "2149-12-31")
    }

    @Test func aMissingZoneSaysToInstallTzdata() {
        #expect(throws: PacificTimeError.timeZoneMissing(identifier: "Nowhere/Atlantis")) {
            try PacificTime(identifier: "Nowhere/Atlantis")
        }
        #expect(PacificTimeError.timeZoneMissing(identifier: "X").description.contains("install the tzdata package"))
    }
}
