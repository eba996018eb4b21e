@testable import SubReconModel
import Testing

@Suite("MoneyReportOptions")
struct MoneyReportOptionsTests {
    typealias F = LedgerFixture
    static let now = LedgerFixture.ms("2026-11-26T12:00Z")

    @Test func defaultsAreMonthlyProductionWithOpenEnds() throws {
        let options = try MoneyReportOptions.parse(by: nil, since: nil, until: nil, environment: nil, nowMs: Self.now)
        #expect(options == MoneyReportOptions(granularity: .month, sinceMs: nil, untilMs: nil, environment: "Production", nowMs: Self.now))
        // With no --until the window ends with the current period.
        #expect(options.windowMs.upper == F.ms("2026-12-01"))
        #expect(options.windowMs.lower == Int64.min)
    }

    @Test("accepted values", arguments: [
        ("month", "2026-11-01", "2027-01-01", "Sandbox"),
        ("month", "2026-11-01", nil, nil),
        ("month", nil, "2026-11-01", "Production"),
        ("day", "2026-11-15", "2026-11-26", nil),
        ("day", "2024-02-29", nil, nil),
        (nil, "2025-12-01", "2026-01-01", nil),
    ] as [(String?, String?, String?, String?)])
    func accepted(by: String?, since: String?, until: String?, environment: String?) throws {
        let options = try MoneyReportOptions.parse(by: by, since: since, until: until, environment: environment, nowMs: Self.now)
        #expect(options.granularity == (by == "day" ? .day : .month))
        #expect(options.sinceMs == since.map(F.ms))
        #expect(options.untilMs == until.map(F.ms))
        #expect(options.environment == environment ?? "Production")
        #expect(options.nowMs == Self.now)
    }

    @Test("refused values, with a sentence naming the flag and what it accepts", arguments: [
        ("week", nil, nil, nil, "--by must be month"),
        ("Month", nil, nil, nil, "--by must be month"),
        ("", nil, nil, nil, "--by must be month"),
        ("month", "2026-11-15", nil, nil, "--since must be the first day of a month"),
        (nil, nil, "2026-11-15", nil, "--until must be the first day of a month"),
        ("month", "2026-11", nil, nil, "--since must be the first day of a month"),
        ("month", "2026-11-01T00:00Z", nil, nil, "--since must be the first day of a month"),
        ("month", "2026-13-01", nil, nil, "--since must be the first day of a month"),
        ("day", "2026-02-30", nil, nil, "--since must be a date such as 2026-11-26"),
        ("day", "2025-02-29", nil, nil, "--since must be a date"),
        ("day", "2026-11-26T10:00Z", nil, nil, "--since must be a date"),
        ("day", "26-11-2026", nil, nil, "--since must be a date"),
        ("day", nil, "2026-11-31", nil, "--until must be a date"),
        ("month", "2026-11-01", "2026-11-01", nil, "--until (2026-11-01) must be later than --since (2026-11-01)"),
        ("month", "2026-12-01", "2026-11-01", nil, "--until (2026-11-01) must be later than --since (2026-12-01)"),
        ("day", "2026-11-26", "2026-11-25", nil, "must be later than --since"),
        // Either case is accepted (issue 34); anything else is named in the sentence.
        (nil, nil, nil, "prod", "--environment must be Production (the default) or Sandbox, in either case; not \"prod\""),
        (nil, nil, nil, "Xcode", "--environment must be Production"),
        (nil, nil, nil, "", "--environment must be Production"),
    ] as [(String?, String?, String?, String?, String)])
    func refused(by: String?, since: String?, until: String?, environment: String?, message: String) {
        do {
            let options = try MoneyReportOptions.parse(by: by, since: since, until: until, environment: environment, nowMs: Self.now)
            Issue.record("accepted: \(options)")
        } catch {
            guard case .invalidOption(let sentence) = error else {
                Issue.record("wrong error \(error)")
                return
            }
            #expect(sentence.contains(message), "\(sentence)")
        }
    }

    @Test func byMessageSaysWhatIsAccepted() {
        #expect(throws: ReportError.self) {
            try MoneyReportOptions.parse(by: "year", since: nil, until: nil, environment: nil, nowMs: 0)
        }
        do {
            _ = try MoneyReportOptions.parse(by: "year", since: nil, until: nil, environment: nil, nowMs: 0)
        } catch {
            #expect(error.description == "--by must be month (UTC calendar months, the default) or day (UTC days); not \"year\"")
        }
    }

    @Test(arguments: ["Sandbox", "sandbox", "SANDBOX"]) func environmentTakesEitherCase(spelling: String) throws {
        let options = try MoneyReportOptions.parse(by: nil, since: nil, until: nil, environment: spelling, nowMs: Self.now)
        #expect(options.environment == "Sandbox")
    }
}
