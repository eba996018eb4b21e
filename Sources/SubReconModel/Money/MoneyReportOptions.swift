/// What narrows `report revenue` and `report metrics`: `--by`, the `--since`/`--until` window,
/// `--environment`, and "now". Built from the command line by
/// ``parse(by:since:until:environment:nowMs:)``, which refuses anything else.
public struct MoneyReportOptions: Sendable, Equatable {
    /// The environments `--environment` accepts, spelled as Apple spells them.
    public static let environments = ["Production", "Sandbox"]

    public var granularity: ReportGranularity
    /// Inclusive lower bound: the start of a period (a month's first day, or a day), epoch ms.
    public var sinceMs: Int64?
    /// Exclusive upper bound: the start of a period, epoch ms.
    public var untilMs: Int64?
    /// `Production` (the default) or `Sandbox`.
    public var environment: String
    /// When the report runs: the end of the window when `--until` is not given, and the instant
    /// `metrics` measures its current, unfinished period at.
    public var nowMs: Int64

    public init(granularity: ReportGranularity = .month, sinceMs: Int64? = nil, untilMs: Int64? = nil,
                environment: String = "Production", nowMs: Int64)
    {
        self.granularity = granularity
        self.sinceMs = sinceMs
        self.untilMs = untilMs
        self.environment = environment
        self.nowMs = nowMs
    }

    /// The period holding ``nowMs``: the last one either report covers.
    package var currentPeriod: ReportPeriod { ReportPeriod(holding: nowMs, granularity: granularity) }

    /// The instants a report counts, `[lower, upper)`: `--since` (else no lower bound) up to
    /// `--until` or, without it, the end of the current period ("to the current one").
    package var windowMs: (lower: Int64, upper: Int64) {
        (sinceMs ?? .min, untilMs ?? currentPeriod.endMs)
    }

    /// Checks and converts the command-line values (nil: the flag was not given).
    /// Throws ``ReportError/invalidOption(_:)`` with a sentence naming the flag and what it accepts.
    public static func parse(
        by: String?, since: String?, until: String?, environment: String?, nowMs: Int64
    ) throws(ReportError) -> MoneyReportOptions {
        let granularity: ReportGranularity
        switch by {
        case nil: granularity = .month
        case let text?:
            guard let parsed = ReportGranularity(rawValue: text) else {
                throw .invalidOption("--by must be month (UTC calendar months, the default) or day (UTC days); not \"\(text)\"")
            }
            granularity = parsed
        }
        var options = MoneyReportOptions(granularity: granularity, nowMs: nowMs)
        options.sinceMs = try since.map { text throws(ReportError) in try boundary(text, flag: "--since", granularity) }
        options.untilMs = try until.map { text throws(ReportError) in try boundary(text, flag: "--until", granularity) }
        if let sinceMs = options.sinceMs, let untilMs = options.untilMs, untilMs <= sinceMs {
            throw .invalidOption("--until (\(until ?? "")) must be later than --since (\(since ?? ""))")
        }
        if let environment {
            guard let parsed = ReceiptEnvironment(flag: environment) else {
                throw .invalidOption(ReceiptEnvironment.flagProblem(environment))
            }
            options.environment = parsed.rawValue
        }
        return options
    }

    /// A period boundary: a plain date `YYYY-MM-DD` (a real one), and with `--by month` the first
    /// day of a month. A date-time is refused: periods are whole UTC days or months, so a time of
    /// day would silently widen or narrow the first period.
    private static func boundary(_ text: String, flag: String, _ granularity: ReportGranularity) throws(ReportError) -> Int64 {
        let bytes = Array(text.utf8)
        // ISO8601 accepts date-times too; a plain date is exactly 10 bytes.
        guard bytes.count == 10, let ms = ISO8601.milliseconds(from: text) else {
            switch granularity {
            case .month: throw .invalidOption("\(flag) must be the first day of a month, such as 2026-11-01 (with --by month); not \"\(text)\"")
            case .day: throw .invalidOption("\(flag) must be a date such as 2026-11-26 (with --by day); not \"\(text)\"")
            }
        }
        if granularity == .month, bytes[8] != UInt8(ascii: "0") || bytes[9] != UInt8(ascii: "1") {
            throw .invalidOption("\(flag) must be the first day of a month, such as 2026-11-01, with --by month (or use --by day); not \"\(text)\"")
        }
        return ms
    }
}
