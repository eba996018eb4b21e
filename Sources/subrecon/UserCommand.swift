import ArgumentParser
import SubRecon

/// `subrecon user USER_ID`: support's "I paid but my subscription is gone".
struct UserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user",
        abstract: "Re-verify all receipts of one user now and show their subscriptions before and after.",
        discussion: """
            Ignores the due policy and does not take the run lock, so it may run beside the nightly
            job. Recorded as a run of kind `user`. Unknown user: exit 2.

            Examples:
              subrecon user 8f14e45f
              subrecon user 8f14e45f --dry-run
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var verification: VerificationOptions

    @Argument(help: "The app's user id, as imported.")
    var userID: String

    @Flag(help: "Verify and print what would change, but write nothing.")
    var dryRun = false

    func run() async throws {
        let logger = global.makeLogger()
        let settings = try verification.settings(global)
        let database = try global.openDatabase()
        let stopSignal = StopSignal()
        stopSignal.installSignalHandlers()
        let job = ReconciliationJob(
            settings: settings, database: database, clock: { ReconciliationJob.wallClockMs() },
            stopSignal: stopSignal, logger: logger)
        let dryRun = self.dryRun
        do {
            guard try await database.countReceipts(.user(userID), nowMs: 0) > 0 else {
                Console.error(ConfigurationError.unknownUser(userID).description)
                throw ExitCode(2)
            }
            let before = try await database.subscriptions(ofUser: userID)
            let collector = UpdateCollector()
            let summary = try await job.run(.init(kind: .user, selection: .user(userID), dryRun: dryRun)) { update in
                collector.append(update)
            }
            let after = dryRun ? collector.projected(before: before) : try await database.subscriptions(ofUser: userID)
            Console.out("user \(userID)\(dryRun ? " (dry run: nothing written)" : "")\n")
            for item in collector.items {
                Console.out(
                    "  receipt \(item.receiptID): \(item.outcome.rawValue), Apple status \(item.appleStatus.map(String.init) ?? "none")"
                        + (item.message.map { " — \($0)" } ?? "") + "\n")
            }
            Console.out("\n" + SubscriptionTable.render(before: before, after: after))
            if let problem = summary.stoppedBy { Console.error(problem.description) }
            if summary.exitCode != 0 { throw ExitCode(summary.exitCode) }
        } catch let error as StoreError {
            Console.error(error.description)
            throw ExitCode(74)
        } catch let error as RunFailure {
            Console.error(error.description)
            throw ExitCode(error.exitCode)
        }
    }
}
