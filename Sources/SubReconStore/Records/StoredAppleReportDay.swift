import SubReconModel

/// A day of Apple's Summary Sales Report as stored (`apple_report_days`).
public struct StoredAppleReportDay: Sendable, Equatable {
    public var day: CalendarDay
    public var source: String
    public var sha256: String
    public var rowCount: Int64
    public var noSales: Bool
    public var storedAtMs: Int64

    init(_ row: any QueryRow) throws {
        let text = try row.requiredText("day")
        guard let day = CalendarDay(text: text) else {
            throw StoreError.failed(operation: "reading Apple's report days", reason: "day \(text) is not a date")
        }
        self.day = day
        source = try row.requiredText("source")
        sha256 = try row.requiredText("sha256")
        rowCount = try row.requiredInteger("row_count")
        noSales = try row.flag("no_sales") ?? false
        storedAtMs = try row.requiredInteger("stored_at")
    }
}
