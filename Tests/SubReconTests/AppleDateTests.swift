import Testing

@testable import SubReconAppStore

/// verifyReceipt's `yyyy-MM-dd HH:mm:ss Etc/GMT` dates, read through the model's day arithmetic
/// (`CalendarDay`): real days only, leap days by the Gregorian rule.
@Suite struct AppleDateTests {
    @Test func gmtDatesAtTheCalendarsEdges() {
        #expect(AppleDate.milliseconds(fromGMT: "1970-01-01 00:00:00 Etc/GMT") == 0)
        #expect(AppleDate.milliseconds(fromGMT: "2020-06-09 17:28:31 Etc/GMT") == 1_591_723_711_000)
        #expect(AppleDate.milliseconds(fromGMT: "2024-02-29 00:00:00 Etc/GMT") == 1_709_164_800_000)
        #expect(AppleDate.milliseconds(fromGMT: "2100-03-01 00:00:00 Etc/GMT") == 4_107_542_400_000)
        #expect(AppleDate.milliseconds(fromGMT: "2100-02-29 00:00:00 Etc/GMT") == nil)
        #expect(AppleDate.milliseconds(fromGMT: "2023-02-29 00:00:00 Etc/GMT") == nil)
        #expect(AppleDate.milliseconds(fromGMT: "2026-04-31 00:00:00 Etc/GMT") == nil)
        #expect(AppleDate.milliseconds(fromGMT: "1969-12-31 23:59:59 Etc/GMT") == nil)
    }
}
