import SubReconModel

/// The lines `apple-reports fetch|import` print, one per day, and the fetch's summary.
public enum AppleReportLines {
    public static func text(_ outcome: AppleReportFetcher.DayOutcome) -> String {
        switch outcome {
        case .stored(let result, let rows):
            "stored \(rows) row\(rows == 1 ? "" : "s") " + describe(result)
        case .noSales(let result):
            "no sales that day (Apple said so) " + describe(result)
        case .notYetAvailable:
            "not published yet: skipped (Apple publishes a day the morning after, ~08:00 Pacific)"
        case .noLongerAvailable:
            "no longer available at Apple (past its retention of about a year): skipped"
        case .kept:
            "stored earlier and final: kept"
        case .failed(let reason):
            "NOT stored: \(reason)"
        }
    }

    private static func describe(_ result: AppleReportStoreResult) -> String {
        switch result {
        case .new: "(new)"
        case .replaced(changed: true): "(replaced an earlier copy: Apple reissued it)"
        case .replaced(changed: false): "(replaced an identical earlier copy)"
        }
    }

    public static func summary(_ outcome: AppleReportFetcher.Outcome, window: AppleReportWindow) -> String {
        var stored = 0, noSales = 0, notYet = 0, kept = 0, failed = 0
        for (_, day) in outcome.days {
            switch day {
            case .stored: stored += 1
            case .noSales: noSales += 1
            case .notYetAvailable, .noLongerAvailable: notYet += 1
            case .kept: kept += 1
            case .failed: failed += 1
            }
        }
        let asked = window.days.count
        let notReached = asked - outcome.days.count
        var parts = ["\(stored) stored", "\(noSales) without sales", "\(notYet) not available", "\(kept) kept"]
        if failed > 0 { parts.append("\(failed) failed") }
        if notReached > 0 { parts.append("\(notReached) not reached") }
        return "Apple's reports \(window.since.text) to \(window.until.adding(days: -1).text) (\(asked) days): " + parts.joined(separator: ", ")
    }
}
