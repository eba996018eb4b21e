import SubReconModel

/// What narrows a report: the run (`--run`), a time window (`--since`, `--until`), the look-ahead
/// of `expiring` (`--within`), and "now". Built from the command line by ``parse(kind:runID:since:until:within:nowMs:)``,
/// which refuses values a kind does not use, so a typo never silently widens a report.
public struct ReportOptions: Sendable, Equatable {
    /// `run-items` and `changes`: the run; nil means the latest nightly run.
    public var runID: Int64?
    /// Inclusive lower bound, epoch milliseconds (`runs`: started_at; `changes`: the run's
    /// started_at; `unrecorded`: first_seen_at).
    public var sinceMs: Int64?
    /// Exclusive upper bound, same times as ``sinceMs``: consecutive windows never overlap.
    public var untilMs: Int64?
    /// `expiring`: how far ahead of ``nowMs`` to look.
    public var withinMs: Int64
    /// The time `expiring` counts from (the wall clock in the CLI, the test clock in tests).
    public var nowMs: Int64
    /// `revenue`, `metrics` and `dashboard`: the money reports' window, granularity and environment.
    public var money: MoneyReportOptions?
    /// `apple-parity`: Pacific-time days `[since, until)` (nil: every day with a stored Apple
    /// report) and how many days apart a difference may cancel (the day boundary).
    public var paritySince: CalendarDay?
    public var parityUntil: CalendarDay?
    public var toleranceDays: Int = ReportOptions.defaultToleranceDays
    /// The `bundle_id` column of a row that names no app: the single app's bundle ID when one is
    /// configured (SUBRECON_BUNDLE_ID, or an apps file listing one app), else empty.
    public var defaultBundleID: String?
    /// `unrecorded --all`: every period a run found first, the history the receipt itself carried
    /// included; by default only the lost orders (`purchased_after_import = true`).
    public var everyFoundPeriod = false
    /// `--app`, repeated: only these apps' rows; empty means every app.
    public var apps: [String] = []
    /// The apps file's `products`, each product's app: with `--app`, which app a line of Apple's
    /// sales report belongs to when the ledger has not seen its product.
    public var productApps: [String: String] = [:]

    /// `events`: only events of this type (`--type`).
    public var eventType: String?
    /// `events`: the apps the running command has a webhook endpoint for (nil: every app, a
    /// single-app endpoint); a pending event of another app shows an empty `delivery_state`.
    public var webhookApps: Set<String>? = []

    /// Whether a row of `bundleID` (nil: names no app) belongs in the report.
    func includes(bundleID: String?) -> Bool {
        apps.isEmpty || (bundleID ?? defaultBundleID).map(apps.contains) == true
    }

    public static let defaultToleranceDays = 1

    /// `--type`: only `events` takes it, and only a type of the vocabulary.
    public mutating func selectEventType(_ type: String, kind: ReportKind) throws(ReportError) {
        guard kind == .events else {
            throw .invalidOption("--type applies only to events, not to \(kind.rawValue)")
        }
        guard EventType(rawValue: type) != nil else {
            throw .invalidOption(
                "--type \(type) is not an event type; one of: \(EventType.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        eventType = type
    }

    /// `--all`: only `unrecorded` takes it (`run` and `parity` have their own).
    public mutating func listEveryFoundPeriod(kind: ReportKind) throws(ReportError) {
        guard kind == .unrecorded else {
            throw .invalidOption("--all applies only to unrecorded (every period a run found first), not to \(kind.rawValue)")
        }
        everyFoundPeriod = true
    }

    /// `expiring`'s default look-ahead: a week, the usual lead time for a "your subscription
    /// ends soon" message or a revenue forecast.
    public static let defaultWithinMs: Int64 = 7 * 86_400_000
    /// The forms `--within` accepts, for help and error messages.
    public static let acceptedDurations = "a whole number followed by d (days), h (hours) or m (minutes), e.g. 7d, 36h, 90m"

    public init(runID: Int64? = nil, sinceMs: Int64? = nil, untilMs: Int64? = nil,
                withinMs: Int64 = ReportOptions.defaultWithinMs, nowMs: Int64 = 0)
    {
        self.runID = runID
        self.sinceMs = sinceMs
        self.untilMs = untilMs
        self.withinMs = withinMs
        self.nowMs = nowMs
    }

    /// Checks and converts the command-line values for `kind`.
    /// Throws ``ReportError/invalidOption(_:)`` with a sentence naming the flag and what it accepts.
    public static func parse(
        kind: ReportKind, runID: Int64?, since: String?, until: String?, within: String?, by: String? = nil,
        environment: String? = nil, toleranceDays: Int? = nil, nowMs: Int64
    ) throws(ReportError) -> ReportOptions {
        if toleranceDays != nil, kind != .appleParity {
            throw .invalidOption("--tolerance-days applies only to apple-parity, not to \(kind.rawValue)")
        }
        if kind == .appleParity {
            return try parityOptions(
                runID: runID, since: since, until: until, within: within, by: by, environment: environment,
                toleranceDays: toleranceDays, nowMs: nowMs)
        }
        if by != nil || environment != nil, !kind.takesMoneyOptions {
            throw .invalidOption("--by and --environment apply only to \(kinds(where: \.takesMoneyOptions)), not to \(kind.rawValue)")
        }
        if kind.takesMoneyOptions || kind == .dashboard {
            if runID != nil { throw .invalidOption("--run applies only to \(kinds(where: \.takesRun)), not to \(kind.rawValue)") }
            if within != nil { throw .invalidOption("--within applies only to \(kinds(where: \.takesWithin)), not to \(kind.rawValue)") }
            var options = ReportOptions(nowMs: nowMs)
            if kind == .dashboard {
                if until != nil { throw .invalidOption("the dashboard takes --since only: it runs up to now") }
                // Any date: the dashboard's monthly figures start with the month holding it.
                var money = try MoneyReportOptions.parse(by: "day", since: since, until: nil, environment: nil, nowMs: nowMs)
                money.granularity = .month
                money.sinceMs = money.sinceMs.map { ReportPeriod(holding: $0, granularity: .month).startMs }
                options.sinceMs = try since.map { text throws(ReportError) in try time(text, flag: "--since") }
                options.money = money
            } else {
                options.money = try MoneyReportOptions.parse(
                    by: by, since: since, until: until, environment: environment, nowMs: nowMs)
            }
            return options
        }
        if runID != nil, !kind.takesRun {
            throw .invalidOption("--run applies only to \(kinds(where: \.takesRun)), not to \(kind.rawValue)")
        }
        if since != nil || until != nil, !kind.takesTimeWindow {
            throw .invalidOption("--since and --until apply only to \(kinds(where: \.takesTimeWindow)), not to \(kind.rawValue)")
        }
        if within != nil, !kind.takesWithin {
            throw .invalidOption("--within applies only to \(kinds(where: \.takesWithin)), not to \(kind.rawValue)")
        }
        if runID != nil, since != nil || until != nil {
            throw .invalidOption("--run names one run; --since/--until select runs by start time: give one or the other")
        }
        if let runID, runID < 1 { throw .invalidOption("--run must be a run id (1 or more), not \(runID)") }
        var options = ReportOptions(runID: runID, nowMs: nowMs)
        options.sinceMs = try since.map { text throws(ReportError) in try time(text, flag: "--since") }
        options.untilMs = try until.map { text throws(ReportError) in try time(text, flag: "--until") }
        if let sinceMs = options.sinceMs, let untilMs = options.untilMs, untilMs <= sinceMs {
            throw .invalidOption("--until (\(until ?? "")) must be later than --since (\(since ?? ""))")
        }
        if let within { options.withinMs = try duration(within) }
        return options
    }

    /// `apple-parity`'s options: dates (Pacific-time days) and the tolerance.
    private static func parityOptions(
        runID: Int64?, since: String?, until: String?, within: String?, by: String?, environment: String?,
        toleranceDays: Int?, nowMs: Int64
    ) throws(ReportError) -> ReportOptions {
        if runID != nil || within != nil || by != nil || environment != nil {
            throw .invalidOption("apple-parity takes --since, --until and --tolerance-days only (it compares Production)")
        }
        var options = ReportOptions(nowMs: nowMs)
        func day(_ text: String, _ flag: String) throws(ReportError) -> CalendarDay {
            guard let day = CalendarDay(text: text) else {
                throw .invalidOption("\(flag) must be a date YYYY-MM-DD (a Pacific-time day), not \"\(text.prefix(40))\"")
            }
            return day
        }
        options.paritySince = try since.map { text throws(ReportError) in try day(text, "--since") }
        options.parityUntil = try until.map { text throws(ReportError) in try day(text, "--until") }
        if let start = options.paritySince, let end = options.parityUntil, end <= start {
            throw .invalidOption("--until (\(end.text)) must be later than --since (\(start.text))")
        }
        if let toleranceDays {
            guard (0...31).contains(toleranceDays) else {
                throw .invalidOption("--tolerance-days must be a whole number of days from 0 to 31, not \(toleranceDays)")
            }
            options.toleranceDays = toleranceDays
        }
        return options
    }

    /// `7d`, `36h`, `90m` → milliseconds; nil for anything else (zero, negative, other units, overflow).
    public static func durationMs(_ text: String) -> Int64? {
        guard let unit = text.last, text.count >= 2 else { return nil }
        let digits = text.dropLast()
        // Digits only: Int64("+7") would accept a sign, and a duration has none.
        guard digits.allSatisfy({ $0.isASCII && $0.isNumber }), let count = Int64(digits), count > 0 else { return nil }
        let unitMs: Int64
        switch unit {
        case "d": unitMs = 86_400_000
        case "h": unitMs = 3_600_000
        case "m": unitMs = 60_000
        default: return nil
        }
        let (ms, overflow) = count.multipliedReportingOverflow(by: unitMs)
        return overflow ? nil : ms
    }

    private static func duration(_ text: String) throws(ReportError) -> Int64 {
        guard let ms = durationMs(text) else {
            throw .invalidOption("--within must be \(acceptedDurations); not \"\(text)\"")
        }
        return ms
    }

    private static func time(_ text: String, flag: String) throws(ReportError) -> Int64 {
        guard let ms = ISO8601.milliseconds(from: text) else {
            throw .invalidOption("\(flag) must be an ISO 8601 date or date-time in UTC: \(ISO8601.acceptedForms); not \"\(text)\"")
        }
        return ms
    }

    private static func kinds(where applies: (ReportKind) -> Bool) -> String {
        let names = ReportKind.allCases.filter(applies).map(\.rawValue)
        return names.count <= 1 ? names.joined() : names.dropLast().joined(separator: ", ") + " and " + (names.last ?? "")
    }
}
