import SubReconModel
import SubReconStore

/// `report apple-parity`: the ledger matched against Apple's stored Summary Sales Reports, from one
/// read snapshot. Only days with a stored Apple report are compared.
enum AppleParityReport {
    static func outcome(_ db: any SnapshotQuerying, options: ReportOptions) async throws -> AppleParityOutcome {
        let pacific = try PacificTime()
        let stored = try await AppleReportDays.read(db, since: options.paritySince, until: options.parityUntil)
        let compared = Set(stored.map(\.day))
        // With `--app`: the ledger's periods of those apps, and Apple's lines of their products
        // (a product's app: the apps file's `products`, else the app of the ledger's periods of
        // it; Apple makes product IDs unique across a developer's apps).
        let narrowed = !options.apps.isEmpty
        let appOf = narrowed ? try await db.subscriptionApps() : [:]
        var productApp = options.productApps
        var ledger = SalesParityTally()
        if !compared.isEmpty {
            try await db.forEachLedgerRow(environment: "Production", withParityColumns: true) { _, entry in
                if narrowed {
                    let app = appOf[entry.originalTransactionID] ?? options.defaultBundleID
                    if let app, productApp[entry.productID] == nil { productApp[entry.productID] = app }
                    guard options.includes(bundleID: app) else { return }
                }
                ledger.add(entry, pacificTime: pacific, days: compared)
            }
        }
        var apple = SalesParityTally()
        try await db.forEachAppleReportRow(since: options.paritySince, until: options.parityUntil) { day, row in
            if narrowed, !options.includes(bundleID: productApp[row.sku] ?? options.defaultBundleID) { return }
            apple.add(row, on: day)
        }
        let rows = SalesParityMatcher.match(
            apple: apple.counts, ledger: ledger.counts, comparedDays: compared, toleranceDays: options.toleranceDays)
        // The window: the flags' bounds, else the first and last stored days (without a window
        // every stored day is compared, and a day missing in between is worth saying).
        var missing: [CalendarDay] = []
        if let since = options.paritySince ?? compared.min(), let until = options.parityUntil ?? compared.max()?.adding(days: 1),
            since < until
        {
            missing = AppleReportWindow(since: since, until: until).days.filter { !compared.contains($0) }
        }
        return AppleParityOutcome(
            rows: rows, summary: SalesParitySummary(rows: rows, comparedDays: compared), daysWithoutReport: missing)
    }
}

/// What `report apple-parity` found: its rows (the CSV), the summary (stderr) and the exit status.
public struct AppleParityOutcome: Sendable {
    public var rows: [SalesParityRow]
    public var summary: SalesParitySummary
    /// Days of the window with no Apple report stored (not compared).
    public var daysWithoutReport: [CalendarDay]

    /// Every row is `match` or `shifted`.
    public var allExplained: Bool { summary.allExplained }

    /// Exit 0 when at least one day was compared and every row is `match` or `shifted`; 1
    /// otherwise (no day compared is no evidence, and cron must hear of it).
    public var exitStatus: ExitStatus { allExplained && summary.daysCompared > 0 ? .success : .incomplete }

    /// One line per lost order (a `missing_in_ledger` billed row): day, product, country, price and
    /// how many, e.g. `2026-11-23 com.example.pro.monthly US 9.99 USD × 1`.
    public var lostOrderLines: [String] {
        rows.filter { $0.status == .missingInLedger && $0.key.kind == .billed }.map { row in
            "\(row.key.day.text) \(row.key.productID) \(row.key.country) "
                + "\(MoneyText.text(milliunits: row.key.priceMilliunits, currency: row.key.currency)) \(row.key.currency) × \(row.difference)"
        }
    }

    /// The summary on stderr: days compared, billed periods matched, lost orders found.
    public var summaryLines: [String] {
        var lines: [String] = []
        if let first = summary.firstDay, let last = summary.lastDay {
            lines.append("apple-parity: \(summary.daysCompared) days compared (\(first.text) to \(last.text), Pacific time)")
        } else {
            lines.append("apple-parity: no day compared: no Apple report is stored for the window (subrecon apple-reports fetch)")
        }
        if !daysWithoutReport.isEmpty {
            let noun = daysWithoutReport.count == 1 ? "day of the window has" : "days of the window have"
            lines.append(
                "  not compared: \(daysWithoutReport.count) \(noun) no Apple report stored: "
                    + Self.spans(daysWithoutReport) + " (subrecon apple-reports fetch --since D --until D)")
        }
        lines.append("  billed periods matched: \(summary.billedPeriodsMatched)")
        lines.append(
            "  lost orders found: \(summary.lostOrders)"
                + (summary.lostOrders > 0 ? " (Apple billed them, the ledger never recorded them: rows missing_in_ledger)" : ""))
        if summary.rowsNotMatched > 0 {
            lines.append("  rows neither match nor shifted: \(summary.rowsNotMatched)")
        }
        return lines
    }

    /// Every day named, runs of consecutive days as `FIRST to LAST`: `2026-10-01 to 2026-10-31, 2026-11-04`.
    static func spans(_ days: [CalendarDay]) -> String {
        var spans: [String] = []
        var index = days.startIndex
        while index < days.endIndex {
            var end = index
            while end + 1 < days.endIndex, days[end + 1].ordinal == days[end].ordinal + 1 { end += 1 }
            spans.append(end == index ? days[index].text : "\(days[index].text) to \(days[end].text)")
            index = end + 1
        }
        return spans.joined(separator: ", ")
    }
}
