import ArgumentParser
import SubRecon

/// `subrecon run`: the nightly job.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Re-verify every due receipt with Apple and update subscriptions (the nightly job).",
        discussion: """
            Due receipts are those the due policy selects (see README: never-verified receipts are \
            always due). Exit 0: every receipt got a definitive answer; 1: some did not and stay \
            due; 2: configuration error, or Apple answered 21004/21000 (verifyReceipt) or 401 \
            (App Store Server API: the key was refused); 130/143: stopped by SIGINT/SIGTERM.

            Examples:
              SUBRECON_SHARED_SECRET_FILE=/etc/subrecon/secret subrecon run
              subrecon run --dry-run --limit 100
              subrecon run --all --concurrency 64
              subrecon run --apple-api server-api    # with the key's settings: README
              subrecon run --apple-api server-api --refill-ledger   # once, after the move
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var verification: VerificationOptions

    @Flag(help: "Verify every stored receipt, due or not.")
    var all = false

    @Flag(help: "Verify and print what would change, but write nothing.")
    var dryRun = false

    @Option(
        name: .customLong("claim-timeout"), parsing: .unconditional,
        help: "PostgreSQL: seconds a claimed receipt stays this worker's unless renewed (SUBRECON_CLAIM_TIMEOUT; default 120).")
    var claimTimeout: Int?

    @Flag(help: ArgumentHelp(
        "App Store Server API: read every receipt's whole transaction history again and fill the ledger's prices and refunds.",
        discussion: "For a database reconciled through verifyReceipt (or before the ledger existed). Paced by the rate budget; several workers may share it on PostgreSQL; killed half-way, run it again to continue."))
    var refillLedger = false

    @Option(parsing: .unconditional, help: "Verify at most this many receipts.")
    var limit: Int?

    @Option(help: "Write Prometheus metrics here at the end of the run, atomically (SUBRECON_METRICS_FILE).")
    var metricsFile: String?

    func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1, not \(limit)") }
        if let claimTimeout, claimTimeout < 1 { throw ValidationError("--claim-timeout must be at least 1 second, not \(claimTimeout)") }
        if refillLedger, all || dryRun || limit != nil {
            throw ValidationError("--refill-ledger reaches every receipt and writes: it takes neither --all, --dry-run nor --limit")
        }
    }

    func run() async throws {
        let summary = try await global.context().nightlyRun(
            .init(
                all: all, dryRun: dryRun, limit: limit, claimTimeoutSeconds: claimTimeout, refillLedger: refillLedger,
                metricsFile: metricsFile),
            flags: verification.flags)
        try CommandEnded.with(summary.exitStatus)
    }
}
