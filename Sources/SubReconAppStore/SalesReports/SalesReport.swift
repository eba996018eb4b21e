import SubReconModel

/// One parsed daily Summary Sales Report (`SALES`/`SUMMARY`/`DAILY`): its day and its rows.
public struct SalesReport: Sendable, Equatable {
    /// The rows' Begin Date (= End Date): the Pacific-time day the report covers.
    public var day: CalendarDay
    public var rows: [SalesReportRow]

    public init(day: CalendarDay, rows: [SalesReportRow]) {
        self.day = day
        self.rows = rows
    }
}
