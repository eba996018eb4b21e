import ArgumentParser
import SubRecon
import SubReconAppStore
import SubReconModel
import SubReconStore

/// `subrecon run`: the nightly job.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Re-verify every due receipt with Apple and update subscriptions (the nightly job).",
        discussion: """
            Due receipts are those the due policy selects (see README: never-verified receipts are \
            always due). Exit 0: every receipt got a definitive answer; 1: some did not and stay \
            due; 2: configuration error, or Apple answered 21004/21000 (verifyReceipt) or 401 \
            (App Store Server API: the key was refused).

            Examples:
              SUBRECON_SHARED_SECRET_FILE=/etc/subrecon/secret subrecon run
              subrecon run --dry-run --limit 100
              subrecon run --all --concurrency 64
              subrecon run --apple-api server-api   (key, key ID, issuer, bundle: see README)
              subrecon run --apple-api server-api --refill-ledger   (once, after moving to server-api)
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var verification: VerificationOptions

    @Flag(help: "Verify every stored receipt, due or not.")
    var all = false

    @Flag(help: "Verify and print what would change, but write nothing.")
    var dryRun = false

    @Option(
        name: .customLong("claim-timeout"),
        help: "PostgreSQL: seconds a claimed receipt stays this worker's unless renewed (SUBRECON_CLAIM_TIMEOUT; default 120).")
    var claimTimeout: Int?

    @Flag(help: ArgumentHelp(
        "App Store Server API: read every receipt's whole transaction history again and fill the ledger's prices and refunds.",
        discussion: "For a database reconciled through verifyReceipt (or before the ledger existed). Paced by the rate budget; several workers may share it on PostgreSQL; killed half-way, run it again to continue."))
    var refillLedger = false

    @Option(help: "Verify at most this many receipts.")
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
        let logger = global.makeLogger()
        let job = try await verification.liveJob(global, logger: logger, claimTimeoutSeconds: claimTimeout)
        let database = job.store
        var observers: [any RunObserver] = [global.progressReporter(logger: logger)]
        if dryRun { observers.append(DryRunPrinter()) }
        if refillLedger {
            guard job.settings.appleAPI == .serverAPI else {
                Console.error("--refill-ledger reads Apple's signed transaction history: it needs the App Store Server API (--apple-api server-api or SUBRECON_APPLE_API=server-api); verifyReceipt gives no prices")
                throw ExitCode(.configuration)
            }
            do {
                let start = try await database.startLedgerRefill(nowMs: ReconciliationJob.wallClockMs())
                Console.out(
                    start.resumed
                        ? "ledger refill: continuing the refill under way (\(start.receiptsMarked) receipts in all)\n"
                        : "ledger refill: \(start.receiptsMarked) receipts will read their whole transaction history\n")
            } catch {
                Console.error(error.description)
                throw ExitCode(.databaseFailed)
            }
        }
        let summary: RunSummary
        do {
            summary = try await job.run(
                .init(kind: .nightly, selection: all ? .all : .due, limit: limit, dryRun: dryRun), observers: observers)
        } catch {
            Console.error(error.description)
            throw ExitCode(error.exitCode)
        }
        if let problem = summary.stoppedBy { Console.error(problem.description) }
        Console.out(summary.line + "\n")
        // A run may have found the subscription of a notification that arrived before its receipt.
        if !dryRun, summary.count(.updated) > 0 {
            let linked = await NotificationProcessor.linkAfterImport(store: database, environment: global.environment, logger: logger)
            if linked > 0 { logger.notice("linked \(linked) waiting notification(s) to their receipts") }
        }
        if let path = metricsFile ?? global.environment["SUBRECON_METRICS_FILE"], !path.isEmpty, !dryRun {
            do {
                try await MetricsFile.write(to: path, summary: summary, store: database)
            } catch {
                Console.error("metrics: \(error)")
            }
        }
        if refillLedger, summary.exitCode == 0, summary.stoppedBy == nil {
            do {
                try await database.finishLedgerRefill(nowMs: ReconciliationJob.wallClockMs())
                Console.out("ledger refill: done\n")
            } catch {
                Console.error(error.description)
                throw ExitCode(.databaseFailed)
            }
        } else if refillLedger {
            Console.out("ledger refill: not finished; run the same command again to continue\n")
        }
        if summary.exitCode != 0 { throw ExitCode(summary.exitCode) }
    }
}
