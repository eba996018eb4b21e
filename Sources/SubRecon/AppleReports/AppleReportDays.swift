import SubReconModel
import SubReconStore

/// The days of Apple's report stored in a window (`apple_report_days`).
public struct AppleReportDays: Sendable {
    public struct Stored: Sendable, Equatable {
        public var day: CalendarDay
        public var source: String
        public var sha256: String
        public var rowCount: Int64
        public var noSales: Bool
        public var storedAtMs: Int64
    }

    /// The days in `[since, until)`, oldest first (every stored day when both are nil).
    static func read(_ db: any SnapshotQuerying, since: CalendarDay?, until: CalendarDay?) async throws -> [Stored] {
        try await db.all(SchemaSQL.appleReportDays, bounds(since: since, until: until)) { row in
            let text = try row.requiredText("day")
            guard let day = CalendarDay(text: text) else {
                throw StoreError.failed(operation: "reading Apple's report days", reason: "day \(text) is not a date")
            }
            return Stored(
                day: day, source: try row.requiredText("source"), sha256: try row.requiredText("sha256"),
                rowCount: try row.requiredInteger("row_count"), noSales: try row.flag("no_sales") ?? false,
                storedAtMs: try row.requiredInteger("stored_at"))
        }
    }

    /// `[since, until)` as the queries' two parameters; nil reaches every day (dates compare as text).
    static func bounds(since: CalendarDay?, until: CalendarDay?) -> [SQLArgument] {
        [.text(since?.text ?? "0000-00-00"), .text(until?.text ?? "9999-99-99")]
    }
}
