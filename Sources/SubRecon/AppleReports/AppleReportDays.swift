import SubReconModel
import SubReconStore

/// The days of Apple's report stored in a window (`apple_report_days`).
public enum AppleReportDays {
    public typealias Stored = StoredAppleReportDay

    /// The days in `[since, until)`, oldest first (every stored day when both are nil).
    static func read(_ db: any SnapshotQuerying, since: CalendarDay?, until: CalendarDay?) async throws -> [Stored] {
        try await db.appleReportDays(since: since, until: until)
    }
}
