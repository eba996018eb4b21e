import SubReconModel

/// The summary of `report apple-parity` (stderr, the dashboard, the exit code).
public struct SalesParitySummary: Sendable, Equatable {
    /// A compared day and the units on it no shift explains.
    public struct Day: Sendable, Equatable {
        public var day: CalendarDay
        public var unexplainedUnits: Int64
    }

    /// Days with an Apple report stored, in the window.
    public var daysCompared: Int
    public var firstDay: CalendarDay?
    public var lastDay: CalendarDay?
    /// Billed periods both sides agree on: Σ over billed rows of min(apple, ledger), plus the
    /// billed units a shift explains (counted once, on the side where Apple had more).
    public var billedPeriodsMatched: Int64
    /// Units Apple billed that the ledger never recorded: the part of `missing_in_ledger` billed
    /// rows' differences no shift explains.
    public var lostOrders: Int64
    /// Rows that are neither `match` nor `shifted`.
    public var rowsNotMatched: Int
    /// Days ordered by their unexplained units, most first (the earlier on a tie); days with none
    /// left out.
    public var worstDays: [Day]

    /// Exit 0 when every row is `match` or `shifted`.
    public var allExplained: Bool { rowsNotMatched == 0 }
    public var exitCode: Int32 { (allExplained ? ExitStatus.success : .incomplete).rawValue }

    public init(rows: [SalesParityRow], comparedDays: Set<CalendarDay>, worstDayLimit: Int = 5) {
        daysCompared = comparedDays.count
        firstDay = comparedDays.min()
        lastDay = comparedDays.max()
        var matched: Int64 = 0
        var lost: Int64 = 0
        var notMatched = 0
        var unexplainedByDay: [CalendarDay: Int64] = [:]
        for row in rows {
            if row.key.kind == .billed {
                matched += min(row.appleUnits, row.ledgerUnits)
                if row.difference > 0 { matched += row.shiftedUnits }
                if row.status == .missingInLedger { lost += row.unexplainedUnits }
            }
            if row.status == .missingInLedger || row.status == .missingAtApple {
                notMatched += 1
                unexplainedByDay[row.key.day, default: 0] += row.unexplainedUnits
            }
        }
        billedPeriodsMatched = matched
        lostOrders = lost
        rowsNotMatched = notMatched
        worstDays = unexplainedByDay.filter { $0.value > 0 }
            .map { Day(day: $0.key, unexplainedUnits: $0.value) }
            .sorted { $0.unexplainedUnits != $1.unexplainedUnits ? $0.unexplainedUnits > $1.unexplainedUnits : $0.day < $1.day }
            .prefix(max(0, worstDayLimit)).map { $0 }
    }
}
