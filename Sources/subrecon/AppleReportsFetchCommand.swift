import ArgumentParser
import SubRecon

/// `subrecon apple-reports fetch [--since D] [--until D]`
struct AppleReportsFetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Download Apple's daily Summary Sales Reports (Pacific-time days) and store them.",
        discussion: """
            Asks App Store Connect (GET /v1/salesReports, SALES/SUMMARY/DAILY) for each Pacific-time day \
            of the window, one request at a time, and stores each day's rows in one transaction, replacing \
            an earlier copy (Apple reissues reports). Default window: the last 7 complete days, which cron \
            fetches again every morning after Apple publishes (~08:00 Pacific). A day stored at least 7 days \
            after it ended is kept and not asked for again (--refetch asks anyway), so a long window \
            interrupted half-way resumes where it stopped. A day Apple has not published yet is reported \
            and skipped.

            Needs a team App Store Connect API key with the Sales, Finance or Admin role: \
            SUBRECON_ASC_KEY_FILE, SUBRECON_ASC_KEY_ID, SUBRECON_ASC_ISSUER_ID, SUBRECON_VENDOR_NUMBER.

            Exit codes: 0 every day answered (stored, no sales, or not published yet); 1 a day's answer \
            was unusable or Apple's limit stopped the fetch (the next run fetches what is missing); \
            2 configuration (including Apple's 401 and 403); 74 the database failed.

            Examples:
              subrecon apple-reports fetch
              subrecon apple-reports fetch --since 2026-08-01 --until 2026-11-01
            """)

    @OptionGroup var global: GlobalOptions

    @Option(help: "First Pacific-time day, YYYY-MM-DD, inclusive (default: 7 days before --until).")
    var since: String?

    @Option(help: "Last Pacific-time day, exclusive (default: today in Pacific time).")
    var until: String?

    @Flag(help: "Ask for every day of the window, also those stored as final.")
    var refetch = false

    @Option(help: "The team App Store Connect API key (.p8) (SUBRECON_ASC_KEY_FILE).")
    var ascKeyFile: String?

    @Option(help: "That key's ID (SUBRECON_ASC_KEY_ID).")
    var ascKeyID: String?

    @Option(help: "The issuer ID (SUBRECON_ASC_ISSUER_ID).")
    var ascIssuerID: String?

    @Option(help: "The vendor number the reports belong to (SUBRECON_VENDOR_NUMBER).")
    var vendorNumber: String?

    @Option(help: "App Store Connect API base URL (SUBRECON_ASC_URL; default https://api.appstoreconnect.apple.com).")
    var ascURL: String?

    func run() async throws {
        let outcome = try await global.context().fetchAppleReports(
            since: since, until: until, refetch: refetch,
            flags: .init(keyFile: ascKeyFile, keyID: ascKeyID, issuerID: ascIssuerID, vendorNumber: vendorNumber, url: ascURL))
        try CommandEnded.with(outcome.exitStatus)
    }
}
