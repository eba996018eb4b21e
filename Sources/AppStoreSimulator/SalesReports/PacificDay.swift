import Foundation

/// A calendar day in Pacific time (`America/Los_Angeles`, daylight saving included), the day of
/// Apple's downloaded Sales and Trends reports: a sale belongs to the Pacific date it happened on,
/// whatever its UTC date. Stored as days since 1970-01-01 of the local calendar, so an index keyed
/// by it is cheap.
struct PacificDay: Sendable, Hashable, Comparable {
    /// Days since 1970-01-01 (local civil dates, no time zone).
    let dayNumber: Int64

    init(dayNumber: Int64) {
        self.dayNumber = dayNumber
    }

    /// The Pacific date of the instant `ms`: its UTC time shifted by the zone's offset *at that
    /// instant* (Foundation's tz database: PST −8 h, PDT −7 h).
    init(containing ms: Int64) {
        let seconds = Self.floorDiv(ms, 1000)
        let offset = Int64(Self.zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(seconds))))
        dayNumber = Self.floorDiv(seconds + offset, 86_400)
    }

    /// `YYYY-MM-DD` (`filter[reportDate]` of a daily report); nil for anything else or a date
    /// that does not exist.
    init?(reportDate text: Substring) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let year = Int64(parts[0]), let month = Int64(parts[1]), let day = Int64(parts[2]),
              (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        let number = AppleDateFormat.daysFromCivil(year: year, month: month, day: day)
        // 2026-02-30 would roll into March: not a date.
        guard AppleDateFormat.civilDate(fromDays: number) == (year, month, day) else { return nil }
        dayNumber = number
    }

    static func < (a: Self, b: Self) -> Bool { a.dayNumber < b.dayNumber }

    /// The day after.
    var next: PacificDay { PacificDay(dayNumber: dayNumber + 1) }

    /// `YYYY-MM-DD`.
    var reportDate: String {
        let (year, month, day) = AppleDateFormat.civilDate(fromDays: dayNumber)
        return "\(Self.padded(year, 4))-\(Self.padded(month, 2))-\(Self.padded(day, 2))"
    }

    /// `MM/DD/YYYY`, as the report's Begin Date and End Date.
    var usDate: String {
        let (year, month, day) = AppleDateFormat.civilDate(fromDays: dayNumber)
        return "\(Self.padded(month, 2))/\(Self.padded(day, 2))/\(Self.padded(year, 4))"
    }

    /// The instant this day's `hour` o'clock Pacific time begins. Hours away from the 02:00
    /// daylight-saving switch only (the offset is read a few hours off the true instant).
    func startMs(ofHour hour: Int64) -> Int64 {
        let localSeconds = dayNumber * 86_400 + hour * 3600
        // Standard time's offset gives an instant within an hour of the answer; the zone's offset
        // there is the answer's unless a switch lies in between, which it cannot away from 02:00.
        let guess = localSeconds + 8 * 3600
        let offset = Int64(Self.zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(guess))))
        return (localSeconds - offset) * 1000
    }

    /// When Apple has published this day's daily report: the next day at 08:00 Pacific (Apple's
    /// "generally by 8 a.m. PT").
    var publishedMs: Int64 { next.startMs(ofHour: 8) }

    /// The newest day whose report is published at `nowMs`.
    static func newestPublished(atMs nowMs: Int64) -> PacificDay {
        let yesterday = PacificDay(dayNumber: PacificDay(containing: nowMs).dayNumber - 1)
        return yesterday.publishedMs <= nowMs ? yesterday : PacificDay(dayNumber: yesterday.dayNumber - 1)
    }

    /// Apple's report time zone. tzdata is a dependency of the simulator (setup.sh installs it):
    /// without it there is no correct answer to give.
    static let zone: TimeZone = {
        guard let zone = TimeZone(identifier: "America/Los_Angeles") else {
            fatalError("The time zone America/Los_Angeles is missing: install tzdata")
        }
        return zone
    }()

    private static func padded(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }

    private static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : -((-a + b - 1) / b)
    }
}
