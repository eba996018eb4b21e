import Logging
import SubReconModel
import SubReconStore

extension CommandContext {
    /// What `subrecon run` asks for, besides the settings.
    public struct RunRequest: Sendable {
        /// Every stored receipt, due or not.
        public var all: Bool
        public var dryRun: Bool
        public var limit: Int?
        /// PostgreSQL: seconds a claim lasts unless renewed (`--claim-timeout`).
        public var claimTimeoutSeconds: Int?
        /// Read every receipt's whole transaction history again (`--refill-ledger`).
        public var refillLedger: Bool
        /// `--metrics-file` (else SUBRECON_METRICS_FILE).
        public var metricsFile: String?

        public init(
            all: Bool = false, dryRun: Bool = false, limit: Int? = nil, claimTimeoutSeconds: Int? = nil,
            refillLedger: Bool = false, metricsFile: String? = nil
        ) {
            self.all = all
            self.dryRun = dryRun
            self.limit = limit
            self.claimTimeoutSeconds = claimTimeoutSeconds
            self.refillLedger = refillLedger
            self.metricsFile = metricsFile
        }
    }

    /// `subrecon run`, the nightly job: the run with its progress (and a dry run's lines), then
    /// what follows a run: purchases carrying another user's token are linked to that user,
    /// notifications waiting for a receipt it found are linked, the metrics
    /// file is written, a ledger refill is finished. Prints the summary line as it happens; the
    /// summary's `exitStatus` is the command's.
    public func nightlyRun(_ request: RunRequest, flags: Settings.Flags) async throws -> RunSummary {
        let retention = try EventRetention(environment: environment)
        // A dry run writes nothing, so it creates no database either: a missing one is refused.
        let job = try await liveWiring(
            flags, ifMissing: request.dryRun ? .refuse : .create, claimTimeoutSeconds: request.claimTimeoutSeconds)
        let store = job.store
        let interval = environment["SUBRECON_PROGRESS_INTERVAL"].flatMap(Double.init) ?? 30
        var observers: [any RunObserver] = [
            ProgressReporter(isTerminal: ProgressReporter.standardErrorIsTerminal, interval: interval, logger: logger)
        ]
        if request.dryRun { observers.append(DryRunPrinter(output: output)) }
        if request.refillLedger {
            guard job.settings.appleAPI == .serverAPI else {
                throw ConfigurationError.other(
                    "--refill-ledger reads Apple's signed transaction history: it needs the App Store Server API (--apple-api server-api or SUBRECON_APPLE_API=server-api); verifyReceipt gives no prices")
            }
            let start: LedgerRefillStart
            do {
                start = try await store.startLedgerRefill(nowMs: clock())
            } catch {
                throw DatabaseFailure(error)
            }
            output.out(
                start.resumed
                    ? "ledger refill: continuing the refill under way (\(start.receiptsMarked) receipts in all)\n"
                    : "ledger refill: \(start.receiptsMarked) receipts will read their whole transaction history\n")
        }
        let summary = try await job.run(
            .init(kind: .nightly, selection: request.all ? .all : .due, limit: request.limit, dryRun: request.dryRun),
            observers: observers)
        // Why Apple stopped the run (21004, 21000, 401) was logged once as it happened.
        output.out(summary.line + "\n")
        // A purchase whose token another user registered is theirs too (server-api apps).
        if !request.dryRun, let runID = summary.runID, summary.count(.updated) > 0 {
            do {
                let linked = try await TokenHolderLinker(job: job, logger: logger).link(afterRun: runID)
                if linked.purchases > 0 {
                    logger.notice(
                        "linked \(linked.purchases) purchase(s) to \(linked.users.count) user(s) by their app account token",
                        source: Self.logSource)
                }
            } catch {
                logger.warning("purchases carrying another user's app account token were not linked yet: \(error)", source: Self.logSource)
            }
        }
        // A run may have found the subscription of a notification that arrived before its receipt.
        if !request.dryRun, summary.count(.updated) > 0 {
            let linked = await NotificationProcessor.linkAfterImport(
                store: store, environment: environment, appsFile: appsFileFlag, logger: logger)
            if linked > 0 { logger.notice("linked \(linked) waiting notification(s) to their receipts", source: Self.logSource) }
        }
        // Retention: delivered, dead and skipped events past SUBRECON_EVENT_RETENTION_DAYS go, even
        // after a run with nothing due.
        if !request.dryRun {
            do {
                let removed = try await store.removeSettledEvents(createdBefore: retention.cutoff(nowMs: clock()))
                if removed > 0 { logger.info("removed \(removed) delivered, dead or skipped event(s) past retention", source: Self.logSource) }
            } catch {
                logger.warning("events past retention were not removed: \(error)", source: Self.logSource)
            }
        }
        if let path = request.metricsFile ?? environment["SUBRECON_METRICS_FILE"], !path.isEmpty, !request.dryRun {
            do {
                try await MetricsFile.write(
                    to: path, summary: summary, store: store, events: try eventDestinations(job.settings.webhooks))
            } catch {
                output.message("metrics: \(error)")
            }
        }
        if request.refillLedger, summary.exitStatus == .success, summary.stoppedBy == nil {
            do {
                try await store.finishLedgerRefill(nowMs: clock())
            } catch {
                throw DatabaseFailure(error)
            }
            output.out("ledger refill: done\n")
        } else if request.refillLedger {
            output.out("ledger refill: not finished; run the same command again to continue\n")
        }
        return summary
    }
}
