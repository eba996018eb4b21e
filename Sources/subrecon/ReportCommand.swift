import ArgumentParser
import Foundation
import SubRecon

/// `subrecon report KIND`
struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Export CSV: " + ReportKind.allCases.map(\.rawValue).joined(separator: ", ") + ".",
        discussion: """
            RFC 4180 CSV, UTF-8, header row. A cell starting with = + - @ tab or CR gets a leading ' \
            so spreadsheets never run it as a formula. --output writes the file atomically (mode 0600). \
            Times are ISO 8601 UTC. --since (inclusive) and --until (exclusive) select runs by \
            started_at, changes by their run's start, unrecorded by first_seen_at.

            Money (revenue, metrics, dashboard): Apple's customer prices, before Apple's commission \
            and taxes, in each customer's currency (never converted); App Store Connect's reports \
            remain the record. --by month (default) or day; --since/--until are first days of \
            months (2026-11-01) with --by month, dates with --by day; --environment Production \
            (default) or Sandbox. See docs/finance.md for every figure's definition.

            Kinds:
            \(kindLines)

            Examples:
              subrecon report subscriptions --output subscriptions.csv
              subrecon report run-items --run 42
              subrecon report changes             # what the latest nightly run changed
              subrecon report changes --since 2026-11-01 --until 2026-12-01
              subrecon report expiring --within 36h
              subrecon report unrecorded --since 2026-11-22T00:00:00Z
              subrecon report revenue --since 2026-01-01 --until 2027-01-01
              subrecon report metrics --by day --since 2026-11-01
              subrecon report dashboard --output dashboard.html
              subrecon report apple-parity --since 2026-11-01 --until 2026-12-01

            apple-parity matches the ledger with Apple's Summary Sales Reports stored by \
            `subrecon apple-reports fetch|import`, per Pacific-time day (--since/--until are dates, \
            --tolerance-days how far apart a sale may be dated on the two sides, default 1); its \
            summary goes to stderr and it exits 1 when a row is neither match nor shifted.
            """)

    /// One line per kind, aligned, for the help text.
    private static var kindLines: String {
        let width = ReportKind.allCases.map(\.rawValue.count).max() ?? 0
        return ReportKind.allCases.map { kind in
            "  " + kind.rawValue.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + kind.summary
        }.joined(separator: "\n")
    }

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The report: \(ReportKind.allCases.map(\.rawValue).joined(separator: ", ")).")
    var kind: ReportKind

    @Option(help: "Write to this file instead of standard output.")
    var output: String?

    @Option(name: .customLong("run"), parsing: .unconditional, help: "For run-items and changes: the run id (default: the latest nightly run).")
    var runID: Int64?

    @Option(help: "For runs (started_at), changes (run start) and unrecorded (first_seen_at): from this ISO 8601 date or date-time, UTC, inclusive.")
    var since: String?

    @Option(help: "Like --since, up to this time, exclusive.")
    var until: String?

    @Option(parsing: .unconditional, help: "For expiring: how far ahead to look, e.g. 7d, 36h, 90m (default 7d).")
    var within: String?

    @Option(help: "For revenue and metrics: month (default) or day.")
    var by: String?

    @Option(help: "For revenue and metrics: Production (default) or Sandbox.")
    var environment: String?

    @Option(parsing: .unconditional, help: "For apple-parity: days apart a difference may cancel as the day boundary (default 1).")
    var toleranceDays: Int?

    @Option(name: .customLong("app"), help: "Only this app's rows (a bundle ID of the apps file); repeat for several (default: every app).")
    var apps: [String] = []

    @Flag(help: "For unrecorded: every period a run found first, not only the lost orders (billed after the receipt was imported).")
    var all = false

    @Option(name: .customLong("type"), help: "For events: only events of this type, e.g. subscription.renewed.")
    var eventType: String?

    func run() async throws {
        var flags = CommandContext.ReportFlags(
            runID: runID, since: since, until: until, within: within, by: by, environment: environment,
            toleranceDays: toleranceDays, apps: apps)
        flags.all = all
        flags.eventType = eventType
        guard let parity = try await global.context().report(kind, flags: flags, outputPath: output) else { return }
        for line in parity.summaryLines { Console.error(line) }
        try CommandEnded.with(parity.exitStatus)
    }
}

extension ReportKind: ExpressibleByArgument {}
