import SubReconModel

/// What App Store Connect answered for one day's Summary Sales Report.
public enum SalesReportDownload: Sendable, Equatable {
    /// The report file as sent (gzip), and the version it was asked with.
    case report(bytes: [UInt8], version: String)
    /// 404 "There were no sales for the date specified.": a day with nothing to report.
    case noSales(version: String)
    /// 404 "Report is not available yet": Apple publishes a day the next morning (Pacific time).
    case notYetAvailable
    /// 410: past Apple's retention (about a year for daily reports); it will never come.
    case noLongerAvailable
}
