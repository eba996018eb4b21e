@testable import SubReconModel
import Testing

@Suite("ReportPeriod")
struct ReportPeriodTests {
    typealias F = LedgerFixture

    @Test("the period holding an instant, its label and its bounds", arguments: [
        ("2026-11-26T10:00Z", ReportGranularity.month, "2026-11", "2026-11-01", "2026-12-01"),
        ("2026-11-01", .month, "2026-11", "2026-11-01", "2026-12-01"),
        ("2026-11-30T23:59:59.999Z", .month, "2026-11", "2026-11-01", "2026-12-01"),
        ("2026-12-31T12:00Z", .month, "2026-12", "2026-12-01", "2027-01-01"),
        ("2024-02-29T12:00Z", .month, "2024-02", "2024-02-01", "2024-03-01"),
        ("1969-12-31T23:59:59.999Z", .month, "1969-12", "1969-12-01", "1970-01-01"),
        ("1970-01-01", .month, "1970-01", "1970-01-01", "1970-02-01"),
        ("2026-11-26T10:00Z", .day, "2026-11-26", "2026-11-26", "2026-11-27"),
        ("2026-11-26", .day, "2026-11-26", "2026-11-26", "2026-11-27"),
        ("2026-11-26T23:59:59.999Z", .day, "2026-11-26", "2026-11-26", "2026-11-27"),
        ("2024-02-28T01:00Z", .day, "2024-02-28", "2024-02-28", "2024-02-29"),
        ("2024-02-29T01:00Z", .day, "2024-02-29", "2024-02-29", "2024-03-01"),
        ("2026-12-31T01:00Z", .day, "2026-12-31", "2026-12-31", "2027-01-01"),
        ("1969-12-31T23:59:59.999Z", .day, "1969-12-31", "1969-12-31", "1970-01-01"),
    ])
    func holding(instant: String, granularity: ReportGranularity, label: String, start: String, end: String) {
        let period = ReportPeriod(holding: F.ms(instant), granularity: granularity)
        #expect(period.label == label)
        #expect(period.startMs == F.ms(start))
        #expect(period.endMs == F.ms(end))
        #expect(period.next.startMs == period.endMs)
        #expect(period.next.previous == period)
    }

    @Test(arguments: ReportGranularity.allCases)
    func periodsTileTheTimeline(granularity: ReportGranularity) {
        // From 1900 to 2100, every period starts where the previous ended, holds its own first
        // and last millisecond, and labels increase bytewise.
        var period = ReportPeriod(holding: F.ms("1900-01-01"), granularity: granularity)
        let end = F.ms("2100-01-01")
        var previousLabel = ""
        while period.startMs < end {
            #expect(ReportPeriod(holding: period.startMs, granularity: granularity) == period)
            #expect(ReportPeriod(holding: period.endMs - 1, granularity: granularity) == period)
            #expect(previousLabel.utf8.lexicographicallyPrecedes(period.label.utf8))
            #expect(period.endMs > period.startMs)
            previousLabel = period.label
            period = period.next
        }
        #expect(period.label == (granularity == .month ? "2100-01" : "2100-01-01"))
    }
}
