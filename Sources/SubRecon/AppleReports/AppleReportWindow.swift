import SubReconModel

/// The Pacific-time days `apple-reports fetch` asks for: `[since, until)`, by default the last
/// seven complete days. A day that has not ended cannot have a report, so `until` may not pass
/// today (Pacific).
public struct AppleReportWindow: Sendable, Equatable {
    public var since: CalendarDay
    public var until: CalendarDay

    /// How many days back a window reaches by default: Apple reissues recent reports, so cron
    /// fetches the last week every day.
    public static let defaultDays: Int64 = 7
    /// Apple keeps daily reports for about a year.
    public static let longestDays: Int64 = 400

    public var days: [CalendarDay] {
        stride(from: 0, to: until.ordinal - since.ordinal, by: 1).map { since.adding(days: $0) }
    }

    /// - Parameters: `since`/`until`: `YYYY-MM-DD` texts from the flags, or nil for the default.
    public static func parse(since: String?, until: String?, nowMs: Int64) throws(AppleReportWindowError) -> AppleReportWindow {
        let today: CalendarDay
        do { today = try PacificTime().day(ofMs: nowMs) } catch { throw .noTimeZone(error.description) }
        func day(_ text: String, _ flag: String) throws(AppleReportWindowError) -> CalendarDay {
            guard let day = CalendarDay(text: text) else { throw .notADate(flag: flag, text: text) }
            return day
        }
        let end = try until.map { text throws(AppleReportWindowError) in try day(text, "--until") } ?? today
        let start = try since.map { text throws(AppleReportWindowError) in try day(text, "--since") } ?? end.adding(days: -defaultDays)
        guard end <= today else { throw .future(until: end, today: today) }
        guard start < end else { throw .empty(since: start, until: end) }
        guard end.ordinal - start.ordinal <= longestDays else { throw .tooLong(days: end.ordinal - start.ordinal) }
        return AppleReportWindow(since: start, until: end)
    }
}

/// A window the flags cannot mean (exit 2).
public enum AppleReportWindowError: OperatorFacingError, Sendable, Equatable {
    public var exitStatus: ExitStatus { .configuration }

    case notADate(flag: String, text: String)
    case future(until: CalendarDay, today: CalendarDay)
    case empty(since: CalendarDay, until: CalendarDay)
    case tooLong(days: Int64)
    case noTimeZone(String)

    public var description: String {
        switch self {
        case .notADate(let flag, let text):
            "\(flag) must be a date YYYY-MM-DD (a Pacific-time day), not \"\(text.prefix(40))\""
        case .future(let until, let today):
            "--until \(until.text) is in the future: today is \(today.text) in Pacific time, and Apple publishes a day's "
                + "report the morning after it ends (--until is exclusive: --until \(today.text) fetches up to yesterday)"
        case .empty(let since, let until):
            "--since \(since.text) must come before --until \(until.text) (--since is inclusive, --until exclusive)"
        case .tooLong(let days):
            "the window holds \(days) days; Apple keeps daily reports for about a year, so at most \(AppleReportWindow.longestDays) are fetched at once"
        case .noTimeZone(let reason):
            reason
        }
    }
}
