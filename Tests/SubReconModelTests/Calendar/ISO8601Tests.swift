@testable import SubReconModel
import Testing

/// `ISO8601` formats and parses through `CalendarDay`'s day arithmetic: the calendar edges here.
@Suite("ISO8601")
struct ISO8601Tests {
    @Test func formatsAroundTheEpochAndTheCenturies() {
        #expect(ISO8601.string(fromMilliseconds: 0) == "1970-01-01T00:00:00Z")
        #expect(ISO8601.string(fromMilliseconds: -1) == "1969-12-31T23:59:59Z")
        #expect(ISO8601.string(fromMilliseconds: 951_782_400_000) == "2000-02-29T00:00:00Z")
        #expect(ISO8601.string(fromMilliseconds: 4_107_542_399_000) == "2100-02-28T23:59:59Z")
        #expect(ISO8601.string(fromMilliseconds: 4_107_542_400_000) == "2100-03-01T00:00:00Z")
    }

    @Test func parsesOnlyRealDays() {
        #expect(ISO8601.milliseconds(from: "2000-02-29") == 951_782_400_000)
        #expect(ISO8601.milliseconds(from: "2100-03-01") == 4_107_542_400_000)
        #expect(ISO8601.milliseconds(from: "2100-02-29") == nil)
        #expect(ISO8601.milliseconds(from: "1900-02-29") == nil)
        #expect(ISO8601.milliseconds(from: "2026-04-31") == nil)
        #expect(ISO8601.milliseconds(from: "1969-12-31T23:59:59Z") == -1_000)
        // Year 0000 is a four-digit year like any other (1 BC, proleptic Gregorian).
        #expect(ISO8601.milliseconds(from: "0000-01-01") == -62_167_219_200_000)
    }
}
